"""The web app: pages for people (a session cookie from /login, a CSRF token on every form that changes anything)
and a JSON API for programs (``Authorization: Bearer TOKEN``). Anonymous callers get /login and /health only.

Roles: read (see runs and results), edit (also submit and cancel one's own runs), admin (everything, users too)."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.background import BackgroundTask
from starlette.concurrency import run_in_threadpool

from cluster.manifest import ManifestError, counts, load_manifest
from cluster.spec import SpecError
from service import console, pages
from service import manage, nightly
from service import replays
from service.catalog import ACTIVE, STATES, Catalog, CatalogError, User
from service.live import SCRIPT as LIVE_SCRIPT
from service.live import Snapshots
from service.live import add_routes as add_live_routes
from service.live import section as live_section
from service.runner import Runner, job_layout, layout
from service.kinds import KINDS, MAX_CARD_FILES, Context, calibrated, kind_of
from service.specs import MAX_GAMES, MAX_UPLOAD
from sim.games import GAMES

COOKIE = "playtest_session"
LOGIN_COOKIE = "playtest_login"
MAX_BODY = 1024 * 1024              # any request body, at most (a spec is at most MAX_UPLOAD of it)
MAX_TITLE = 200
MAX_DESCRIPTION = 5000
PAGE_CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'nonce-{nonce}'; "
            "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
REPORT_CSP = ("sandbox allow-scripts; default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
              "script-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'")


@dataclass
class Settings:
    root: Path
    jobs: int = 1                    # jobs run at once
    workers: int | None = None       # each sweep's --workers (None: all cores)
    address: str | None = None       # a Ray cluster's HOST:PORT the jobs' sweeps join (None: each starts its own)
    results: str = ""                # the sweeps' results root on object storage (s3://BUCKET/PREFIX; '': ROOT/runs)
    max_queued: int = 5              # queued jobs per user
    submit_per_minute: int = 10      # submissions per user per minute
    max_games: int = MAX_GAMES
    page_nice: int = 5               # the pages' threads this much nicer than the jobs (Linux; 0: the same priority)
    console_limits: console.ConsoleLimits = field(default_factory=console.ConsoleLimits)  # SQL console, downloads


class TooLarge(Exception):
    pass


class Refusal(Exception):
    """A request ended early with this response (not logged in, not allowed, a refused form): raised by the
    routes' guards (page_user, page_form, api_user) and answered by the app's handler, so that a route reads
    ``user, csrf = page_user(request, "read")`` and goes on."""

    def __init__(self, response: Response):
        super().__init__()
        self.response = response


SECURITY_HEADERS = ((b"x-content-type-options", b"nosniff"), (b"x-frame-options", b"DENY"),
                    (b"referrer-policy", b"no-referrer"), (b"cache-control", b"no-store"))


def limit_body(app, limit: int = MAX_BODY):
    """ASGI middleware: a request body over ``limit`` bytes is refused with 413 in one line, read or not (an
    endpoint reading it meets TooLarge); every response gets the security headers."""
    async def guarded(scope, receive, send):
        if scope["type"] != "http":
            return await app(scope, receive, send)
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > limit):
            return await _too_large(send)
        seen = 0
        started = False

        async def counted():
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise TooLarge()
            return message

        async def watched(message):
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                have = {k.lower() for k, _ in message.get("headers", [])}
                message = {**message, "headers": [*message.get("headers", []),
                                                  *((k, v) for k, v in SECURITY_HEADERS if k not in have)]}
            await send(message)
        try:
            await app(scope, counted, watched)
        except TooLarge:
            if not started:
                await _too_large(send)
    return guarded


async def _too_large(send) -> None:
    body = f"error: the request is larger than {MAX_BODY:,} bytes; a spec may be at most {MAX_UPLOAD:,}\n".encode()
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode()),
                            *SECURITY_HEADERS]})
    await send({"type": "http.response.body", "body": body})


def create_app(settings: Settings, *, start_runner: bool = True) -> FastAPI:
    """The app over ``settings.root`` (created if missing); its runner starts with the app (and resumes what was
    running when the service last stopped) and stops with it."""
    root = Path(settings.root).resolve()
    for sub in ("runs", "jobs", "tmp"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    catalog = Catalog(root / "service.sqlite")
    runner = Runner(catalog, root, jobs=settings.jobs, workers=settings.workers, address=settings.address)

    @contextlib.asynccontextmanager
    async def lifespan(_app):
        if start_runner:
            runner.start()                     # its thread, and so the jobs' processes, at the service's priority
            app.state.nightly.start()          # the nightly scheduler (service/nightly.py), beside the runner
        below_jobs(settings.page_nice)         # then this thread (the pages') and the threads it starts, nicer
        try:
            yield
        finally:
            if start_runner:
                app.state.nightly.stop()
                runner.stop()
            catalog.close()

    app = FastAPI(title="playtest", docs_url=None, redoc_url=None, openapi_url=None, lifespan=lifespan)
    app.state.catalog, app.state.runner, app.state.root = catalog, runner, root
    failures = app.state.login_failures = manage.Failures()      # failed logins per address (service/manage.py)

    @app.exception_handler(Refusal)
    async def refused(_request: Request, e: Refusal) -> Response:
        return e.response

    # who is asking --------------------------------------------------------------------------------------

    def bearer(request: Request) -> User | None:
        """The token's user; a bad token counts as a failed login of the client's address (429 past the limit)."""
        auth = request.headers.get("authorization", "")
        if auth[:7].lower() == "bearer ":
            where = manage.address(request)
            if (wait := failures.wait(where)) is not None:
                raise Refusal(JSONResponse({"error": failures.message(wait)}, status_code=429,
                                           headers={"Retry-After": str(wait)}))
            user = catalog.user_by_token(auth[7:].strip())
            if user is None:
                failures.add(where)
            return user
        return None

    def session(request: Request) -> tuple[User, str] | None:
        return catalog.session(request.cookies.get(COOKIE))

    def page(title: str, body: str, user: User | None, csrf: str | None, status: int = 200, **kw) -> HTMLResponse:
        nonce = secrets.token_urlsafe(16)
        r = HTMLResponse(pages.layout(title, body, user=user, csrf=csrf, nonce=nonce, **kw), status_code=status)
        r.headers["Content-Security-Policy"] = PAGE_CSP.format(nonce=nonce)
        return r

    def page_user(request: Request, role: str) -> tuple[User, str]:
        """The logged-in user of a page with ``role`` or above (and the session's CSRF token); anonymous: to
        /login; too low a role: 403 (both raised as a Refusal)."""
        s = session(request)
        if s is None:
            raise Refusal(RedirectResponse("/login", status_code=303))
        if not s[0].may(role):
            raise Refusal(page("Not allowed", f"<p class='error'>Your role ({pages.esc(s[0].role)}) may not do "
                               f"this; it needs {role}.</p>", s[0], s[1], status=403))
        return s

    async def page_form(request: Request, role: str) -> tuple[User, str, Any]:
        """A page's POST: the user with ``role``, whose form carries the session's CSRF token; else a Refusal."""
        s = page_user(request, role)
        try:
            form = await request.form(max_files=MAX_CARD_FILES + 2, max_fields=40, max_part_size=MAX_BODY)
        except TooLarge:
            raise Refusal(page("Refused", f"<p class='error'>the request is larger than {MAX_BODY:,} bytes; a spec "
                               f"may be at most {MAX_UPLOAD:,}</p>", s[0], s[1], status=413)) from None
        except Exception:  # noqa: BLE001 - a malformed or oversized form: one line, nothing stored
            raise Refusal(page("Refused", "<p class='error'>the form could not be read (malformed, or a field over "
                               f"{MAX_UPLOAD:,} bytes)</p>", s[0], s[1], status=400)) from None
        given = form.get("csrf")
        if not isinstance(given, str) or not secrets.compare_digest(given.encode(), s[1].encode()):
            raise Refusal(page("Refused", "<p class='error'>the form's CSRF token is missing or wrong; reload the "
                               "page and try again</p>", s[0], s[1], status=403))
        return s[0], s[1], form

    def api_user(request: Request, role: str) -> User:
        """The API caller (its Bearer token) with ``role`` or above; else a Refusal (401, 403)."""
        user = bearer(request)
        if user is None:
            raise Refusal(JSONResponse({"error": "give an API token: Authorization: Bearer TOKEN"}, status_code=401,
                                       headers={"WWW-Authenticate": "Bearer"}))
        if not user.may(role):
            raise Refusal(JSONResponse({"error": f"your role ({user.role}) may not do this; it needs {role}"},
                                       status_code=403))
        return user

    # shared actions -------------------------------------------------------------------------------------

    def check_fields(title: str, description: str) -> str | None:
        if len(title) > MAX_TITLE:
            return f"the title is {len(title):,} characters; at most {MAX_TITLE}"
        if len(description) > MAX_DESCRIPTION:
            return f"the description is {len(description):,} characters; at most {MAX_DESCRIPTION:,}"
        if any(ord(ch) < 32 and ch not in "\t\n\r" for ch in title + description):
            return "the title and description may not hold control characters"
        return None

    def context() -> Context:
        return Context(scratch=root / "tmp", max_games=settings.max_games,
                       workers=settings.workers or os.cpu_count() or 1, job=catalog.job,
                       results=lambda j: job_layout(root, catalog.job(j) or {"id": j})["out"])

    def submit(user: User, kind_name: Any, inputs: dict[str, Any], title: str, description: str,
               start: bool) -> tuple[int, dict]:
        """Check a job's inputs by its kind (and queue it): (HTTP status, what to say). Nothing is stored on a
        refusal."""
        title, description = title.strip(), description.strip()
        if (bad := check_fields(title, description)) is not None:
            return 400, {"error": bad}
        kind = kind_of(kind_name)
        if kind is None:
            return 400, {"error": f"kind {str(kind_name)[:40]!r}: expected one of {', '.join(KINDS)}"}
        try:
            checked = await_check(kind, inputs)
        except SpecError as e:
            return 400, {"error": " ".join(str(e).split())}
        # the pilot's time, calibrated on what this kind's finished runs took here (service.kinds.calibrated)
        est = calibrated(checked.seconds, catalog.timings(checked.kind)) if checked.seconds else None
        cost = {"kind": checked.kind, "name": checked.name, "game": checked.game, "cells": checked.cells,
                "games": checked.games, "stop": checked.stop, "rule_set": checked.rule_set,
                "seconds": None if checked.seconds is None else round(checked.seconds, 3),
                "estimate": None if est is None else {"low_s": round(est.low, 1), "high_s": round(est.high, 1),
                                                      "runs": est.runs},
                "cost": checked.cost(est)}
        if not start:
            return 200, cost
        if catalog.submissions_since(user, time.time() - 60) >= settings.submit_per_minute:
            return 429, {"error": f"more than {settings.submit_per_minute} submissions in a minute; wait a minute"}
        if catalog.queued_by(user) >= settings.max_queued:
            return 429, {"error": f"you have {settings.max_queued} runs queued already (the most a user may); wait "
                                  "for one to start or cancel one"}
        job = catalog.add_job(owner=user, title=title or checked.name, description=description,
                              spec_name=checked.name, game=checked.game, spec_text=checked.text, cells=checked.cells,
                              games=checked.games, kind=checked.kind, params=checked.params,
                              rule_set=checked.rule_set, results=settings.results if kind.object_storage else "",
                              pilot_s=checked.seconds, estimate="" if est is None else est.text())
        return 201, {**cost, "id": job, "state": "queued"}

    def await_check(kind, inputs: dict[str, Any]):
        try:
            return kind.check(inputs, context())
        except (ValueError, OSError) as e:      # a reader's own error that is not a SpecError: still one line
            if isinstance(e, SpecError):
                raise
            raise SpecError(" ".join(str(e).split())[:500]) from None

    def may_cancel(user: User, job: dict) -> bool:
        return job["state"] in ACTIVE and (user.may("admin") or (user.may("edit") and job["owner"] == user.name))

    snapshots = Snapshots()         # what the pages derive from a run's manifest, shared (service/live.py)

    def manifest_counts(out: Path) -> dict | None:
        try:
            m = load_manifest(out)
        except (ManifestError, OSError, ValueError):
            return None
        return counts(m) if m else None

    def progress(job: dict) -> dict | None:
        out = job_layout(root, job)["out"]
        return snapshots.get(out, "counts", manifest_counts, fresh=job["state"] not in ACTIVE)

    def run_tables(job: dict) -> list[str]:
        out = job_layout(root, job)["out"]
        return snapshots.get(out, "tables", console.tables, fresh=job["state"] not in ACTIVE)

    def read_own(job: dict, key: str) -> str | None:
        try:
            return layout(root, job["id"])[key].read_text(encoding="utf-8")
        except OSError:
            return None

    def verdict(job: dict, base: str) -> str | None:
        if job["state"] != "done":
            return None
        raw = read_own(job, "verdict")
        try:
            facts = json.loads(raw) if raw else None
        except ValueError:
            facts = None
        if not isinstance(facts, dict):
            return None
        return verdict_card(job, facts, f"{base}/runs/{job['id']}")

    def job_json(job: dict, base: str) -> dict:
        out = {k: job[k] for k in ("id", "title", "description", "owner", "state", "spec_name", "game", "cells",
                                   "games", "created", "started", "ended", "error", "priority", "rule_set",
                                   "verdict", "estimate")}
        out["took_s"] = round(job["ended"] - job["started"], 1) if job["ended"] and job["started"] else None
        out["url"] = f"{base}/runs/{job['id']}"
        out["report_url"] = f"{base}/runs/{job['id']}/report" if layout(root, job["id"])["report"].is_file() else None
        out["progress"] = progress(job)
        if job["state"] == "done":
            out["summary"] = read_own(job, "summary")
            out["verdict"] = verdict(job, base)
        return out

    def base_url(request: Request) -> str:
        return str(request.base_url).rstrip("/")

    def filters(request: Request) -> dict[str, str]:
        got = {k: (request.query_params.get(k) or "")[:200] for k in ("game", "state", "owner", "q", "rule_set",
                                                                     "verdict", "from", "to")}
        return got

    # pages ------------------------------------------------------------------------------------------------

    @app.get("/health")
    def health() -> dict:
        return {"ok": True}

    @app.get("/")
    def home(request: Request):
        return RedirectResponse("/runs" if session(request) else "/login", status_code=303)

    @app.get("/login")
    def login_page(request: Request):
        token = secrets.token_urlsafe(24)
        r = page("Log in", pages.login_form(token), None, None)
        r.set_cookie(LOGIN_COOKIE, token, httponly=True, samesite="strict", max_age=3600)
        return r

    @app.post("/login")
    async def login(request: Request):
        try:
            form = await request.form(max_files=0, max_fields=5, max_part_size=4096)
        except Exception:  # noqa: BLE001
            return page("Log in", "<p class='error'>the form could not be read</p>", None, None, status=400)
        given, want = form.get("csrf"), request.cookies.get(LOGIN_COOKIE)
        if not isinstance(given, str) or not want or not secrets.compare_digest(given.encode(), want.encode()):
            return page("Log in", "<p class='error'>the login form's CSRF token is missing or wrong; reload the "
                        "page</p>", None, None, status=403)
        where = manage.address(request)
        if (wait := failures.wait(where)) is not None:
            r = page("Log in", f"<p class='error'>{failures.message(wait)}</p>", None, None, status=429)
            r.headers["Retry-After"] = str(wait)
            return r
        token = form.get("token")
        user = catalog.user_by_token(token if isinstance(token, str) else None)
        if user is None:
            failures.add(where)
            fresh = secrets.token_urlsafe(24)
            r = page("Log in", pages.login_form(fresh, "unknown token"), None, None, status=401)
            r.set_cookie(LOGIN_COOKIE, fresh, httponly=True, samesite="strict", max_age=3600)
            return r
        sid, _ = catalog.new_session(user)
        catalog.audit(user.name, "login")
        r = RedirectResponse("/runs", status_code=303)
        r.set_cookie(COOKIE, sid, httponly=True, samesite="strict", max_age=12 * 3600)
        r.delete_cookie(LOGIN_COOKIE)
        return r

    @app.post("/logout")
    async def logout(request: Request):
        await page_form(request, "read")
        catalog.end_session(request.cookies.get(COOKIE))
        r = RedirectResponse("/login", status_code=303)
        r.delete_cookie(COOKIE)
        return r

    @app.get("/runs")
    def runs_page(request: Request):
        s = page_user(request, "read")
        f = filters(request)
        since, before, bad = manage.date_range(f)
        rows = [] if bad else catalog.jobs(game=f["game"], state=f["state"], owner=f["owner"], text=f["q"],
                                           rule_set=f["rule_set"], verdict=f["verdict"], since=since, before=before)
        body = (manage.notices(catalog.notifications(s[0]), s[1])
                + pages.run_list(rows, f, list(GAMES.names()), catalog.rule_sets(), catalog.verdicts(), bad or ""))
        return page("Runs", body, *s, status=400 if bad else 200)

    def chosen_kind(value: Any):
        return kind_of(value or "sweep")

    @app.get("/submit")
    def submit_page(request: Request):
        s = page_user(request, "edit")
        kind = chosen_kind(request.query_params.get("kind"))
        if kind is None:
            return page("No such kind", f"<p class='error'>no such job kind; expected one of {', '.join(KINDS)}</p>",
                        *s, status=404)
        values = {f.name: f.default for f in kind.fields}
        return page(f"Submit {kind.title}", pages.submit_form(s[1], kind, KINDS.values(), values=values), *s)

    @app.post("/submit")
    async def submit_post(request: Request):
        user, csrf, form = await page_form(request, "edit")
        kind = chosen_kind(form.get("kind"))
        if kind is None:
            return page("No such kind", f"<p class='error'>no such job kind; expected one of {', '.join(KINDS)}</p>",
                        user, csrf, status=400)
        title, description = str(form.get("title") or ""), str(form.get("description") or "")
        inputs: dict[str, Any] = {}
        shown: dict[str, str] = {}
        for f in kind.fields:
            if f.widget == "cards":
                cards = {}
                for upload in form.getlist(f.name):
                    if not isinstance(upload, str) and upload.filename:
                        cards[upload.filename] = await upload.read(MAX_UPLOAD + 1)
                inputs[f.name] = cards
                continue
            value: bytes | str = str(form.get(f.name) or "")
            upload = form.get(f"{f.name}_file")
            if f.widget == "textarea" and upload is not None and not isinstance(upload, str) and upload.filename:
                value = await upload.read(MAX_UPLOAD + 1)
            inputs[f.name] = value
            shown[f.name] = value if isinstance(value, str) else value[:MAX_UPLOAD].decode("utf-8", "replace")
        status, said = submit(user, kind.name, inputs, title, description, form.get("action") == "start")
        if status == 201:
            return RedirectResponse(f"/runs/{said['id']}", status_code=303)
        body = pages.submit_form(csrf, kind, KINDS.values(), title=title, description=description, values=shown,
                                 error=said.get("error", ""), cost="" if status != 200 else
                                 f"Cost: {said['cost']}. Press Start to queue it.")
        return page(f"Submit {kind.title}", body, user, csrf, status=status)

    @app.get("/runs/{job}")
    def run_page(request: Request, job: str):
        s = page_user(request, "read")
        row = catalog.job(job)
        if row is None:
            return page("No such run", "<p class='error'>no such run</p>", *s, status=404)
        body = pages.run_page(row, progress=progress(row), verdict=verdict(row, base_url(request)),
                              summary=read_own(row, "summary") if row["state"] == "done" else None,
                              may_cancel=may_cancel(s[0], row), csrf=s[1], links=result_links(row))
        body += manage.run_controls(row, s[0], s[1], catalog.following(s[0], row["id"]))
        body += live_section(row)                  # filled live from /runs/{id}/events (service/live.py)
        body += console.links(row, run_tables(row))
        body += replays.link(row, root)             # one game drawn (service/replays.py)
        return page(row["title"], body, *s, script=pages.COPY_SCRIPT + LIVE_SCRIPT)

    @app.post("/runs/{job}/cancel")
    async def cancel_page(request: Request, job: str):
        got = await page_form(request, "edit")
        user, csrf, _ = got
        row = catalog.job(job)
        if row is None:
            return page("No such run", "<p class='error'>no such run</p>", user, csrf, status=404)
        if not (user.may("admin") or row["owner"] == user.name):
            return page("Not allowed", "<p class='error'>only its owner or an admin may cancel a run</p>", user, csrf,
                        status=403)
        if not runner.cancel(row["id"], user.name):
            return page("Not cancelled", f"<p class='error'>the run has ended already ({pages.esc(row['state'])})</p>",
                        user, csrf, status=409)
        return RedirectResponse(f"/runs/{row['id']}", status_code=303)

    def result_links(row: dict) -> list[tuple[str, str, str]]:
        """The run's result pages that exist: (id, href, text); the report has its own route."""
        kind = kind_of(row.get("kind", "sweep"))
        own = layout(root, row["id"])["own"]
        return [(name, f"/runs/{row['id']}/report" if name == "report" else f"/runs/{row['id']}/pages/{name}", text)
                for name, file, text in (kind.pages if kind else ()) if (own / file).is_file()]

    @app.get("/runs/{job}/pages/{name}")
    def result_page(request: Request, job: str, name: str):
        s = page_user(request, "read")
        row = catalog.job(job)
        kind = kind_of(row.get("kind", "sweep")) if row else None
        files = {n: f for n, f, _ in (kind.pages if kind else ()) if n != "report"}
        path = layout(root, row["id"])["own"] / files[name] if row and name in files else None
        if path is None or not path.is_file():
            return page("No such page", "<p class='error'>no such page for this run (yet)</p>", *s, status=404)
        return FileResponse(path, media_type="text/html; charset=utf-8", headers={"Content-Security-Policy": REPORT_CSP})

    @app.get("/runs/{job}/report")
    def report_page(request: Request, job: str):
        s = page_user(request, "read")
        row = catalog.job(job)
        path = layout(root, row["id"])["report"] if row else None
        if path is None or not path.is_file():
            return page("No report", "<p class='error'>no report for this run (yet)</p>", *s, status=404)
        return FileResponse(path, media_type="text/html; charset=utf-8", headers={"Content-Security-Policy": REPORT_CSP})

    @app.get("/runs/{job}/verdict.md")
    def verdict_text(request: Request, job: str):
        page_user(request, "read")
        row = catalog.job(job)
        card = verdict(row, base_url(request)) if row else None
        if card is None:
            return PlainTextResponse("error: no verdict for this run (yet)\n", status_code=404)
        return PlainTextResponse(card, media_type="text/markdown; charset=utf-8")

    @app.get("/users")
    def users_page(request: Request):
        s = page_user(request, "admin")
        return page("Users", pages.users_page(catalog.users(), catalog.audit_log(), s[1]), *s)

    @app.post("/users")
    async def users_add(request: Request):
        got = await page_form(request, "admin")
        user, csrf, form = got
        name, role = str(form.get("name") or ""), str(form.get("role") or "")
        try:
            token = catalog.add_user(name, role)
        except CatalogError as e:
            return page("Users", pages.users_page(catalog.users(), catalog.audit_log(), csrf, error=str(e)), user,
                        csrf, status=400)
        catalog.audit(user.name, "add-user", None, f"{name} ({role})")
        return page("Users", pages.users_page(catalog.users(), catalog.audit_log(), csrf, new_token=token), user, csrf)

    # results in the page: the SQL console, the canned queries as forms, downloads (service/console.py) ------

    limits = settings.console_limits
    shared = console.Shared(                # the console's gate and kept answers (service/console.py)
        lambda out: snapshots.get(out, "parts", console.parts_fingerprint, every=console.FRESH_S))
    app.state.console = shared

    def results_of(row: dict | None) -> Path | None:
        """The run's results folder, once its sweep has written a manifest; else None."""
        out = job_layout(root, row)["out"] if row else None
        return out if out is not None and run_tables(row) else None

    def no_results(s: tuple[User, str]) -> Response:
        return page("No results", "<p class='error'>no such run, or no results for it (yet)</p>", *s, status=404)

    @app.get("/runs/{job}/sql")
    def sql_page(request: Request, job: str):
        s = page_user(request, "read")
        row = catalog.job(job)
        if results_of(row) is None:
            return no_results(s)
        example = "SELECT players, count(*) AS games FROM games GROUP BY ALL ORDER BY ALL"
        return page(f"SQL: {row['title']}", console.console_page(row, s[1], example, None, limits), *s)

    @app.post("/runs/{job}/sql")
    async def sql_post(request: Request, job: str):
        got = await page_form(request, "read")
        user, csrf, form = got
        row = catalog.job(job)
        out = results_of(row)
        if out is None:
            return no_results((user, csrf))
        sql = str(form.get("sql") or "")
        answer = await run_in_threadpool(console.run_sql, out, row["id"], sql, limits, shared)
        return page(f"SQL: {row['title']}", console.console_page(row, csrf, sql, answer, limits), user, csrf,
                    status=503 if answer.busy else 400 if answer.error else 200)

    @app.get("/runs/{job}/queries")
    def queries_page(request: Request, job: str):
        s = page_user(request, "read")
        row = catalog.job(job)
        if results_of(row) is None:
            return no_results(s)
        return page(f"Canned queries: {row['title']}", console.query_list(row, console.queries()), *s)

    @app.get("/runs/{job}/queries/{name}")
    def query_page(request: Request, job: str, name: str):
        s = page_user(request, "read")
        row = catalog.job(job)
        out = results_of(row)
        if out is None:
            return no_results(s)
        q = console.canned(name)
        if q is None:
            return page("No such query", "<p class='error'>no such canned query</p>", *s, status=404)
        given = {k: v[:2000] for k, v in request.query_params.items() if k != "run"}
        answer = console.run_query(out, row["id"], q, given, limits, shared) if request.query_params.get("run") \
            else None
        return page(f"{q.name}: {row['title']}", console.query_page(row, q, given, answer, limits), *s,
                    status=200 if answer is None or not answer.error else 503 if answer.busy else 400)

    @app.get("/runs/{job}/download/{file}")
    def download(request: Request, job: str, file: str):
        page_user(request, "read")
        row = catalog.job(job)
        out = results_of(row)
        table, _, fmt = file.rpartition(".")
        if out is None or fmt not in console.FORMATS or table not in console.tables(out):
            return PlainTextResponse("error: no such table to download for this run\n", status_code=404)
        name = f"{row['id']}-{table}.{fmt}"
        headers = {"Content-Disposition": f'attachment; filename="{name}"'}
        try:
            if fmt == "parquet":
                path = console.write_parquet(out, table, root / "tmp")
                return FileResponse(path, media_type=console.FORMATS[fmt], headers=headers,
                                    background=BackgroundTask(path.unlink, missing_ok=True))
            total = console.count_rows(out, table)
        except (console.library.ResultsError, console.library.QueryError) as e:
            return PlainTextResponse(f"error: {console._scrub(str(e), out, row['id'])}\n", status_code=409)
        if total > limits.csv_max_rows:
            headers["X-Playtest-Rows"] = f"{limits.csv_max_rows} of {total} (the CSV row cap; the Parquet file has all)"
        return StreamingResponse(console.csv_chunks(out, table, limits.csv_max_rows), media_type=console.FORMATS[fmt],
                                 headers=headers)

    @app.post("/api/runs/{job}/sql")
    async def api_sql(request: Request, job: str):
        api_user(request, "read")
        row = catalog.job(job)
        out = results_of(row)
        if out is None:
            return JSONResponse({"error": "no such run, or no results for it (yet)"}, 404)
        try:
            body = json.loads(await request.body())
        except TooLarge:
            return JSONResponse({"error": f"the request is larger than {MAX_BODY:,} bytes"}, 413)
        except ValueError:
            body = None
        if not isinstance(body, dict) or not isinstance(body.get("sql"), str):
            return JSONResponse({"error": "expected {\"sql\": one SELECT statement}"}, 400)
        a = await run_in_threadpool(console.run_sql, out, row["id"], body["sql"], limits, shared)
        if a.error:
            return JSONResponse({"error": a.error}, 503 if a.busy else 400)
        return {"columns": a.columns, "rows": console.json_rows(a.rows), "cut": a.cut, "max_rows": limits.max_rows,
                "seconds": round(a.seconds, 3), "kept": a.cached,
                "stale_s": None if a.stale_s is None else round(a.stale_s, 1)}

    # the API ----------------------------------------------------------------------------------------------

    @app.get("/api/runs")
    def api_runs(request: Request):
        api_user(request, "read")
        f = filters(request)
        if f["state"] and f["state"] not in STATES:
            return JSONResponse({"error": f"state {f['state']!r}: expected one of {', '.join(STATES)}"}, 400)
        since, before, bad = manage.date_range(f)
        if bad:
            return JSONResponse({"error": bad}, 400)
        base = base_url(request)
        return {"runs": [{**{k: r[k] for k in ("id", "title", "owner", "state", "spec_name", "game", "cells", "games",
                                               "created", "started", "ended", "priority", "rule_set", "verdict")},
                          "url": f"{base}/runs/{r['id']}"}
                         for r in catalog.jobs(game=f["game"], state=f["state"], owner=f["owner"], text=f["q"],
                                               rule_set=f["rule_set"], verdict=f["verdict"], since=since,
                                               before=before)]}

    @app.post("/api/runs")
    async def api_submit(request: Request):
        user = api_user(request, "edit")
        try:
            body = json.loads(await request.body())
        except TooLarge:
            return JSONResponse({"error": f"the request is larger than {MAX_BODY:,} bytes"}, 413)
        except ValueError:
            return JSONResponse({"error": "the body is not JSON; send {\"spec\": TOML text, \"title\": ..., "
                                          "\"description\": ...}"}, 400)
        kind = chosen_kind(body.get("kind") if isinstance(body, dict) else None)
        if not isinstance(body, dict) or kind is None \
                or not all(isinstance(body.get(k, ""), str) for k in ("title", "description")) \
                or not isinstance(body.get("check_only", False), bool) \
                or not all(isinstance(body.get(f.name, ""), str) for f in kind.fields if f.widget != "cards") \
                or not all(isinstance(body.get(f.name, {}), dict) for f in kind.fields if f.widget == "cards"):
            names = ", ".join(f'"{f.name}": ' + ("{file name: TOML text}" if f.widget == "cards" else "text")
                              for f in (kind or KINDS["sweep"]).fields)
            return JSONResponse({"error": f"expected {{\"kind\": one of {', '.join(KINDS)}, {names}, \"title\": text, "
                                          "\"description\": text, \"check_only\": true|false}"}, 400)
        inputs = {f.name: body.get(f.name, {} if f.widget == "cards" else "") for f in kind.fields}
        status, said = submit(user, kind.name, inputs, body.get("title", ""), body.get("description", ""),
                              body.get("check_only", False) is not True)
        if status == 201:
            said["url"] = f"{base_url(request)}/runs/{said['id']}"
        return JSONResponse(said, status_code=status)

    @app.get("/api/runs/{job}")
    def api_run(request: Request, job: str):
        api_user(request, "read")
        row = catalog.job(job)
        if row is None:
            return JSONResponse({"error": "no such run"}, 404)
        return job_json(row, base_url(request))

    @app.post("/api/runs/{job}/cancel")
    def api_cancel(request: Request, job: str):
        user = api_user(request, "edit")
        row = catalog.job(job)
        if row is None:
            return JSONResponse({"error": "no such run"}, 404)
        if not (user.may("admin") or row["owner"] == user.name):
            return JSONResponse({"error": "only its owner or an admin may cancel a run"}, 403)
        if not runner.cancel(row["id"], user.name):
            return JSONResponse({"error": f"the run has ended already ({row['state']})"}, 409)
        return {"id": row["id"], "state": "cancelled"}

    app.state.live = add_live_routes(app, catalog=catalog, root=root, page_user=page_user, api_user=api_user)
    replays.add_routes(app, catalog=catalog, root=root, page_user=page_user, page=page, csp=REPORT_CSP)
    app.state.nightly = nightly.add_routes(app, nightly=nightly.Nightly(catalog, root, context), page=page,
                                           page_user=page_user, page_form=page_form, api_user=api_user,
                                           base_url=base_url)     # scheduled regressions (service/nightly.py)
    manage.add_routes(app, catalog=catalog, root=root, runner=runner, page=page, page_user=page_user,
                      page_form=page_form, api_user=api_user)    # priorities, delete, follow, users (manage.py)
    app.add_middleware(_BodyLimit)
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


class _BodyLimit:
    """``limit_body`` as a Starlette middleware class."""

    def __init__(self, app):
        self.app = limit_body(app)

    async def __call__(self, scope, receive, send):
        await self.app(scope, receive, send)


def verdict_card(job: dict, facts: dict, link: str) -> str:
    """The verdict card: a short Markdown block (title, question, each cell's headline with its interval, games,
    bots, code version, the permalink). User text is kept to one line each."""
    def line(text: Any) -> str:
        return " ".join(str(text).split())
    out = [f"**{line(job['title'])}**", f"Question: {line(job['spec_name'])} ({line(job['game'])})", ""]
    bots = sorted({b for c in facts.get("cells", []) for b in c.get("bots", [])})
    for c in facts.get("cells", []):
        head = (c.get("headlines") or ["no headline"])[0]
        ends = ", ".join(f"{r} {100 * n / c['games']:.1f}%" for r, n in c.get("ends", []) if c.get("games"))
        nobody = (f" Nobody wins: {100 * c['no_winner'] / c['games']:.1f}%."
                  if isinstance(c.get("no_winner"), int) and c.get("games") else "")
        out.append(f"- {line(c.get('label'))}: {line(head)} Ends: {ends or 'none'}.{nobody} "
                   f"({c.get('games', 0):,} games)")
    for m in facts.get("measure", []):
        out.append(f"- {line(m)}")
    out += ["", (f"Games: {facts.get('games', 0):,} · Bots: {'; '.join(line(b) for b in bots) or 'see the report'} · "
                 f"Code: {line(facts.get('code_version'))} · Spec digest: {line(facts.get('spec_digest'))}"),
            f"Run: {link}"]
    return "\n".join(out)
