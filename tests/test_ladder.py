"""``playtest ladder``: line-ups, bad input, and whole ladders on both games played on Ray (ratings, win
matrix, reproducibility, resume after an interruption, skill_depth and ``--by bots`` over the results)."""

import itertools
import json
import math
import shutil
import tempfile
from collections import Counter
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from typer.testing import CliRunner

import cluster.play
from cli.ladder import REPORT_NAME, SPEC_NAME, lineups
from cli.main import app
from cluster.manifest import load_manifest

runner = CliRunner()


def _text(res) -> str:
    return " ".join(res.output.split())


def test_heads_up_line_ups_are_every_pair_in_both_seat_orders():
    got = lineups(["a", "b", "c"], 2)
    assert got == [("a", "b"), ("b", "a"), ("a", "c"), ("c", "a"), ("b", "c"), ("c", "b")]


@pytest.mark.parametrize("bots, seats", [(list("abc"), 3), (list("abcde"), 3), (list("abcde"), 4)])
def test_more_seats_play_every_group_in_every_seat_order(bots, seats):
    got = lineups(bots, seats)
    assert len(got) == len(set(got)) == math.comb(len(bots), seats) * math.factorial(seats)
    per_seat = [Counter(lineup[s] for lineup in got) for s in range(seats)]
    assert all(c == per_seat[0] for c in per_seat) and set(per_seat[0]) == set(bots)
    assert len(set(per_seat[0].values())) == 1        # every bot equally often in each seat
    if seats == 4:        # teams of seats 0+2 and 1+3: every two bots meet on opposing sides
        opposed = {frozenset((x[a], x[b])) for x in got for a in (0, 2) for b in (1, 3)}
        assert opposed == {frozenset(p) for p in itertools.combinations(bots, 2)}


@pytest.mark.parametrize("args, needle", [
    (["ladder", "chess", "--bots", "random,heuristic"], "unknown game 'chess'"),
    (["ladder", "paws", "--bots", "random,genius"], "--bots: bot 'genius': unknown bot 'genius'"),
    (["ladder", "paws", "--bots", "random,heuristic:aggresion=3"], "unknown weight 'aggresion'"),
    (["ladder", "paws", "--bots", "random"], "a ladder needs at least 2 bots"),
    (["ladder", "paws", "--bots", "random,heuristic,random"], "'random' is listed twice"),
    (["ladder", "paws", "--bots", "random,,heuristic"], "an empty bot spec"),
    (["ladder", "paws", "--bots", "random,heuristic", "--games", "0"], "--games 0 is out of range"),
    (["ladder", "paws", "--bots", "random,heuristic", "--players", "3"], "a ladder of 3 seats needs at least 3"),
    (["ladder", "paws", "--bots", "random,heuristic", "--players", "5"], "players = 5 is not allowed"),
    (["ladder", "tales", "--bots", "random,heuristic,a,b", "--players", "4"], "--players 4: this tales setup seats 2"),
    (["ladder", "paws", "--bots", "random,heuristic", "--set", "lives=0"], "lives = '0' is not allowed"),
    (["ladder", "paws", "--bots", "random,heuristic", "--setup", "board=moon"], "board 'moon' is not allowed"),
    (["ladder", "paws", "--bots", "random,heuristic", "--setup", "bots=random"], "a ladder seats its --bots"),
    (["ladder", "paws", "--bots", "random,heuristic", "--rules", "v9"], "v9"),
    (["ladder", "paws", "--bots", ",".join(f"heuristic:aggression={a}:heal_threshold={h}" for a in range(11)
                                           for h in range(10)), "--players", "4"],
     "110 bots at 4 seats make 138,556,440 line-ups; one ladder plays at most 10,000"),
])
def test_bad_input_is_one_clear_line_and_exit_code_2_before_any_game(args, needle, tmp_path):
    out = tmp_path / "out"
    res = runner.invoke(app, [*args, "--out", str(out)])
    assert res.exit_code == 2, res.output
    assert needle in _text(res) and "Traceback" not in res.output
    assert not out.exists()              # nothing written, nothing played


