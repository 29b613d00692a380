"""The queue and its users (service/manage.py): priorities, deleting runs, following runs and their notifications,
the failed-login limit, token rotation, roles and removing users, and the run list's rule set, verdict and date
filters (service/specs.py rule_set_of)."""

from __future__ import annotations

import calendar
import re
import sqlite3
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest
from service_helpers import TINY, csrf_of, fake_done_job, make_users

from service.catalog import Catalog
from service.manage import Failures
from service.runner import layout
from service.specs import rule_set_of

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

pytestmark = pytest.mark.service

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def queued_job(app, owner, title: str = "a queued run", created: float | None = None) -> str:
    cat = app.state.catalog
    job = cat.add_job(owner=cat.user_by_token(owner.token), title=title, description="", spec_name="tiny",
                      game="paws", spec_text=TINY, cells=2, games=400)
    if created is not None:
        cat.x("UPDATE jobs SET created = ? WHERE id = ?", (created, job))
    return job


def audit_lines(app, action: str) -> list[dict]:
    return [a for a in app.state.catalog.audit_log() if a["action"] == action]


# priorities -------------------------------------------------------------------------------------------------

def test_the_runner_starts_resumed_jobs_then_by_priority_then_oldest_first(quiet_app):
    users = make_users(quiet_app)
    cat, runner = quiet_app.state.catalog, quiet_app.state.runner
    old = queued_job(quiet_app, users["edit"], "old", created=100.0)
    new_high = queued_job(quiet_app, users["edit"], "new, high", created=300.0)
    older_high = queued_job(quiet_app, users["edit"], "older, high", created=200.0)
    low = queued_job(quiet_app, users["edit"], "low", created=50.0)
    resumed = queued_job(quiet_app, users["edit"], "resumed", created=400.0)
    cat.set_priority(new_high, 5)
    cat.set_priority(older_high, 5)
    cat.set_priority(low, -3)
    cat.set_job(resumed, resume=1)
    runner.command = lambda step: [sys.executable, "-c", "pass"]     # each step a child that ends at once
    runner.jobs = 10
    try:
        runner.step()
        started = [(a["job"], a["action"] == "resume") for a in reversed(cat.audit_log())
                   if a["action"] in ("start", "resume")]
        assert started == [(resumed, True), (older_high, False), (new_high, False), (old, False), (low, False)]
        assert {cat.job(j)["state"] for j, _ in started} == {"running"}
    finally:
        runner.stop()


