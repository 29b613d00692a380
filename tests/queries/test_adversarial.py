"""Hostile input to ``playtest query`` / ``playtest sql`` and tampered results folders (docs/queries-security.md).

Filters are data, not SQL: every injection below is one clear line on stderr, exit code 2, no traceback,
no file written, nothing of /etc/passwd shown, and the same results answer the same afterwards. The
connection the canned queries use is locked (it can read the results' files and nothing else) even if
the filter check were bypassed. Queries read the parts a sweep's manifest lists as done, after checking
they are there with their recorded size; a corrupt part is one line naming it and the repair commands.
"""

import hashlib
import json
import os
import shutil
from pathlib import Path

import duckdb
import pytest
from budget import thin
from typer.testing import CliRunner

from queries import connection, errors, sources, sqlfiles
from cli.main import app
from synthetic import write_synthetic

runner = CliRunner()
PASSWD = Path("/etc/passwd").read_text() if Path("/etc/passwd").is_file() else ""
PASSWD_LINE = next((ln for ln in PASSWD.splitlines() if ln.startswith("root:")), "root:x:0:0:")
BASELINE_SQL = "SELECT cell, count(*) AS n, sum(rounds) AS rounds FROM games GROUP BY cell ORDER BY cell"


def write_manifest(root: Path, state: str = "done", tables=("games",), files: bool = True, done=None) -> Path:
    """A sweep manifest in the cluster writer's format for the parts under ``root`` (every part done
    unless ``done`` says which (cell, batch) are); ``files=False``: an older manifest without per-file sizes."""
    cells = {}
    for part in sorted((root / tables[0]).glob("cell=*/part-*.parquet")):
        cell, batch = part.parent.name.split("=", 1)[1], int(part.stem.split("-")[1])
        entry = {"batch": batch, "first_game": 0, "games": 0, "rows": 0, "bytes": 0, "files": {},
                 "state": "done" if done is None or (cell, batch) in done else "pending"}
        for t in tables:
            f = root / t / f"cell={cell}" / part.name
            entry["bytes"] += f.stat().st_size
            entry["files"][t] = {"bytes": f.stat().st_size, "sha256": hashlib.sha256(f.read_bytes()).hexdigest()}
        if not files:
            del entry["files"]
        cells.setdefault(cell, []).append(entry)
    spec = root.parent / "spec.toml"
    manifest = {"format": 1, "name": "synthetic", "spec_file": str(spec), "tables": list(tables), "state": state,
                "cells": [{"id": c, "values": {}, "parts": parts} for c, parts in cells.items()]}
    (root / "manifest.json").write_text(json.dumps(manifest))
    return root


@pytest.fixture
def sweep(tmp_path) -> Path:
    """The synthetic results (18 games in 3 cells, 4 parts) as a finished sweep with a manifest."""
    return write_manifest(write_synthetic(tmp_path / "sweep"))


@pytest.fixture
def cwd(tmp_path, monkeypatch) -> Path:
    """An empty working directory: a command that writes a relative path would leave it here."""
    d = tmp_path / "cwd"
    d.mkdir()
    monkeypatch.chdir(d)
    return d


def snapshot(root: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns) for p in sorted(root.rglob("*"))}


def cli(*args: str):
    return runner.invoke(app, [str(a) for a in args])


def ok(*args: str) -> str:
    res = cli(*args)
    assert res.exit_code == 0, res.output
    return res.stdout


def baseline(results: Path):
    return json.loads(ok("sql", BASELINE_SQL, "--results", results, "--format", "json", "--read-only"))


def refused(res, *needles: str) -> str:
    """Exit code 2, one line on stderr (nothing on stdout), no traceback, nothing of /etc/passwd."""
    assert res.exit_code == 2, (res.exit_code, res.output)
    assert res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), res.stderr
    assert "Traceback" not in res.output
    assert res.exception is None or isinstance(res.exception, SystemExit)
    assert PASSWD_LINE not in res.output
    for n in needles:
        assert n in lines[0], (n, lines[0])
    return lines[0]


# ---- --where: a catalogue of injections ------------------------------------------------------------------------

