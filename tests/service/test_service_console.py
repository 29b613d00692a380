"""Results in the page: the read-only SQL console (its answers, its refusals in one line, its limits), the canned
queries as forms, the downloads of a run's tables, and what no user may reach (other files, other folders, scripts
in pages)."""

from __future__ import annotations

import csv
import io

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
from results_helpers import give_results, sweep_folder  # noqa: F401 - a fixture
from service_helpers import fake_done_job, make_users

from service.app import Settings, create_app
from service.console import ConsoleLimits

pytestmark = pytest.mark.service

SCRIPT = "<script>window.__pwned=1</script>"


@pytest.fixture
def run(tmp_path, sweep_folder):  # noqa: F811
    """An app (runner not started, a 2 s statement limit) with users and one done run holding TINY's results."""
    app = create_app(Settings(root=tmp_path / "root", console_limits=ConsoleLimits(timeout=2.0, memory_gib=1.0,
                                                                                    max_rows=50)), start_runner=False)
    users = make_users(app)
    job = fake_done_job(app, users["edit"], title=SCRIPT)
    out = give_results(app, job, sweep_folder)
    yield app, users, job, out
    app.state.catalog.close()


def console(app, who, job, sql: str):
    return who.page(app).post(f"/runs/{job}/sql", data={"csrf": who.csrf, "sql": sql})


def error_line(html: str) -> str:
    assert "id='answer-error'>" in html, html[-2000:]
    return html.split("id='answer-error'>", 1)[1].split("</p>", 1)[0]


def test_a_console_query_answers_in_the_page_and_the_api(run):
    app, users, job, _ = run
    page = users["read"].page(app).get(f"/runs/{job}/sql")
    assert page.status_code == 200 and "<textarea id='sql'" in page.text
    r = console(app, users["read"], job, "SELECT count(*) AS games, count(DISTINCT cell) AS cells FROM games")
    assert r.status_code == 200, r.text[-1000:]
    assert "<th>games</th><th>cells</th>" in r.text and "<td>400</td><td>2</td>" in r.text
    assert "1 row in" in r.text
    api = users["read"].api(app).post(f"/api/runs/{job}/sql", json={"sql": "SELECT players, count(*) AS n FROM games "
                                                                          "GROUP BY ALL ORDER BY ALL"})
    assert api.status_code == 200 and api.json()["columns"] == ["players", "n"]
    assert api.json()["rows"] == [[2, 200], [4, 200]] and api.json()["cut"] is False
    bad = users["read"].api(app).post(f"/api/runs/{job}/sql", json={"sql": "ATTACH 'x.db' AS x"})
    assert bad.status_code == 400 and bad.json()["error"] == "sql: only a SELECT statement runs in the console"
    assert users["read"].api(app).post(f"/api/runs/{job}/sql", json={"q": 1}).status_code == 400


def test_the_rows_shown_are_capped_and_the_page_says_so(run):
    app, users, job, _ = run
    r = console(app, users["read"], job, "SELECT * FROM range(100000)")
    assert r.status_code == 200
    assert r.text.count("<tr>") == 1 + 50 and "the first 50 rows are shown; the answer has more" in r.text
    api = users["read"].api(app).post(f"/api/runs/{job}/sql", json={"sql": "SELECT * FROM range(100000)"}).json()
    assert len(api["rows"]) == 50 and api["cut"] is True


REFUSALS = {
    "read_csv": ("SELECT * FROM read_csv('/etc/passwd')", "the table function read_csv() is not allowed"),
    "a path": ("SELECT * FROM '/etc/passwd'", "unknown table '/etc/passwd'"),
    "read_text": ("SELECT content FROM read_text('service.sqlite')", "the table function read_text() is not allowed"),
    "glob": ("SELECT * FROM glob('/*')", "the table function glob() is not allowed"),
    "ATTACH": ("ATTACH '/tmp/other.db' AS other", "only a SELECT statement runs in the console"),
    "SET": ("SET enable_external_access = true", "only a SELECT statement runs in the console"),
    "RESET": ("RESET lock_configuration", "only a SELECT statement runs in the console"),
    "PRAGMA": ("PRAGMA database_list", "only a SELECT statement runs in the console"),
    "INSTALL": ("INSTALL httpfs", "only a SELECT statement runs in the console"),
    "LOAD": ("LOAD httpfs", "only a SELECT statement runs in the console"),
    "COPY TO": ("COPY (SELECT * FROM games) TO '/tmp/stolen.csv'", "only a SELECT statement runs in the console"),
    "two statements": ("SELECT 1; SELECT 2", "2 statements; the console runs one SELECT statement"),
    "a setting": ("SELECT current_setting('allowed_paths')", "the function current_setting() is not allowed"),
    "empty": ("  ", "the statement is empty"),
}


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_each_refusal_is_one_line_in_the_page(run, case, tmp_path):
    app, users, job, _ = run
    sql, said = REFUSALS[case]
    r = console(app, users["read"], job, sql)
    line = error_line(r.text)
    assert r.status_code == 400 and said.replace("'", "&#x27;") in line, line
    assert "\n" not in line and "Traceback" not in line and str(app.state.root) not in line
    assert not (tmp_path / "stolen.csv").exists()


