"""An answer's bytes are bounded as it is made: the SQL console cuts each long value (marked with its length) and
refuses in one line an answer over its byte cap, while fetching, not after; every JSON answer of the service has a
cap too; ``playtest sql --read-only`` runs with the console's memory limit and time limit."""

from __future__ import annotations

import resource
import subprocess
import sys

import pytest
from results_helpers import give_results, sweep_folder  # noqa: F401 - a fixture
from service_helpers import fake_done_job, make_users

from queries import connection
from service.app import Settings, create_app
from service.console import ConsoleLimits

pytestmark = pytest.mark.service


@pytest.fixture
def run(tmp_path, sweep_folder):  # noqa: F811
    app = create_app(Settings(root=tmp_path / "root", console_limits=ConsoleLimits(
        timeout=20.0, memory_gib=1.0, max_rows=1000, cell_chars=100, max_bytes=200_000)), start_runner=False)
    users = make_users(app)
    job = fake_done_job(app, users["edit"])
    give_results(app, job, sweep_folder)
    yield app, users, job
    app.state.catalog.close()


def ask(app, who, job, sql):
    return who.api(app).post(f"/api/runs/{job}/sql", json={"sql": sql})


def test_a_long_value_is_cut_with_a_marker_naming_its_length(run):
    app, users, job = run
    r = ask(app, users["read"], job, "SELECT repeat('x', 400000) AS s, 7 AS n, [1, 2] AS l FROM range(3)")
    assert r.status_code == 200, r.text
    rows = r.json()["rows"]
    assert rows == [["x" * 100 + "\u2026 [cut: 400000 characters]", 7, "[1, 2]"]] * 3
    short = ask(app, users["read"], job, "SELECT repeat('y', 100) AS s").json()["rows"]
    assert short == [["y" * 100]]                                  # at the cap: whole, no marker


def test_the_issues_statement_answers_with_cut_values_and_two_such_columns_are_refused_in_one_line(run):
    app, users, job = run
    # the issue's statement: 1000 values of 400,000 characters (400 MB as JSON before); now 1000 cut values
    r = ask(app, users["read"], job, "SELECT repeat('x', 400000) AS s FROM range(1000)")
    assert r.status_code == 200 and len(r.json()["rows"]) == 1000 and len(r.content) < 200_000
    assert {v for (v,) in r.json()["rows"]} == {"x" * 100 + "\u2026 [cut: 400000 characters]"}
    # two such columns: over the 200,000 bytes this console allows, one line in place of the answer
    two = "SELECT repeat('x', 400000) AS s, repeat('y', 400000) AS t FROM range(1000)"
    r = ask(app, users["read"], job, two)
    assert r.status_code == 400 and len(r.content) < 1000, r.text[:300]
    line = r.json()["error"]
    assert "\n" not in line and "over 200,000 bytes (the cap on an answer)" in line, line
    page = users["read"].page(app).post(f"/runs/{job}/sql", data={"csrf": users["read"].csrf, "sql": two})
    assert page.status_code == 400 and "over 200,000 bytes" in page.text and len(page.content) < 50_000


def test_the_cap_stops_the_fetch_before_the_rows_are_all_held(run):
    # a million rows of 100 characters would be over 100 MB in Python; the fetch stops near the cap instead
    app, users, job = run
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    r = ask(app, users["read"], job, "SELECT repeat('z', 100) AS s FROM range(1000000)")
    assert r.status_code == 200 and len(r.json()["rows"]) == 1000 and r.json()["cut"] is True
    huge = app.state.services.settings.console_limits.__class__(max_rows=100_000, cell_chars=100, max_bytes=200_000)
    app.state.services.settings.console_limits = huge
    r = ask(app, users["read"], job, "SELECT repeat('z', 100) AS s FROM range(1000000)")
    assert r.status_code == 400 and "over 200,000 bytes" in r.json()["error"]
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100_000     # KiB: under 100 MB more


@pytest.mark.parametrize("sql, want", [
    ("SELECT 1 AS a, 2 AS a", [[1, 2]]),                                             # two columns of one name
    ("SELECT 1 AS a; -- a comment after the semicolon", [[1]]),
    ("SELECT '--' AS a /* a closing comment */", [["--"]]),
    ("WITH t AS (SELECT 3 AS v) SELECT v FROM t;;", [[3]]),
    ("SELECT NULL AS v, 1.5::DOUBLE AS f, 1.5 AS m, DATE '2026-01-02' AS d", [[None, 1.5, "1.5", "2026-01-02"]]),
])
def test_statements_read_as_they_did_inside_the_cap(run, sql, want):
    app, users, job = run
    r = ask(app, users["read"], job, sql)
    assert r.status_code == 200, r.text
    assert r.json()["rows"] == want


def test_a_refused_statement_is_still_refused_before_duckdb_binds_it(run, tmp_path):
    app, users, job = run
    for sql in ("CREATE TABLE t AS SELECT 1", "COPY (SELECT 1) TO 'x.csv'", "SELECT 1) AS a, (SELECT 2"):
        r = ask(app, users["read"], job, sql)
        assert r.status_code == 400 and "\n" not in r.json()["error"], (sql, r.text)
    assert not (tmp_path / "x.csv").exists()


def test_every_json_answer_over_the_services_cap_is_one_line(run, monkeypatch):
    from service import middleware
    app, users, job = run
    monkeypatch.setattr(middleware, "MAX_JSON", 300)
    r = users["read"].api(app).get(f"/api/runs/{job}")          # its summary and verdict card: over 300 bytes
    assert r.status_code == 500 and len(r.content) < 300
    assert r.json() == {"error": "the answer is larger than 300 bytes (the service's cap on an answer)"}
    assert users["read"].api(app).get("/health").json() == {"ok": True}


# playtest sql --read-only: the console's limits -------------------------------------------------------------------

def sql_cli(*args):
    return subprocess.run([sys.executable, "-c", "from cli.main import app; app()", "sql", *args],
                          capture_output=True, text=True, timeout=300)


def test_read_only_sql_gets_the_consoles_memory_limit(sweep_folder):  # noqa: F811
    # 2,000,000 distinct values of 1 kB in a hash table: about 2 GiB, over the console's 1 GiB
    heavy = "SELECT count(DISTINCT repeat('p', 1000) || r.range::VARCHAR) FROM range(2000000) r"
    r = sql_cli(heavy, "--results", str(sweep_folder), "--read-only")
    assert r.returncode == 2, (r.returncode, r.stdout[-500:], r.stderr[-500:])
    assert "memory limit is 1.00 GiB" in r.stderr and "Traceback" not in r.stderr, r.stderr
    from service.__main__ import CONSOLE_MEMORY_GIB, CONSOLE_SECONDS
    assert (connection.READ_ONLY_TIMEOUT, connection.READ_ONLY_MEMORY_GIB) == (CONSOLE_SECONDS, CONSOLE_MEMORY_GIB)


@pytest.mark.slow
def test_read_only_sql_gets_the_consoles_time_limit(sweep_folder):  # noqa: F811
    slow = "SELECT sum(a.range * b.range) FROM range(1000000) a, range(1000000) b"
    r = sql_cli(slow, "--results", str(sweep_folder), "--read-only")
    assert r.returncode == 2 and f"stopped after {connection.READ_ONLY_TIMEOUT:g} s" in r.stderr, r.stderr[-500:]
    # the user's own limits still win
    r = sql_cli(slow, "--results", str(sweep_folder), "--read-only", "--timeout", "1")
    assert r.returncode == 2 and "stopped after 1 s" in r.stderr, r.stderr[-500:]
