"""Jobs for real, over loopback HTTP: a spec submitted from the form is played by the sweep step (``python -m
service.steps sweep``) in a child process, reported, and shown with its progress, report and verdict card; the queue
runs one job at a time; cancel ends the child; a job that fails leaves the service running; ``playtest submit
--wait`` is the API's client; and a restart resumes a running job with the sweep's own --resume (its folder then
verifies). The queue's states from cheap fixtures are test_service_lifecycle.py's; these play real sweeps (slow), but
for the failing job (its sweep step refuses the spec at once)."""

from __future__ import annotations

import os
import re
import signal
import socket
import time
import warnings
from pathlib import Path

import httpx
import pytest
from service_helpers import TINY, Live, end_left_running, free_port, make_users, serve, stop, wait_state

from service.app import Settings, create_app
from service.runner import layout, start_time

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from typer.testing import CliRunner

from cli.main import app as cli_app

pytestmark = pytest.mark.service

LONG = """name = "long"
game = "paws"
seed = 3
games_per_cell = 50000
batch_size = 2500
[grid]
players = [3, 4]
"""


def verify(out: Path) -> None:
    r = CliRunner().invoke(cli_app, ["status", str(out), "--verify"])
    assert r.exit_code == 0, r.output
    assert "the folder is whole" in r.output


def login(base: str, token: str) -> httpx.Client:
    c = httpx.Client(base_url=base, timeout=30)
    page = c.get("/login")
    csrf = re.search(r"name='csrf' value='([^']+)'", page.text)[1]
    r = c.post("/login", data={"csrf": csrf, "token": token})
    assert r.status_code == 303, r.text
    return c


@pytest.mark.slow
def test_a_spec_from_the_form_is_played_reported_and_shared(tmp_path):
    with Live(tmp_path / "root") as live:
        users = make_users(live.app)
        page = login(live.url, users["edit"].token)
        csrf = re.search(r"name='csrf' value='([^']+)'", page.get("/submit").text)[1]
        checked = page.post("/submit", data={"csrf": csrf, "title": "Smallest sweep", "description": "two cells",
                                             "spec": TINY, "action": "check"})
        assert checked.status_code == 200 and "2 cells, 400 games" in checked.text
        assert live.app.state.catalog.jobs() == []                    # the cost is shown; nothing starts yet
        started = page.post("/submit", data={"csrf": csrf, "title": "Smallest sweep", "description": "two cells",
                                             "spec": TINY, "action": "start"})
        assert started.status_code == 303
        job = started.headers["location"].rsplit("/", 1)[1]
        running = page.get(f"/runs/{job}")
        assert f"data-events='/runs/{job}/events'" in running.text      # updated live (service/live.py)
        api = httpx.Client(base_url=live.url, headers={"Authorization": f"Bearer {users['read'].token}"}, timeout=30)
        t0 = time.monotonic()
        got = wait_state(api, job, ("done", "failed", "cancelled"))
        took = time.monotonic() - t0
        assert got["state"] == "done", got
        assert got["progress"]["parts_done"] == got["progress"]["parts"] == 2
        assert got["progress"]["games_done"] == 400
        assert got["summary"].startswith("400 games of Paws in Peril in 2 cell(s)")
        assert got["url"] == f"{live.url}/runs/{job}"
        card = got["verdict"]
        assert card.startswith("**Smallest sweep**") and "Question: tiny (paws)" in card
        assert "players=2: Of the games somebody won, the first player wins" in card and "(95%: " in card
        assert "Bots: heuristic in every seat" in card and f"Run: {live.url}/runs/{job}" in card
        done = page.get(f"/runs/{job}")
        assert "2 of 2 parts" in done.text
        assert "id='copy'" in done.text and "Open the report" in done.text
        report = page.get(f"/runs/{job}/report")
        assert report.status_code == 200 and "Paws in Peril" in report.text and "<img" in report.text
        assert page.get(f"/runs/{job}/verdict.md").text == card.replace(live.url, live.url)
        listed = page.get("/runs", params={"state": "done", "game": "paws", "owner": "ed", "q": "smallest"})
        assert f"/runs/{job}" in listed.text
        # its owner follows it: its end is a notice on top of the run list until it is marked seen (manage.py)
        assert f"Run <a href='/runs/{job}'>Smallest sweep</a> ended: <span class='state done'>done" in listed.text
        assert page.post("/notifications/seen", data={"csrf": csrf}).status_code == 303
        assert f"/runs/{job}" not in page.get("/runs", params={"owner": "rita"}).text
        assert f"/runs/{job}" not in page.get("/runs", params={"q": "nothing like it"}).text
        out = layout(live.app.state.root, job)["out"]
        assert sorted(p.name for p in out.iterdir()) == [".sweep.lock", "games", "manifest.json"]   # the sweep's alone
        verify(out)
        actions = [a["action"] for a in live.app.state.catalog.audit_log()]
        assert {"submit", "start", "login"} <= set(actions)
        print(f"submitted to done (sweep and report) in {took:.1f} s")