WHERE_INJECTIONS = [
    "1=1); COPY (SELECT 42) TO 'x.csv'; SELECT (1",
    "1=1; COPY (SELECT 42) TO 'x.csv'",
    "1=1); COPY (SELECT 42 AS x) TO '{part}' (FORMAT parquet, USE_TMP_FILE false); SELECT (1",
    "1=1); ATTACH 'evil.db' AS evil; CREATE TABLE evil.t AS SELECT 1; SELECT (1",
    "1=1); INSTALL httpfs; LOAD httpfs; SELECT (1",
    "1=1); SET enable_external_access = true; SELECT (1",
    "1=1); PRAGMA threads = 1; SELECT (1",
    "1=1); CREATE OR REPLACE VIEW games_all AS SELECT * FROM games_all LIMIT 1; SELECT (1",
    "1=1); DROP VIEW games_all; SELECT (1",
    "board = 'beginner' -- AND players = 4",
    "board = 'beginner' --",
    "board = 'explorer' /* */ OR 1=1",
    "/* hidden */ 1=1",
    "1=1) UNION ALL SELECT * FROM games_all WHERE (1=1",
    "1=1) UNION SELECT * FROM read_csv('/etc/passwd') WHERE (1",
    "1=1) OR (SELECT 1",
    "1=1) ORDER BY (1",
    "1=1) GROUP BY (board",
    "length((SELECT content FROM read_text('/etc/passwd'))) > 0",
    "board IN (SELECT content FROM read_text('/etc/passwd'))",
    "EXISTS (SELECT * FROM read_csv('/etc/passwd'))",
    "board = (SELECT * FROM read_parquet('/etc/passwd'))",
    "read_text('/etc/passwd') IS NOT NULL",
    "(SELECT count(*) FROM read_text('/etc/passwd')) > 0",
    "(SELECT count(*) FROM glob('/etc/*')) > 0",
    "len(glob('/etc/*')) > 0",
    "getenv('HOME') <> ''",
    "current_setting('enable_external_access') = false",
    "query('SELECT 1') IS NULL",
    "error('boom') IS NULL",
    "board = (SELECT board FROM games_all LIMIT 1)",
    "count(*) > 0",
    "row_number() OVER () = 1",
    "$1 = 1",
    "list_filter(vp, x -> x > 1) = []",
    "wilson_low(1, 2) > 0",
    "games_all.board = 'beginner'",
    "* = 1",
    "COLUMNS('board') = 'beginner'",
    "main.lower(board) = 'beginner'",
    "colour = 'red'",
    "board = 'beginner';",
    "",
    "   ",
    "1=1)",
    "(1=1",
    "'unterminated",
    "NOT " * 300 + "1=1",                                  # deeper than any real filter (and Python's stack)
    "(" * 1500 + "1=1" + ")" * 1500,
    "rounds > 1 AND " * 300 + "1=1",                       # longer than a filter may be
]


@pytest.mark.parametrize("command", ["query", "sql"])
@pytest.mark.parametrize("injection", thin(WHERE_INJECTIONS, every=4))
def test_where_injections_are_one_line_and_harmless(injection, command, sweep, cwd):
    before, files = baseline(sweep), snapshot(sweep)
    where = injection.replace("{part}", str(sweep / "games" / "cell=c000" / "part-00000.parquet"))
    args = ["query", "stall_rate"] if command == "query" else ["sql", "SELECT count(*) AS n FROM games"]
    line = refused(cli(*args, "--results", sweep, "--where", where), "--where ")
    assert "a filter is one boolean expression over the games' columns" in line
    assert list(cwd.iterdir()) == []                       # no x.csv, evil.db, .tmp ...
    assert snapshot(sweep) == files                        # no part written or replaced
    assert baseline(sweep) == before                       # later answers unchanged


def test_where_problems_are_named(sweep):
    def line(where):
        return refused(cli("query", "stall_rate", "--results", sweep, "--where", where))
    assert "unknown column 'colour'; the games have game, ruleset, board" in line("colour = 'red'")
    assert "unknown column 'bord'; the games have board," in line("bord = 'beginner'")
    assert "comments are not allowed" in line("board = 'x' -- y")
    assert "';' is not allowed" in line("1=1; SELECT 1")
    assert "subqueries are not allowed" in line("board IN (SELECT content FROM read_text('/etc/passwd'))")
    assert "the function read_text() is not allowed" in line("read_text('/etc/passwd') IS NOT NULL")
    assert "window functions are not allowed" in line("row_number() OVER () = 1")
    assert "not one expression" in line("1=1) UNION ALL SELECT * FROM games_all WHERE (1=1")
    assert line("x = 1").startswith("error: --where 'x = 1': unknown column 'x'")


