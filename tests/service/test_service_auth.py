"""Who may do what: every route x every role (and anonymous) with the exact status; CSRF on every form that changes
anything; tokens and sessions; the per-user queue limit and submission rate limit."""

from __future__ import annotations

import re

import pytest
from budget import thin
from results_helpers import give_results, sweep_folder  # noqa: F401 - a fixture
from regress_helpers import TINY_SUITE, made_up_baseline
from service_helpers import ROLES, TINY, csrf_of, fake_done_job, make_users, routes_of

from service.app import Settings, create_app

pytestmark = pytest.mark.service

R, E, O, A = "read", "edit", "other", "admin"
# (method, route) -> {role: status}; anonymous pages go to /login (303), anonymous API calls get 401
MATRIX = {
    ("GET", "/health"): dict.fromkeys(ROLES, 200),
    ("GET", "/login"): dict.fromkeys(ROLES, 200),
    ("POST", "/login"): dict.fromkeys(ROLES, 303),
    ("GET", "/"): dict.fromkeys(ROLES, 303),
    ("POST", "/logout"): dict.fromkeys(ROLES, 303),
    ("GET", "/runs"): {"anonymous": 303, R: 200, E: 200, O: 200, A: 200},
    ("GET", "/submit"): {"anonymous": 303, R: 403, E: 200, O: 200, A: 200},
    ("POST", "/submit"): {"anonymous": 303, R: 403, E: 200, O: 200, A: 200},
    ("GET", "/runs/{job}"): {"anonymous": 303, R: 200, E: 200, O: 200, A: 200},
    ("POST", "/runs/{job}/cancel"): {"anonymous": 303, R: 403, E: 303, O: 403, A: 303},
    ("GET", "/runs/{job}/report"): {"anonymous": 303, R: 200, E: 200, O: 200, A: 200},
    ("GET", "/runs/{job}/pages/{name}"): {"anonymous": 303, R: 404, E: 404, O: 404, A: 404},   # a sweep has none
    ("GET", "/runs/{job}/verdict.md"): {"anonymous": 303, R: 200, E: 200, O: 200, A: 200},
    ("GET", "/runs/{job}/events"): {"anonymous": 303, R: 200, E: 200, O: 200, A: 200},
    ("GET", "/users"): {"anonymous": 303, R: 403, E: 403, O: 403, A: 200},
    ("POST", "/users"): {"anonymous": 303, R: 403, E: 403, O: 403, A: 200},
    ("GET", "/api/runs"): {"anonymous": 401, R: 200, E: 200, O: 200, A: 200},
    ("POST", "/api/runs"): {"anonymous": 401, R: 403, E: 200, O: 200, A: 200},
    ("GET", "/api/runs/{job}"): {"anonymous": 401, R: 200, E: 200, O: 200, A: 200},
    ("GET", "/api/runs/{job}/progress"): {"anonymous": 401, R: 200, E: 200, O: 200, A: 200},
    ("POST", "/api/runs/{job}/cancel"): {"anonymous": 401, R: 403, E: 200, O: 403, A: 200},
    # results in the page (service/console.py): read and up, over a run with results
    ("GET", "/runs/{job}/sql"): {"anonymous": 303, R: 200, E: 200, O: 200, A: 200},
    ("POST", "/runs/{job}/sql"): {"anonymous": 303, R: 200, E: 200, O: 200, A: 200},
    ("GET", "/runs/{job}/queries"): {"anonymous": 303, R: 200, E: 200, O: 200, A: 200},
    ("GET", "/runs/{job}/queries/{name}"): {"anonymous": 303, R: 200, E: 200, O: 200, A: 200},
    ("GET", "/runs/{job}/download/{file}"): {"anonymous": 303, R: 200, E: 200, O: 200, A: 200},
    ("POST", "/api/runs/{job}/sql"): {"anonymous": 401, R: 200, E: 200, O: 200, A: 200},
    # a game of a done run drawn (service/replays.py): the form and the replay page, read and up
    ("GET", "/runs/{job}/replay"): {"anonymous": 303, R: 200, E: 200, O: 200, A: 200},
    ("GET", "/runs/{job}/replay/game"): {"anonymous": 303, R: 200, E: 200, O: 200, A: 200},
    # the queue and its users (service/manage.py): priority of a queued run (admin), delete an ended run (its owner
    # or an admin), follow (anyone), notifications, a user's token, role and removal (admin)
    ("POST", "/runs/{job}/priority"): {"anonymous": 303, R: 403, E: 403, O: 403, A: 303},
    ("POST", "/api/runs/{job}/priority"): {"anonymous": 401, R: 403, E: 403, O: 403, A: 200},
    ("POST", "/runs/{job}/delete"): {"anonymous": 303, R: 403, E: 303, O: 403, A: 303},
    ("DELETE", "/api/runs/{job}"): {"anonymous": 401, R: 403, E: 200, O: 403, A: 200},
    ("POST", "/runs/{job}/follow"): {"anonymous": 303, R: 303, E: 303, O: 303, A: 303},
    ("POST", "/api/runs/{job}/follow"): {"anonymous": 401, R: 200, E: 200, O: 200, A: 200},
    ("DELETE", "/api/runs/{job}/follow"): {"anonymous": 401, R: 200, E: 200, O: 200, A: 200},
    ("POST", "/notifications/seen"): {"anonymous": 303, R: 303, E: 303, O: 303, A: 303},
    ("GET", "/api/notifications"): {"anonymous": 401, R: 200, E: 200, O: 200, A: 200},
    ("POST", "/users/{username}/token"): {"anonymous": 303, R: 403, E: 403, O: 403, A: 200},
    ("POST", "/users/{username}/role"): {"anonymous": 303, R: 403, E: 403, O: 403, A: 303},
    ("POST", "/users/{username}/remove"): {"anonymous": 303, R: 403, E: 403, O: 403, A: 303},
    # nightly projects (service/nightly.py): read and up see them; admins define them and run them now
    ("GET", "/nightly"): {"anonymous": 303, R: 200, E: 200, O: 200, A: 200},
    ("POST", "/nightly"): {"anonymous": 303, R: 403, E: 403, O: 403, A: 303},
    ("GET", "/nightly/{project}"): {"anonymous": 303, R: 200, E: 200, O: 200, A: 200},
    ("POST", "/nightly/{project}/run"): {"anonymous": 303, R: 403, E: 403, O: 403, A: 303},
    ("GET", "/api/nightly"): {"anonymous": 401, R: 200, E: 200, O: 200, A: 200},
    ("POST", "/api/nightly"): {"anonymous": 401, R: 403, E: 403, O: 403, A: 200},
    ("GET", "/api/nightly/{project}"): {"anonymous": 401, R: 200, E: 200, O: 200, A: 200},
    ("POST", "/api/nightly/{project}/run"): {"anonymous": 401, R: 403, E: 403, O: 403, A: 201},
}
WITH_RESULTS = ("/sql", "/queries", "/download/", "/replay")         # routes that answer over a run's results