@pytest.mark.slow
def test_the_queue_runs_one_job_at_a_time_and_cancel_ends_the_child(tmp_path):
    with Live(tmp_path / "root") as live:
        users = make_users(live.app)
        ed = httpx.Client(base_url=live.url, headers={"Authorization": f"Bearer {users['edit'].token}"}, timeout=30)
        first = ed.post("/api/runs", json={"spec": LONG, "title": "long"}).json()["id"]
        second = ed.post("/api/runs", json={"spec": TINY, "title": "after"}).json()["id"]
        wait_state(ed, first, ("running",))
        catalog = live.app.state.catalog
        deadline = time.monotonic() + 60
        while not (ed.get(f"/api/runs/{first}").json()["progress"] or {}).get("parts_done"):
            assert time.monotonic() < deadline
            time.sleep(0.1)
        assert ed.get(f"/api/runs/{second}").json()["state"] == "queued"         # one job at a time
        pid, started = catalog.job(first)["pid"], catalog.job(first)["pid_start"]
        assert start_time(pid) == started
        other = httpx.Client(base_url=live.url, headers={"Authorization": f"Bearer {users['other'].token}"})
        assert other.post(f"/api/runs/{first}/cancel").status_code == 403
        r = ed.post(f"/api/runs/{first}/cancel")
        assert r.status_code == 200 and r.json()["state"] == "cancelled"
        deadline = time.monotonic() + 20
        while start_time(pid) == started:
            assert time.monotonic() < deadline, "the cancelled sweep still runs"
            time.sleep(0.1)
        assert ed.post(f"/api/runs/{first}/cancel").status_code == 409
        after = wait_state(ed, second, ("done", "failed", "cancelled"))
        assert after["state"] == "done", after
        assert ed.get(f"/api/runs/{first}").json()["state"] == "cancelled"


def test_a_failing_job_leaves_the_service_running(tmp_path):
    with Live(tmp_path / "root") as live:
        users = make_users(live.app)
        catalog = live.app.state.catalog
        owner = catalog.user_by_token(users["edit"].token)
        # a spec that passed once but no longer resolves (stored as is): the sweep refuses it at run time
        bad = catalog.add_job(owner=owner, title="broken", description="", spec_name="x", game="paws",
                              spec_text=TINY.replace("game = \"paws\"", "game = \"chess\""), cells=1, games=1)
        ed = httpx.Client(base_url=live.url, headers={"Authorization": f"Bearer {users['edit'].token}"}, timeout=30)
        got = wait_state(ed, bad, ("done", "failed", "cancelled"))
        assert got["state"] == "failed" and "game = 'chess' is not allowed" in got["error"], got
        assert "\n" not in got["error"]
        assert ed.get("/health").json() == {"ok": True}


@pytest.mark.slow
def test_playtest_submit_waits_and_prints_the_summary(tmp_path):
    spec = tmp_path / "tiny.toml"
    spec.write_text(TINY)
    with Live(tmp_path / "root") as live:
        users = make_users(live.app)
        cli = CliRunner()
        r = cli.invoke(cli_app, ["submit", str(spec), "--server", live.url, "--token", users["edit"].token, "--wait",
                                 "--title", "from the terminal"])
        assert r.exit_code == 0, r.output
        lines = r.output.splitlines()
        assert re.fullmatch(rf"{re.escape(live.url)}/runs/[0-9a-f]{{12}}", lines[0]), lines
        assert "400 games of Paws in Peril in 2 cell(s)" in r.output and "the report: " in r.output
        refused = cli.invoke(cli_app, ["submit", str(spec), "--server", live.url, "--token", users["read"].token])
        assert refused.exit_code == 2 and "refused it (403)" in refused.output
        wrong = cli.invoke(cli_app, ["submit", str(spec), "--server", live.url, "--token", "pt_nope"])
        assert wrong.exit_code == 2 and "(401)" in wrong.output
        bad = tmp_path / "bad.toml"
        bad.write_text("game = 'chess'\nseed = 1\ngames_per_cell = 1\n")
        said = cli.invoke(cli_app, ["submit", str(bad), "--server", live.url, "--token", users["edit"].token])
        assert said.exit_code == 2 and "game = 'chess' is not allowed" in said.output
    gone = CliRunner().invoke(cli_app, ["submit", str(spec), "--server", live.url, "--token", "x"])
    assert gone.exit_code == 2 and "cannot reach the service" in gone.output