VALID_FILTERS = [
    "board = 'explorer'",
    "players IN (2, 4) AND round_limit = 0",
    "rounds BETWEEN 5 AND 10",
    "end_reason <> 'stalled' OR NOT (winner_seat = 0)",
    "list_sum(vp) >= 4",
    "vp[1] > 2",
    "lower(board) LIKE 'beg%'",
    "winner_seat IS NULL",
    "winner_seat IS NOT NULL AND mode NOT IN ('teams')",
    "CASE WHEN mode = 'teams' THEN winner_team ELSE winner_seat END = 0",
    "rounds::DOUBLE / 2 > 2.5 AND cell <> 'c002'",
    "list_contains(vp, 4) OR coalesce(winner_team, -1) = 1",
    "board ILIKE 'EXP%' AND abs(first_seat - 1) <= 1",
    "\"board\" = 'it''s' OR board = '; -- /* not a comment */'",
]


@pytest.mark.parametrize("where", thin(VALID_FILTERS))
def test_valid_filters_give_the_same_games_as_sql(where, sweep, cwd):
    ref = json.loads(ok("sql", f"SELECT count(*) AS n, sum(rounds) AS r FROM games WHERE {where}", "--results",
                        sweep, "--format", "json"))
    got = json.loads(ok("sql", "SELECT count(*) AS n, sum(rounds) AS r FROM games", "--results", sweep,
                        "--where", where, "--format", "json"))
    assert got == ref
    assert ok("query", "stall_rate", "--results", sweep, "--where", where, "--format", "csv")
    assert list(cwd.iterdir()) == []


def test_valid_filters_count_the_right_games(sweep):
    counts = {w: connection.run("stall_rate", [str(sweep)], where=w)[1] for w in VALID_FILTERS[:3]}
    assert [sum(r[5] for r in rows) for rows in counts.values()] == [4, 14, 2]   # B0-B3; A0-A9 + C0-C3; A9, B2


# ---- --param: typed, ranged, bound ----------------------------------------------------------------------------

PARAM_INJECTIONS = [
    ("round_limit_effect", "limits=1); COPY (SELECT 42) TO 'x.csv'; SELECT (1", "limits = "),
    ("round_limit_effect", "limits=-5", "each >= 1 and <= 1000"),
    ("round_limit_effect", "limits=0", "each >= 1"),
    ("round_limit_effect", "limits=15,-2", "each >= 1"),
    ("round_limit_effect", "limits=1001", "<= 1000"),
    ("round_limit_effect", "limits=99999999999999999999", "limits = "),
    ("round_limit_effect", "limits=1e3", "a comma-separated list of integers"),
    ("round_limit_effect", "limits=1 -- x", "limits = "),
    ("round_limit_effect", "limits=1,2; ATTACH 'evil.db'", "limits = "),
    ("round_limit", "limits=-1", "each >= 1"),
    ("round_limit", "limits=nan", "limits = 'nan'"),
    ("tales_cards", "kind=x' OR 1=1 --", "expected creature, equipment or any"),
    ("tales_cards", "kind=any'); COPY (SELECT 1) TO 'x.csv'; --", "expected creature, equipment or any"),
    ("tales_cards", "min_games=0", "expected an integer >= 1"),
    ("tales_cards", "min_games=read_text('/etc/passwd')", "expected an integer"),
    ("stall_rate", "x=1); COPY (SELECT 1) TO 'x.csv", "unknown parameter"),
]


@pytest.mark.parametrize("name, param, needle", thin(PARAM_INJECTIONS))
def test_param_injections_and_out_of_range_values_are_refused(name, param, needle, sweep, cwd):
    before = baseline(sweep)
    refused(cli("query", name, "--results", sweep, "--param", param), f"query {name}: ", needle)
    assert list(cwd.iterdir()) == [] and baseline(sweep) == before


def test_param_ranges_are_declared_and_checked_in_the_header(tmp_path):
    q = sqlfiles.load("round_limit_effect")
    assert (q.params["limits"].low, q.params["limits"].high) == (1, 1000)
    assert sqlfiles.bind(q, {"limits": "1,1000"}) == {"limits": [1, 1000]}
    bad = tmp_path / "bad.sql"
    bad.write_text("-- param: n int >= 5 = 3 | a count\nSELECT $n\n")
    with pytest.raises(errors.QueryError, match=r"n = '3' is not allowed; expected an integer >= 5"):
        sqlfiles.load(str(bad))
    bad.write_text("-- param: n int = 3000000000 | a count\nSELECT $n\n")     # every int fits DuckDB INTEGER
    with pytest.raises(errors.QueryError, match="n = '3000000000' is not allowed"):
        sqlfiles.load(str(bad))


