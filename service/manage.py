"""The queue and its users, managed: a queued job's priority (admins), deleting an ended run (its owner or an admin),
following runs and the notifications when a followed run ends, rotating a user's token, changing a role and
removing a user (admins), the run list's date filter, and the failed-login limit per client address.

The routes are service/routes/manage.py and service/routes/users.py; every value from a request is checked here (one
line with what is allowed) and bound in SQL by the catalog; pages show it through the autoescaping templates."""

from __future__ import annotations

import calendar
import math
import re
import shutil
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any, Callable

from fastapi import Request

from service.catalog import ACTIVE, JOB_ID, PRIORITIES, Catalog, User
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
        self._lock = threading.RLock()       # take() holds it over wait() and add()

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

    def take(self, address: str) -> int | None:
        """:meth:`wait` and, when it is None, :meth:`add`, as one step (callers on several threads at once)."""
        with self._lock:
            if (wait := self.wait(address)) is None:
                self.add(address)
            return wait

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


def delete_run(catalog: Catalog, root: Path, runner, live, user: User, row: dict) -> tuple[int, str]:
    """Delete an ended run, its results (on disk or object storage) and its own files: (HTTP status, '' or why
    not); nothing is changed on a refusal."""
    if not may_delete(user, row):
        return 403, "only its owner or an admin may delete a run"
    if row["state"] in ACTIVE:
        return 409, f"the run is {row['state']}; cancel it first, then delete it"
    if row["id"] in getattr(runner, "children", {}):
        return 409, "the run's process is still stopping; try again in a few seconds"
    if not JOB_ID.fullmatch(row["id"]):          # the catalog's own id; never a path from the request
        return 404, "no such run"
    paths = job_layout(root, row)
    error = _remove(paths)
    if error:
        return 500, error
    live.forget(paths["out"])
    catalog.delete_job(row["id"])
    catalog.audit(user.name, "delete", row["id"], row["title"][:200])
    return 200, ""


def _remove(paths: dict) -> str:
    """The run's results and own folder removed; '' or what went wrong (one line)."""
    if is_uri(paths["out"]):               # object storage: every object under the run's prefix
        try:
            loc = open_location(paths["out"], probe=False)
            for rel in loc.files():
                loc.delete(rel)
            loc.fs.delete_dir(loc.root)        # the folder markers left
        except FileNotFoundError:
            pass
        except (StorageError, OSError) as e:
            return f"the run's results could not be removed ({e}); nothing else was changed"
    for key in ("out", "own"):
        if not isinstance(paths[key], Path):
            continue
        try:
            if paths[key].is_symlink():
                paths[key].unlink()
            elif paths[key].exists():
                shutil.rmtree(paths[key])
        except OSError as e:
            return f"the run's files could not be removed ({type(e).__name__}); nothing else was changed"
    return ""
