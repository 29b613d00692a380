"""Limits on every statement ``playtest query`` and ``playtest sql`` run (docs/queries-security.md): one
checked SELECT from user text, a statement timeout, Ctrl-C that stops a running statement, a memory limit
on the locked connection; and the canned .sql files shipped in the package pass the checks a question
file gets."""

import signal
import subprocess
import sys
import time

import duckdb
import pytest
from signals import default_sigint

from queries import connection, sqlfiles
from infra.sql_expr import SelectAllowed, SelectCheck
from test_adversarial import cli, refused, sweep, cwd  # noqa: F401 - fixtures

# ten copies of the 18 games: 18**10 rows that DuckDB cannot count without visiting (the hash)
CROSS = ("SELECT count(*) AS n FROM games a, games b, games c, games d, games e, games f, games g, games h, games i, "
         "games j WHERE hash(a.rounds, b.rounds, c.rounds, d.rounds, e.rounds, f.rounds, g.rounds, h.rounds, "
         "i.rounds, j.rounds) % 7 = 0")
# every view and table a canned query may read: the results' tables, seat outcomes, the variant split's
VIEWS = frozenset(["games", "games_all", "games_all_parts", "cards", "cards_parts", sqlfiles.SEAT_VIEW,
                   sqlfiles.MEETINGS_VIEW, "games_unsplit", "variant_values"])


@pytest.mark.parametrize("name", sorted(sqlfiles.canned_files()))
def test_every_canned_query_is_one_select_that_the_question_file_check_allows(name):
    path, game = sqlfiles.canned_files()[name]
    q = sqlfiles.parse_sql_file(path, game)
    con = sqlfiles._parser()
    try:
        tree = sqlfiles.only_select(con, q.sql, str(path), sqlfiles.QUESTION_FILE)
    finally:
        con.close()
    SelectCheck(SelectAllowed(sqlfiles.select_functions(), sqlfiles.SELECT_TABLE_FUNCTIONS, VIEWS)).check(
        tree["statements"][0])


@pytest.mark.parametrize("how", ["sql --read-only", "sql", "query"])
def test_a_statement_stops_at_the_timeout_in_one_line(how, sweep, cwd):
    if how == "query":
        (cwd / "cross.sql").write_text(f"-- name: cross\n{CROSS}\n")
        args = ["query", cwd / "cross.sql"]
    else:
        args = ["sql", CROSS, *(["--read-only"] if "read-only" in how else [])]
    line = refused(cli(*args, "--results", sweep, "--timeout", "1"))
    assert "stopped after 1 s, the statement timeout (--timeout SECONDS" in line


@pytest.mark.parametrize("flag, value, needle", [
    ("--timeout", "0", "--timeout 0: expected seconds from 1 to 86400"),
    ("--timeout", "1e9", "--timeout 1e+09: expected seconds from 1 to 86400"),
    ("--timeout", "nan", "--timeout nan: expected seconds"),
    ("--memory-limit", "0.01", "--memory-limit 0.01: expected GiB from 0.25 to"),
    ("--memory-limit", "1e9", "this machine's memory"),
])
@pytest.mark.parametrize("command", ["query", "sql"])
def test_limits_out_of_range_are_one_line(flag, value, needle, command, sweep):
    args = ["query", "stall_rate"] if command == "query" else ["sql", "SELECT 1", "--read-only"]
    refused(cli(*args, "--results", sweep, flag, value), needle)


def test_the_locked_connection_has_a_memory_limit_it_cannot_raise(sweep):
    with connection.limits(memory_gib=0.5):
        con = connection.connect([str(sweep)])
    try:
        assert con.execute("SELECT current_setting('memory_limit')").fetchone()[0] == "512.0 MiB"
        with pytest.raises(duckdb.Error):
            con.execute("SET memory_limit = '100GB'")
    finally:
        con.close()
    con = connection.connect([str(sweep)])           # the default: a share of the machine's memory
    try:
        number, unit = con.execute("SELECT current_setting('memory_limit')").fetchone()[0].split()
    finally:
        con.close()
    assert unit == "GiB" and float(number) == pytest.approx(connection.Limits().memory(), abs=0.1)


def test_a_statement_over_the_memory_limit_is_one_line_and_spills_nothing(sweep, cwd):
    """The locked connection spilled to ./.tmp (GiBs, up to 90% of the disk); now it has no temporary
    directory and a statement that needs more than --memory-limit fails in one line."""
    line = refused(cli("sql", "SELECT count(*) FROM (SELECT DISTINCT range::VARCHAR || 'xxxxxxxxxxxxxxxxxxxxxxxxxx' "
                       "FROM range(30000000))", "--results", sweep, "--read-only", "--memory-limit", "0.25"))
    assert "Out of Memory" in line and "the memory limit is 0.25 GiB (--memory-limit GIB)" in line
    assert "SET " not in line and list(cwd.iterdir()) == []


# Started as the CLI in a process of its own; it says on stderr when a statement begins (the test waits
# for it: Ctrl-C then reaches a running statement, not the start-up).
CHILD = """
import faulthandler, signal, sys
faulthandler.register(signal.SIGUSR1, all_threads=True)   # the test asks for every thread's stack if it hangs
from queries import connection, sqlfiles
run = connection.execute
def announced(con, sql, *args, **kwargs):
    print("statement: " + kwargs.get("where", "SQL"), file=sys.stderr, flush=True)
    return run(con, sql, *args, **kwargs)
connection.execute = announced
from cli.main import app
sys.argv = ["playtest"] + sys.argv[1:]
app()
"""


@pytest.mark.slow
@pytest.mark.parametrize("how", ["sql --read-only", "sql", "query"])
def test_ctrl_c_stops_a_running_statement_in_one_line(how, sweep, cwd):
    if how == "query":
        (cwd / "cross.sql").write_text(f"-- name: cross\n{CROSS}\n")
        args, label = ["query", str(cwd / "cross.sql")], "statement: query cross over"
    else:
        args, label = ["sql", CROSS, *(["--read-only"] if "read-only" in how else [])], "statement: sql"
    proc = subprocess.Popen([sys.executable, "-c", CHILD, *args, "--results", str(sweep)], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=default_sigint)
    try:
        seen = [proc.stderr.readline()]           # wait until the cross join is running
        while seen[-1] and not seen[-1].startswith(label):
            seen.append(proc.stderr.readline())
        assert seen[-1].startswith(label), seen
        time.sleep(0.5)                            # not an assertion: the statement is under way in DuckDB
        proc.send_signal(signal.SIGINT)
        try:
            out, err = proc.communicate(timeout=120)    # the cross join alone would run for hours
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGUSR1)        # every thread's Python stack on stderr, then the failure shows it
            time.sleep(2)
            proc.kill()
            _, err = proc.communicate()
            pytest.fail(f"{how}: still running 120 s after Ctrl-C (the statement timeout did not end it either); "
                        f"its threads:\n{err[-6000:]}")
        err = "".join(seen) + err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    lines = [ln for ln in err.splitlines() if not ln.startswith("statement: ")]
    assert proc.returncode == 130, (proc.returncode, err)
    assert out == "" and len(lines) == 1, err
    assert lines[0].endswith("interrupted (Ctrl-C); the statement was stopped") and "Traceback" not in err