def test_the_automatic_batch_size_keeps_parts_of_slow_bots_short(monkeypatch):
    """Parts of about 2,000,000 units of work (about 2 s on one core): 10,000 units a game gives parts of 200 games;
    cheap games the usual 40,000 (at most: a line-up of 100,000 games in 3 equal parts). The work is the core's
    counts, so the size is the same on any machine."""
    from cli.ladder import probe_batch_size
    from cluster import ladder as lad
    from sim.games import get
    g = get("paws")
    line = lineups(["random", "heuristic"], 2)
    real = type(g).play_counted
    per_game = {"decisions": 0}

    def counted(self, match, seed, start, count):          # each game counts per_game decisions
        tables, _ = real(self, match, seed, start, count)
        return tables, {"decisions": per_game["decisions"] * count, "rollouts": 0}
    monkeypatch.setattr(type(g), "play_counted", counted)
    per_game["decisions"] = (10_000 - lad.WORK_PER_GAME) / lad.WORK["decisions"]
    assert probe_batch_size(g, None, {}, {"players": 2}, ["random", "heuristic"], line, 1, 1000) == 200
    assert probe_batch_size(g, None, {}, {"players": 2}, ["random", "heuristic"], line, 1, 500) == 167
    per_game["decisions"] = 10
    assert probe_batch_size(g, None, {}, {"players": 2}, ["random", "heuristic"], line, 1, 100_000) == 33_334


class _Played(Exception):
    """Raised instead of playing: the input was accepted."""


@settings(max_examples=examples(60), deadline=None)
@given(st.text(alphabet="randomheuistc:=,5 ", max_size=40))
def test_any_bots_text_is_accepted_or_one_line_and_exit_2(text):
    def accepted(spec, *args, **kwargs):
        raise _Played(spec)
    out = Path(tempfile.mkdtemp()) / "out"
    try:
        with mock.patch("cli.ladder.play_spec", accepted):
            res = runner.invoke(app, ["ladder", "paws", "--bots", text, "--games", "3", "--batch-size", "3",
                                      "--out", str(out)])
    finally:
        shutil.rmtree(out.parent)
    if isinstance(res.exception, _Played):          # only a field of 2+ distinct valid specs gets this far
        specs = [b.strip() for b in text.split(",")]
        assert len(specs) >= 2 and len(set(specs)) == len(specs)
        return
    assert res.exit_code == 2, (text, res.output)
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:") and "Traceback" not in res.output


def test_a_folder_holding_something_else_is_refused_without_resume(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    res = runner.invoke(app, ["ladder", "paws", "--bots", "random,heuristic", "--out", str(tmp_path)])
    assert res.exit_code == 2 and "not empty; pass --resume" in _text(res)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_skill_depth_refuses_results_that_are_not_a_ladder(tmp_path):
    out = tmp_path / "r.parquet"
    assert runner.invoke(app, ["run", "paws", "--games", "40", "--players", "2", "--out", str(out)]).exit_code == 0
    res = runner.invoke(app, ["query", "skill_depth", str(out)])
    assert res.exit_code == 2, res.output
    assert "is not a ladder's results: 40 of its 40 games seat one bot spec twice" in _text(res)
    res = runner.invoke(app, ["query", "win_matrix", str(out), "--by", "colour"])
    assert res.exit_code == 2 and "--by 'colour': not a variant column of these results" in _text(res)


# ---------------------------------------------------------------------------------------------------
# Whole ladders on Ray
# ---------------------------------------------------------------------------------------------------

FIELDS = {"paws": "random,heuristic,heuristic:aggression=5", "tales": "random,heuristic,heuristic:aggression=4"}


def _ladder(game, out, *extra, games=240):
    res = runner.invoke(app, ["ladder", game, "--bots", FIELDS[game], "--games", str(games), "--seed", "5",
                              "--batch-size", "80", "--out", str(out), "--no-progress", *extra])
    return res


@pytest.fixture(scope="module")
def ladders(ray_local, tmp_path_factory):
    """One ladder per game (3 bots, 240 games per line-up, parts of 80)."""
    out = {}
    for game in FIELDS:
        d = tmp_path_factory.mktemp(game) / "ladder"
        res = _ladder(game, d)
        assert res.exit_code == 0, res.output
        out[game] = (d, res)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(FIELDS))
def test_the_heuristic_is_rated_above_random_and_the_win_matrix_is_consistent(ladders, game):
    out, res = ladders[game]
    report = json.loads((out / REPORT_NAME).read_text())
    assert report["bots"] == FIELDS[game].split(",") and report["games"] == 6 * 240
    rated = {r["bot"]: r for r in report["ratings"]}
    assert rated["random"]["elo"] == 0
    assert rated["heuristic"]["ci95_low"] > 0, rated["heuristic"]
    assert all(r["games"] == 4 * 240 for r in rated.values())
    cells = {(m["bot"], m["opponent"]): m for m in report["win_matrix"]}
    assert len(cells) == 6
    for (a, b), m in cells.items():
        back = cells[(b, a)]
        assert m["games"] == back["games"] == 2 * 240          # both seat orders
        assert m["wins"] == back["losses"] and m["draws"] == back["draws"]
        assert m["share"] + back["share"] == pytest.approx(1 - m["draws"] / m["games"])
        assert m["ci95_low"] <= m["share"] <= m["ci95_high"]
    text = _text(res)
    assert f"heuristic is rated {abs(rated['heuristic']['elo']):.0f} Elo above random" in text
    assert "bots, not people" in text
    spec = (out / SPEC_NAME).read_text()
    assert spec.count("[[cells]]") == 6 and 'bots = "heuristic,random"' in spec.replace('"bots"', "bots")
    assert load_manifest(out)["state"] == "done"
    res = runner.invoke(app, ["status", str(out), "--verify"])       # the spec and the report are the sweep's own
    assert res.exit_code == 0 and "the folder is whole" in _text(res), res.output


