"""The queue and its users, managed: a queued job's priority (admins), deleting an ended run (its owner or an admin),
following runs and the notifications when a followed run ends, rotating a user's token, changing a role and
removing a user (admins), the run list's date filter, and the failed-login limit per client address.

Routes are added to the app by :func:`add_routes` (as service/live.py does); every value from a request is checked
here (one line with what is allowed), bound in SQL by the catalog and escaped in pages (``pages.esc``)."""

from __future__ import annotations

import calendar
import json
import math
import re
import shutil
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any, Callable

from fastapi import Request
from fastapi.responses import JSONResponse, RedirectResponse

from service import pages
from service.catalog import ACTIVE, ENDED, JOB_ID, PRIORITIES, ROLES, Catalog, CatalogError, User
from service.runner import job_layout
from infra.storage import StorageError, is_uri, open_location

LOGIN_FAILURES = 10                  # failed logins (or bad API tokens) per client address ...
LOGIN_WINDOW_S = 300.0               # ... in this many seconds; the next attempt is refused (429)
MAX_ADDRESSES = 10_000               # addresses remembered at once (the oldest forgotten first)
DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


class Failures:
    """Failed logins per client address, in memory (a restart forgets them): at most ``limit`` in ``window_s``
    seconds; :meth:`wait` says how long an address must wait before it may try again (None: it may now)."""

    def __init__(self, limit: int = LOGIN_FAILURES, window_s: float = LOGIN_WINDOW_S,
                 max_addresses: int = MAX_ADDRESSES, clock: Callable[[], float] = time.monotonic):
        self.limit, self.window_s, self.max_addresses, self.clock = limit, window_s, max_addresses, clock
        self._seen: dict[str, deque] = {}
        self._lock = threading.Lock()

    def _recent(self, address: str, now: float) -> deque | None:
        times = self._seen.get(address)
        while times and times[0] <= now - self.window_s:
            times.popleft()
        if times is not None and not times:
            del self._seen[address]
            return None
        return times

    def wait(self, address: str) -> int | None:
        with self._lock:
            now = self.clock()
            times = self._recent(address, now)
            if times is None or len(times) < self.limit:
                return None
            return max(1, math.ceil(times[0] + self.window_s - now))

    def add(self, address: str) -> None:
        with self._lock:
            now = self.clock()
            times = self._recent(address, now)
            if times is None:
                if len(self._seen) >= self.max_addresses:          # forget the address seen longest ago
                    self._seen.pop(next(iter(self._seen)))
                times = self._seen[address] = deque(maxlen=self.limit)
            times.append(now)

    def message(self, wait: int) -> str:
        return f"too many failed logins from this address; wait {wait} s"


def address(request: Request) -> str:
    """The client's address as the server sees it (behind a proxy: the proxy's)."""
    return request.client.host if request.client else "unknown"


def date_range(f: dict[str, str]) -> tuple[float | None, float | None, str | None]:
    """(since, before, error) of the run list's ``from`` and ``to`` dates (YYYY-MM-DD, UTC days, both included)."""
    got: list[float | None] = []
    for key in ("from", "to"):
        value = f.get(key, "")
        if not value:
            got.append(None)
            continue
        try:
            if not DATE.fullmatch(value):
                raise ValueError
            day = calendar.timegm(time.strptime(value, "%Y-%m-%d"))
        except (ValueError, OverflowError):
            return None, None, f"{key} = {value[:20]!r}: expected a date as YYYY-MM-DD (e.g. 2026-12-06)"
        got.append(day if key == "from" else day + 86400)
    if got[0] is not None and got[1] is not None and got[0] >= got[1]:
        return None, None, f"from {f['from']} is after to {f['to']}; expected from <= to"
    return got[0], got[1], None


def parse_priority(value: Any, *, text: bool = True) -> tuple[int | None, str | None]:
    """A priority from a form's text (``text``) or a JSON integer; (None, one line) when it is not one."""
    low, high = PRIORITIES
    error = f"priority {str(value)[:20]!r}: expected an integer from {low} to {high}"
    if isinstance(value, bool) or (isinstance(value, str) and not text):
        return None, error
    if isinstance(value, str):
        if not re.fullmatch(r"[+-]?\d{1,3}", value.strip()):
            return None, error
        value = int(value.strip())
    if not isinstance(value, int) or not low <= value <= high:
        return None, error
    return value, None


def may_delete(user: User, job: dict) -> bool:
    return user.may("admin") or (user.may("edit") and job["owner"] == user.name)


# pieces of pages ------------------------------------------------------------------------------------------------

