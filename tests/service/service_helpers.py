"""Shared helpers of the service tests: an app over a fresh results root, users of every role, clients logged in
as each (a page session cookie and its CSRF token, or an API token), a small spec, and a real ``playtest serve``
started and stopped with the job children it leaves."""

from __future__ import annotations

import base64
import json
import os
import signal
import socket
import sqlite3
import subprocess
import threading
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import httpx
import itsdangerous
import pytest
import uvicorn

with warnings.catch_warnings():          # starlette's test client warns about httpx; not ours to fix
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from service.__main__ import server_config
from service.app import COOKIE, Settings, create_app
from service.runner import layout, start_time

TINY = """name = "tiny"
game = "paws"
seed = 1
games_per_cell = 200
[grid]
players = [2, 4]
"""
ROLES = ("anonymous", "read", "edit", "other", "admin")     # other: an edit user who does not own the runs


@dataclass
class Who:
    role: str
    token: str | None = None
    sid: str | None = None
    csrf: str | None = None
    name: str | None = None

    def page(self, app) -> TestClient:
        """A client with this user's page session (no token)."""
        return TestClient(app, cookies={COOKIE: session_cookie(app, self.sid)} if self.sid else None)

    def api(self, app) -> TestClient:
        """A client with this user's API token (no session)."""
        return TestClient(app, headers={"Authorization": f"Bearer {self.token}"} if self.token else None)


def session_cookie(app, sid: str) -> str:
    """The signed session cookie naming the catalog session ``sid``, as the app's SessionMiddleware writes it after
    a login (its key is the catalog's)."""
    data = base64.b64encode(json.dumps({"sid": sid}).encode())
    return itsdangerous.TimestampSigner(app.state.catalog.key("session")).sign(data).decode()


def routes_of(app) -> set[tuple[str, str]]:
    """(method, path) of every route of the app, those of its included routers too."""
    out, todo = set(), list(app.routes)
    while todo:
        r = todo.pop()
        if hasattr(r, "original_router"):          # an included router (FastAPI keeps it whole)
            todo += r.original_router.routes
        elif getattr(r, "methods", None):
            out |= {(m, r.path) for m in r.methods}
    return out


def make_users(app) -> dict[str, Who]:
    catalog = app.state.catalog
    out = {"anonymous": Who("anonymous")}
    for role, name, level in (("read", "rita", "read"), ("edit", "ed", "edit"), ("other", "otto", "edit"),
                              ("admin", "ada", "admin")):
        token = catalog.add_user(name, level)
        user = catalog.user_by_token(token)
        sid, csrf = catalog.new_session(user)
        out[role] = Who(role, token, sid, csrf, name)
    return out


def fake_done_job(app, owner: Who, title: str = "a finished run", spec_name: str = "tiny") -> str:
    """A job marked done with a report, a summary and a verdict's facts on disk (no sweep played)."""
    catalog = app.state.catalog
    user = catalog.user_by_token(owner.token)
    job = catalog.add_job(owner=user, title=title, description="", spec_name=spec_name, game="paws",
                          spec_text=TINY, cells=2, games=400)
    catalog.set_job(job, state="done", started=1.0, ended=2.0)
    paths = layout(app.state.root, job)
    paths["own"].mkdir(parents=True, exist_ok=True)
    paths["report"].write_text("<!doctype html><title>report</title><p>the report</p>")
    paths["summary"].write_text("400 games of Paws in Peril in 2 cell(s); bots, not people\n")
    paths["verdict"].write_text(json.dumps({"code_version": "abc", "spec_digest": "d", "games": 400, "cells": [
        {"id": "c000", "label": "players=2", "games": 200, "bots": ["heuristic in every seat"],
         "headlines": ["Of the games somebody won, the first player wins 51.0% (95%: 44.1 to 57.8%)."],
         "ends": [["vp", 120], ["last_alive", 80]]}], "measure": []}))
    return job


@pytest.fixture
def quiet_app(tmp_path):
    """An app whose runner does not start: jobs stay as the test puts them."""
    app = create_app(Settings(root=tmp_path / "root"), start_runner=False)
    yield app
    app.state.catalog.close()


def csrf_of(html: str) -> str:
    import re
    return re.search(r"name='csrf' value='([^']+)'", html)[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Live:
    """The app served by uvicorn on a loopback port, in a thread of this test (stopped at the end)."""

    def __init__(self, root: Path, **settings):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.app = create_app(Settings(root=root, workers=2, **{"base_url": self.url, **settings}))
        self.server = uvicorn.Server(server_config(self.app, "127.0.0.1", self.port, []))     # as playtest serve
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> Live:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            assert time.monotonic() < deadline, "the service did not start"
            time.sleep(0.05)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=60)


def wait_state(api: httpx.Client, job: str, states: tuple[str, ...], timeout: float = 90.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        got = api.get(f"/api/runs/{job}").json()
        if got["state"] in states:
            return got
        assert time.monotonic() < deadline, f"still {got['state']} after {timeout} s: {got}"
        time.sleep(0.2)


def serve(cli: list[str], url: str) -> subprocess.Popen:
    """``cli`` (a playtest serve command line) started in its own session, once its /health answers (60 s at most)."""
    proc = subprocess.Popen(cli, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(f"{url}/health").status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.1)


def kill_group(pid: int) -> None:
    """SIGKILL to the process group ``pid`` leads (a service or a job's child, each in a session of its own), if it is
    still there."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def stop(proc: subprocess.Popen, *, group: bool = False) -> None:
    """A service started by :func:`serve` stopped with SIGTERM (it ends its job's child itself) and its output read;
    one still there after 30 s is killed, with its process group if ``group``."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            if group:
                kill_group(proc.pid)
            else:
                proc.kill()
    proc.communicate()


def end_left_running(root: Path, children: list[tuple[int, int]]) -> None:
    """Every job child a failing test may have left running ended with its process group: those in ``children``
    ((pid, pid_start) pairs) and those the catalog under ``root`` names; a pid another process has since taken is
    left alone."""
    if (root / "service.sqlite").exists():
        with sqlite3.connect(root / "service.sqlite") as con:
            children = [*children, *con.execute("SELECT pid, pid_start FROM jobs WHERE pid IS NOT NULL")]
    for pid, started in children:
        if pid and start_time(pid) == started:
            kill_group(pid)
