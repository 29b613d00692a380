"""Checking a submission (reading the inputs, playing a pilot game) runs on a worker thread, not on the service's
event loop: while one user's check runs, other requests are answered. The check is held inside by the test until
another user's request has been answered; a check run on the event loop would hold that request behind it."""

from __future__ import annotations

import asyncio
import threading

import anyio
import httpx
import pytest
from service_helpers import TINY, make_users, session_cookie

from service import kind_regress
from service.app import COOKIE, Settings, create_app
from service.routes import submit as submit_routes

pytestmark = pytest.mark.service

GUARD_S = 30.0          # only so that a blocked event loop fails the test instead of hanging it; nothing is timed


@pytest.fixture
def app(tmp_path):
    app = create_app(Settings(root=tmp_path / "root"), start_runner=False)
    yield app
    app.state.catalog.close()


@pytest.fixture
def users(app):
    return make_users(app)


def answered_while_held(monkeypatch, app, users, module, name, request):
    """``module.name`` (a check) held until released; ``request(client)`` started, and once the check has begun,
    another user's GET /api/runs asked on the same event loop, then the check released. Returns (the request's
    answer, the GET's answer, whether the check was released rather than given up on)."""
    started, release, released = threading.Event(), threading.Event(), []
    real = getattr(module, name)

    def held(*args, **kwargs):
        started.set()
        released.append(release.wait(GUARD_S))
        return real(*args, **kwargs)
    monkeypatch.setattr(module, name, held)
    reader = {"Authorization": f"Bearer {users['read'].token}"}

    async def scenario():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://playtest.test") as client:
            asked = asyncio.ensure_future(request(client))
            assert await anyio.to_thread.run_sync(started.wait, GUARD_S)
            listed = await client.get("/api/runs", headers=reader)
            release.set()
            return await asked, listed
    answer, listed = asyncio.run(scenario())
    return answer, listed, released


def test_the_api_answers_other_requests_while_a_submission_is_checked(monkeypatch, app, users):
    async def submission(client):
        return await client.post("/api/runs", json={"spec": TINY, "check_only": True},
                                 headers={"Authorization": f"Bearer {users['edit'].token}"})
    posted, listed, released = answered_while_held(monkeypatch, app, users, submit_routes, "_checked", submission)
    assert listed.status_code == 200 and listed.json() == {"runs": []}
    assert released == [True]                    # released by the test after the GET was answered
    assert posted.status_code == 200 and posted.json()["games"] == 400 and posted.json()["cells"] == 2


def test_the_form_answers_other_requests_while_a_submission_is_checked(monkeypatch, app, users):
    ed = users["edit"]

    async def submission(client):
        return await client.post("/submit", data={"csrf": ed.csrf, "kind": "sweep", "spec": TINY, "action": "start"},
                                 headers={"Cookie": f"{COOKIE}={session_cookie(app, ed.sid)}"})
    posted, listed, released = answered_while_held(monkeypatch, app, users, submit_routes, "_checked", submission)
    assert listed.status_code == 200 and listed.json() == {"runs": []}      # asked before the run was queued
    assert released == [True]
    assert posted.status_code == 303 and posted.headers["location"].startswith("/runs/")
    assert [j["state"] for j in app.state.catalog.jobs()] == ["queued"]


def test_the_api_answers_other_requests_while_a_nightly_project_is_checked(monkeypatch, app, users):
    async def definition(client):
        return await client.post("/api/nightly", json={"name": "n", "at": "03:00", "suite": "not = [a suite",
                                                       "baseline": "{}"},
                                 headers={"Authorization": f"Bearer {users['admin'].token}"})
    said, listed, released = answered_while_held(monkeypatch, app, users, kind_regress, "check_regress", definition)
    assert listed.status_code == 200 and released == [True]
    assert said.status_code == 400 and said.json()["error"].startswith("suite")
    assert app.state.services.nightly.projects() == []
