"""The live run page: the estimate per cell (games, the first player's share of decided games with its Wilson
interval) read from the finished parts agrees with the canned query; a [stop] sweep's cells say why they stopped;
the events stream and the progress API; the page's script bears the nonce and renders text only."""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import pytest
from results_helpers import give_results, sweep_folder  # noqa: F401 - a fixture
from service_helpers import TINY, make_users

from queries import connection, sqlfiles
from service.runner import layout

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from typer.testing import CliRunner

from cli.main import app as cli_app

pytestmark = pytest.mark.service

STOP = """name = "tiny-stop"
game = "paws"
seed = 2
batch_size = 200
[grid]
players = [2, 3]
[stop]
metric = "end_share:round_limit"
half_width = 0.2
max_games_per_cell = 2000
"""


@pytest.fixture(scope="session")
def stop_folder(tmp_path_factory) -> Path:
    """STOP's results, played once per test session (in process)."""
    base = tmp_path_factory.mktemp("stop")
    (base / "spec.toml").write_text(STOP)
    r = CliRunner().invoke(cli_app, ["sweep", str(base / "spec.toml"), "--out", str(base / "out"), "--no-progress",
                                     "--workers", "1"])
    assert r.exit_code == 0, r.output
    return base / "out"


def played_job(app, owner, spec: str, folder: Path, title: str = "live") -> str:
    """A job marked running whose results folder holds a copy of ``folder``, the finished sweep of ``spec``."""
    catalog = app.state.catalog
    job = catalog.add_job(owner=catalog.user_by_token(owner.token), title=title, description="", spec_name="t",
                          game="paws", spec_text=spec, cells=2, games=400)
    paths = layout(app.state.root, job)
    paths["own"].mkdir(parents=True, exist_ok=True)
    paths["spec"].write_text(spec)
    give_results(app, job, folder)
    catalog.set_job(job, state="running", started=1.0)
    return job


def query_truth(out) -> dict[int, tuple[int, int, float, float]]:
    """players -> (decided, first_wins, ci95_low, ci95_high) from the canned first_player_advantage query."""
    con = connection.connect([out])
    try:
        connection.add_seat_outcomes(con, [out])
        sql = sqlfiles.load("first_player_advantage").sql
        cols, rows = None, None
        cur = con.execute(sql)
        cols = [d[0] for d in cur.description]
        rows = [dict(zip(cols, r)) for r in cur.fetchall()]
    finally:
        con.close()
    return {r["players"]: (r["decided"], r["first_wins"], r["ci95_low"], r["ci95_high"]) for r in rows}


def test_the_estimate_from_the_parts_agrees_with_the_canned_query(quiet_app, sweep_folder):  # noqa: F811
    users = make_users(quiet_app)
    job = played_job(quiet_app, users["edit"], TINY, sweep_folder)
    got = users["read"].api(quiet_app).get(f"/api/runs/{job}/progress")
    assert got.status_code == 200, got.text
    p = got.json()["progress"]
    assert (p["parts_done"], p["parts"], p["games_done"], p["stop"]) == (2, 2, 400, None)
    truth = query_truth(layout(quiet_app.state.root, job)["out"])
    for cell in p["cells"]:
        players = int(cell["label"].removeprefix("players="))
        decided, first, low, high = truth[players]
        assert (cell["games_read"], cell["decided"], cell["first_wins"]) == (200, decided, first)
        assert cell["ci95"] == pytest.approx([low, high], abs=1e-9)
        assert cell["fair_share"] == pytest.approx(1 / players)
    again = quiet_app.state.live.state(layout(quiet_app.state.root, job)["out"])     # cached: no part read twice
    assert again["cells"] == p["cells"]


def test_a_stop_sweep_says_why_each_cell_stopped(quiet_app, stop_folder):
    users = make_users(quiet_app)
    job = played_job(quiet_app, users["edit"], STOP, stop_folder)
    p = users["read"].api(quiet_app).get(f"/api/runs/{job}/progress").json()["progress"]
    assert p["stop"]["metric"] == "end_share:round_limit"
    for cell in p["cells"]:
        assert cell["stop"]["reason"] in ("narrow", "cap"), cell
        low, high = cell["stop"]["interval"]
        assert low <= cell["stop"]["estimate"] <= high
        assert cell["games_read"] == cell["games_done"] > 0