@pytest.mark.slow
def test_the_same_seed_gives_the_same_ladder_json(ladders, tmp_path):
    out, _ = ladders["paws"]
    res = _ladder("paws", tmp_path / "again")
    assert res.exit_code == 0, res.output
    assert (tmp_path / "again" / REPORT_NAME).read_bytes() == (out / REPORT_NAME).read_bytes()


@pytest.mark.slow
def test_resume_after_an_interruption_finishes_identically(ladders, tmp_path, monkeypatch):
    out, _ = ladders["tales"]
    real = cluster.play.run_sweep                           # where every sweep command plays (cluster/play.py)
    played = []

    def interrupted(*args, **kwargs):
        def on_part(cell, batch):
            played.append((cell, batch))
            if len(played) == 3:
                raise KeyboardInterrupt
        return real(*args, **kwargs, on_part=on_part)
    monkeypatch.setattr(cluster.play, "run_sweep", interrupted)
    d = tmp_path / "cut"
    res = _ladder("tales", d)
    assert res.exit_code == 130 and "resume with: playtest ladder tales" in _text(res), res.output
    assert not (d / REPORT_NAME).exists()
    monkeypatch.setattr(cluster.play, "run_sweep", real)
    res = _ladder("tales", d)                                  # the same command without --resume is refused
    assert res.exit_code == 2 and "--resume" in _text(res)
    res = _ladder("tales", d, "--resume")
    assert res.exit_code == 0, res.output
    assert (d / REPORT_NAME).read_bytes() == (out / REPORT_NAME).read_bytes()
    res = _ladder("tales", d, "--resume", games=100)           # other settings: refused, nothing changed
    assert res.exit_code == 2 and "other settings (games_per_cell differ)" in _text(res)


