"""Nightly: a scheduled regression suite per project, with its history (docs/service.md).

An admin defines a project (a name, a regress suite, its baseline and a UTC time of day, HH:MM); the scheduler, a
thread started with the runner, queues one regress job (service/kind_regress.py) per enabled project and UTC day
once that time has passed, owned by the admin who defined it last and recorded with the project's name (the jobs'
``project`` column). The day it queued is the project's ``queued_day`` in the catalog, claimed by one bound UPDATE
before the job is added, so a restart, a second look or a second thread never queues a second job that day. The
clock is injectable (``Nightly.clock``): tests move it instead of sleeping.

The project's page (service/routes/nightly.py) shows its runs (date, code version, verdict), a trend chart per metric
across the runs (an inline PNG drawn by matplotlib: regress.html.trend_plot, no script, nothing loaded), and the
failing cells of the latest run linked to the regress report's section of each. Every user value is bound in SQL and
shown through the autoescaping templates."""

from __future__ import annotations

import json
import re
import threading
import time
from pathlib import Path
from typing import Any, Callable

from cluster.spec import SpecError
from service import kind_regress
from service.catalog import ACTIVE, Catalog, User
from service.kinds import Context, only_shipped_models
from service.runner import layout

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
AT = re.compile(r"([01][0-9]|2[0-3]):[0-5][0-9]")
HISTORY = 60                        # runs shown (and charted) per project, newest
MAX_PROJECTS = 100
TICK_S = 30.0                       # how often the scheduler looks
NAME_RULE = "1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit"


def day_of(t: float) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(t))


def check_name(name: Any) -> str:
    if not isinstance(name, str) or not NAME.fullmatch(name):
        shown = repr(name)[:70] if isinstance(name, str) else type(name).__name__
        raise SpecError(f"name {shown}: not allowed; a project name is {NAME_RULE}")
    return name


def check_at(at: Any) -> str:
    if not isinstance(at, str) or not AT.fullmatch(at.strip()):
        raise SpecError(f"time {str(at)[:20]!r}: not allowed; expected HH:MM, a UTC time of day from 00:00 to 23:59")
    return at.strip()