def test_the_matrix_names_every_route(quiet_app):
    routes = {(m, path) for m, path in routes_of(quiet_app) if m in ("GET", "POST", "DELETE")}
    assert routes == set(MATRIX), routes ^ set(MATRIX)


def call(app, who, method: str, route: str, job: str):
    path = route.replace("{job}", job).replace("{name}", "round_limit").replace("{file}", "games.csv")
    if path.endswith("/replay/game"):
        path += "?cell=c000&index=0"
    if "{username}" in path:                # a user of its own for each call (its token, role or removal)
        target = f"target-{who.role}"
        app.state.catalog.add_user(target, "read")
        path = path.replace("{username}", target)
    nightly = {"name": "paws-v4", "at": "03:00", "suite": TINY_SUITE, "baseline": made_up_baseline()}
    if "/nightly" in path and app.state.nightly.project("paws-v4") is None:     # a project to see, change, run
        app.state.nightly.save(app.state.catalog.users()[0], nightly)
    path = path.replace("{project}", "paws-v4")
    api = path.startswith("/api/")
    client = who.api(app) if api else who.page(app)
    if method == "GET":
        return client.get(path, follow_redirects=False)
    if method == "DELETE":
        return client.delete(path, follow_redirects=False)
    if api:
        body = {"spec": TINY, "check_only": True} if path == "/api/runs" else None
        if path.endswith("/sql"):
            body = {"sql": "SELECT count(*) FROM games"}
        if path.endswith("/priority"):
            body = {"priority": 3}
        if path == "/api/nightly":
            body = nightly
        return client.post(path, json=body, follow_redirects=False)
    if path == "/login":
        token = client.get("/login")
        return client.post(path, data={"csrf": csrf_of(token.text), "token": who.token or "pt_nobody"},
                           follow_redirects=False) if who.token else \
            _posted(client, path)
    data = {"csrf": who.csrf or ""}
    if path == "/submit":
        data |= {"spec": TINY, "title": "t", "action": "check"}
    if path == "/users":
        data |= {"name": f"new-{who.role}", "role": "read"}
    if path.endswith("/sql"):
        data |= {"sql": "SELECT count(*) FROM games"}
    if path.endswith("/priority"):
        data |= {"priority": "3"}
    if path.endswith("/role"):
        data |= {"role": "edit"}
    if path == "/nightly":
        data |= nightly
    return client.post(path, data=data, follow_redirects=False)


