"""Nightly projects (service/nightly.py): an admin defines one; the scheduler queues exactly one regress job per
project and UTC day (a fake clock, across a restart, and from its thread); the project's page shows its history, a
trend chart per metric with one point per run, and the latest run's failing cells linked to the report; Run now;
refusals in one line, user text escaped."""

from __future__ import annotations

import pytest

import calendar
import re
import time

from regress_helpers import TINY_SUITE, fake_result, made_up_baseline
from service_helpers import make_users

from service.app import Settings, create_app

pytestmark = pytest.mark.service


def at(day: str, hhmm: str) -> float:
    return float(calendar.timegm(time.strptime(f"{day} {hhmm}", "%Y-%m-%d %H:%M")))


def define(app, admin, name: str = "paws-v4", when: str = "03:00", enabled: bool = True):
    r = admin.api(app).post("/api/nightly", json={"name": name, "at": when, "suite": TINY_SUITE,
                                                  "baseline": made_up_baseline(), "enabled": enabled})
    assert r.status_code == 200, r.text
    return r.json()


def test_the_scheduler_queues_exactly_one_job_per_day_across_a_restart(tmp_path):
    root = tmp_path / "root"
    app = create_app(Settings(root=root), start_runner=False)
    users = make_users(app)
    assert define(app, users["admin"])["created"] is True
    n = app.state.nightly
    n.clock = lambda: at("2026-12-07", "02:59")
    assert n.tick() == []                                   # not yet its time
    n.clock = lambda: at("2026-12-07", "03:00")
    first = n.tick()
    assert len(first) == 1
    row = app.state.catalog.job(first[0])
    assert (row["kind"], row["project"], row["owner"], row["state"]) == ("regress", "paws-v4", "ada", "queued")
    assert row["title"] == "nightly paws-v4 2026-12-07"
    for hhmm in ("03:00", "12:00", "23:59"):                # later looks the same day queue nothing
        n.clock = lambda hhmm=hhmm: at("2026-12-07", hhmm)
        assert n.tick() == []
    app.state.catalog.set_job(first[0], state="done", ended=time.time(), verdict="pass")
    app.state.catalog.close()

    app = create_app(Settings(root=root), start_runner=False)          # a restart: the catalog remembers the day
    n = app.state.nightly
    n.clock = lambda: at("2026-12-07", "18:00")
    assert n.tick() == []
    n.clock = lambda: at("2026-12-08", "02:00")
    assert n.tick() == []
    n.clock = lambda: at("2026-12-08", "03:30")
    second = n.tick()
    assert len(second) == 1 and n.tick() == []
    assert [j["id"] for j in app.state.catalog.jobs()] == [second[0], first[0]]
    app.state.catalog.set_job(second[0], state="done", ended=time.time(), verdict="pass")

    n.tick_s = 0.02                                         # the thread: many looks on one day, one job
    n.clock = lambda: at("2026-12-09", "04:00")
    n.start()
    deadline = time.monotonic() + 10
    while len(app.state.catalog.jobs()) < 3:
        assert time.monotonic() < deadline, "the scheduler's thread queued nothing"
        time.sleep(0.02)
    time.sleep(0.3)
    n.stop()
    assert len(app.state.catalog.jobs()) == 3
    app.state.catalog.close()


def test_a_project_waits_while_its_last_run_is_active_and_a_disabled_one_never_runs(quiet_app):
    users = make_users(quiet_app)
    define(quiet_app, users["admin"])
    define(quiet_app, users["admin"], "off", enabled=False)
    n = quiet_app.state.nightly
    n.clock = lambda: at("2026-12-07", "04:00")
    (job,) = n.tick()
    n.clock = lambda: at("2026-12-08", "04:00")
    assert n.tick() == []                                   # yesterday's run is still queued
    quiet_app.state.catalog.set_job(job, state="failed", ended=time.time())
    assert len(n.tick()) == 1
    assert all(j["project"] == "paws-v4" for j in quiet_app.state.catalog.jobs())


def test_the_project_page_shows_one_point_per_run_and_the_failing_cells(quiet_app):
    users = make_users(quiet_app)
    define(quiet_app, users["admin"])
    n, cat = quiet_app.state.nightly, quiet_app.state.catalog
    jobs = []
    for i, (code, share, flagged) in enumerate((("v1", 0.5, False), ("v1", 0.55, False), ("v2", 0.8, True))):
        job = n.queue("paws-v4", "ada", now=at(f"2026-12-0{i + 1}", "03:00"))
        cat.set_job(job, state="done", ended=time.time(), verdict="regression" if flagged else "pass")
        fake_result(quiet_app, job, code=code, first_share=share, flagged=flagged)
        jobs.append(job)
    jobs.append(n.queue("paws-v4", "ada"))                  # a run still queued: in the history, not in the charts
    page = users["read"].page(quiet_app).get("/nightly/paws-v4")
    assert page.status_code == 200
    charts = re.findall(r"<img class='plot trend' src='data:image/png;base64,[A-Za-z0-9+/=]+' alt='([^']*)'", page.text)
    assert len(charts) == 2                                 # seat_win_rate first player, game_length
    assert all("across 3 runs" in c for c in charts)         # one point per finished run (regress.html.trend_plot)
    assert "the code version changed 1 time, 1 flagged" in charts[0]
    assert re.search(r"code v1: 0\.5; \S+ code v1: 0\.55; \S+ code v2: 0\.8 \(flagged\)$", charts[0])  # oldest first
    assert page.text.count("<tr><td>") >= 4 and ">v2<" in page.text
    assert f"/runs/{jobs[2]}/report#cell-c001" in page.text  # the latest run's failing cell
    assert "/runs/" + jobs[3] in page.text
    assert "id='run-now'" not in page.text                  # read users see no Run now
    api = users["read"].api(quiet_app).get("/api/nightly/paws-v4").json()
    assert [len(v) for v in api["trends"].values()] == [3, 3]
    assert [r["code_version"] for r in api["runs"]] == ["", "v2", "v1", "v1"]
    assert api["failing"][0]["cell"] == "c001"
    listed = users["read"].page(quiet_app).get("/nightly")
    assert "href='/nightly/paws-v4'" in listed.text and "name='suite'" not in listed.text   # the form: admins only


