"""What the routes depend on (FastAPI's ``Depends``): the service's state, the page user with a role (a signed
session cookie, Starlette's ``SessionMiddleware``, naming a session row in the catalog so that logout, a new token or
a removed user ends it), the form of a page POST with the session's CSRF token, and the API user with a role (a
Bearer token). Each guard refuses by raising :class:`Refusal`, whose response the app sends as it is: a route
that declares ``page: Reader`` runs only for a logged-in user who may read."""

# No ``from __future__ import annotations`` here: FastAPI reads the guards' parameter types at import, and a guard
# made inside ``form_role`` names its role's page guard, which a string annotation could not resolve.
import json
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from fastapi import Depends, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from service import manage, pages
from service.catalog import Catalog, User
from service.console import ConsoleLimits, Shared
from service.kinds import MAX_CARD_FILES, Context
from service.live import Live, Snapshots, Streams
from service.runner import Runner, job_layout
from service.specs import MAX_GAMES, MAX_UPLOAD

COOKIE = "playtest_session"          # the signed page session (SessionMiddleware): {"sid": the catalog session's id}
LOGIN_COOKIE = "playtest_login"      # the login form's own CSRF token (double submit: there is no session yet)
MAX_BODY = 1024 * 1024               # any request body, at most (a spec is at most MAX_UPLOAD of it)
JOB_TIME_LIMIT_S = 86_400.0          # a job's time, at most, by default (playtest serve --job-time-limit)


@dataclass
class Settings:
    root: Path
    jobs: int = 1                    # jobs run at once
    workers: int | None = None       # each sweep's --workers (None: all cores)
    address: str | None = None       # a Ray cluster's HOST:PORT the jobs' sweeps join (None: each starts its own)
    results: str = ""                # the sweeps' results root on object storage (s3://BUCKET/PREFIX; '': ROOT/runs)
    max_queued: int = 5              # queued jobs per user
    submit_per_minute: int = 10      # submissions per user per minute
    checks_per_minute: int = 30      # checks of a job's cost (each plays a pilot) per user per minute, queued or not
    max_games: int = MAX_GAMES
    page_nice: int = 5               # the pages' threads this much nicer than the jobs (Linux; 0: the same priority)
    console_limits: ConsoleLimits = field(default_factory=ConsoleLimits)  # SQL console, downloads
    job_time_limit_s: float | None = JOB_TIME_LIMIT_S  # a job's steps together, at most (None: no limit)
    base_url: str = ""               # the service's own URL for its links (playtest serve --base-url); "": relative
    secure_cookies: bool = False     # cookies only over HTTPS (playtest serve --secure-cookies; an https base URL)


class TooLarge(Exception):
    """A request body went over MAX_BODY while it was read (the body limit's middleware raises it)."""


class Refusal(Exception):
    """A request ended early with this response (not logged in, not allowed, a refused form): raised by the
    guards below and answered by the app's handler as it is."""

    def __init__(self, response: Response):
        super().__init__()
        self.response = response


@dataclass
class Services:
    """The service's state, made once by the app factory and reached by every route through :func:`services`."""
    settings: Settings
    root: Path
    catalog: Catalog
    runner: Runner
    failures: manage.Failures = field(default_factory=manage.Failures)     # failed logins per address
    checks: manage.Failures | None = None                                  # cost checks per user (the factory's)
    snapshots: Snapshots = field(default_factory=Snapshots)               # what pages derive from a manifest
    live: Live = field(default_factory=Live)                               # per-run live estimates
    streams: Streams = field(default_factory=Streams)                      # open event streams per user
    console: Shared | None = None                                          # the SQL console's gate and answers
    nightly: Any = None                                                    # the scheduler (service/nightly.py)

    def context(self) -> Context:
        """What a job kind's check may read (service/kinds.py)."""
        return Context(scratch=self.root / "tmp", max_games=self.settings.max_games,
                       workers=self.settings.workers or os.cpu_count() or 1, job=self.catalog.job,
                       results=lambda j: job_layout(self.root, self.catalog.job(j) or {"id": j})["out"])


def services(request: Request) -> Services:
    """The app's state (``app.state.services``)."""
    return request.app.state.services


Svc = Annotated[Services, Depends(services)]


@dataclass
class Page:
    """A page request's logged-in user and the session's CSRF token (and, for a POST, its form)."""
    user: User
    csrf: str
    form: Any = None

    def render(self, template: str, title: str, **values: Any) -> HTMLResponse:
        """A page of this user (``values``: the template's, ``status``, ``script``, ``refresh``)."""
        return pages.render(template, title, self.user, self.csrf, **values)

    def message(self, title: str, line: str, status: int, **kw: Any) -> HTMLResponse:
        return pages.message(title, line, self.user, self.csrf, status=status, **kw)

    def no_run(self) -> HTMLResponse:
        return self.message("No such run", "no such run", 404)


