"""``playtest query`` and ``playtest sql`` as a designer uses them; bad input is one clear line, exit code 2."""

import csv
import io
import json

import pytest
from typer.testing import CliRunner

from queries import connection, sqlfiles
from cli.main import app
from synthetic import write_synthetic, write_tales

runner = CliRunner()


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    return str(write_synthetic(tmp_path_factory.mktemp("synthetic")))


def ok(args):
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    return res.output


def test_list_names_every_query_with_its_question():
    out = ok(["query", "--list"])
    for q in sqlfiles.available():
        assert f"{q.name} [{q.game}]" in out and q.question[:40] in out
    assert "round_limit_effect [paws] (limits=15,20,25,30)" in out


def test_formats_carry_the_same_answer(synthetic):
    cols, rows = connection.run("stall_rate", [synthetic])
    as_json = json.loads(ok(["query", "stall_rate", "--results", synthetic, "--format", "json"]))
    assert as_json == [dict(zip(cols, r)) for r in rows]
    as_csv = list(csv.reader(io.StringIO(ok(["query", "stall_rate", "--results", synthetic, "--format", "csv"]))))
    assert as_csv[0] == cols and len(as_csv) == 1 + len(rows) and as_csv[1][:6] == ["v4", "beginner", "ffa", "4", "0", "10"]
    md = ok(["query", "stall_rate", "--results", synthetic, "--format", "markdown"]).splitlines()
    assert md[0] == "| " + " | ".join(cols) + " |" and md[2].startswith("| v4 | beginner | ffa | 4 | 0 | 10 | 2 | 0 | 0.2000 |")
    table = ok(["query", "stall_rate", "--results", synthetic])
    assert "stall_rate" in table and "0.2000" in table and "explorer" in table


def test_param_where_and_several_result_sets(synthetic, tmp_path):
    out = json.loads(ok(["query", "round_limit_effect", "--results", synthetic, "--param", "limits=3",
                         "--where", "mode = 'ffa'", "--format", "json"]))
    assert [(x["mode"], x["round_limit"], x["ended_by_limit"], x["draws"]) for x in out] == [("ffa", 3, 5, 2)]
    tales = str(write_tales(tmp_path / "t.parquet"))
    both = json.loads(ok(["sql", "SELECT game, count(*) AS n, count(cell) AS with_cell FROM games GROUP BY ALL ORDER BY 1",
                          "--results", synthetic, "--results", tales, "--format", "json"]))
    assert both == [{"game": "paws", "n": 18, "with_cell": 18}, {"game": "tales", "n": 4, "with_cell": 0}]
    bound = json.loads(ok(["sql", "SELECT count(*) AS n FROM games WHERE rounds > $r", "--results", synthetic,
                           "--param", "r=4", "--format", "json"]))
    assert bound == [{"n": 8}]       # A6 A7 A9, B0 B1 B2 B3, C3


def test_old_usage_sql_file_over_a_single_parquet_file_and_a_glob(tmp_path):
    out = tmp_path / "r.parquet"
    ok(["run", "paws", "--games", "300", "--seed", "4", "--players", "3", "--out", str(out)])
    table = ok(["query", "sim/paws/sql/queries/round_limit.sql", "--data", str(out), "--format", "csv"])
    rows = list(csv.reader(io.StringIO(table)))
    assert rows[0][:3] == ["round_limit", "games", "ended_by_limit"] and rows[1][:2] == ["10", "300"]
    by_name = ok(["query", "round_limit", "--results", str(tmp_path / "*.parquet"), "--format", "csv"])
    assert by_name == table
    cells = json.loads(ok(["sql", "SELECT count(*) AS n, any_value(cell) AS cell FROM games", "--results", str(out),
                           "--format", "json"]))
    assert cells == [{"n": 300, "cell": None}]