def test_the_events_stream_sends_the_state_then_ends_with_the_run(quiet_app, sweep_folder):  # noqa: F811
    users = make_users(quiet_app)
    job = played_job(quiet_app, users["edit"], TINY, sweep_folder)
    quiet_app.state.catalog.set_job(job, state="done")
    r = users["read"].page(quiet_app).get(f"/runs/{job}/events")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    events = re.findall(r"event: (\w+)\ndata: (.*)\n\n", r.text)
    assert [e for e, _ in events] == ["progress", "end"], r.text
    state = json.loads(events[0][1])
    assert state["run_state"] == "done" and state["progress"]["games_done"] == 400
    assert users["read"].page(quiet_app).get("/runs/000000000000/events").status_code == 404
    assert users["read"].api(quiet_app).get("/api/runs/../progress").status_code == 404


def test_the_page_carries_the_live_block_and_a_nonced_script(quiet_app, sweep_folder):  # noqa: F811
    users = make_users(quiet_app)
    job = played_job(quiet_app, users["edit"], TINY, sweep_folder, title="<script>alert(1)</script>")
    r = users["read"].page(quiet_app).get(f"/runs/{job}")
    assert r.status_code == 200
    assert "<script>alert(1)</script>" not in r.text and "&lt;script&gt;alert(1)&lt;/script&gt;" in r.text
    assert f"data-events='/runs/{job}/events'" in r.text and "http-equiv='refresh'" not in r.text
    csp = r.headers["content-security-policy"]
    nonce = re.search(r"'nonce-([^']+)'", csp)[1]
    assert "connect-src 'self'" in csp
    scripts = re.findall(r"<script([^>]*)>", r.text)
    assert scripts == [f" nonce='{nonce}'"]
    assert "innerHTML" not in r.text                          # the data become text, never markup


@pytest.mark.slow
@pytest.mark.browser
def test_the_page_updates_live_in_chromium_and_reloads_when_the_run_ends(tmp_path):
    import httpx
    from service_helpers import Live, wait_state
    from test_service_browser import _chromium
    browser_path = _chromium()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed (pip install playwright)")
    spec = TINY.replace("games_per_cell = 200", "games_per_cell = 40000\nbatch_size = 2000")
    with Live(tmp_path / "root") as live, sync_playwright() as p:
        users = make_users(live.app)
        ed = httpx.Client(base_url=live.url, headers={"Authorization": f"Bearer {users['edit'].token}"}, timeout=30)
        job = ed.post("/api/runs", json={"spec": spec, "title": "<img src=x onerror=window.__pwned=1>"}).json()["id"]
        b = p.chromium.launch(executable_path=browser_path, args=["--no-sandbox", "--disable-gpu"])
        try:
            tab = b.new_context().new_page()
            errors: list[str] = []
            tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            tab.on("pageerror", lambda e: errors.append(str(e)))
            tab.goto(f"{live.url}/login")
            tab.fill("#token", users["read"].token)
            tab.click("button:has-text('Log in')")
            tab.wait_for_url(f"{live.url}/runs")
            tab.goto(f"{live.url}/runs/{job}")
            tab.evaluate("window.__loaded = 1")                 # gone after a reload
            until(tab, "document.querySelectorAll('#live-cells tbody tr').length === 2 && "
                  "document.querySelector('#live-cells tbody').textContent.includes('%')", 60)
            assert tab.evaluate("window.__loaded") == 1          # filled without a reload
            row = tab.inner_text("#live-cells tbody tr")
            assert re.search(r"c\d+ players=2\s+\d+/20\s+[\d,]+\s+\d+\.\d% \(\d+\.\d% to \d+\.\d%\) of [\d,]+\s+50\.0%",
                             row), row
            assert wait_state(ed, job, ("done", "failed", "cancelled"), timeout=120)["state"] == "done"
            until(tab, "window.__loaded === undefined", 30)      # reloaded once it ended
            assert tab.inner_text("#state") == "done" and "Verdict card" in tab.inner_text("main")
            assert "40 of 40 parts, 80,000 of 80,000 games" in tab.inner_text("#live-status")
            assert tab.evaluate("window.__pwned === undefined")
            assert not [e for e in errors if "favicon" not in e], errors
        finally:
            b.close()


def until(tab, condition: str, timeout: float) -> None:
    """Poll a condition in the page (Playwright's wait_for_function evaluates strings, which the page's CSP refuses);
    a look that meets the page's own reload (the run ended) waits for the new page and looks again."""
    import time

    from playwright.sync_api import Error
    deadline = time.monotonic() + timeout
    while True:
        try:
            if tab.evaluate(condition):
                return
        except Error as e:
            if "Execution context was destroyed" not in str(e):
                raise
            tab.wait_for_load_state("load")
        assert time.monotonic() < deadline, f"not within {timeout} s: {condition}"
        time.sleep(0.1)