class Nightly:
    """The projects (catalog table ``nightly``), the scheduler thread, and each project's history."""

    def __init__(self, catalog: Catalog, root: Path, context: Callable[[], Context], *,
                 clock: Callable[[], float] = time.time, tick_s: float = TICK_S):
        self.catalog, self.root, self.context, self.clock, self.tick_s = catalog, Path(root), context, clock, tick_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    # the scheduler ----------------------------------------------------------------------------------------

    def start(self) -> Nightly:
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name="playtest-nightly", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
            self._thread = None

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self.tick()
            except Exception as e:  # noqa: BLE001 - the scheduler must outlive any one project's trouble
                self.catalog.audit("service", "nightly-error", None, f"{type(e).__name__}: {e}"[:500])
            self._stop.wait(self.tick_s)

    def tick(self) -> list[str]:
        """One look at the clock: queue each enabled project whose time of day has passed today (UTC) and that has
        not queued today; returns the jobs queued. A project whose last run is still queued or running waits."""
        now = self.clock()
        day, hhmm = day_of(now), time.strftime("%H:%M", time.gmtime(now))
        queued = []
        with self._lock:
            for p in self.catalog.q("SELECT name FROM nightly WHERE enabled = 1 AND at <= ? AND queued_day != ? "
                                    "ORDER BY name", (hhmm, day)):
                name = p["name"]
                if self.active(name):
                    continue
                if self.catalog.x("UPDATE nightly SET queued_day = ? WHERE name = ? AND enabled = 1 AND "
                                  "queued_day != ?", (day, name, day)) != 1:
                    continue                       # claimed already: one job per project and UTC day
                try:
                    queued.append(self.queue(name, "service", now=now))
                except SpecError as e:
                    line = " ".join(str(e).split())[:500]
                    self.catalog.x("UPDATE nightly SET last_error = ? WHERE name = ?", (line, name))
                    self.catalog.audit("service", "nightly-error", None, f"{name}: {line}")
        return queued

    def active(self, name: str) -> bool:
        return bool(self.catalog.q(f"SELECT 1 FROM jobs WHERE project = ? AND state IN ({', '.join('?' * len(ACTIVE))})",
                                   (name, *ACTIVE)))

    def queue(self, name: str, who: str, *, now: float | None = None) -> str:
        """Queue the project's regress job now (checked again: the code may have changed since it was defined);
        owned by the admin who defined it. A SpecError of one line when its inputs no longer pass."""
        p = self.project(name)
        if p is None:
            raise SpecError(f"no nightly project {name!r}")
        inputs = {"suite": p["suite"], "baseline": p["baseline"], "cards": cards_of_project(p)}
        only_shipped_models(inputs)
        checked = kind_regress.check_regress(inputs, self.context())
        rows = self.catalog.q("SELECT id, name, role FROM users WHERE id = ?", (p["owner_id"],))
        if not rows:
            raise SpecError(f"nightly {name}: its owner is gone; define it again")
        owner = User(rows[0]["id"], rows[0]["name"], rows[0]["role"])
        day = day_of(self.clock() if now is None else now)
        job = self.catalog.add_job(owner=owner, title=f"nightly {name} {day}",
                                   description=f"Nightly regression of project {name} (queued by {who}).",
                                   spec_name=checked.name, game=checked.game, spec_text=checked.text,
                                   cells=checked.cells, games=checked.games, kind="regress", params=checked.params)
        self.catalog.x("UPDATE jobs SET project = ? WHERE id = ?", (name, job))
        self.catalog.x("UPDATE nightly SET last_error = '' WHERE name = ?", (name,))
        self.catalog.audit(who, "nightly-queue", job, name)
        return job

    # projects ---------------------------------------------------------------------------------------------

    def projects(self) -> list[dict]:
        return [dict(r) for r in self.catalog.q(
            "SELECT n.*, u.name AS owner FROM nightly n LEFT JOIN users u ON u.id = n.owner_id ORDER BY n.name")]

    def project(self, name: str) -> dict | None:
        if not isinstance(name, str) or not NAME.fullmatch(name):
            return None
        rows = self.catalog.q("SELECT n.*, u.name AS owner FROM nightly n LEFT JOIN users u ON u.id = n.owner_id "
                              "WHERE n.name = ?", (name,))
        return dict(rows[0]) if rows else None

    def save(self, user: User, inputs: dict[str, Any]) -> tuple[str, bool]:
        """Define or change a project: (name, whether it is new). Every input is checked (the suite and baseline by
        the regress kind's readers); a SpecError of one line and nothing stored on a refusal."""
        name = check_name(inputs.get("name"))
        at = check_at(inputs.get("at"))
        enabled = inputs.get("enabled", True)
        if not isinstance(enabled, bool):
            raise SpecError("enabled: expected true or false")
        given = {"suite": inputs.get("suite"), "baseline": inputs.get("baseline"), "cards": inputs.get("cards") or {}}
        only_shipped_models(given)
        checked = kind_regress.check_regress(given, self.context())
        cards = json.dumps(checked.params.get("cards") or {})
        now = time.time()
        with self._lock:
            new = self.project(name) is None
            if new and len(self.projects()) >= MAX_PROJECTS:
                raise SpecError(f"name {name!r}: this service holds at most {MAX_PROJECTS} nightly projects")
            self.catalog.x("INSERT INTO nightly (name, suite, baseline, cards, at, enabled, owner_id, created, updated) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(name) DO UPDATE SET suite = excluded.suite, "
                           "baseline = excluded.baseline, cards = excluded.cards, at = excluded.at, "
                           "enabled = excluded.enabled, owner_id = excluded.owner_id, updated = excluded.updated, "
                           "last_error = ''",
                           (name, checked.text, checked.params["baseline"], cards, at, int(enabled), user.id, now, now))
        self.catalog.audit(user.name, "nightly-define" if new else "nightly-edit", None,
                           f"{name} at {at} UTC{'' if enabled else ' (disabled)'}")
        return name, new

    # history ----------------------------------------------------------------------------------------------

    def runs(self, name: str, limit: int = HISTORY) -> list[dict]:
        """The project's jobs, newest first, each with its regress result (or None) read from its folder."""
        rows = [dict(r) for r in self.catalog.q(
            "SELECT j.*, u.name AS owner FROM jobs j JOIN users u ON u.id = j.owner_id WHERE j.project = ? "
            "ORDER BY j.created DESC LIMIT ?", (name, limit))]
        for r in rows:
            r["result"] = None
            if r["state"] == "done":
                try:
                    r["result"] = kind_regress.read_result(layout(self.root, r["id"])["own"])
                except (OSError, ValueError):
                    pass
        return rows