def _posted(client, path: str):
    """A login post with the form's CSRF cookie and field but no token."""
    form = client.get("/login")
    return client.post(path, data={"csrf": csrf_of(form.text)}, follow_redirects=False)


@pytest.mark.parametrize("route", thin([(r,) for r in sorted(MATRIX)], every=3), ids=lambda r: f"{r[0]} {r[1]}")
def test_every_route_answers_every_role_with_the_exact_status(quiet_app, route, sweep_folder):  # noqa: F811
    users = make_users(quiet_app)
    for role in ROLES:
        job = fake_done_job(quiet_app, users["edit"])
        if any(part in route[1] for part in WITH_RESULTS):
            give_results(quiet_app, job, sweep_folder)
        if "cancel" in route[1] or "priority" in route[1]:    # a queued run, owned by the edit user
            quiet_app.state.catalog.set_job(job, state="queued")
        r = call(quiet_app, users[role], *route, job)
        expect = MATRIX[route][role]
        if route == ("POST", "/login") and role == "anonymous":
            expect = 401                    # an unknown token
        assert r.status_code == expect, f"{route} as {role}: {r.status_code} {r.text[:300]}"
        if expect == 303 and role == "anonymous" and route[1] not in ("/login", "/"):
            assert r.headers["location"] == "/login"


def test_api_ignores_the_session_cookie_and_pages_ignore_the_token(quiet_app):
    users = make_users(quiet_app)
    admin = users["admin"]
    assert admin.page(quiet_app).get("/api/runs").status_code == 401
    assert admin.api(quiet_app).get("/runs", follow_redirects=False).status_code == 303
    bad = quiet_app.state.catalog
    assert bad.user_by_token(admin.token + "x") is None
    row = bad.q("SELECT token_hash FROM users WHERE name = 'ada'")[0][0]
    assert admin.token not in row and len(row) == 64          # stored hashed


@pytest.mark.parametrize("route", [r for r in sorted(MATRIX) if r[0] == "POST" and not r[1].startswith("/api/")
                                   and r[1] != "/login"], ids=lambda r: r[1])
@pytest.mark.parametrize("csrf", ["missing", "wrong", "another session's"])
def test_a_form_without_the_sessions_csrf_token_is_refused(quiet_app, route, csrf):
    users = make_users(quiet_app)
    admin = users["admin"]
    job = fake_done_job(quiet_app, admin)
    quiet_app.state.catalog.set_job(job, state="queued")
    _, other_csrf = quiet_app.state.catalog.new_session(quiet_app.state.catalog.user_by_token(admin.token))
    data = {"spec": TINY, "action": "start", "name": "mallory", "role": "admin"}
    if csrf == "wrong":
        data["csrf"] = admin.csrf[:-2] + "xx"
    elif csrf == "another session's":
        data["csrf"] = other_csrf
    r = admin.page(quiet_app).post(route[1].replace("{job}", job), data=data, follow_redirects=False)
    assert r.status_code == 403, r.text
    assert "CSRF" in r.text
    cat = quiet_app.state.catalog
    assert cat.job(job)["state"] == "queued"                       # not cancelled
    assert "mallory" not in [u.name for u in cat.users()]          # no user added
    assert len(cat.jobs()) == 1                                    # nothing submitted
    if route[1] == "/logout":
        assert cat.session(admin.sid) is not None                  # still logged in