def test_an_admin_sets_a_queued_runs_priority_on_its_page_and_by_api(quiet_app):
    users = make_users(quiet_app)
    cat = quiet_app.state.catalog
    job = queued_job(quiet_app, users["edit"])
    admin = users["admin"].page(quiet_app)
    page = admin.get(f"/runs/{job}")
    assert "action='/runs/" + job + "/priority'" in page.text
    r = admin.post(f"/runs/{job}/priority", data={"csrf": users["admin"].csrf, "priority": "7"},
                   follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == f"/runs/{job}"
    assert cat.job(job)["priority"] == 7
    assert [(a["user"], a["job"], a["detail"]) for a in audit_lines(quiet_app, "priority")] == [("ada", job, "0 -> 7")]
    api = users["admin"].api(quiet_app)
    r = api.post(f"/api/runs/{job}/priority", json={"priority": -10})
    assert r.status_code == 200 and r.json() == {"id": job, "priority": -10}
    assert cat.job(job)["priority"] == -10
    assert api.get("/api/runs").json()["runs"][0]["priority"] == -10
    # an edit user (even the owner) may not: only admins order the queue
    assert users["edit"].api(quiet_app).post(f"/api/runs/{job}/priority", json={"priority": 1}).status_code == 403
    assert users["edit"].page(quiet_app).get(f"/runs/{job}").text.count("/priority'") == 0


@pytest.mark.parametrize("value", ["11", "-11", "abc", "", "1.5", "9" * 50, "<script>"])
def test_a_bad_priority_is_one_line_and_nothing_is_stored(quiet_app, value):
    users = make_users(quiet_app)
    job = queued_job(quiet_app, users["edit"])
    r = users["admin"].page(quiet_app).post(f"/runs/{job}/priority", data={"csrf": users["admin"].csrf,
                                                                           "priority": value})
    assert r.status_code == 400
    assert "expected an integer from -10 to 10" in r.text and "<script>" not in r.text
    assert quiet_app.state.catalog.job(job)["priority"] == 0 and not audit_lines(quiet_app, "priority")


@pytest.mark.parametrize("body", [{"priority": 11}, {"priority": "3"}, {"priority": True}, {"priority": 2.0},
                                  {"priority": None}, {}, {"priority": 1, "more": 2}, [3]])
def test_a_bad_priority_by_api_is_400_and_nothing_is_stored(quiet_app, body):
    users = make_users(quiet_app)
    job = queued_job(quiet_app, users["edit"])
    r = users["admin"].api(quiet_app).post(f"/api/runs/{job}/priority", json=body)
    assert r.status_code == 400, r.text
    assert "-10 to 10" in r.json()["error"] and "\n" not in r.json()["error"]
    assert quiet_app.state.catalog.job(job)["priority"] == 0


def test_only_a_queued_runs_priority_can_be_set(quiet_app):
    users = make_users(quiet_app)
    job = fake_done_job(quiet_app, users["edit"])
    r = users["admin"].api(quiet_app).post(f"/api/runs/{job}/priority", json={"priority": 2})
    assert r.status_code == 409 and r.json()["error"] == "only a queued run's priority can be set; this run is done"
    assert quiet_app.state.catalog.job(job)["priority"] == 0
    assert users["admin"].api(quiet_app).post("/api/runs/0123456789ab/priority",
                                              json={"priority": 2}).status_code == 404


# deleting runs ----------------------------------------------------------------------------------------------

def test_the_owner_deletes_an_ended_run_its_folders_and_row_go(quiet_app):
    users = make_users(quiet_app)
    job = fake_done_job(quiet_app, users["edit"])
    keep = fake_done_job(quiet_app, users["edit"], title="another run")
    paths = layout(quiet_app.state.root, job)
    paths["out"].mkdir(parents=True)
    (paths["out"] / "manifest.json").write_text("{}")
    forgotten = []
    quiet_app.state.live.forget = forgotten.append
    ed = users["edit"].page(quiet_app)
    assert "id='delete'" in ed.get(f"/runs/{job}").text
    r = ed.post(f"/runs/{job}/delete", data={"csrf": users["edit"].csrf}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/runs"
    assert not paths["out"].exists() and not paths["own"].exists()
    assert forgotten == [paths["out"]]
    assert ed.get(f"/runs/{job}").status_code == 404
    assert users["read"].api(quiet_app).get(f"/api/runs/{job}").status_code == 404
    assert [r["id"] for r in quiet_app.state.catalog.jobs()] == [keep]
    assert layout(quiet_app.state.root, keep)["report"].is_file()               # the other run is untouched
    assert [(a["user"], a["job"]) for a in audit_lines(quiet_app, "delete")] == [("ed", job)]
    assert ed.post(f"/runs/{job}/delete", data={"csrf": users["edit"].csrf}).status_code == 404


def test_an_admin_deletes_by_api_and_another_user_may_not(quiet_app):
    users = make_users(quiet_app)
    job = fake_done_job(quiet_app, users["edit"])
    r = users["other"].api(quiet_app).delete(f"/api/runs/{job}")
    assert r.status_code == 403 and r.json()["error"] == "only its owner or an admin may delete a run"
    assert "id='delete'" not in users["other"].page(quiet_app).get(f"/runs/{job}").text
    assert users["read"].api(quiet_app).delete(f"/api/runs/{job}").status_code == 403
    assert quiet_app.state.catalog.job(job) is not None
    r = users["admin"].api(quiet_app).delete(f"/api/runs/{job}")
    assert r.status_code == 200 and r.json() == {"id": job, "deleted": True}
    assert not layout(quiet_app.state.root, job)["own"].exists()
    assert users["admin"].api(quiet_app).delete(f"/api/runs/{job}").status_code == 404


@pytest.mark.parametrize("state", ["queued", "running"])
def test_a_queued_or_running_run_must_be_cancelled_before_it_is_deleted(quiet_app, state):
    users = make_users(quiet_app)
    job = fake_done_job(quiet_app, users["edit"])
    quiet_app.state.catalog.set_job(job, state=state)
    r = users["admin"].api(quiet_app).delete(f"/api/runs/{job}")
    assert r.status_code == 409 and r.json()["error"] == f"the run is {state}; cancel it first, then delete it"
    page = users["edit"].page(quiet_app).post(f"/runs/{job}/delete", data={"csrf": users["edit"].csrf})
    assert page.status_code == 409 and "cancel it first" in page.text
    assert layout(quiet_app.state.root, job)["report"].is_file() and quiet_app.state.catalog.job(job)["state"] == state
    assert not audit_lines(quiet_app, "delete")


def test_delete_takes_no_path_from_the_request(quiet_app):
    users = make_users(quiet_app)
    victim = quiet_app.state.root / "jobs" / "keep"
    victim.mkdir(parents=True)
    api = users["admin"].api(quiet_app)
    for bad in ("..%2Fjobs%2Fkeep", "keep", "%2e%2e", "0123456789AB", "0123456789ab"):
        assert api.delete(f"/api/runs/{bad}").status_code in (404, 405), bad
    assert victim.is_dir() and (quiet_app.state.root / "service.sqlite").is_file()


# follow and notify ------------------------------------------------------------------------------------------

def test_followers_are_notified_once_when_a_followed_run_ends(quiet_app):
    users = make_users(quiet_app)
    cat = quiet_app.state.catalog
    job = queued_job(quiet_app, users["edit"], title="<b>the sweep</b>")
    rita = users["read"].page(quiet_app)
    r = rita.post(f"/runs/{job}/follow", data={"csrf": users["read"].csrf}, follow_redirects=False)
    assert r.status_code == 303
    assert "Stop following" in rita.get(f"/runs/{job}").text
    assert users["other"].api(quiet_app).post(f"/api/runs/{job}/follow").json() == {"id": job, "following": True}
    assert users["other"].api(quiet_app).delete(f"/api/runs/{job}/follow").json() == {"id": job, "following": False}
    cat.set_job(job, state="running", started=time.time())
    assert not cat.notifications(cat.user("ed")) and not cat.notifications(cat.user("rita"))
    cat.set_job(job, state="done", ended=time.time())          # as the runner ends a job
    cat.set_job(job, state="done", ended=time.time())          # told again: no second notice
    cat.ended(job, "done")
    for name in ("ed", "rita"):                                 # the owner follows their own runs
        got = users["edit" if name == "ed" else "read"].api(quiet_app).get("/api/notifications").json()
        assert [(n["run"], n["state"], n["seen"]) for n in got["notifications"]] == [(job, "done", False)]
    assert users["other"].api(quiet_app).get("/api/notifications").json() == {"notifications": []}
    assert users["admin"].api(quiet_app).get("/api/notifications").json() == {"notifications": []}
    page = rita.get("/runs").text
    assert f"Run <a href='/runs/{job}'>&lt;b&gt;the sweep&lt;/b&gt;</a> ended: <span class='state done'>done" in page
    assert "<b>the sweep</b>" not in page
    r = rita.post("/notifications/seen", data={"csrf": users["read"].csrf}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/runs"
    assert "id='notices'" not in rita.get("/runs").text
    assert users["read"].api(quiet_app).get("/api/notifications").json() == {"notifications": []}
    seen = users["read"].api(quiet_app).get("/api/notifications?all=1").json()["notifications"]
    assert [(n["run"], n["seen"]) for n in seen] == [(job, True)]
    assert "id='notices'" in users["edit"].page(quiet_app).get("/runs").text    # ed has not marked his seen


def test_a_cancelled_run_notifies_through_the_runners_own_cancel(quiet_app):
    users = make_users(quiet_app)
    job = queued_job(quiet_app, users["edit"])
    users["admin"].api(quiet_app).post(f"/api/runs/{job}/follow")
    assert users["edit"].api(quiet_app).post(f"/api/runs/{job}/cancel").status_code == 200
    for who in ("edit", "admin"):
        got = users[who].api(quiet_app).get("/api/notifications").json()["notifications"]
        assert [(n["run"], n["state"]) for n in got] == [(job, "cancelled")]


def test_a_deleted_runs_notifications_and_follows_go_with_it(quiet_app):
    users = make_users(quiet_app)
    job = fake_done_job(quiet_app, users["edit"])      # marked done after its owner followed it: one notice
    cat = quiet_app.state.catalog
    assert len(cat.notifications(cat.user("ed"))) == 1
    assert users["edit"].api(quiet_app).delete(f"/api/runs/{job}").status_code == 200
    assert cat.notifications(cat.user("ed"), unseen=False) == []
    assert cat.q("SELECT count(*) FROM follows")[0][0] == 0


# failed logins ----------------------------------------------------------------------------------------------

def login(client, token: str):
    csrf = csrf_of(client.get("/login").text)
    return client.post("/login", data={"csrf": csrf, "token": token}, follow_redirects=False)


def test_the_eleventh_failed_login_from_an_address_is_429(quiet_app):
    users = make_users(quiet_app)
    c = TestClient(quiet_app, client=("203.0.113.5", 4000))
    for _ in range(10):
        assert login(c, "pt_wrong").status_code == 401
    r = login(c, "pt_wrong")
    assert r.status_code == 429
    assert re.search(r"<p class='error'>too many failed logins from this address; wait \d+ s</p>", r.text)
    assert 1 <= int(r.headers["retry-after"]) <= 300
    assert login(c, users["read"].token).status_code == 429            # a right token too, until the window ends
    other = TestClient(quiet_app, client=("203.0.113.6", 4000))         # another address is not held back
    assert login(other, users["read"].token).status_code == 303
    bearer = TestClient(quiet_app, client=("203.0.113.5", 4001), headers={"Authorization": f"Bearer {users['read'].token}"})
    r = bearer.get("/api/runs")
    assert r.status_code == 429 and r.json()["error"].startswith("too many failed logins from this address; wait ")


def test_bad_api_tokens_count_as_failed_logins(quiet_app):
    users = make_users(quiet_app)
    c = TestClient(quiet_app, client=("198.51.100.7", 1234), headers={"Authorization": "Bearer pt_guess"})
    for _ in range(6):
        assert c.get("/api/runs").status_code == 401
    page = TestClient(quiet_app, client=("198.51.100.7", 1235))
    for _ in range(4):
        assert login(page, "pt_wrong").status_code == 401
    assert c.get("/api/runs/0123456789ab/progress").status_code == 429
    assert login(page, users["admin"].token).status_code == 429
    no_token = TestClient(quiet_app, client=("198.51.100.8", 1))         # no token at all is not a failure
    for _ in range(12):
        assert no_token.get("/api/runs").status_code == 401


def test_failures_are_forgotten_after_the_window():
    now = [1000.0]
    f = Failures(limit=3, window_s=60.0, max_addresses=2, clock=lambda: now[0])
    for _ in range(3):
        assert f.wait("a") is None
        f.add("a")
    assert f.wait("a") == 60
    now[0] += 45
    assert f.wait("a") == 15
    now[0] += 15
    assert f.wait("a") is None
    f.add("b"), f.add("c"), f.add("d")                                  # at most 2 addresses remembered
    assert len(f._seen) <= 2


# users: a new token, a role, removal ------------------------------------------------------------------------

def test_an_admin_rotates_a_token_the_old_one_and_its_sessions_stop(quiet_app):
    users = make_users(quiet_app)
    admin = users["admin"].page(quiet_app)
    old_api, old_page = users["edit"].api(quiet_app), users["edit"].page(quiet_app)
    assert old_api.get("/api/runs").status_code == 200 and old_page.get("/runs").status_code == 200
    r = admin.post("/users/ed/token", data={"csrf": users["admin"].csrf})
    assert r.status_code == 200
    token = re.search(r"<code id='new-token'>([^<]+)</code>", r.text)[1]
    assert "ed's new token (the old one no longer works), shown this once" in r.text.replace("&#x27;", "'")
    assert old_api.get("/api/runs").status_code == 401
    assert old_page.get("/runs", follow_redirects=False).status_code == 303        # the session ended
    new = TestClient(quiet_app, headers={"Authorization": f"Bearer {token}"})
    assert new.get("/api/runs").status_code == 200
    assert token not in admin.get("/users").text                                    # shown once
    assert [(a["user"], a["detail"]) for a in audit_lines(quiet_app, "rotate-token")] == [("ada", "ed")]
    r = admin.post("/users/nobody/token", data={"csrf": users["admin"].csrf})
    assert r.status_code == 404 and "no user &#x27;nobody&#x27;" in r.text


def test_an_admin_changes_a_role(quiet_app):
    users = make_users(quiet_app)
    admin = users["admin"].page(quiet_app)
    r = admin.post("/users/ed/role", data={"csrf": users["admin"].csrf, "role": "read"}, follow_redirects=False)
    assert r.status_code == 303
    assert users["edit"].api(quiet_app).post("/api/runs", json={"spec": TINY}).status_code == 403
    r = admin.post("/users/ed/role", data={"csrf": users["admin"].csrf, "role": "root"})
    assert r.status_code == 400 and "expected one of read, edit, admin" in r.text
    assert quiet_app.state.catalog.user("ed").role == "read"
    r = admin.post("/users/ada/role", data={"csrf": users["admin"].csrf, "role": "read"})
    assert r.status_code == 409 and quiet_app.state.catalog.user("ada").role == "admin"


def test_a_removed_users_runs_stay_with_their_name(quiet_app):
    users = make_users(quiet_app)
    cat = quiet_app.state.catalog
    job = fake_done_job(quiet_app, users["edit"])
    admin = users["admin"].page(quiet_app)
    r = admin.post("/users/ed/remove", data={"csrf": users["admin"].csrf}, follow_redirects=False)
    assert r.status_code == 303
    assert users["edit"].api(quiet_app).get("/api/runs").status_code == 401
    assert users["edit"].page(quiet_app).get("/runs", follow_redirects=False).status_code == 303
    assert login(TestClient(quiet_app), users["edit"].token).status_code == 401
    run = users["read"].api(quiet_app).get(f"/api/runs/{job}").json()
    assert run["owner"] == "ed" and run["state"] == "done"
    assert [r["owner"] for r in users["read"].api(quiet_app).get("/api/runs?owner=ed").json()["runs"]] == ["ed"]
    assert "ed" not in [u.name for u in cat.users()]
    assert ">ed<" not in admin.get("/users").text.split("Audit log")[0]
    with pytest.raises(Exception, match="was removed"):
        cat.add_user("ed", "admin")
    assert admin.post("/users/ed/remove", data={"csrf": users["admin"].csrf}).status_code == 404
    assert admin.post("/users/ada/remove", data={"csrf": users["admin"].csrf}).status_code == 409
    assert [(a["user"], a["detail"]) for a in audit_lines(quiet_app, "remove-user")] == [("ada", "ed")]


def test_rotate_token_from_the_command_line_prints_it_once(tmp_path):
    root = tmp_path / "root"
    cat = Catalog(_mkdir(root) / "service.sqlite")
    old = cat.add_user("bea", "edit")
    cat.close()
    cmd = [sys.executable, "-m", "service", "--root", str(root), "--rotate-token", "bea"]
    r = subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    token = r.stdout.strip()
    assert re.fullmatch(r"pt_[A-Za-z0-9_-]{40,}", token) and token != old
    cat = Catalog(root / "service.sqlite")
    assert cat.user_by_token(old) is None and cat.user_by_token(token).name == "bea"
    cat.close()
    bad = subprocess.run([*cmd[:-1], "nobody"], check=False, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stderr == "error: --rotate-token: no user 'nobody'\n"
    empty = subprocess.run([*cmd[:4], str(tmp_path / "none"), *cmd[5:]], check=False, capture_output=True, text=True,
                           timeout=60)
    assert empty.returncode == 2 and empty.stderr.count("\n") == 1 and "no service catalog" in empty.stderr
    assert not (tmp_path / "none").exists()


def test_playtest_serve_takes_rotate_token(tmp_path):
    from typer.testing import CliRunner

    from cli.main import app
    root = tmp_path / "root"
    cat = Catalog(_mkdir(root) / "service.sqlite")
    old = cat.add_user("cy", "read")
    cat.close()
    r = CliRunner().invoke(app, ["serve", "--root", str(root), "--rotate-token", "cy"])
    assert r.exit_code == 0, r.output
    cat = Catalog(root / "service.sqlite")
    assert cat.user_by_token(old) is None and cat.user("cy") is not None
    cat.close()


def _mkdir(path: Path) -> Path:
    path.mkdir(parents=True)
    return path


# the run list's filters: rule set, verdict, dates -----------------------------------------------------------

def day(text: str, hour: int = 12) -> float:
    return calendar.timegm(time.strptime(text, "%Y-%m-%d")) + hour * 3600


def test_the_run_list_filters_by_rule_set_verdict_and_date(quiet_app):
    users = make_users(quiet_app)
    cat = quiet_app.state.catalog
    ed = cat.user("ed")
    made = {}
    for title, rule_set, verdict, when in (("v4 fair", "paws v4", "fair", "2026-12-01"),
                                           ("v3 and v4", "paws v3, paws v4", "unfair", "2026-12-03"),
                                           ("tales", "tales", "", "2026-12-05"),
                                           ("late v3", "paws v3", "fair", "2026-12-06")):
        job = cat.add_job(owner=ed, title=title, description="", spec_name="s", game="paws", spec_text=TINY, cells=1,
                          games=1, rule_set=rule_set)
        cat.set_job(job, verdict=verdict)
        cat.x("UPDATE jobs SET created = ? WHERE id = ?", (day(when), job))
        made[title] = job
    api = users["read"].api(quiet_app)

    def titles(query: str) -> list[str]:
        r = api.get(f"/api/runs?{query}")
        assert r.status_code == 200, r.text
        return sorted(x["title"] for x in r.json()["runs"])

    assert titles("rule_set=paws v4") == ["v3 and v4", "v4 fair"]
    assert titles("rule_set=paws v3") == ["late v3", "v3 and v4"]
    assert titles("rule_set=tales") == ["tales"]
    assert titles("rule_set=paws") == [] and titles("rule_set=%25") == []
    assert titles("verdict=fair") == ["late v3", "v4 fair"]
    assert titles("from=2026-12-03&to=2026-12-05") == ["tales", "v3 and v4"]
    assert titles("from=2026-12-06") == ["late v3"] and titles("to=2026-12-01") == ["v4 fair"]
    assert titles("rule_set=paws v3&verdict=fair&from=2026-12-02") == ["late v3"]
    row = api.get("/api/runs?verdict=unfair").json()["runs"][0]
    assert (row["rule_set"], row["verdict"]) == ("paws v3, paws v4", "unfair")
    page = users["read"].page(quiet_app).get("/runs?rule_set=paws+v3&verdict=fair").text
    assert "late v3" in page and "v4 fair" not in page and "v3 and v4" not in page
    verdicts = re.search(r"<select name='verdict' id='f-verdict'>(.*?)</select>", page)[1]
    assert re.findall(r"<option value='([^']*)'", verdicts) == ["", "fair", "unfair"]
    rule_sets = re.search(r"<select name='rule_set' id='f-rule_set'>(.*?)</select>", page)[1]
    assert re.findall(r"<option value='([^']*)'", rule_sets) == ["", "paws v3", "paws v4", "tales"]


@pytest.mark.parametrize("query", ["from=2026-13-01", "to=yesterday", "from=2026-12-06&to=2026-12-01",
                                   "from=<script>", "to=20261201"])
def test_a_bad_date_is_one_line(quiet_app, query):
    users = make_users(quiet_app)
    r = users["read"].api(quiet_app).get(f"/api/runs?{query}")
    assert r.status_code == 400 and "\n" not in r.json()["error"]
    assert "YYYY-MM-DD" in r.json()["error"] or "expected from <= to" in r.json()["error"]
    page = users["read"].page(quiet_app).get(f"/runs?{query}")
    assert page.status_code == 400 and "id='filter-error'" in page.text and "<script>" not in page.text


def test_rule_set_of_names_the_rule_set_as_the_docs_do():
    assert rule_set_of((EXAMPLES / "smoke.toml").read_text()) == "paws v4"
    assert rule_set_of((EXAMPLES / "first_player.toml").read_text()) == "paws v4"
    assert rule_set_of((EXAMPLES / "tales.toml").read_text()) == "tales"
    assert rule_set_of(TINY) == "paws v4"                               # no rules: the game's default preset
    assert rule_set_of('game = "paws"\nrules = "v3"\n') == "paws v3"
    assert rule_set_of('game = "paws"\n[grid]\nrules = ["v4", "v3"]\nplayers = [2, 4]\n') == "paws v3, paws v4"
    assert rule_set_of('game = "paws"\nrules = "v3-ap3"\ncells = [{players = 2}, {rules = "v4"}]\n') == \
        "paws v3-ap3, paws v4"
    assert rule_set_of('game = "paws"\nrules = "v3"\n[grid]\nplayers = [2, 4]\n') == "paws v3"
    assert rule_set_of('game = "chess"\n') == "" and rule_set_of("not [toml") == "" and rule_set_of("") == ""


def test_an_older_catalog_gets_the_new_columns_and_tables(tmp_path):
    path = tmp_path / "service.sqlite"
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL, role TEXT NOT NULL,
            token_hash TEXT UNIQUE NOT NULL, created REAL NOT NULL);
        CREATE TABLE jobs (id TEXT PRIMARY KEY, kind TEXT NOT NULL DEFAULT 'sweep', title TEXT NOT NULL,
            description TEXT NOT NULL, owner_id INTEGER NOT NULL, spec_name TEXT NOT NULL, game TEXT NOT NULL,
            spec_text TEXT NOT NULL, cells INTEGER NOT NULL, games INTEGER NOT NULL, state TEXT NOT NULL,
            created REAL NOT NULL, started REAL, ended REAL, pid INTEGER, pid_start INTEGER,
            resume INTEGER NOT NULL DEFAULT 0, exit_code INTEGER, error TEXT);
        INSERT INTO users VALUES (1, 'old', 'admin', 'h', 0);
        INSERT INTO jobs (id, title, description, owner_id, spec_name, game, spec_text, cells, games, state, created)
            VALUES ('0123456789ab', 't', '', 1, 's', 'paws', '', 1, 1, 'queued', 0);
    """)
    con.close()
    cat = Catalog(path)
    job = cat.job("0123456789ab")
    assert (job["priority"], job["rule_set"], job["verdict"]) == (0, "", "")
    assert cat.users()[0].name == "old"
    assert cat.notifications(cat.users()[0]) == []
    cat.close()


# untrusted input on the new routes --------------------------------------------------------------------------

TRAVERSALS = ["..", "..%2f..%2fservice.sqlite", "%2e%2e", "..%2F..%2F..%2Fsecret.txt", "ABCDEF012345", "~",
              "0123456789ab%00", "0123456789abc", "%2fetc%2fpasswd"]


@pytest.mark.parametrize("method,route", [("DELETE", "/api/runs/{}"), ("POST", "/api/runs/{}/priority"),
                                          ("POST", "/api/runs/{}/follow"), ("DELETE", "/api/runs/{}/follow"),
                                          ("POST", "/runs/{}/delete"), ("POST", "/runs/{}/priority"),
                                          ("POST", "/runs/{}/follow"), ("POST", "/users/{}/token"),
                                          ("POST", "/users/{}/role"), ("POST", "/users/{}/remove")])
def test_the_new_routes_take_no_path_and_change_nothing_on_a_bad_id(quiet_app, method, route):
    users = make_users(quiet_app)
    root = quiet_app.state.root
    (root / "secret.txt").write_text("TOP-SECRET-INSIDE")
    job = fake_done_job(quiet_app, users["edit"])
    admin = users["admin"]
    client = admin.api(quiet_app) if route.startswith("/api") else admin.page(quiet_app)
    for bad in TRAVERSALS:
        url = route.format(bad)
        if method == "DELETE":
            r = client.delete(url, follow_redirects=False)
        elif route.startswith("/api"):
            r = client.post(url, json={"priority": 1}, follow_redirects=False)
        else:
            r = client.post(url, data={"csrf": admin.csrf, "priority": "1", "role": "admin"}, follow_redirects=False)
        assert r.status_code in (404, 405), (url, r.status_code, r.text[:200])
        assert "TOP-SECRET" not in r.text
    assert (root / "secret.txt").is_file() and (root / "service.sqlite").is_file()
    assert layout(root, job)["report"].is_file() and quiet_app.state.catalog.job(job) is not None
    assert [u.name for u in quiet_app.state.catalog.users()] == ["ada", "ed", "otto", "rita"]
    assert quiet_app.state.catalog.user("rita").role == "read"


def test_rule_sets_and_verdicts_reach_the_run_list_escaped(quiet_app):
    users = make_users(quiet_app)
    cat = quiet_app.state.catalog
    script = "<script>window.__pwned=1</script>"
    job = cat.add_job(owner=cat.user("ed"), title="t", description="", spec_name="s", game="paws", spec_text=TINY,
                      cells=1, games=1, rule_set=script)
    cat.set_job(job, verdict=script)
    page = users["read"].page(quiet_app).get("/runs", params={"rule_set": script, "verdict": script,
                                                              "from": script}).text
    assert "<script>window" not in page and "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in page
    page = users["read"].page(quiet_app).get("/runs", params={"rule_set": script, "verdict": script}).text
    assert "<script>window" not in page and f"<a href='/runs/{job}'>t</a>" in page