def test_sql_params_are_bound_never_pasted(sweep, cwd):
    out = json.loads(ok("sql", "SELECT count(*) AS n FROM games WHERE board = $b", "--results", sweep,
                        "--param", "b=x' OR 1=1 --", "--format", "json"))
    assert out == [{"n": 0}] and list(cwd.iterdir()) == []


@pytest.mark.parametrize("statement", ["", "   ", ";", "/* only a comment */"])
def test_an_empty_statement_is_one_line(statement, sweep):
    refused(cli("sql", statement, "--results", sweep), "sql: ")


# ---- the locked connection -----------------------------------------------------------------------------------

LOCKED_REFUSES = [
    "SELECT * FROM read_text('/etc/passwd')",
    "SELECT * FROM read_csv('/etc/passwd')",
    "SELECT * FROM glob('/etc/*')",
    "COPY (SELECT 42) TO 'x.csv'",
    "COPY (SELECT 42 AS x) TO '{part}' (FORMAT parquet)",
    "ATTACH 'evil.db' AS evil",
    "INSTALL httpfs",
    "LOAD httpfs",
    "SET enable_external_access = true",
    "RESET enable_external_access",
    "SET allowed_paths = ['/etc/passwd']",
    "SET allowed_directories = ['/']",
    "SET autoload_known_extensions = true",
    "PRAGMA threads = 1",
    "SET lock_configuration = false",
]


@pytest.mark.parametrize("sql", LOCKED_REFUSES)
def test_the_locked_connection_refuses_files_settings_and_extensions_even_unvalidated(sql, sweep, cwd):
    con = connection.connect([str(sweep)])                      # what the canned queries get
    try:
        assert con.execute("SELECT count(*) FROM games").fetchone()[0] == 18      # it still reads the results
        with pytest.raises(duckdb.Error) as e:
            con.execute(sql.replace("{part}", str(sweep / "games" / "cell=c000" / "part-00000.parquet")))
        assert PASSWD_LINE not in str(e.value)
        assert con.execute("SELECT current_setting('enable_external_access')").fetchone()[0] is False
        assert con.execute("SELECT count(*) FROM games").fetchone()[0] == 18
    finally:
        con.close()
    assert list(cwd.iterdir()) == []


def test_a_filter_on_the_locked_connection_cannot_read_files_either(sweep):
    """If check_filter let a file read through, the locked connection would still refuse it."""
    con = connection.connect([str(sweep)])
    try:
        with pytest.raises(duckdb.Error, match="disabled by configuration"):
            con.execute("CREATE VIEW leak AS SELECT * FROM games_all "
                        "WHERE board IN (SELECT content FROM read_text('/etc/passwd'))")
            con.execute("SELECT * FROM leak").fetchall()
    finally:
        con.close()


@pytest.mark.parametrize("statement, needle", [
    ("SELECT * FROM read_text('/etc/passwd')", "the table function read_text() is not allowed"),
    ("SELECT count(*) FROM read_csv('/etc/passwd')", "the table function read_csv() is not allowed"),
    ("SELECT * FROM glob('/etc/*')", "the table function glob() is not allowed"),
    ("COPY (SELECT 42) TO 'x.csv'", "only a SELECT statement runs with --read-only"),
    ("COPY (SELECT 42 AS x) TO '{part}' (FORMAT parquet, USE_TMP_FILE false)", "only a SELECT statement"),
    ("ATTACH 'evil.db' AS evil", "only a SELECT statement"),
    ("INSTALL httpfs", "only a SELECT statement"),
    ("SET enable_external_access = true", "only a SELECT statement"),
    ("CREATE TABLE t AS SELECT 1", "only a SELECT statement"),
    ("SELECT 1; SELECT 2", "2 statements; --read-only runs one SELECT statement"),
    ("SELECT 1; COPY (SELECT 42) TO 'x.csv'", "only a SELECT statement"),
])
def test_sql_read_only_refuses_file_access_and_statements(statement, needle, sweep, cwd):
    before, files = baseline(sweep), snapshot(sweep)
    statement = statement.replace("{part}", str(sweep / "games" / "cell=c000" / "part-00000.parquet"))
    refused(cli("sql", statement, "--results", sweep, "--read-only"), "sql: ", needle)
    assert list(cwd.iterdir()) == [] and snapshot(sweep) == files and baseline(sweep) == before


