"""The web app, assembled: pages for people (a signed session cookie from /login, the session's CSRF token on every
form that changes anything) and a JSON API for programs (``Authorization: Bearer TOKEN``). Anonymous callers get
/login and /health only. The routes are in service/routes (one router per area), their guards and the service's
state in service/deps.py, the pages in service/templates.

Roles: read (see runs and results), edit (also submit and cancel one's own runs), admin (everything, users too)."""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import Response
from starlette.middleware.sessions import SessionMiddleware

from service import console, nightly
from service.catalog import SESSION_S, Catalog
from service.deps import COOKIE, Refusal, Services, Settings
from service.manage import Failures
from service.middleware import BodyLimit
from service.routes import auth, live, manage, nightly as nightly_routes, replays, results, runs, submit, users
from service.routes.runs import verdict_card  # noqa: F401 - the card's home for its callers
from service.runner import Runner

__all__ = ["COOKIE", "Settings", "create_app", "verdict_card"]

ROUTERS = (auth.router, runs.router, submit.router, results.router, live.router, replays.router, manage.router,
           users.router, nightly_routes.router)


def _services(settings: Settings) -> Services:
    """The service's state over ``settings.root`` (its folders made where missing)."""
    root = Path(settings.root).resolve()
    for sub in ("runs", "jobs", "tmp"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    catalog = Catalog(root / "service.sqlite")
    runner = Runner(catalog, root, jobs=settings.jobs, workers=settings.workers, address=settings.address,
                    time_limit_s=settings.job_time_limit_s)
    svc = Services(settings=settings, root=root, catalog=catalog, runner=runner,
                   checks=Failures(limit=settings.checks_per_minute, window_s=60.0))
    svc.console = console.Shared(          # the console's gate and kept answers (service/console.py)
        lambda out: svc.snapshots.get(out, "parts", console.parts_fingerprint, every=console.FRESH_S))
    svc.nightly = nightly.Nightly(catalog, root, svc.context)      # scheduled regressions (service/nightly.py)
    return svc


def create_app(settings: Settings, *, start_runner: bool = True) -> FastAPI:
    """The app over ``settings.root`` (created if missing); its runner starts with the app (and resumes what was
    running when the service last stopped) and stops with it."""
    svc = _services(settings)

    @contextlib.asynccontextmanager
    async def lifespan(_app):
        if start_runner:
            svc.runner.start()                 # its thread, and so the jobs' processes, at the service's priority
            svc.nightly.start()                # the nightly scheduler (service/nightly.py), beside the runner
        below_jobs(settings.page_nice)         # then this thread (the pages') and the threads it starts, nicer
        try:
            yield
        finally:
            if start_runner:
                svc.nightly.stop()
                svc.runner.stop()
            svc.catalog.close()

    app = FastAPI(title="playtest", docs_url=None, redoc_url=None, openapi_url=None, lifespan=lifespan)
    app.state.services = svc
    app.state.catalog, app.state.runner, app.state.root = svc.catalog, svc.runner, svc.root
    app.state.live, app.state.console, app.state.nightly = svc.live, svc.console, svc.nightly
    app.state.login_failures = svc.failures

    @app.exception_handler(Refusal)
    async def refused(_request: Request, e: Refusal) -> Response:
        return e.response

    for router in ROUTERS:
        app.include_router(router)
    # the page session: a signed cookie naming the catalog's session row (which logout, a new token or a removed
    # user deletes); strict SameSite and HttpOnly, as long as the row lives
    app.add_middleware(SessionMiddleware, secret_key=svc.catalog.key("session"), session_cookie=COOKIE,
                       max_age=SESSION_S, same_site="strict", https_only=settings.secure_cookies)
    app.add_middleware(BodyLimit)
    return app


def below_jobs(nice: int) -> None:
    """This thread (Linux niceness is per thread) and the threads it starts from now on ``nice`` steps nicer than the
    service, so that the jobs' processes (started by the runner's thread, made before) take the cores they need and the
    pages the CPU they leave: a page costs about a millisecond, so its latency holds while the sweep keeps its speed
    (the load benchmark, docs/service.md). Elsewhere, or when the niceness cannot be changed, nothing."""
    if nice <= 0 or not sys.platform.startswith("linux"):
        return
    try:
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + nice))
    except OSError:
        pass