def test_run_now_for_admins_with_csrf(quiet_app):
    users = make_users(quiet_app)
    define(quiet_app, users["admin"])
    admin = users["admin"]
    page = admin.page(quiet_app)
    assert "id='run-now'" in page.get("/nightly/paws-v4").text
    r = page.post("/nightly/paws-v4/run", data={"csrf": admin.csrf}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].startswith("/runs/")
    assert page.post("/nightly/paws-v4/run", data={"csrf": admin.csrf}).status_code == 409
    assert page.post("/nightly/paws-v4/run", data={"csrf": "forged"}).status_code == 403
    assert page.post("/nightly/nope/run", data={"csrf": admin.csrf}).status_code == 404
    assert users["edit"].api(quiet_app).post("/api/nightly/paws-v4/run").status_code == 403
    assert len(quiet_app.state.catalog.jobs()) == 1


def test_bad_projects_are_refused_in_one_line_and_user_text_is_escaped(quiet_app):
    users = make_users(quiet_app)
    admin = users["admin"]
    page, api = admin.page(quiet_app), admin.api(quiet_app)
    good = {"name": "p", "at": "03:00", "suite": TINY_SUITE, "baseline": made_up_baseline()}
    r = page.post("/nightly", data={"csrf": admin.csrf, **good, "name": "<script>alert(1)</script>"})
    assert r.status_code == 400
    assert "<script>alert(1)" not in r.text and "&lt;script&gt;alert(1)" in r.text
    assert "a project name is 1 to 64 letters" in r.text
    for change, said in (({"baseline": "{oops"}, "baseline.json: corrupt baseline: not valid JSON"),
                         ({"suite": "x = 1\n" * 50_000}, "suite.toml: 300,000 bytes; at most 262,144"),
                         ({"at": "25:00"}, "time '25:00': not allowed; expected HH:MM"),
                         ({"name": "a/../b"}, "name 'a/../b': not allowed"),
                         ({"enabled": "yes"}, "enabled: expected true or false")):
        r = api.post("/api/nightly", json={**good, **change})
        assert r.status_code == 400, r.text
        error = r.json()["error"]
        assert said in error and "\n" not in error, error
    assert api.post("/api/nightly", content=b"{" + b" " * (1024 * 1024)).status_code == 413
    r = page.post("/nightly", data={"csrf": admin.csrf, **good, "baseline": "<b>not json</b>"})
    assert r.status_code == 400 and "&lt;b&gt;not json" in r.text and "<b>not json" not in r.text
    assert quiet_app.state.catalog.q("SELECT count(*) FROM nightly")[0][0] == 0
    assert users["edit"].page(quiet_app).post("/nightly", data={"csrf": users["edit"].csrf, **good}).status_code == 403
    ok = page.post("/nightly", data={"csrf": admin.csrf, **good, "enabled": "1"}, follow_redirects=False)
    assert ok.status_code == 303 and ok.headers["location"] == "/nightly/p"
    assert users["read"].page(quiet_app).get("/nightly/no-such").status_code == 404


def test_a_project_takes_the_card_files_its_suite_names_and_its_runs_carry_them(quiet_app):
    from pathlib import Path
    items = (Path(__file__).resolve().parents[2] / "sim" / "paws" / "data" / "items.toml").read_text()
    suite = TINY_SUITE.replace("[sweep.setup]", '[sweep.data]\nitems = "my-items.toml"\n[sweep.setup]')
    users = make_users(quiet_app)
    admin = users["admin"].api(quiet_app)
    body = {"name": "with-cards", "at": "03:00", "suite": suite, "baseline": made_up_baseline()}
    missing = admin.post("/api/nightly", json=body)
    assert missing.status_code == 400 and "my-items.toml" in missing.json()["error"]
    assert "\n" not in missing.json()["error"] and quiet_app.state.nightly.project("with-cards") is None
    assert admin.post("/api/nightly", json={**body, "cards": {"my-items.toml": items}}).status_code == 200
    job = admin.post("/api/nightly/with-cards/run")
    assert job.status_code in (200, 201), job.text
    (row,) = quiet_app.state.catalog.jobs()
    assert row["kind"] == "regress" and '"my-items.toml"' in row["params"]
    page = users["admin"].page(quiet_app)
    r = page.post("/nightly", data={"csrf": users["admin"].csrf, "name": "from-form", "at": "04:00", "enabled": "1",
                                    "suite": suite, "baseline": made_up_baseline()},
                  files=[("cards", ("my-items.toml", items.encode(), "text/plain"))], follow_redirects=False)
    assert r.status_code == 303, r.text[-1500:]
    assert "my-items.toml" in quiet_app.state.nightly.project("from-form")["cards"]