# what the history says -------------------------------------------------------------------------------------

def code_version(run: dict) -> str:
    cur = (run.get("result") or {}).get("current") or {}
    return str(cur.get("code_version") or "") if isinstance(cur, dict) else ""


def metric_values(result: dict) -> dict[str, tuple[float, bool]]:
    """Per metric (family and key, over the run's cells): (the current value, flagged in some cell). Rates: the
    share of all the cells' games (k of n summed); game lengths and other ordinal metrics: the mean over the cells'
    games; end reasons and other distributions: the mean total variation from the baseline."""
    acc: dict[str, list] = {}
    for t in result.get("tests") or []:
        if not isinstance(t, dict):
            continue
        name, kind, cur = str(t.get("name") or ""), t.get("kind"), t.get("current")
        a = acc.setdefault(name, [0.0, 0.0, False])
        a[2] = a[2] or bool(t.get("flagged"))
        try:
            if kind == "rate" and isinstance(cur, list) and len(cur) == 2:
                a[0] += float(cur[0])
                a[1] += float(cur[1])
            elif kind == "ordinal" and isinstance(cur, dict):
                a[0] += sum(float(k) * float(v) for k, v in cur.items())
                a[1] += sum(float(v) for v in cur.values())
            elif isinstance(t.get("effect"), (int, float)):
                a[0] += float(t["effect"])
                a[1] += 1.0
        except (TypeError, ValueError):
            continue
    return {k: (a[0] / a[1], a[2]) for k, a in acc.items() if a[1] > 0}


def trends(runs: list[dict]) -> dict[str, list[dict]]:
    """Per metric, one point per run with a result (oldest first): date, code version, value, flagged, job."""
    series: dict[str, list[dict]] = {}
    for r in reversed(runs):
        if not r.get("result"):
            continue
        for name, (value, flagged) in metric_values(r["result"]).items():
            series.setdefault(name, []).append({"date": day_of(r["created"]), "code": code_version(r), "value": value,
                                                "flagged": flagged, "job": r["id"]})
    return series


def failing_cells(run: dict) -> list[dict]:
    """The latest run's failing cells: each cell with a flagged metric or changed games, and why."""
    result = run.get("result") or {}
    cells: dict[str, dict] = {}
    for t in result.get("tests") or []:
        if isinstance(t, dict) and t.get("flagged"):
            c = cells.setdefault(str(t.get("cell")), {"cell": str(t.get("cell")), "label": str(t.get("label") or ""),
                                                     "why": []})
            c["why"].append(f"{t.get('name')} moved by {float(t.get('effect') or 0):+.4g}")
    for c in result.get("cells") or []:
        if isinstance(c, dict) and c.get("status") == "changed":
            got = cells.setdefault(str(c.get("cell")), {"cell": str(c.get("cell")), "label": str(c.get("label") or ""),
                                                        "why": []})
            got["why"].append(str(c.get("detail") or "its games changed"))
    return list(cells.values())


# pages ------------------------------------------------------------------------------------------------------

def cards_of_project(p: dict) -> dict:
    """A project's card files as saved ({file name: TOML text}; none in a project saved before they were taken)."""
    try:
        cards = json.loads(p.get("cards") or "{}")
    except ValueError:
        return {}
    return cards if isinstance(cards, dict) else {}


def project_json(p: dict, runs: list[dict] | None, base: str) -> dict:
    out = {k: p[k] for k in ("name", "at", "queued_day", "last_error", "owner", "created", "updated")}
    out["enabled"] = bool(p["enabled"])
    out["url"] = f"{base}/nightly/{p['name']}"
    if runs is not None:
        out["runs"] = [{"id": r["id"], "url": f"{base}/runs/{r['id']}", "date": day_of(r["created"]),
                        "state": r["state"], "verdict": r.get("verdict") or "", "code_version": code_version(r)}
                       for r in runs]
        out["trends"] = {m: [{k: pt[k] for k in ("date", "code", "value", "flagged", "job")} for pt in pts]
                         for m, pts in trends(runs).items()}
        latest = next((r for r in runs if r.get("result")), None)
        out["failing"] = failing_cells(latest) if latest else []
    return out
