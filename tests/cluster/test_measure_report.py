"""The measures in ``playtest report`` and ``playtest compare`` (docs/report.md, docs/tension.md): tension per cell
from a sweep's win_prob table (equal to the per-game definition on the stored curves), its two compare rows; a
restricted-play or card-worth folder's page is the measure's answer; a kingmaking sweep's report gains its
section. Pages opened in headless Chromium."""

from __future__ import annotations

import numpy as np
import pyarrow.dataset as ds
import pytest
from typer.testing import CliRunner

from cli.main import app
from measures.tension import trace as tq

runner = CliRunner()

SPEC = """name = "{name}"
game = "paws"
seed = 3
games_per_cell = 300
tables = ["games", "win_prob"]
[setup]
board = "beginner"
bots = "heuristic"
[grid]
players = {players}
{extra}"""


def _sweep(tmp_path, name: str, players: str, extra: str = ""):
    spec = tmp_path / f"{name}.toml"
    spec.write_text(SPEC.format(name=name, players=players, extra=extra))
    out = tmp_path / name
    res = runner.invoke(app, ["sweep", str(spec), "--out", str(out)])
    assert res.exit_code == 0, res.output
    return out


def _curves(out, cell: str) -> dict:
    """Per game: (its side curve over the turns, the winning side, each turn's round, the side whose turn begins),
    read from the parts with pyarrow."""
    wp = ds.dataset(out / "win_prob" / f"cell={cell}").to_table().to_pylist()
    games = {g["game_index"]: g for g in ds.dataset(out / "games" / f"cell={cell}").to_table(
        columns=["game_index", "mode", "players", "winner_seat", "winner_team"]).to_pylist()}
    rows: dict[int, list] = {}
    for r in sorted(wp, key=lambda r: (r["game_index"], r["turn"])):
        if r["seat"] >= 0:
            rows.setdefault(r["game_index"], []).append((r["chances"], r["round"], r["seat"]))
    out_ = {}
    for gi, t in rows.items():
        g = games[gi]
        assert g["mode"] != "teams"                         # one side per seat
        out_[gi] = (np.array([c for c, _, _ in t], dtype=float), g["winner_seat"],
                    np.array([x for _, x, _ in t], dtype=float), np.array([s for _, _, s in t], dtype=np.int64))
    return out_


@pytest.mark.slow       # CI: 9 s; the fast loop draws tension's page in test_tension.py
@pytest.mark.browser
def test_the_report_shows_tension_per_cell_as_the_stored_curves_define_it(tmp_path):
    from test_report import open_page
    out = _sweep(tmp_path, "tension", "[2, 4]")
    page = tmp_path / "page.html"
    res = runner.invoke(app, ["report", str(out), "--out", str(page)])
    assert res.exit_code == 0, res.output
    assert res.output.count("tension: decided in the first half") == 2
    found = open_page(page, tmp_path / "page.png")
    assert not found["errors"] and "tension" in found["sections"] and found["decoded"] == found["images"]
    assert "Is it tense to the end?" in found["text"] and "players=4" in found["text"]
    # the page's numbers are the per-game definition applied to the stored curves recalibrated on the cell's
    # own won games (the cross-fit, recomputed game by game in Python)
    from queries import report as rep
    from test_tension import recalibrated
    from measures.answers import PER_CELL
    r = rep.read(str(out), per_cell=PER_CELL)
    for cell in r.cells:
        curves = _curves(out, cell.id)
        ms = [tq.game_measures(c, curves[gi][1], c.shape[1]) for gi, c in recalibrated(curves).items()]
        assert cell.measures["tension"]["calibration"]["passed"]
        assert cell.measures["tension"]["games"] == len(curves) == cell.games
        assert cell.measures["tension"]["won"] == len(ms)
        assert np.isclose(cell.measures["tension"]["lowest_chance_of_winner"]["mean"], np.mean([m["lowest"] for m in ms]))
        assert np.isclose(cell.measures["tension"]["leader_changes"]["mean"], np.mean([m["leader_changes"] for m in ms]))
        assert cell.measures["tension"]["comebacks"]["count"] == sum(m["comeback"] for m in ms)
        assert f"{r.games:,}" in found["text"]