@pytest.mark.slow
@pytest.mark.parametrize("how", ["the child was killed", "the child outlived the service"])
def test_a_restart_resumes_a_running_job_and_its_folder_verifies(tmp_path, how):
    root = tmp_path / "root"
    first = create_app(Settings(root=root, workers=2), start_runner=False)
    users = make_users(first)
    catalog = first.state.catalog
    job = catalog.add_job(owner=catalog.user_by_token(users["edit"].token), title="long", description="",
                          spec_name="long", game="paws", spec_text=LONG, cells=2, games=100000)
    runner = first.state.runner.start()
    out = layout(root, job)["out"]
    deadline = time.monotonic() + 60
    while not list(out.glob("games/*/part-*.parquet")):
        assert time.monotonic() < deadline, "no part written"
        time.sleep(0.05)
    runner.stop(end_jobs=False)                            # the service is gone; its job's child is not reaped
    row = catalog.job(job)
    assert row["state"] == "running"
    pid, started = row["pid"], row["pid_start"]
    if how == "the child was killed":
        os.killpg(pid, signal.SIGKILL)
    catalog.close()
    second = create_app(Settings(root=root, workers=2), start_runner=False)
    again = second.state.runner.start()                   # recovers: ends a leftover child, then --resume
    try:
        deadline = time.monotonic() + 120
        while second.state.catalog.job(job)["state"] in ("queued", "running"):
            assert time.monotonic() < deadline, "the resumed job did not finish"
            time.sleep(0.2)
        row = second.state.catalog.job(job)
        assert row["state"] == "done", row
        assert start_time(pid) != started                  # the old child is gone either way
        assert "--resume" in layout(root, job)["log"].read_text()
        verify(out)
        assert "requeue" in [a["action"] for a in second.state.catalog.audit_log()]
    finally:
        again.stop()
        second.state.catalog.close()
    runner.stop()


def test_playtest_serve_starts_on_loopback_and_stops_on_sigterm(tmp_path):
    import subprocess
    import sys
    root, port = tmp_path / "root", free_port()
    cli = [sys.executable, "-c", "from cli.main import app; app()", "serve", "--root", str(root), "--port", str(port)]
    add = subprocess.run([*cli, "--add-user", "ann", "--role", "admin"], check=False, capture_output=True, text=True, timeout=60)
    assert add.returncode == 0, add.stderr
    token = add.stdout.strip()
    bad = subprocess.run([*cli[:-2], "--port", "0"], check=False, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "--port 0 is out of range" in bad.stderr
    proc = subprocess.Popen(cli, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{url}/health").status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.1)
        assert httpx.get(f"{url}/runs").status_code == 303
        assert httpx.get(f"{url}/api/runs", headers={"Authorization": f"Bearer {token}"}).json() == {"runs": []}
        with socket.socket() as s:                           # bound to loopback only
            s.settimeout(1)
            other = [a for a in socket.gethostbyname_ex(socket.gethostname())[2] if not a.startswith("127.")]
            if other:
                assert s.connect_ex((other[0], port)) != 0
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) in (0, -signal.SIGTERM)
        assert (root / "service.sqlite").is_file()
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()


@pytest.mark.slow
def test_kill_9_of_the_service_mid_sweep_and_a_restart_finish_the_job(tmp_path):
    import sqlite3
    import subprocess
    import sys
    root, port = tmp_path / "root", free_port()
    url = f"http://127.0.0.1:{port}"
    cli = [sys.executable, "-c", "from cli.main import app; app()", "serve", "--root", str(root), "--port", str(port),
           "--workers", "2"]
    token = subprocess.run([*cli, "--add-user", "ann", "--role", "edit"], check=True, capture_output=True, text=True,
                           timeout=60).stdout.strip()
    api = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=30)
    procs, children = [], []
    try:
        procs.append(serve(cli, url))
        job = api.post("/api/runs", json={"spec": LONG}).json()["id"]
        deadline = time.monotonic() + 60
        while not (api.get(f"/api/runs/{job}").json()["progress"] or {}).get("parts_done"):
            assert time.monotonic() < deadline
            time.sleep(0.1)
        with sqlite3.connect(root / "service.sqlite") as con:
            children.append(con.execute("SELECT pid, pid_start FROM jobs WHERE id = ?", (job,)).fetchone())
        procs[0].kill()                                     # kill -9 of the service alone: its sweep goes on
        procs[0].wait(timeout=30)
        procs.append(serve(cli, url))
        got = wait_state(api, job, ("done", "failed", "cancelled"), timeout=180)
        assert got["state"] == "done", got
        assert got["progress"]["games_done"] == 100000
        verify(layout(root, job)["out"])
    finally:
        for p in procs:
            stop(p)
        end_left_running(root, children)
