"""A designer's path in the system's Chromium (Playwright, no browser download): log in with a token, submit
examples/smoke.toml from the form (its cost shown first), watch the run finish, open its report, copy the verdict
card, then start a long run and cancel it from its page. Every request stays on the service; no script error; nothing planted runs."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from service_helpers import Live, make_users

from tests.test_report import _chromium

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.service]
LONG = 'name = "long"\ngame = "paws"\nseed = 3\ngames_per_cell = 50000\nbatch_size = 2500\n[grid]\nplayers = [3, 4]\n'


def test_a_designer_submits_the_smoke_spec_reads_the_report_and_copies_the_verdict(tmp_path):
    browser_path = _chromium()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed (pip install playwright)")
    with Live(tmp_path / "root") as live, sync_playwright() as p:
        users = make_users(live.app)
        b = p.chromium.launch(executable_path=browser_path, args=["--no-sandbox", "--disable-gpu"])
        try:
            context = b.new_context(permissions=["clipboard-read", "clipboard-write"])
            tab = context.new_page()
            errors: list[str] = []
            tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            tab.on("pageerror", lambda e: errors.append(str(e)))
            tab.on("request", lambda r: errors.append(f"request {r.url}") if not r.url.startswith(live.url) else None)
            tab.goto(f"{live.url}/")
            assert tab.url.endswith("/login")
            tab.fill("#token", users["edit"].token)
            tab.click("button:has-text('Log in')")
            tab.wait_for_url(f"{live.url}/runs")
            tab.click("header a:has-text('Submit')")
            tab.fill("#title", "Does a 20-round limit matter? <b>smoke</b>")
            tab.set_input_files("#spec_file", str(ROOT / "examples" / "smoke.toml"))
            tab.click("button:has-text('Check and show the cost')")
            cost = tab.inner_text("#cost")
            assert "4 cells, 20,000 games, about " in cost and " from start to end (" in cost and "(smoke, paws)" in cost, cost
            t0 = time.monotonic()
            tab.click("button:has-text('Start this sweep')")
            tab.wait_for_url(f"{live.url}/runs/*")
            while tab.inner_text("#state") in ("queued", "running"):
                assert time.monotonic() - t0 < 120, "the run did not finish"
                time.sleep(0.5)
                tab.reload()
            took = time.monotonic() - t0
            assert tab.inner_text("#state") == "done", tab.inner_text("main")
            assert "8 of 8 parts, 20,000 of 20,000 games" in tab.inner_text("#progress")
            card = tab.inner_text("#verdict")
            assert card.startswith("**Does a 20-round limit matter? <b>smoke</b>**")
            assert "players=2, round_limit=20" in card or "round_limit=20" in card
            tab.click("#copy")
            tab.wait_for_function("document.getElementById('copied').textContent.includes('copied')")
            assert tab.evaluate("navigator.clipboard.readText()") == tab.evaluate(
                "document.getElementById('verdict').textContent")
            run_url = tab.url
            tab.click("#report")
            tab.wait_for_load_state("load")
            text = tab.inner_text("body")
            assert "Paws in Peril" in text and "20,000" in text
            assert tab.evaluate("document.images.length") > 0
            tab.goto(run_url)
            assert tab.evaluate("window.__pwned === undefined")
            tab.goto(f"{live.url}/submit")                        # a long run, cancelled from its page
            tab.fill("#spec", LONG)
            tab.click("button:has-text('Check and show the cost')")
            tab.click("button:has-text('Start this sweep')")
            tab.wait_for_url(f"{live.url}/runs/*")
            while tab.inner_text("#state") != "running":
                time.sleep(0.3)
                tab.reload()
            tab.click("#cancel")
            tab.wait_for_url(f"{live.url}/runs/*")
            assert tab.inner_text("#state") == "cancelled"
            assert tab.locator("#cancel").count() == 0
            assert not [e for e in errors if "favicon" not in e], errors
            print(f"smoke.toml from the form: done, report and verdict in {took:.1f} s")
        finally:
            b.close()