def test_a_runaway_cross_join_is_stopped_by_the_time_limit(run):
    app, users, job, _ = run
    r = console(app, users["read"], job, "SELECT count(*) FROM games a, games b, games c, games d, games e")
    assert r.status_code == 400 and error_line(r.text) == ("sql: stopped after 2 s, the service&#x27;s time limit "
                                                           "per statement")
    again = console(app, users["read"], job, "SELECT count(*) AS n FROM games")     # the service still answers
    assert "<td>400</td>" in again.text


def test_a_statement_over_the_memory_limit_is_one_line(tmp_path, sweep_folder):  # noqa: F811
    app = create_app(Settings(root=tmp_path / "root", console_limits=ConsoleLimits(timeout=20.0, memory_gib=0.25)),
                     start_runner=False)
    users = make_users(app)
    job = fake_done_job(app, users["edit"])
    give_results(app, job, sweep_folder)
    r = console(app, users["read"], job, "SELECT list(repeat('x', 1000) || i) FROM range(2000000) t(i) GROUP BY i % 3")
    line = error_line(r.text)
    assert "the memory limit is 0.25 GiB, the service&#x27;s limit per statement" in line, line
    app.state.catalog.close()


def test_script_in_the_sql_and_in_result_values_is_escaped(run):
    app, users, job, _ = run
    r = console(app, users["read"], job, f"SELECT '{SCRIPT}' AS \"{SCRIPT}\", '\"><img src=x onerror=alert(1)>' AS v")
    assert r.status_code == 200
    assert "<script>window" not in r.text and "<img src=x" not in r.text
    assert r.text.count("&lt;script&gt;window.__pwned=1&lt;/script&gt;") >= 3      # title, header, value, textarea
    bad = console(app, users["read"], job, f"SELECT {SCRIPT}")
    assert bad.status_code == 400 and "<script>window" not in bad.text


def test_no_server_path_in_what_the_console_shows(run):
    app, users, job, _ = run
    api = users["read"].api(app)
    got = api.post(f"/api/runs/{job}/sql", json={"sql": "SELECT DISTINCT results FROM games"}).json()
    assert got["rows"] == [[f"runs/{job}"]]


def test_the_consoles_post_needs_the_sessions_csrf_token(run):
    app, users, job, _ = run
    c = users["read"].page(app)
    for data in ({"sql": "SELECT 1"}, {"sql": "SELECT 1", "csrf": "forged"}, {"sql": "SELECT 1", "csrf": users["edit"].csrf}):
        r = c.post(f"/runs/{job}/sql", data=data)
        assert r.status_code == 403 and "CSRF" in r.text


def test_a_canned_query_from_its_form(run):
    app, users, job, _ = run
    c = users["read"].page(app)
    listed = c.get(f"/runs/{job}/queries")
    assert listed.status_code == 200 and f"/runs/{job}/queries/round_limit" in listed.text
    form = c.get(f"/runs/{job}/queries/round_limit")
    assert form.status_code == 200 and "id='p-limits'" in form.text and "value='10,15,20,25,30'" in form.text
    assert "id='answer'" not in form.text                                        # the form, not yet an answer
    r = c.get(f"/runs/{job}/queries/round_limit", params={"limits": "10,20", "run": "1"})
    assert r.status_code == 200, r.text[-1500:]
    assert "<th>players</th><th>round_limit</th><th>games</th><th>ended_by_limit</th><th>share</th>" in r.text
    assert "<th>ci95_low</th><th>ci95_high</th>" in r.text and r.text.count("<td>200</td>") == 4
    assert "answered per players" in r.text
    bad = c.get(f"/runs/{job}/queries/round_limit", params={"limits": "0; DROP TABLE games", "run": "1"})
    assert bad.status_code == 400
    assert error_line(bad.text).startswith("query round_limit: limits = &#x27;0; DROP TABLE games&#x27; is not "
                                           "allowed; expected a comma-separated list of integers, each &gt;= 1")
    unknown = c.get(f"/runs/{job}/queries/round_limit", params={"evil": SCRIPT, "run": "1"})
    assert unknown.status_code == 400 and "unknown parameter" in unknown.text and "<script>window" not in unknown.text


