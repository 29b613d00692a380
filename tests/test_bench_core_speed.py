"""``playtest bench --core-speed``: the core's speed against a baseline build, measured in one run."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app
from sim.games import get

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()


def test_core_reports_its_playing_time_apart_from_the_table():
    """engine_s is the processor time of playing alone: more than nothing, less than the whole call."""
    import time
    g = get("paws")
    m = g.resolve("v4", {}, {"board": "beginner", "players": 4})
    t0 = time.process_time()
    _, counts = g.play_counted(m, 1, 0, 300)
    whole = time.process_time() - t0
    assert 0 < counts["engine_s"] <= whole
    assert counts["decisions"] > 300 and counts["rollouts"] == 0


@pytest.mark.slow
def test_core_speed_against_itself_as_baseline(tmp_path):
    """This checkout as its own baseline: both builds measured, the same records by hash, a ratio per
    measure, JSON and Markdown written."""
    out = tmp_path / "speed.json"
    res = runner.invoke(app, ["bench", "--core-speed", "--baseline", str(ROOT), "--rounds", "1", "--games", "150",
                              "--random-games", "40", "--bots", "flat:rollouts=2:depth=4", "--bot-games", "1",
                              "--out", str(out)])
    assert res.exit_code == 0, res.output
    report = json.loads(out.read_text())
    cur, base = report["current"], report["baseline"]
    assert report["identical_records"] is True and report["preset"] == "paws v4 beginner 4p"
    for r in (cur, base):
        assert r["heuristic_games_per_s"] > 0 and r["heuristic_turns_per_s"] > r["heuristic_games_per_s"]
        assert r["random_turns_per_s"] > 0 and 0 <= r["heuristic_table_share"] < 1
        assert [s["bots"] for s in r["search"]] == ["flat:rollouts=2:depth=4"] and r["search"][0]["rollouts_per_s"] > 0
    assert cur["records_sha256"] == base["records_sha256"]
    # the game's engine options, measured beside the default (other games: other records)
    assert set(cur["options"]) == set(get("paws").bench_engine_options) == {"dice_stream=table"}
    table = cur["options"]["dice_stream=table"]
    assert table["heuristic_games_per_s"] > 0 and table["random_turns_per_s"] > 0
    assert table["records_sha256"]["heuristic"] != cur["records_sha256"]["heuristic"]
    md = out.with_suffix(".md").read_text()
    assert "| heuristic games/s, dice_stream=table |" in md
    assert "| heuristic turns/s |" in md and "Same records as the baseline: yes" in md


@pytest.mark.parametrize("args, needle", [
    (["--core-speed", "--baseline", "no/such/checkout"], "--baseline no/such/checkout: not a playtest checkout"),
    (["--baseline", "."], "--baseline: only with --core-speed"),
    (["--core-speed", "--rounds", "0"], "--rounds 0 is out of range"),
    (["--core-speed", "--random-games", "0"], "--random-games 0 is out of range"),
])
def test_bad_core_speed_input_is_one_line_and_writes_nothing(args, needle, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = runner.invoke(app, ["bench", *args])
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert res.exit_code == 2, res.output
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], lines
    assert list(tmp_path.iterdir()) == []


def test_a_baseline_without_a_built_core_is_refused(tmp_path, monkeypatch):
    """A checkout whose core was never built: said before any game is played."""
    (tmp_path / "base" / "sim").mkdir(parents=True)
    (tmp_path / "base" / "sim" / "games.py").write_text("")
    (tmp_path / "base" / "core").mkdir()
    monkeypatch.chdir(tmp_path)
    res = runner.invoke(app, ["bench", "--core-speed", "--baseline", "base"])
    assert res.exit_code == 2, res.output
    assert "--baseline base: its core is not built" in res.stderr
    assert not (tmp_path / "bench").exists()


def test_same_games_are_compared_over_the_columns_both_builds_record():
    from infra.bench import _same_games

    def rates(columns):
        return {"columns_sha256": {"heuristic": columns, "random": columns}, "search": []}
    old = {"turns": "a", "winner_seat": "b"}
    assert _same_games(rates({**old, "dice_stream": "c"}), rates(old)) == (True, ["dice_stream"], [])
    assert _same_games(rates({"turns": "a", "winner_seat": "x", "dice_stream": "c"}), rates(old))[0] is False
    assert _same_games(rates({"turns": "a"}), rates(old)) == (True, [], ["winner_seat"])