def test_login_needs_its_own_csrf_cookie_and_a_known_token(quiet_app):
    users = make_users(quiet_app)
    c = users["anonymous"].page(quiet_app)
    form = c.get("/login")
    token = csrf_of(form.text)
    assert c.post("/login", data={"csrf": "forged", "token": users["read"].token}).status_code == 403
    c2 = users["anonymous"].page(quiet_app)           # no login cookie at all: a cross-site post
    assert c2.post("/login", data={"csrf": token, "token": users["read"].token}).status_code == 403
    bad = c.post("/login", data={"csrf": token, "token": "pt_wrong"})
    assert bad.status_code == 401 and "unknown token" in bad.text
    c = users["anonymous"].page(quiet_app)
    token = csrf_of(c.get("/login").text)
    ok = c.post("/login", data={"csrf": token, "token": users["read"].token}, follow_redirects=False)
    assert ok.status_code == 303
    cookie = next(h for h in ok.headers.get_list("set-cookie") if h.startswith("playtest_session="))
    flags = [f.strip().lower() for f in cookie.split(";")]            # cookie attributes are case-insensitive
    assert "httponly" in flags and "samesite=strict" in flags
    assert c.get("/runs").status_code == 200
    csrf = csrf_of(c.get("/runs").text)
    assert c.post("/logout", data={"csrf": csrf}, follow_redirects=False).status_code == 303
    assert c.get("/runs", follow_redirects=False).status_code == 303


def test_pages_carry_security_headers(quiet_app):
    users = make_users(quiet_app)
    r = users["read"].page(quiet_app).get("/runs")
    assert "script-src 'nonce-" in r.headers["content-security-policy"]
    assert r.headers["x-frame-options"] == "DENY" and r.headers["x-content-type-options"] == "nosniff"
    job = fake_done_job(quiet_app, users["edit"])
    report = users["read"].page(quiet_app).get(f"/runs/{job}/report")
    assert report.headers["content-security-policy"].startswith("sandbox")


def test_queue_limit_and_rate_limit_per_user(tmp_path):
    app = create_app(Settings(root=tmp_path / "root", max_queued=2, submit_per_minute=3), start_runner=False)
    users = make_users(app)
    ed = users["edit"].api(app)
    got = [ed.post("/api/runs", json={"spec": TINY}).status_code for _ in range(3)]
    assert got == [201, 201, 429], got
    assert "queued already" in ed.post("/api/runs", json={"spec": TINY}).json()["error"]
    for job in app.state.catalog.jobs():                    # the queue empties: now the rate limit holds
        app.state.catalog.set_job(job["id"], state="done")
    r = ed.post("/api/runs", json={"spec": TINY})
    assert r.status_code == 201
    r = ed.post("/api/runs", json={"spec": TINY})
    assert r.status_code == 429 and "in a minute" in r.json()["error"]
    other = users["other"].api(app)                         # another user is not held back by ed's limits
    assert other.post("/api/runs", json={"spec": TINY}).status_code == 201
    app.state.catalog.close()


def test_add_user_from_the_command_line_prints_the_token_once(tmp_path):
    import subprocess
    import sys
    root = tmp_path / "root"
    cmd = [sys.executable, "-m", "service", "--root", str(root), "--add-user", "bea", "--role", "edit"]
    r = subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    token = r.stdout.strip()
    assert re.fullmatch(r"pt_[A-Za-z0-9_-]{40,}", token)
    assert token not in (root / "service.sqlite").read_bytes().decode("latin-1")
    again = subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=60)
    assert again.returncode == 2 and again.stderr.count("\n") == 1 and "exists already" in again.stderr
    bad = subprocess.run([*cmd[:-4], "--add-user", "<script>", "--role", "edit"], check=False, capture_output=True, text=True,
                         timeout=60)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    role = subprocess.run([*cmd[:-1], "root"], check=False, capture_output=True, text=True, timeout=60)
    assert role.returncode == 2 and "expected one of read, edit, admin" in role.stderr