def run_controls(job: dict, user: User, csrf: str, following: bool) -> str:
    """The run page's follow button, its priority form (admins, a queued run) and its delete button."""
    jid = pages.esc(job["id"])
    out = (f"<form class='inline' method='post' action='/runs/{jid}/follow'>{pages.hidden_csrf(csrf)}"
           f"<button id='follow'>{'Stop following' if following else 'Follow this run'}</button></form> "
           f"<span id='following'>{'you follow this run: a notice on the run list when it ends' if following else ''}"
           "</span>")
    if job["state"] == "queued":
        low, high = PRIORITIES
        if user.may("admin"):
            opts = "".join(f"<option{' selected' if p == job.get('priority', 0) else ''}>{p}</option>"
                           for p in range(high, low - 1, -1))
            out += (f"<form method='post' action='/runs/{jid}/priority'>{pages.hidden_csrf(csrf)}"
                    f"<label for='priority'>Priority ({low} to {high}; higher starts first)</label>"
                    f"<select id='priority' name='priority'>{opts}</select> <button>Set the priority</button></form>")
        else:
            out += f"<p>Priority: <span id='priority'>{int(job.get('priority') or 0)}</span></p>"
    if job["state"] in ENDED and may_delete(user, job):
        out += (f"<form method='post' action='/runs/{jid}/delete'>{pages.hidden_csrf(csrf)}"
                "<button id='delete'>Delete this run and its results</button></form>")
    return f"<div id='controls'>{out}</div>"


def notices(rows: list[dict], csrf: str) -> str:
    """The unseen notifications at the top of the run list, with a button that marks them seen."""
    if not rows:
        return ""
    items = "".join(f"<li>Run <a href='/runs/{pages.esc(n['job'])}'>{pages.esc(n['title'])}</a> ended: "
                    f"<span class='state {pages.esc(n['state'])}'>{pages.esc(n['state'])}</span> "
                    f"({pages.when(n['at'])})</li>" for n in rows)
    return (f"<div class='ok' id='notices'><ul>{items}</ul><form method='post' action='/notifications/seen'>"
            f"{pages.hidden_csrf(csrf)}<button id='seen'>Mark as seen</button></form></div>")


# routes ---------------------------------------------------------------------------------------------------------