def test_plain_sql_keeps_full_power_and_says_so(sweep, cwd):
    notes = cwd / "notes.txt"
    notes.write_text("hello")
    out = json.loads(ok("sql", f"SELECT content FROM read_text('{notes}')", "--results", sweep, "--format", "json"))
    assert out == [{"content": "hello"}]
    ok("sql", "COPY (SELECT count(*) AS n FROM games) TO 'n.csv'", "--results", sweep)
    assert (cwd / "n.csv").read_text().split() == ["n", "18"]
    assert json.loads(ok("sql", "SELECT count(*) AS n FROM games", "--results", sweep, "--read-only",
                         "--format", "json")) == [{"n": 18}]
    help_text = " ".join(cli("sql", "--help").output.split())
    assert "full power" in help_text and "--read-only" in help_text


# ---- question files (playtest query FILE.sql) and the read-only console: one checked SELECT ----------------

PART0 = "{part}"      # a part of the sweep: the path a write would aim at, allowed for reading
QUESTION_FILE_INJECTIONS = [   # (file text, what the one line says)
    (f"COPY (SELECT 42 AS x) TO '{PART0}' (FORMAT parquet, USE_TMP_FILE false)", "only a SELECT statement runs"),
    (f"-- name: pad\nCOPY (SELECT * FROM games LIMIT 3) TO '{PART0}' (FORMAT parquet)", "only a SELECT statement"),
    (f"SELECT 1;\nCOPY (SELECT 42 AS x) TO '{PART0}' (FORMAT parquet)", "only a SELECT statement"),
    ("SELECT count(*) FROM games; SELECT 2", "2 statements; a .sql file holds one SELECT statement"),
    ("COPY (SELECT 42) TO 'x.csv'", "only a SELECT statement"),
    ("ATTACH 'evil.db' AS evil", "only a SELECT statement"),
    ("SET enable_external_access = true", "only a SELECT statement"),
    ("CREATE OR REPLACE VIEW games AS SELECT * FROM games_all LIMIT 1", "only a SELECT statement"),
    ("INSTALL httpfs", "only a SELECT statement"),
    ("PRAGMA threads = 1", "only a SELECT statement"),
    ("-- name: nothing\n-- only a header", "no statement"),
    ("SELECT * FROM query('SELECT 1')", "the table function query() is not allowed"),
    ("SELECT current_setting('allowed_paths') AS p", "the function current_setting() is not allowed"),
    ("SELECT * FROM read_text('/etc/passwd')", "the table function read_text() is not allowed"),
    (f"SELECT count(*) FROM read_parquet('{PART0}')", "the table function read_parquet() is not allowed"),
    ("SELECT * FROM duckdb_settings()", "the table function duckdb_settings() is not allowed"),
]


@pytest.mark.parametrize("text, needle", thin(QUESTION_FILE_INJECTIONS))
def test_a_question_file_runs_one_checked_select_and_cannot_write_a_part(text, needle, sweep, cwd):
    """A .sql file ran every statement unchecked on the locked connection, whose allowed paths are the
    parts: COPY ... TO a part replaced it (padded to its size, silently) and changed later answers."""
    before = baseline(sweep)
    part = sweep / "games" / "cell=c000" / "part-00000.parquet"
    data, files = part.read_bytes(), snapshot(sweep)
    question = cwd / "question.sql"
    question.write_text(text.replace(PART0, str(part)) + "\n")
    line = refused(cli("query", question, "--results", sweep), "question.sql: ", needle)
    assert str(question) in line
    question.unlink()
    assert part.read_bytes() == data and snapshot(sweep) == files          # the part is as it was
    assert list(cwd.iterdir()) == [] and baseline(sweep) == before


def test_a_question_file_of_one_select_still_answers(sweep, cwd):
    question = cwd / "per_cell.sql"
    question.write_text("-- name: per_cell\n-- Games per cell.\n-- param: least int >= 0 = 0 | fewest rounds\n"
                        "WITH g AS (SELECT * FROM games WHERE rounds >= $least)\n"
                        "SELECT cell, count(*) AS n, wilson_low(count(*), 18) > 0 AS some,\n"
                        "       row_number() OVER (ORDER BY cell) AS i FROM g GROUP BY cell ORDER BY cell;\n")
    out = json.loads(ok("query", question, "--results", sweep, "--format", "json"))   # per variant: its cell
    assert sorted((r["cell"], r["n"], r["i"]) for r in out) == [("c000", 10, 1), ("c001", 4, 1), ("c002", 4, 1)]