@pytest.mark.slow
def test_skill_depth_and_by_bots_over_a_ladder(ladders):
    out, _ = ladders["paws"]
    res = runner.invoke(app, ["query", "skill_depth", str(out), "--format", "json"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)
    report = json.loads((out / REPORT_NAME).read_text())
    share = {(m["bot"], m["opponent"]): m for m in report["win_matrix"]}
    assert [(r["level"], r["bot"], r["opponent"]) for r in rows] == [
        (1, "heuristic", "random"), (2, "heuristic:aggression=5", "heuristic"),
        (2, "heuristic:aggression=5", "random")]
    for r in rows:
        m = share[(r["bot"], r["opponent"])]
        assert (r["games"], r["wins"], r["draws"]) == (m["games"], m["wins"], m["draws"])
        assert r["score"] == pytest.approx((m["wins"] + m["draws"] / 2) / m["games"])
    best = max((r for r in rows if r["opponent"] == "random"), key=lambda r: r["score"])
    res = runner.invoke(app, ["query", "skill_depth", "--results", str(out)])
    assert res.exit_code == 0 and f"the best bot against random, {best['bot']}, scores {best['score']:.1%}" \
        in _text(res)
    res = runner.invoke(app, ["query", "game_length", "--results", str(out), "--by", "bots", "--format", "json"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)
    assert len(rows) == 6 and len({tuple(r["bots"]) for r in rows}) == 6 and all(r["games"] == 240 for r in rows)
    assert "answered per bots, as asked (--by)" in _text(res)


@pytest.mark.slow
def test_two_ladders_of_other_rules_are_answered_per_rule_never_pooled(ladders, tmp_path):
    out, _ = ladders["paws"]
    other = tmp_path / "limit"
    assert _ladder("paws", other, "--set", "round_limit=6").exit_code == 0
    for name in ("skill_depth", "win_matrix"):
        res = runner.invoke(app, ["query", name, str(out), str(other), "--format", "json"])
        assert res.exit_code == 0, res.output
        rows = json.loads(res.stdout)
        assert "answered per round_limit" in _text(res) and {r["round_limit"] for r in rows} == {0, 6}
        for limit, folder in ((0, out), (6, other)):        # each variant's rows are that ladder's alone
            alone = json.loads(runner.invoke(app, ["query", name, str(folder), "--format", "json"]).stdout)
            assert [{k: v for k, v in r.items() if k != "round_limit"} for r in rows
                    if r["round_limit"] == limit] == alone


@pytest.mark.slow
def test_three_seats_play_every_seat_order_and_rate_with_bootstrap_intervals(ladders, tmp_path):
    out = tmp_path / "three"
    res = _ladder("paws", out, "--players", "3", games=80)
    assert res.exit_code == 0, res.output
    assert "6 line-ups (every 3 bots in every seat order)" in _text(res)
    report = json.loads((out / REPORT_NAME).read_text())
    assert report["seats"] == 3 and report["games"] == 6 * 80 and "bootstrap" in report["method"]["intervals"]
    rated = {r["bot"]: r for r in report["ratings"]}
    assert all(r["games"] == 6 * 80 and r["ci95_low"] <= r["elo"] <= r["ci95_high"] for r in rated.values())
    assert rated["random"]["elo"] == 0 and rated["heuristic"]["elo"] > 0
    cells = {(m["bot"], m["opponent"]): m for m in report["win_matrix"]}
    for (a, b), m in cells.items():        # a pair counts where one of the two won or nobody did
        assert m["wins"] == cells[(b, a)]["losses"] and m["games"] <= 6 * 80
        assert m["share"] + cells[(b, a)]["share"] == pytest.approx(1 - m["draws"] / m["games"])


@pytest.mark.parametrize("fits", [True, False])
def test_the_ladder_leads_with_the_head_to_head_when_one_rating_per_bot_does_not_fit(fits, capsys):
    """One rating per bot is an average: when the Bradley-Terry fit check fails (a field where some bot does
    better against one opponent than its rating says), the printout says so first and shows the matrix first."""
    from cli.ladder import _print
    from queries import intransitive, ratings
    scores = np.array([[0, 700, 300], [300, 0, 700], [700, 300, 0]], dtype=float) if not fits else \
        np.array([[0, 400, 300], [600, 0, 420], [700, 580, 0]], dtype=float)
    bots = ["random", "a", "b"]
    meetings = [{"bot": x, "opponent": y, "wins": scores[i, j], "draws": 0, "losses": scores[j, i]}
                for i, x in enumerate(bots) for j, y in enumerate(bots) if i != j]
    check = ratings.fit_check(scores)
    assert check["fits"] is fits
    report = {"game": "paws", "games": 3000, "seats": 2, "bots": bots, "anchor": "random",
              "ratings": ratings.ratings(bots, meetings, 0), "win_matrix": ratings.win_matrix(bots, meetings),
              "fit": {**check, "says": ratings.fit_line(check)},
              "intransitivity": intransitive.analyse(bots, meetings, replicates=20)}
    _print(report)
    out = capsys.readouterr().out
    verdict, matrix, table = (out.index("Bradley-Terry fit"), out.index("win share of the row bot"),
                              out.index("ladder: paws"))
    assert (verdict < matrix < table) is (not fits) and (table < verdict < matrix) is fits
    assert ("does NOT describe these games" in out) is (not fits) and "would win" in out
    # the rock-paper-scissors field is a cycle whose three bots share the equilibrium; the ladder is not
    assert ("not a ladder: random beats a beats b beats random" in out) is (not fits)
    assert ("which bots matter" in out and (("random 0.33" in out) is (not fits))
            and ("b 1.00" in out) is fits), out


@pytest.mark.slow
def test_a_ladder_of_a_learned_bot_names_its_model_by_digest(ray_local, tmp_path):
    """The records name a learned bot with its model's digest: the ladder rates it under that name (and a
    second spelling of the same model is the same bot, refused as listed twice)."""
    from sim.kit.learned import read_model, model_path
    from sim.games import get
    g = get("tales")
    digest = read_model(model_path(g.models_dir, "tales-2"), g.features).digest
    res = runner.invoke(app, ["ladder", "tales", "--bots", "random,learned:model=tales-2", "--games", "20",
                              "--out", str(tmp_path / "l"), "--no-progress"])
    assert res.exit_code == 0, res.output
    report = json.loads((tmp_path / "l" / REPORT_NAME).read_text())
    assert report["bots"] == ["random", f"learned:model=tales-2@{digest}"] and report["games"] == 40
    res = runner.invoke(app, ["ladder", "tales", "--bots", f"learned:model=tales-2,learned:model=tales-2@{digest}",
                              "--out", str(tmp_path / "m")])
    assert res.exit_code == 2 and "listed already" in res.stderr and not (tmp_path / "m").exists()