@pytest.mark.parametrize("args, needle", [
    (["query", "nosuch", "--results", "{syn}"], "unknown query 'nosuch'; available: balance, bot_matchups, draw_share, end_reasons"),
    (["query", "nothing.sql", "--data", "x.parquet"], "nothing.sql: no such SQL file"),
    (["query", "stall_rate", "--results", "{tmp}/missing"], "missing: no such results directory or Parquet file"),
    (["query", "stall_rate", "--results", "{tmp}"], ": no game records here (expected"),
    (["query", "stall_rate", "--results", "{tmp}/*.parquet"], "*.parquet: no Parquet files match this pattern"),
    (["query", "stall_rate"], "query stall_rate: give --results DIR"),
    (["query", "round_limit_effect", "--results", "{syn}", "--param", "limit=3"],
     "query round_limit_effect: unknown parameter 'limit'; its parameters: limits"),
    (["query", "stall_rate", "--results", "{syn}", "--param", "z=3"], "unknown parameter 'z'; its parameters: none"),
    (["query", "round_limit_effect", "--results", "{syn}", "--param", "limits=ten"],
     "limits = 'ten' is not allowed; expected a comma-separated list of integers"),
    (["query", "round_limit_effect", "--results", "{syn}", "--param", "limits"], "--param 'limits': expected name=value"),
    (["query", "stall_rate", "--results", "{syn}", "--where", "colour = 'red'"],
     "--where \"colour = 'red'\": unknown column 'colour'; the games have game, ruleset, board"),
    (["query", "stall_rate", "--results", "{syn}", "--format", "xml"],
     "--format 'xml' is not available; expected one of table, csv, json, markdown"),
    (["query"], "give a query name or .sql file"),
    (["sql", "SELECT nope FROM games", "--results", "{syn}"], "sql: Binder Error: Referenced column \"nope\" not found"),
    (["sql", "SELEKT 1", "--results", "{syn}"], "sql: Parser Error: syntax error"),
    (["sql", "SELECT 1"], "give --results DIR"),
])
def test_bad_input_is_one_clear_line_and_exit_code_2(args, needle, synthetic, tmp_path):
    args = [a.replace("{syn}", synthetic).replace("{tmp}", str(tmp_path)) for a in args]
    res = runner.invoke(app, args)
    assert res.exit_code == 2, res.output
    assert needle in " ".join(res.output.split())
    assert "Traceback" not in res.output


def test_bad_sql_file_names_the_file(tmp_path, synthetic):
    bad = tmp_path / "mine.sql"
    bad.write_text("-- name: mine\n-- My question.\nSELECT nope FROM games\n")
    res = runner.invoke(app, ["query", str(bad), "--results", synthetic])
    assert res.exit_code == 2 and "query mine over" in " ".join(res.output.split()) and "nope" in res.output
    bad.write_text("-- param: n int = x | a count\nSELECT $n\n")
    res = runner.invoke(app, ["query", str(bad), "--results", synthetic])
    assert res.exit_code == 2 and "n = 'x' is not allowed; expected an integer" in " ".join(res.output.split())


def test_every_declared_parameter_is_bound_and_none_is_pasted():
    import re
    for q in sqlfiles.available():
        used = set(re.findall(r"\$(\w+)", q.sql))
        assert used == set(q.params), q.name
        assert "{" not in q.sql and "%s" not in q.sql, q.name


def test_a_paws_query_over_tales_records_says_so(tmp_path):
    tales = str(write_tales(tmp_path / "t.parquet"))
    res = runner.invoke(app, ["query", "seat_advantage", "--results", tales])
    assert res.exit_code == 2
    assert "query seat_advantage over" in res.output and "this query is for paws records; these hold tales" in \
        " ".join(res.output.split())


def test_an_unfinished_sweep_is_answered_with_a_warning(tmp_path):
    root = write_synthetic(tmp_path / "sweep")
    manifest = {"state": "interrupted", "cells": [{"id": "c000", "parts": [{"state": "done"}, {"state": "pending"}]}]}
    (root / "manifest.json").write_text(json.dumps(manifest))
    res = runner.invoke(app, ["query", "stall_rate", "--results", str(root), "--format", "csv"])
    assert res.exit_code == 0, res.output
    assert "the sweep is 'interrupted' (1 of 2 parts done); the answer covers the parts written so far" in \
        " ".join(res.output.split())
    manifest["state"] = "done"
    (root / "manifest.json").write_text(json.dumps(manifest))
    said = ok(["query", "stall_rate", "--results", str(root)])
    assert "the sweep is" not in said and "parts done" not in said