def test_a_canned_query_takes_where_pool_and_by_as_playtest_query_does(run):
    app, users, job, _ = run
    c = users["read"].page(app)
    form = c.get(f"/runs/{job}/queries/round_limit")
    assert all(f"id='o-{name}' name='{name}'" in form.text for name in ("where", "pool", "by"))
    ask = {"limits": "10,20", "run": "1"}
    two = c.get(f"/runs/{job}/queries/round_limit", params={**ask, "where": "players = 2"})
    assert two.status_code == 200, two.text[-1500:]
    assert two.text.count("<td>200</td>") == 2 and "<td>4</td>" not in two.text
    pooled = c.get(f"/runs/{job}/queries/round_limit", params={**ask, "pool": "players"})
    assert pooled.status_code == 200 and pooled.text.count("<td>400</td>") == 2 and "<th>players</th>" not in pooled.text
    split = c.get(f"/runs/{job}/queries/round_limit", params={**ask, "by": " players ,players"})
    assert split.status_code == 200 and split.text.count("<td>200</td>") == 4
    bad_where = c.get(f"/runs/{job}/queries/round_limit", params={**ask, "where": "1; DROP TABLE games"})
    assert bad_where.status_code == 400 and error_line(bad_where.text).startswith("--where")
    bad_by = c.get(f"/runs/{job}/queries/round_limit", params={**ask, "by": SCRIPT})
    assert bad_by.status_code == 400 and "not a variant column" in error_line(bad_by.text)
    assert "<script>window" not in bad_by.text
    both = c.get(f"/runs/{job}/queries/round_limit", params={**ask, "by": "players", "pool": "players"})
    assert both.status_code == 400 and "not both" in error_line(both.text)


def test_downloads_are_the_runs_tables(run):
    app, users, job, out = run
    c = users["read"].page(app)
    expect = ds.dataset(str(out / "games"), format="parquet", partitioning="hive").to_table()
    r = c.get(f"/runs/{job}/download/games.parquet")
    assert r.status_code == 200 and r.headers["content-type"] == "application/vnd.apache.parquet"
    assert f'filename="{job}-games.parquet"' in r.headers["content-disposition"]
    got = pq.read_table(pa.BufferReader(r.content))
    assert got.equals(expect.select(got.column_names)) and set(got.column_names) == set(expect.column_names)
    assert not any((app.state.root / "tmp").iterdir())                          # the temporary file is gone
    r = c.get(f"/runs/{job}/download/games.csv")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
    assert f'filename="{job}-games.csv"' in r.headers["content-disposition"]
    rows = list(csv.DictReader(io.StringIO(r.text)))
    assert len(rows) == 400 and list(rows[0]) == expect.column_names
    assert sorted(int(x["rounds"]) for x in rows) == sorted(expect.column("rounds").to_pylist())
    assert {x["cell"] for x in rows} == set(expect.column("cell").to_pylist())


def test_a_csv_download_over_the_row_cap_is_cut_and_says_so(tmp_path, sweep_folder):  # noqa: F811
    app = create_app(Settings(root=tmp_path / "root", console_limits=ConsoleLimits(csv_max_rows=150)),
                     start_runner=False)
    users = make_users(app)
    job = fake_done_job(app, users["edit"])
    give_results(app, job, sweep_folder)
    r = users["read"].page(app).get(f"/runs/{job}/download/games.csv")
    assert len(list(csv.DictReader(io.StringIO(r.text)))) == 150
    assert r.headers["x-playtest-rows"].startswith("150 of 400")
    app.state.catalog.close()