def test_compare_adds_tension_rows_paired_on_the_same_games(tmp_path):
    a = _sweep(tmp_path, "a", "[4]")
    b = _sweep(tmp_path, "b", "[4]", "[overrides]\nround_limit = 10\n")
    res = runner.invoke(app, ["compare", str(a), str(b)])
    assert res.exit_code == 0, res.output
    assert "won games decided in their first half" in res.output and "won games with a comeback" in res.output
    plain = tmp_path / "plain.toml"
    plain.write_text(SPEC.format(name="plain", players="[4]", extra="").replace(', "win_prob"', ""))
    res = runner.invoke(app, ["sweep", str(plain), "--out", str(tmp_path / "plain")])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["compare", str(tmp_path / "plain"), str(b)])
    assert res.exit_code == 0 and "comeback" not in res.output      # one side without the table: no tension row


def test_compare_says_the_refusal_where_tension_refused_a_cell(tmp_path):
    # 120 games a cell: too few won games to calibrate the oracle there, so tension refuses both cells; compare
    # must say so instead of counting their games as not won (which would read as a difference of 0 vs 0)
    a = _sweep(tmp_path, "a", "[4]")
    for name, extra in (("small_a", ""), ("small_b", "[overrides]\nround_limit = 10\n")):
        spec = tmp_path / f"{name}.toml"
        spec.write_text(SPEC.format(name=name, players="[4]", extra=extra).replace("games_per_cell = 300",
                                                                                   "games_per_cell = 120"))
        assert runner.invoke(app, ["sweep", str(spec), "--out", str(tmp_path / name)]).exit_code == 0
    res = runner.invoke(app, ["compare", str(tmp_path / "small_a"), str(tmp_path / "small_b")])
    assert res.exit_code == 0, res.output
    assert "comeback" not in res.output and "decided in their first half" not in res.output
    assert "no tension rows (A: tension refused:" in res.output and "B: tension refused:" in res.output
    assert "too few to calibrate" in res.output
    # one side refused, the other calibrated: still no tension rows, and only the refused side's line
    res = runner.invoke(app, ["compare", str(a), str(tmp_path / "small_b")])
    assert res.exit_code == 0, res.output
    assert "comeback" not in res.output and "no tension rows (B: tension refused:" in res.output
    assert "A: tension refused" not in res.output


@pytest.mark.browser
@pytest.mark.slow
def test_a_measure_folders_report_is_its_answer_and_kingmaking_adds_a_section(tmp_path):
    from test_report import open_page
    r = tmp_path / "restrict"
    res = runner.invoke(app, ["restrict", "tales", "--games", "60", "--out", str(r), "--quiet"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["report", str(r)])
    assert res.exit_code == 0, res.output
    assert "restricted play:" in res.output and "forbid equip: dominant" in res.output
    found = open_page(r / "report.html", tmp_path / "r.png")
    assert not found["errors"] and found["sections"][:2] == ["answer", "table"]
    assert "Bots, not people" in found["text"] and "dominant" in found["text"]
    k = tmp_path / "king"
    res = runner.invoke(app, ["kingmaker", "paws", "--players", "4", "--games", "40", "--out", str(k), "--quiet"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["report", str(k)])
    assert res.exit_code == 0 and "kingmaking:" in res.output, res.output
    found = open_page(k / "report.html", tmp_path / "k.png")
    assert not found["errors"] and "kingmaking" in found["sections"] and "wins" in found["sections"]
    c = tmp_path / "cards"
    res = runner.invoke(app, ["card-worth", "tales", "--games", "20", "--out", str(c), "--quiet"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["report", str(c)])
    assert res.exit_code == 0 and "card worth:" in res.output, res.output
    found = open_page(c / "report.html", tmp_path / "c.png")
    assert not found["errors"] and found["sections"] == ["card-worth"]
    assert "Every card, ranked by worth" in found["text"]