CONSOLE_REFUSED = [          # (statement, what the one line says)
    ("SELECT * FROM query('SELECT 1')", "the table function query() is not allowed"),
    ("SELECT * FROM query_table('games')", "the table function query_table() is not allowed"),
    ("SELECT * FROM duckdb_databases()", "the table function duckdb_databases() is not allowed"),
    ("SELECT current_setting('allowed_paths')", "the function current_setting() is not allowed"),
    ("SELECT count(*) FROM games WHERE current_setting('threads') > 0", "current_setting() is not allowed"),
    ("SELECT getvariable('x')", "the function getvariable() is not allowed"),
    ("SELECT * FROM pragma_version()", "the table function pragma_version() is not allowed"),
    ("SELECT * FROM glob('/etc/*')", "the table function glob() is not allowed"),
    ("SELECT * FROM read_csv('/etc/passwd')", "the table function read_csv() is not allowed"),
    (f"SELECT count(*) FROM read_parquet('{PART0}')", "the table function read_parquet() is not allowed"),
    ("SELECT * FROM duckdb_settings", "unknown table 'duckdb_settings'"),
    ("SELECT * FROM information_schema.tables", "a table named with its schema is not allowed"),
    ("SELECT * FROM system.main.duckdb_settings()", "named with its schema is not allowed"),
    ("SELECT * FROM (WITH duckdb_settings AS (SELECT 1) SELECT 1), duckdb_settings",
     "unknown table 'duckdb_settings'"),                                  # a WITH name is seen only inside
    ("SELECT (SELECT count(*) FROM duckdb_views()) AS n", "duckdb_views() is not allowed"),
    ("SELECT main.lower('x')", "a function named with its schema is not allowed"),
    ("SELECT json_serialize_sql('SELECT 1')", "the function json_serialize_sql() is not allowed"),
    ("SELECT now()", "the function now() is not allowed"),
    ("SELECT * FROM games AT (VERSION => 1)", "time travel is not allowed"),
    ("DESCRIBE duckdb_settings", "unknown table 'duckdb_settings'"),
    ("SELECT 1; SELECT 2", "2 statements; --read-only runs one SELECT statement"),
    (f"SELECT count(*) FROM '{PART0}'", "unknown table '"),                      # a file read as a table
    ("SELECT * FROM games, LATERAL (SELECT * FROM read_text('/etc/passwd'))", "read_text() is not allowed"),
    ("SELECT 'threads'.current_setting()", "the function current_setting() is not allowed"),
    ("SELECT list_transform([1], lambda x: current_setting('threads'))", "current_setting() is not allowed"),
    ("SELECT * FROM games WHERE board IN (FROM duckdb_settings())", "duckdb_settings() is not allowed"),
    ("SHOW ALL TABLES", "unknown table"),
    ("PIVOT games ON board USING count(*)", "only a SELECT statement runs with --read-only"),
]


@pytest.mark.parametrize("statement, needle", thin(CONSOLE_REFUSED))
def test_the_read_only_console_runs_only_the_results_views_and_pure_functions(statement, needle, sweep, cwd):
    before, files = baseline(sweep), snapshot(sweep)
    names_a_part = PART0 in statement
    statement = statement.replace(PART0, str(sweep / "games" / "cell=c000" / "part-00000.parquet"))
    line = refused(cli("sql", statement, "--results", sweep, "--read-only"), "sql: ", needle)
    assert str(sweep) not in line or names_a_part                    # the machine's paths are not shown
    assert list(cwd.iterdir()) == [] and snapshot(sweep) == files and baseline(sweep) == before


CONSOLE_ALLOWED = [           # what an analyst writes still runs with --read-only
    ("SELECT board, count(*) AS n FROM games GROUP BY ALL ORDER BY board", [{"board": "beginner", "n": 14},
                                                                           {"board": "explorer", "n": 4}]),
    ("WITH t AS (SELECT cell, rounds FROM games) SELECT max(rounds) AS m FROM t WHERE cell = 'c001'", [{"m": 20}]),
    ("SELECT count(*) AS n FROM (SELECT rank() OVER (PARTITION BY cell ORDER BY rounds) AS r FROM games) WHERE r = 1",
     [{"n": 3}]),
    ("SELECT round(wilson_low(3, 10), 3) AS lo, list_sum([1, 2]) AS s, len(list_filter([1, 5], lambda x: x > 2)) AS f",
     [{"lo": 0.108, "s": 3, "f": 1}]),
    ("SELECT count(*) AS n FROM games, range(2) r, unnest([1, 2]) u", [{"n": 72}]),
    ("SELECT count(*) AS n FROM (DESCRIBE games) WHERE column_name = 'board'", [{"n": 1}]),
    ("FROM games SELECT count(*) FILTER (WHERE board = 'explorer') AS n", [{"n": 4}]),
]


