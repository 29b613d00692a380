"""The playtest CLI as a designer uses it: play, run, query; bad input is refused before any work."""

import json

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from sim.cli import app

runner = CliRunner()


def test_play_prints_a_readable_log_ending_in_the_result():
    res = runner.invoke(app, ["play", "paws", "--rules", "v4", "--board", "beginner", "--players", "4", "--seed", "7"])
    assert res.exit_code == 0, res.output
    out = res.output
    assert "== Paws in Peril v4, beginner board, ffa, 4 players" in out
    assert "round 1, P" in out and "roll 1:" in out and "moves to cell" in out
    last = out.strip().splitlines()[-1]
    assert last.startswith("result: ") and "winner seat" in last


def test_play_json_is_the_record_of_both_engines():
    a = runner.invoke(app, ["play", "paws", "--seed", "3", "--game-index", "5", "--json"])
    b = runner.invoke(app, ["play", "paws", "--seed", "3", "--game-index", "5", "--json", "--engine", "reference"])
    assert a.exit_code == b.exit_code == 0
    ra, rb = json.loads(a.output), json.loads(b.output)
    assert ra == rb and ra["game_index"] == 5 and ra["seed"] == 3 and ra["end_reason"] in ("vp", "last_alive")


def test_run_writes_parquet_with_the_record_schema(tmp_path):
    out = tmp_path / "r.parquet"
    res = runner.invoke(app, ["run", "paws", "--games", "300", "--seed", "1", "--mode", "teams",
                              "--bots", "heuristic,random,heuristic:aggression=5,random",
                              "--set", "round_limit=20", "--out", str(out)])
    assert res.exit_code == 0, res.output
    t = pq.read_table(out)
    from sim.paws.record import SCHEMA
    assert t.schema.equals(SCHEMA, check_metadata=False) and t.num_rows == 300
    assert set(t.column("round_limit").to_pylist()) == {20}
    assert t.column("bots")[0].as_py() == ["heuristic", "random", "heuristic:aggression=5", "random"]
    assert pq.read_metadata(out).metadata[b"playtest.seed"] == b"1"


def test_query_answers_the_round_limit_question(tmp_path):
    out = tmp_path / "r.parquet"
    assert runner.invoke(app, ["run", "paws", "--games", "400", "--seed", "2", "--out", str(out)]).exit_code == 0
    res = runner.invoke(app, ["query", "queries/round_limit.sql", "--data", str(out)])
    assert res.exit_code == 0, res.output
    assert "ended_by_limit" in res.output and "400" in res.output


@pytest.mark.parametrize("args, needle", [
    (["play", "chess"], "unknown game 'chess'; expected one of paws"),
    (["play", "paws", "--rules", "v9"], "valid rule sets: v3, v3-ap3, v4"),
    (["play", "paws", "--set", "round_limt=20"], "unknown rule parameter 'round_limt'"),
    (["play", "paws", "--set", "lives=0"], "lives = '0' is not allowed; expected an integer from 1 to 9"),
    (["play", "paws", "--players", "5"], "players = 5 is not allowed"),
    (["play", "paws", "--bots", "heuristic,random"], "bots: 2 given for 4 players"),
    (["play", "paws", "--bots", "genius"], "unknown bot 'genius'"),
    (["play", "paws", "--engine", "gpu"], "engine 'gpu' is not available; expected one of core, reference"),
    (["play", "paws", "--items", "/nonexistent/items.toml"], "/nonexistent/items.toml: cannot read the card file"),
    (["run", "paws", "--games", "0", "--out", "x.parquet"], "--games 0 is out of range; expected an integer from 1"),
    (["play", "tales", "--data", "monsters=m.toml"],
     "--data: unknown tales data file 'monsters'; valid: creatures, equipment"),
    (["query", "nothing.sql", "--data", "x.parquet"], "nothing.sql: no such SQL file"),
])
def test_bad_input_is_one_clear_line_and_exit_code_2(args, needle, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path) if args[0] == "run" else None
    res = runner.invoke(app, args)
    assert res.exit_code == 2
    assert needle in " ".join(res.output.split())
    assert "Traceback" not in res.output