def session_user(request: Request, svc: Services) -> tuple[User, str] | None:
    """(user, CSRF token) of the request's page session, while the catalog still holds it."""
    sid = request.session.get("sid")
    return svc.catalog.session(sid if isinstance(sid, str) else None)


def page_role(role: str):
    """A dependency: the page's user, who holds ``role`` or above; anonymous: to /login; too low a role: 403."""
    def guard(request: Request, svc: Svc) -> Page:
        s = session_user(request, svc)
        if s is None:
            raise Refusal(RedirectResponse("/login", status_code=303))
        if not s[0].may(role):
            raise Refusal(pages.message("Not allowed", f"Your role ({s[0].role}) may not do this; it needs {role}.",
                                        *s, status=403))
        return Page(*s)
    guard.__name__ = f"page_{role}"
    return guard


def form_role(role: str):
    """A dependency: a page's POST by a user with ``role``, whose form carries the session's CSRF token."""
    async def guard(request: Request, page: Annotated[Page, Depends(page_role(role))]) -> Page:
        try:
            form = await request.form(max_files=MAX_CARD_FILES + 2, max_fields=40, max_part_size=MAX_BODY)
        except TooLarge:
            raise Refusal(page.message("Refused", f"the request is larger than {MAX_BODY:,} bytes; a spec may be at "
                                       f"most {MAX_UPLOAD:,}", 413)) from None
        except Exception:  # noqa: BLE001 - a malformed or oversized form: one line, nothing stored
            raise Refusal(page.message("Refused", "the form could not be read (malformed, or a field over "
                                       f"{MAX_UPLOAD:,} bytes)", 400)) from None
        given = form.get("csrf")
        if not isinstance(given, str) or not secrets.compare_digest(given.encode(), page.csrf.encode()):
            raise Refusal(page.message("Refused", "the form's CSRF token is missing or wrong; reload the page and "
                                       "try again", 403))
        return Page(page.user, page.csrf, form)
    guard.__name__ = f"form_{role}"
    return guard


def bearer(request: Request, svc: Services) -> User | None:
    """The token's user; a bad token counts as a failed login of the client's address (429 past the limit)."""
    auth = request.headers.get("authorization", "")
    if auth[:7].lower() != "bearer ":
        return None
    where = manage.address(request)
    if (wait := svc.failures.wait(where)) is not None:
        raise Refusal(JSONResponse({"error": svc.failures.message(wait)}, status_code=429,
                                   headers={"Retry-After": str(wait)}))
    user = svc.catalog.user_by_token(auth[7:].strip())
    if user is None:
        svc.failures.add(where)
    return user


def api_role(role: str):
    """A dependency: the API caller (its Bearer token) with ``role`` or above; else 401 or 403."""
    def guard(request: Request, svc: Svc) -> User:
        user = bearer(request, svc)
        if user is None:
            raise Refusal(JSONResponse({"error": "give an API token: Authorization: Bearer TOKEN"}, status_code=401,
                                       headers={"WWW-Authenticate": "Bearer"}))
        if not user.may(role):
            raise Refusal(JSONResponse({"error": f"your role ({user.role}) may not do this; it needs {role}"},
                                       status_code=403))
        return user
    guard.__name__ = f"api_{role}"
    return guard


Reader = Annotated[Page, Depends(page_role("read"))]
Editor = Annotated[Page, Depends(page_role("edit"))]
Admin = Annotated[Page, Depends(page_role("admin"))]
ReadForm = Annotated[Page, Depends(form_role("read"))]
EditForm = Annotated[Page, Depends(form_role("edit"))]
AdminForm = Annotated[Page, Depends(form_role("admin"))]
ApiReader = Annotated[User, Depends(api_role("read"))]
ApiEditor = Annotated[User, Depends(api_role("edit"))]
ApiAdmin = Annotated[User, Depends(api_role("admin"))]


async def json_body(request: Request) -> Any:
    """The request's JSON body; None when it is not JSON, or nested too deep for the parser (100,000 brackets:
    Python's json raises RecursionError, which would be a 500); a body over the limit is refused (413)."""
    try:
        return json.loads(await request.body())
    except TooLarge:
        raise Refusal(JSONResponse({"error": f"the request is larger than {MAX_BODY:,} bytes"}, 413)) from None
    except (ValueError, RecursionError):
        return None


def base_url(request: Request) -> str:
    """Where the service's links point: the configured base URL (``playtest serve --base-url``; by default its own
    --host and --port), or "" for links relative to the service. Never the request's Host header, which the client
    writes (a link in a verdict card or an API answer would point wherever it said)."""
    return request.app.state.services.settings.base_url


def no_such_run() -> JSONResponse:
    return JSONResponse({"error": "no such run"}, 404)
