"""The weaker items of the service's third hardening round, each fixed: the replay pages' cache is bounded (pages and
bytes, the least recently shown removed first), and the others below."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from service import replays

pytestmark = pytest.mark.service


# the replay cache ---------------------------------------------------------------------------------------------------

def pages(root, spec: dict[str, tuple[int, float]]):
    """Replay pages ``{"JOB/NAME": (bytes, last shown)}`` under ``root``'s jobs."""
    out = {}
    for key, (size, when) in spec.items():
        job, name = key.split("/")
        f = root / "jobs" / job / "replays" / f"{name}.html"
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_bytes(b"x" * size)
        os.utime(f, (when, when))
        out[key] = f
    return out


def left(files: dict) -> set[str]:
    return {k for k, f in files.items() if f.exists()}


def test_the_least_recently_shown_pages_go_first_past_the_count(tmp_path):
    files = pages(tmp_path, {"a/c000-1": (10, 1000.0), "a/c000-2": (10, 3000.0), "b/c001-0": (10, 2000.0),
                             "b/c001-5": (10, 4000.0)})
    assert replays.keep_within(tmp_path, pages=2, size=10**9, now=10**6) == 2
    assert left(files) == {"a/c000-2", "b/c001-5"}


def test_past_the_bytes_pages_go_until_the_rest_fits(tmp_path):
    files = pages(tmp_path, {"a/c000-1": (600, 1000.0), "a/c000-2": (300, 2000.0), "b/c001-0": (300, 3000.0)})
    assert replays.keep_within(tmp_path, pages=100, size=700, now=10**6) == 1
    assert left(files) == {"a/c000-2", "b/c001-0"}
    assert replays.keep_within(tmp_path, pages=100, size=700, now=10**6) == 0


def test_a_page_shown_in_the_last_minute_stays(tmp_path):
    files = pages(tmp_path, {"a/c000-1": (10, 1000.0), "a/c000-2": (10, 1990.0)})
    assert replays.keep_within(tmp_path, pages=0, size=0, now=2000.0) == 1
    assert left(files) == {"a/c000-2"}


def test_showing_a_kept_page_makes_it_the_last_to_go(tmp_path):
    files = pages(tmp_path, {"0123456789ab/c000-1": (10, 1000.0), "0123456789ab/c000-2": (10, 2000.0)})
    assert replays.draw(tmp_path, "0123456789ab", "c000", 1) == files["0123456789ab/c000-1"]   # kept: no child
    replays.keep_within(tmp_path, pages=1, size=10**9, now=files["0123456789ab/c000-1"].stat().st_mtime + 3600)
    assert left(files) == {"0123456789ab/c000-1"}


# a job's time limit -----------------------------------------------------------------------------------------------

SLEEPER = "import sys, time; print('step', sys.argv[1], flush=True); time.sleep(300 if sys.argv[1] == 'slow' else 0)"


@pytest.fixture
def limited(tmp_path, monkeypatch):
    """A runner with a 1 s limit per job, over a job kind of two steps (``quick``, then ``slow`` or ``quick``)."""
    from service import kinds
    from service.catalog import Catalog
    from service.kinds import Kind, Step
    from service.runner import Runner
    kind = Kind(name="timed", title="a timed job", about="", fields=(), check=lambda inputs, ctx: None,
                steps=lambda row, paths, opts: [Step("quick"), Step(row["params"]["second"])], results=False)
    monkeypatch.setitem(kinds.KINDS, "timed", kind)
    root = tmp_path / "root"
    root.mkdir()
    catalog = Catalog(root / "service.sqlite")
    owner = catalog.user_by_token(catalog.add_user("ed", "edit"))
    runner = Runner(catalog, root, tick_s=0.05, time_limit_s=1.0,
                    command=lambda step: [sys.executable, "-c", SLEEPER, step.name])

    def add(second: str) -> str:
        return catalog.add_job(owner=owner, title="timed", description="", spec_name="timed", game="paws",
                               spec_text="", cells=0, games=0, kind="timed", params={"second": second})
    yield catalog, runner, add
    runner.stop()
    catalog.close()


def until_ended(runner, catalog, job: str) -> dict:
    deadline = time.monotonic() + 60
    while catalog.job(job)["state"] in ("queued", "running") or catalog.job(job)["pid"] is not None:
        assert time.monotonic() < deadline, catalog.job(job)
        runner.step()
        time.sleep(0.05)
    return catalog.job(job)