@pytest.mark.parametrize("statement, expected", CONSOLE_ALLOWED)
def test_the_read_only_console_still_answers_analysts_questions(statement, expected, sweep):
    assert json.loads(ok("sql", statement, "--results", sweep, "--read-only", "--format", "json")) == expected


# ---- tampered results folders ------------------------------------------------------------------------------

def repair(sweep: Path) -> str:
    return (f"repair with: playtest status --verify {sweep}, then playtest sweep {sweep.parent / 'spec.toml'} "
            f"--out {sweep} --resume")


def test_a_sweep_reads_the_manifest_parts_with_their_cells(sweep):
    assert baseline(sweep) == [{"cell": "c000", "n": 10, "rounds": 224}, {"cell": "c001", "n": 4, "rounds": 59},
                               {"cell": "c002", "n": 4, "rounds": 109}]
    files = sources.table_sources(str(sweep))["games"][0]
    assert [Path(f).relative_to(sweep).as_posix() for f in files] == [
        "games/cell=c000/part-00000.parquet", "games/cell=c000/part-00001.parquet",
        "games/cell=c001/part-00000.parquet", "games/cell=c002/part-00000.parquet"]


def test_a_stray_parquet_file_in_a_cell_folder_is_not_counted(sweep):
    before = baseline(sweep)
    for name in ("stray.parquet", "part-00099.parquet", ".part-00001.parquet.tmp-123"):
        shutil.copy(sweep / "games" / "cell=c001" / "part-00000.parquet", sweep / "games" / "cell=c001" / name)
    (sweep / "games" / "cell=c999").mkdir()
    shutil.copy(sweep / "games" / "cell=c001" / "part-00000.parquet", sweep / "games" / "cell=c999" / "part-0.parquet")
    assert baseline(sweep) == before


def test_pending_parts_are_not_read_and_the_answer_warns(tmp_path):
    root = write_manifest(write_synthetic(tmp_path / "sweep"), state="interrupted",
                          done={("c000", 0), ("c001", 0), ("c002", 0)})
    res = cli("sql", "SELECT count(*) AS n FROM games", "--results", root, "--format", "json")
    assert res.exit_code == 0 and json.loads(res.stdout) == [{"n": 14}]           # c000 part 1 (4 games) pending
    assert "the sweep is 'interrupted' (3 of 4 parts done)" in " ".join(res.stderr.split())


@pytest.mark.parametrize("name", ["order", "games_all", "games_parts", "select", "wilson_low", "group"])
@pytest.mark.parametrize("manifest", [True, False])
def test_folders_named_like_sql_or_the_views_are_harmless(name, manifest, tmp_path):
    root = write_synthetic(tmp_path / "sweep")
    if manifest:
        write_manifest(root)
    before = baseline(root)
    shutil.copytree(root / "games", root / name)
    assert baseline(root) == before
    assert ok("query", "stall_rate", "--results", root, "--format", "csv")