BAD_NAMES = ["..", "..%2f..%2fservice.sqlite", "%2e%2e%2fsecret", "../../jobs", "/etc/passwd", "games/../../x",
             "games%00", "GAMES", "cards", "games.json", "games.parquet.csv", "manifest", "*", "~"]


@pytest.mark.parametrize("route", ["/runs/{job}/download/{bad}.csv", "/runs/{job}/download/{bad}.parquet",
                                   "/runs/{job}/download/{bad}", "/runs/{job}/queries/{bad}"])
def test_path_traversal_in_table_and_query_names_is_refused(run, route, tmp_path):
    app, users, job, _ = run
    (tmp_path / "secret.txt").write_text("TOP-SECRET-OUTSIDE")
    (app.state.root / "secret.txt").write_text("TOP-SECRET-INSIDE")
    c = users["admin"].page(app)
    for bad in BAD_NAMES:
        url = route.format(job=job, bad=bad)
        r = c.get(url, follow_redirects=False)
        normalized = "/download/" not in r.request.url.path and "/queries/" not in r.request.url.path   # "x/.." is x
        assert r.status_code in (404, 405) or normalized or (r.status_code == 303 and r.headers["location"] == "/runs"), \
            (url, r.status_code, r.text[:200])
        assert "TOP-SECRET" not in r.text and "SQLite format" not in r.text and "root:" not in r.text, url


def test_the_run_page_links_to_its_console_queries_and_downloads(run):
    app, users, job, _ = run
    page = users["read"].page(app).get(f"/runs/{job}").text
    for href in (f"/runs/{job}/sql", f"/runs/{job}/queries", f"/runs/{job}/download/games.parquet",
                 f"/runs/{job}/download/games.csv"):
        assert f"href='{href}'" in page, href
    empty = fake_done_job(app, users["edit"])                   # a run without results: no links, 404s
    assert "id='sql-link'" not in users["read"].page(app).get(f"/runs/{empty}").text
    for url in (f"/runs/{empty}/sql", f"/runs/{empty}/queries", f"/runs/{empty}/download/games.csv"):
        assert users["read"].page(app).get(url).status_code == 404, url


@pytest.mark.slow
@pytest.mark.browser
def test_a_designer_answers_a_canned_query_and_a_console_query_in_chromium(tmp_path, sweep_folder):  # noqa: F811
    from test_service_browser import _chromium
    browser_path = _chromium()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed (pip install playwright)")
    from service_helpers import Live
    with Live(tmp_path / "root") as live, sync_playwright() as p:
        users = make_users(live.app)
        job = fake_done_job(live.app, users["edit"], title="Round limits")
        give_results(live.app, job, sweep_folder)
        b = p.chromium.launch(executable_path=browser_path, args=["--no-sandbox", "--disable-gpu"])
        try:
            tab = b.new_page()
            errors: list[str] = []
            tab.on("pageerror", lambda e: errors.append(str(e)))
            tab.on("request", lambda r: errors.append(f"request {r.url}") if not r.url.startswith(live.url) else None)
            tab.goto(f"{live.url}/login")
            tab.fill("#token", users["read"].token)
            tab.click("button:has-text('Log in')")
            tab.wait_for_url(f"{live.url}/runs")
            tab.goto(f"{live.url}/runs/{job}")
            tab.click("#queries-link")
            tab.click("a:has-text('round_limit')")
            tab.fill("#p-limits", "10,20")
            tab.click("#run-query")
            tab.wait_for_selector("#answer")
            head = tab.inner_text("#answer tr:first-child")
            assert "round_limit" in head and "ci95_low" in head and "ci95_high" in head
            assert tab.locator("#answer tr").count() == 5                     # players 2 and 4 x limits 10 and 20
            tab.goto(f"{live.url}/runs/{job}")
            tab.click("#sql-link")
            tab.fill("#sql", "SELECT count(*) AS games FROM games")
            tab.click("#run-sql")
            tab.wait_for_selector("#answer")
            assert tab.inner_text("#answer td") == "400"
            tab.fill("#sql", "SELECT * FROM read_csv('/etc/passwd')")
            tab.click("#run-sql")
            assert "read_csv() is not allowed" in tab.inner_text("#answer-error")
            assert tab.evaluate("window.__pwned === undefined")
            assert not errors, errors
        finally:
            b.close()