def test_a_job_past_its_time_limit_fails_with_a_clear_line_and_its_child_ends(limited):
    from service.runner import start_time
    catalog, runner, add = limited
    slow, after = add("slow"), add("quick")
    row = until_ended(runner, catalog, slow)
    assert row["state"] == "failed", row
    assert row["error"] == ("stopped after 1 s, this service's time limit per job (playtest serve --job-time-limit); "
                            "ask for fewer games or a cheaper bot")
    assert row["exit_code"] == -signal.SIGTERM and row["pid"] is None
    assert "time-limit" in [a["action"] for a in catalog.audit_log() if a["job"] == slow]
    assert until_ended(runner, catalog, after)["state"] == "done"          # the slot is free again


def test_the_limit_is_checked_and_zero_is_none(tmp_path):
    base = [sys.executable, "-m", "service", "--root", str(tmp_path / "r")]
    for bad in ("5", "-1", "nan", "3000000"):
        r = subprocess.run([*base, "--job-time-limit", bad], capture_output=True, text=True, timeout=60)
        assert r.returncode == 2 and "--job-time-limit" in r.stderr and len(r.stderr.splitlines()) == 1, r.stderr
    from service.__main__ import parse
    assert parse(["--job-time-limit", "0"]).job_time_limit == 0


# cost checks per user ---------------------------------------------------------------------------------------------

def test_cost_checks_are_limited_per_user(tmp_path):
    from service_helpers import make_users

    from service.app import Settings, create_app
    app = create_app(Settings(root=tmp_path / "root", checks_per_minute=3), start_runner=False)
    try:
        users = make_users(app)
        chess = {"spec": 'game = "chess"\nseed = 1\ngames_per_cell = 1\n', "check_only": True}
        ed, otto = users["edit"].api(app), users["other"].api(app)
        assert [ed.post("/api/runs", json=chess).status_code for _ in range(3)] == [400] * 3
        r = ed.post("/api/runs", json=chess)
        assert r.status_code == 429
        assert r.json()["error"].startswith("more than 3 checks of a job's cost in a minute (each plays a pilot "
                                            "game); wait ")
        form = users["edit"].page(app).post("/submit", data={"csrf": users["edit"].csrf, "kind": "sweep",
                                                             "spec": chess["spec"], "action": "check"})
        assert form.status_code == 429 and "more than 3 checks" in form.text
        assert otto.post("/api/runs", json=chess).status_code == 400        # another user: its own count
    finally:
        app.state.catalog.close()


# links: the configured base URL, never the request's Host ------------------------------------------------------------

@pytest.mark.parametrize("base", ["", "https://playtest.example.org/team"])
def test_links_never_follow_the_requests_host_header(tmp_path, base):
    from service_helpers import fake_done_job, make_users

    from service.app import Settings, create_app
    app = create_app(Settings(root=tmp_path / "root", base_url=base), start_runner=False)
    try:
        users = make_users(app)
        job = fake_done_job(app, users["edit"])
        evil = {"Host": "evil.example", "X-Forwarded-Host": "evil.example"}
        got = users["read"].api(app).get(f"/api/runs/{job}", headers=evil).json()
        assert got["url"] == f"{base}/runs/{job}" and got["report_url"] == f"{base}/runs/{job}/report"
        assert got["verdict"].endswith(f"Run: {base}/runs/{job}") and "evil" not in json.dumps(got)
        card = users["read"].page(app).get(f"/runs/{job}/verdict.md", headers=evil).text
        assert "evil" not in card and f"{base}/runs/{job}" in card
        listed = users["read"].api(app).get("/api/notifications?all=1", headers=evil).text
        assert "evil" not in listed
        made = users["edit"].api(app).post("/api/runs", headers=evil, json={
            "spec": 'name = "t"\ngame = "paws"\nseed = 1\ngames_per_cell = 10\n'})
        assert made.status_code == 201 and made.json()["url"] == f"{base}/runs/{made.json()['id']}"
    finally:
        app.state.catalog.close()


def test_the_base_url_is_checked_and_defaults_to_where_the_service_listens():
    from service.__main__ import base_url_of
    assert base_url_of(None, "127.0.0.1", 8321) == "http://127.0.0.1:8321"
    assert base_url_of(None, "::1", 8321) == "http://[::1]:8321"
    assert base_url_of(None, "0.0.0.0", 8321) == ""
    assert base_url_of("https://p.example/x/", "0.0.0.0", 80) == "https://p.example/x"
    for bad in ("ftp://p.example", "https://", "https://p.example/?a=1", "https://p.example/#x", "p.example",
                "https://p.example/\x1b[2J", "https://p .example"):
        with pytest.raises(ValueError, match="--base-url"):
            base_url_of(bad, "127.0.0.1", 8321)


# the login form's CSRF token: signed by the service --------------------------------------------------------------

