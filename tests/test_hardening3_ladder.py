"""A ladder's parts are a function of its spec and seed: two uninterrupted runs write the same bytes, however fast
the machine plays (the automatic batch size counts the core's work; it was timed, so a loaded machine cut the
line-ups into other parts)."""

import hashlib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app

runner = CliRunner()
BOTS = "heuristic,mcts:iterations=8:depth=8"       # the search bot's line-ups take several parts of 500 games


def files(out: Path) -> dict[str, str]:
    """Every part file by its path in the folder: the SHA-256 of its bytes."""
    return {str(p.relative_to(out)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(out.rglob("*.parquet"))}


@pytest.mark.slow       # CI: 5 s of ladder runs
def test_two_runs_of_a_ladder_write_the_same_parts_on_a_fast_and_a_slow_machine(tmp_path, monkeypatch):
    runs = {}
    for machine, seconds in (("fast", 0.005), ("slow", 0.02)):        # what a timing would have seen
        monkeypatch.setattr("cluster.ladder.seconds_per_game",
                            lambda g, rules, overrides, setup, bots, seed, engine, s=seconds: {b: s for b in bots})
        out = tmp_path / machine
        res = runner.invoke(app, ["ladder", "paws", "--bots", BOTS, "--games", "500", "--seed", "4", "--out", str(out),
                                  "--no-progress"])
        assert res.exit_code == 0, res.output
        runs[machine] = out
    fast, slow = files(runs["fast"]), files(runs["slow"])
    assert len(fast) > 2, sorted(fast)                           # each line-up in more than one part
    assert fast == slow
    assert (runs["fast"] / "ladder.toml").read_text() == (runs["slow"] / "ladder.toml").read_text()