def test_a_truncated_part_is_refused_with_the_repair_commands(sweep):
    part = sweep / "games" / "cell=c001" / "part-00000.parquet"
    size = part.stat().st_size
    os.truncate(part, size // 2)
    for args in (["query", "stall_rate"], ["sql", "SELECT 1"], ["sql", "SELECT 1", "--read-only"]):
        line = refused(cli(*args, "--results", sweep))
        assert line == f"error: {sweep}: 1 corrupt or missing part(s) (games/cell=c001/part-00000.parquet) " \
                       f"({size // 2:,} bytes; the manifest records {size:,}); {repair(sweep)}"


def test_a_deleted_part_is_refused_with_the_repair_commands(sweep):
    (sweep / "games" / "cell=c000" / "part-00001.parquet").unlink()
    (sweep / "games" / "cell=c002" / "part-00000.parquet").unlink()
    line = refused(cli("query", "stall_rate", "--results", sweep))
    assert line == (f"error: {sweep}: 2 corrupt or missing part(s) (games/cell=c000/part-00001.parquet, "
                    f"games/cell=c002/part-00000.parquet) (the first, games/cell=c000/part-00001.parquet: no such "
                    f"part file); {repair(sweep)}")


def test_a_corrupt_footer_of_the_right_size_is_one_line_with_the_repair_commands(sweep):
    part = sweep / "games" / "cell=c002" / "part-00000.parquet"
    data = bytearray(part.read_bytes())
    data[-4:] = b"JUNK"                                  # the magic bytes: same size, unreadable
    part.write_bytes(bytes(data))
    line = refused(cli("query", "stall_rate", "--results", sweep))
    assert line.startswith(f"error: {sweep}: 1 corrupt or missing part(s) (games/cell=c002/part-00000.parquet)")
    assert line.endswith(repair(sweep))


def test_an_older_manifest_without_file_sizes_checks_the_part_bytes(tmp_path):
    root = write_manifest(write_synthetic(tmp_path / "sweep"), files=False)
    assert len(baseline(root)) == 3
    part = root / "games" / "cell=c000" / "part-00000.parquet"
    os.truncate(part, 100)
    refused(cli("query", "stall_rate", "--results", root),
            "(games/cell=c000/part-00000.parquet) (its size differs from the manifest's); repair with:")


@pytest.mark.parametrize("text, needle", [
    ("{not json", "unreadable sweep manifest"),
    ("[1, 2]", "not a JSON object"),
    ('{"format": 1, "cells": {"c000": 1}}', "field cells is not a list"),
    ('{"format": 1, "cells": [{"id": "../../etc", "parts": []}]}', "cells[0].id = '../../etc' is not a cell id"),
    ('{"format": 1, "cells": [{"id": "c000", "parts": [{"state": "done", "batch": "0"}]}]}', "field cells[0].parts[0].batch = 0 is not"),
    ('{"format": 1, "cells": [{"id": "c000", "parts": [{"state": "done", "files": {"games": 5}}]}]}', "field cells[0].parts[0].files is not"),
    ('{"format": 2, "cells": []}', "format 2"),
])
def test_a_broken_manifest_is_one_line_naming_the_file(text, needle, sweep):
    (sweep / "manifest.json").write_text(text)
    refused(cli("query", "stall_rate", "--results", sweep), f"{sweep / 'manifest.json'}: ", needle)


def test_a_sweep_with_no_finished_part_says_so(tmp_path):
    root = write_manifest(write_synthetic(tmp_path / "sweep"), state="running", done=set())
    refused(cli("query", "stall_rate", "--results", root), "no finished parts yet")


def test_a_folder_of_loose_parquet_without_manifest_still_works(tmp_path):
    root = write_synthetic(tmp_path / "loose")
    assert [r["n"] for r in baseline(root)] == [10, 4, 4]
    shutil.copy(root / "games" / "cell=c001" / "part-00000.parquet", root / "games" / "cell=c001" / "extra.parquet")
    assert [r["n"] for r in baseline(root)] == [10, 8, 4]           # no manifest: every Parquet file counts
    single = root / "games" / "cell=c002" / "part-00000.parquet"
    assert json.loads(ok("sql", "SELECT count(*) AS n FROM games", "--results", single, "--read-only",
                         "--format", "json")) == [{"n": 4}]
    pattern = str(root / "games" / "cell=c00[01]" / "part-*.parquet")
    assert json.loads(ok("sql", "SELECT count(*) AS n FROM games", "--results", pattern, "--read-only",
                         "--format", "json")) == [{"n": 14}]


def test_a_corrupt_loose_parquet_file_is_one_line(tmp_path):
    root = write_synthetic(tmp_path / "loose")
    bad = root / "games" / "cell=c001" / "part-00000.parquet"
    bad.write_bytes(b"not parquet at all" * 10)
    refused(cli("query", "stall_rate", "--results", root), f"{bad}: unreadable Parquet file")


def test_rich_markup_in_data_and_names_is_printed_as_written(tmp_path):
    root = write_synthetic(tmp_path / "sweep")
    out = ok("sql", "SELECT '[red]x[/]' AS \"[/oops]\"", "--results", root)
    assert "[red]x[/]" in out and "[/oops]" in out
    line = refused(cli("query", "stall_rate", "--results", root, "--where", "[/bad] = 1"))
    assert "'[/bad] = 1'" in line