def add_routes(app, *, catalog: Catalog, root: Path, runner, page, page_user, page_form, api_user) -> None:
    """The routes of this module (see the module's docstring); ``page``, ``page_user``, ``page_form`` and
    ``api_user`` are the app's own guards."""

    def no_run(s) -> Any:
        return page("No such run", "<p class='error'>no such run</p>", *s, status=404)

    def refuse(s, status: int, line: str, title: str = "Refused") -> Any:
        return page(title, f"<p class='error'>{pages.esc(line)}</p>", *s, status=status)

    async def json_body(request: Request) -> Any:
        try:
            return json.loads(await request.body())
        except ValueError:
            return None

    # priorities ---------------------------------------------------------------------------------------------

    def set_priority(user: User, row: dict, value: Any, text: bool) -> tuple[int, str]:
        priority, error = parse_priority(value, text=text)
        if error:
            return 400, error
        if row["state"] != "queued" or not catalog.set_priority(row["id"], priority):
            return 409, f"only a queued run's priority can be set; this run is {(catalog.job(row['id']) or row)['state']}"
        catalog.audit(user.name, "priority", row["id"], f"{row.get('priority', 0)} -> {priority}")
        return 200, ""

    @app.post("/runs/{job}/priority")
    async def priority_page(request: Request, job: str):
        user, csrf, form = await page_form(request, "admin")
        row = catalog.job(job)
        if row is None:
            return no_run((user, csrf))
        status, error = set_priority(user, row, form.get("priority"), True)
        if error:
            return refuse((user, csrf), status, error, "Priority not set")
        return RedirectResponse(f"/runs/{row['id']}", status_code=303)

    @app.post("/api/runs/{job}/priority")
    async def priority_api(request: Request, job: str):
        user = api_user(request, "admin")
        row = catalog.job(job)
        if row is None:
            return JSONResponse({"error": "no such run"}, 404)
        body = await json_body(request)
        if not isinstance(body, dict) or set(body) != {"priority"}:
            low, high = PRIORITIES
            return JSONResponse({"error": f"expected {{\"priority\": an integer from {low} to {high}}}"}, 400)
        status, error = set_priority(user, row, body["priority"], False)
        if error:
            return JSONResponse({"error": error}, status)
        return {"id": row["id"], "priority": body["priority"]}

    # deleting a run -----------------------------------------------------------------------------------------

    def delete(user: User, row: dict) -> tuple[int, str]:
        if not may_delete(user, row):
            return 403, "only its owner or an admin may delete a run"
        if row["state"] in ACTIVE:
            return 409, f"the run is {row['state']}; cancel it first, then delete it"
        if row["id"] in getattr(runner, "children", {}):
            return 409, "the run's process is still stopping; try again in a few seconds"
        if not JOB_ID.fullmatch(row["id"]):          # the catalog's own id; never a path from the request
            return 404, "no such run"
        paths = job_layout(root, row)
        if is_uri(paths["out"]):               # object storage: every object under the run's prefix
            try:
                loc = open_location(paths["out"], probe=False)
                for rel in loc.files():
                    loc.delete(rel)
                loc.fs.delete_dir(loc.root)        # the folder markers left
            except FileNotFoundError:
                pass
            except (StorageError, OSError) as e:
                return 500, f"the run's results could not be removed ({e}); nothing else was changed"
        for key in ("out", "own"):
            if not isinstance(paths[key], Path):
                continue
            try:
                if paths[key].is_symlink():
                    paths[key].unlink()
                elif paths[key].exists():
                    shutil.rmtree(paths[key])
            except OSError as e:
                return 500, f"the run's files could not be removed ({type(e).__name__}); nothing else was changed"
        forget = getattr(getattr(app.state, "live", None), "forget", None)
        if callable(forget):
            forget(paths["out"])
        catalog.delete_job(row["id"])
        catalog.audit(user.name, "delete", row["id"], row["title"][:200])
        return 200, ""

    @app.post("/runs/{job}/delete")
    async def delete_page(request: Request, job: str):
        user, csrf, _ = await page_form(request, "edit")
        row = catalog.job(job)
        if row is None:
            return no_run((user, csrf))
        status, error = delete(user, row)
        if error:
            return refuse((user, csrf), status, error, "Not deleted")
        return RedirectResponse("/runs", status_code=303)

    @app.delete("/api/runs/{job}")
    def delete_api(request: Request, job: str):
        user = api_user(request, "edit")
        row = catalog.job(job)
        if row is None:
            return JSONResponse({"error": "no such run"}, 404)
        status, error = delete(user, row)
        if error:
            return JSONResponse({"error": error}, status)
        return {"id": row["id"], "deleted": True}

    # following runs, notifications ------------------------------------------------------------------------

    @app.post("/runs/{job}/follow")
    async def follow_page(request: Request, job: str):
        user, csrf, _ = await page_form(request, "read")
        row = catalog.job(job)
        if row is None:
            return no_run((user, csrf))
        catalog.follow(user, row["id"])
        return RedirectResponse(f"/runs/{row['id']}", status_code=303)

    def follow_api(request: Request, job: str, on: bool):
        user = api_user(request, "read")
        row = catalog.job(job)
        if row is None:
            return JSONResponse({"error": "no such run"}, 404)
        return {"id": row["id"], "following": catalog.follow(user, row["id"], on)}

    @app.post("/api/runs/{job}/follow")
    def follow_on(request: Request, job: str):
        return follow_api(request, job, True)

    @app.delete("/api/runs/{job}/follow")
    def follow_off(request: Request, job: str):
        return follow_api(request, job, False)

    @app.post("/notifications/seen")
    async def seen_page(request: Request):
        user, _, _ = await page_form(request, "read")
        catalog.mark_seen(user)
        return RedirectResponse("/runs", status_code=303)

    @app.get("/api/notifications")
    def notifications_api(request: Request):
        user = api_user(request, "read")
        every = request.query_params.get("all", "") in ("1", "true")
        base = str(request.base_url).rstrip("/")
        rows = catalog.notifications(user, unseen=not every, limit=200)
        return {"notifications": [{"id": n["id"], "run": n["job"], "title": n["title"], "state": n["state"],
                                   "at": n["at"], "seen": bool(n["seen"]), "url": f"{base}/runs/{n['job']}"}
                                  for n in rows]}

    # users: rotate a token, change a role, remove ---------------------------------------------------------

    def users_body(csrf: str, **kw) -> str:
        return pages.users_page(catalog.users(), catalog.audit_log(), csrf, **kw)

    def users_refused(user: User, csrf: str, status: int, line: str) -> Any:
        return page("Users", users_body(csrf, error=line), user, csrf, status=status)

    @app.post("/users/{username}/token")
    async def rotate_page(request: Request, username: str):
        user, csrf, _ = await page_form(request, "admin")
        try:
            token = catalog.rotate_token(username)
        except CatalogError as e:
            return users_refused(user, csrf, 404, str(e))
        catalog.audit(user.name, "rotate-token", None, username)
        if username == user.name:                        # the admin's own session ended with the old token
            return page("Users", f"<p class='ok'>Your new token, shown this once: <code id='new-token'>"
                        f"{pages.esc(token)}</code>. Log in again with it.</p>", None, None)
        return page("Users", users_body(csrf, new_token=token, token_for=username), user, csrf)

    @app.post("/users/{username}/role")
    async def role_page(request: Request, username: str):
        user, csrf, form = await page_form(request, "admin")
        role = str(form.get("role") or "")
        if username == user.name:
            return users_refused(user, csrf, 409, "you may not change your own role (ask another admin)")
        if catalog.user(username) is None:
            return users_refused(user, csrf, 404, f"no user {username[:64]!r}")
        if role not in ROLES:
            return users_refused(user, csrf, 400, f"role {role[:20]!r}: expected one of {', '.join(ROLES)}")
        catalog.set_role(username, role)
        catalog.audit(user.name, "set-role", None, f"{username} ({role})")
        return RedirectResponse("/users", status_code=303)

    @app.post("/users/{username}/remove")
    async def remove_page(request: Request, username: str):
        user, csrf, _ = await page_form(request, "admin")
        if username == user.name:
            return users_refused(user, csrf, 409, "you may not remove your own user (ask another admin)")
        try:
            catalog.remove_user(username)
        except CatalogError as e:
            return users_refused(user, csrf, 404, str(e))
        catalog.audit(user.name, "remove-user", None, username)
        return RedirectResponse("/users", status_code=303)