def login_form(app, base: str = "http://testserver"):
    from service_helpers import csrf_of
    from starlette.testclient import TestClient
    client = TestClient(app, base_url=base)
    page = client.get("/login")
    return client, csrf_of(page.text), client.cookies.get("playtest_login"), page


def test_a_login_csrf_cookie_the_client_made_up_is_refused(quiet_app):
    from service_helpers import make_users
    users = make_users(quiet_app)
    client, token, cookie, _ = login_form(quiet_app)
    assert cookie != token and cookie.startswith(token + ".")          # the token, signed
    client.cookies.set("playtest_login", "x")                            # a double submit of the client's own
    r = client.post("/login", data={"csrf": "x", "token": users["read"].token}, follow_redirects=False)
    assert r.status_code == 403 and "CSRF token is missing, wrong or over an hour old" in r.text
    client.cookies.set("playtest_login", token)                          # the right value, unsigned
    assert client.post("/login", data={"csrf": token, "token": users["read"].token},
                       follow_redirects=False).status_code == 403
    client.cookies.set("playtest_login", cookie)                         # the service's own
    r = client.post("/login", data={"csrf": token, "token": users["read"].token}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/runs"


def test_a_login_csrf_cookie_signed_by_another_service_or_over_an_hour_old_is_refused(quiet_app, tmp_path,
                                                                                      monkeypatch):
    from itsdangerous import TimestampSigner
    from service_helpers import make_users

    from service.routes import auth
    users = make_users(quiet_app)
    client, token, cookie, _ = login_form(quiet_app)
    other = TimestampSigner("another service's key", salt="playtest-login-csrf").sign(token).decode()
    client.cookies.set("playtest_login", other)
    assert client.post("/login", data={"csrf": token, "token": users["read"].token},
                       follow_redirects=False).status_code == 403
    client.cookies.set("playtest_login", cookie)
    monkeypatch.setattr(auth, "LOGIN_S", -1)                             # every token is over its age now
    assert client.post("/login", data={"csrf": token, "token": users["read"].token},
                       follow_redirects=False).status_code == 403


# cookies only over HTTPS ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("settings, secure", [({}, False), ({"secure_cookies": True}, True)])
def test_secure_cookies_when_asked(tmp_path, settings, secure):
    from service_helpers import make_users

    from service.app import Settings, create_app
    app = create_app(Settings(root=tmp_path / "root", **settings), start_runner=False)
    try:
        users = make_users(app)
        client, token, _, page = login_form(app, "https://testserver")
        r = client.post("/login", data={"csrf": token, "token": users["read"].token}, follow_redirects=False)
        for header in (page.headers["set-cookie"], r.headers["set-cookie"]):
            assert ("; secure" in header.lower()) is secure, header
    finally:
        app.state.catalog.close()


# open event streams -----------------------------------------------------------------------------------------------

def test_open_event_streams_are_capped_per_user_and_in_all():
    from service.live import Streams
    now = [0.0]
    s = Streams(per_user=2, total=3, hold_s=30, clock=lambda: now[0])
    a1, a2 = s.open("ann"), s.open("ann")
    assert isinstance(a1, int) and isinstance(a2, int)
    assert s.open("ann") == "2 live pages of yours are open already (the most at once); close one"
    assert isinstance(s.open("bob"), int)
    assert s.open("cy") == "3 live pages are open already (the most at once); try again in a minute"
    s.close("ann", a1)
    assert isinstance(s.open("cy"), int)
    now[0] = 31.0                               # places whose end was never seen are free after their hold
    assert s.count() == 0 and isinstance(s.open("ann"), int)


def test_the_events_route_refuses_past_the_cap_and_frees_a_place_when_a_stream_ends(quiet_app):
    from service_helpers import fake_done_job, make_users

    from service.live import Streams
    users = make_users(quiet_app)
    quiet_app.state.services.streams = Streams(per_user=1, total=10)
    done = fake_done_job(quiet_app, users["edit"])
    client = users["read"].page(quiet_app)
    r = client.get(f"/runs/{done}/events")             # an ended run: one state, its end, the stream closes
    assert r.status_code == 200 and "event: end" in r.text
    assert quiet_app.state.services.streams.count("rita") == 0
    token = quiet_app.state.services.streams.open("rita")      # a stream of hers still open
    r = client.get(f"/runs/{done}/events")
    assert r.status_code == 429 and r.text == "error: 1 live pages of yours are open already (the most at once); " \
                                              "close one\n"
    quiet_app.state.services.streams.close("rita", token)
    assert client.get(f"/runs/{done}/events").status_code == 200
