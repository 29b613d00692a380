"""Nightly: a scheduled regression suite per project, with its history (docs/service.md).

An admin defines a project (a name, a regress suite, its baseline and a UTC time of day, HH:MM); the scheduler, a
thread started with the runner, queues one regress job (service/kind_regress.py) per enabled project and UTC day
once that time has passed, owned by the admin who defined it last and recorded with the project's name (the jobs'
``project`` column). The day it queued is the project's ``queued_day`` in the catalog, claimed by one bound UPDATE
before the job is added, so a restart, a second look or a second thread never queues a second job that day. The
clock is injectable (``Nightly.clock``): tests move it instead of sleeping.

The project's page shows its runs (date, code version, verdict), a trend chart per metric across the runs (inline
SVG drawn here, no script, nothing loaded), and the failing cells of the latest run linked to the regress report's
section of each. Every user value is escaped (``pages.esc``) and bound in SQL."""

from __future__ import annotations

import json
import re
import threading
import time
from pathlib import Path
from typing import Any, Callable

from fastapi import Request
from fastapi.responses import JSONResponse, RedirectResponse

from cluster.spec import SpecError
from service import kind_regress
from service.catalog import ACTIVE, Catalog, User
from service.kinds import Context
from service.pages import esc, hidden_csrf, when
from service.runner import layout
from service.specs import MAX_UPLOAD

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
        checked = kind_regress.check_regress({"suite": p["suite"], "baseline": p["baseline"],
                                              "cards": cards_of_project(p)}, self.context())
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
        checked = kind_regress.check_regress({"suite": inputs.get("suite"), "baseline": inputs.get("baseline"),
                                              "cards": inputs.get("cards") or {}}, self.context())
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


def trend_svg(name: str, points: list[dict]) -> str:
    """One metric across the runs (oldest left): a line through one dot per run (red when flagged), each with its
    date, code version and value as its tooltip; a dashed line where the code version changed. Inline SVG."""
    w, h, left, right, top, bottom = 560, 170, 56, 12, 14, 34
    ys = [p["value"] for p in points]
    lo, hi = min(ys), max(ys)
    if hi - lo < 1e-9:
        lo, hi = lo - 0.5 * (abs(lo) or 1) * 0.1, hi + 0.5 * (abs(hi) or 1) * 0.1
    n = len(points)

    def x(i: int) -> float:
        return left + (w - left - right) * (0.5 if n == 1 else i / (n - 1))

    def y(v: float) -> float:
        return top + (h - top - bottom) * (1 - (v - lo) / (hi - lo))

    out = [f"<svg class='trend' width='{w}' height='{h}' viewBox='0 0 {w} {h}' role='img' "
           f"aria-label='{esc(name)} across {n} runs' xmlns='http://www.w3.org/2000/svg'>",
           f"<rect x='{left}' y='{top}' width='{w - left - right}' height='{h - top - bottom}' fill='#fff' "
           "stroke='#ccc'/>",
           f"<text x='4' y='{top + 8}' font-size='10'>{hi:.4g}</text>",
           f"<text x='4' y='{h - bottom}' font-size='10'>{lo:.4g}</text>"]
    for i in range(1, n):
        if points[i]["code"] != points[i - 1]["code"]:
            xm = (x(i) + x(i - 1)) / 2
            out.append(f"<line x1='{xm:.1f}' y1='{top}' x2='{xm:.1f}' y2='{h - bottom}' stroke='#90a4ae' "
                       f"stroke-dasharray='3,3'><title>code {esc(points[i]['code'])}</title></line>")
    if n > 1:
        path = " ".join(f"{x(i):.1f},{y(p['value']):.1f}" for i, p in enumerate(points))
        out.append(f"<polyline fill='none' stroke='#1565c0' stroke-width='1.5' points='{path}'/>")
    for i, p in enumerate(points):
        colour = "#c62828" if p["flagged"] else "#1565c0"
        out.append(f"<circle class='pt' cx='{x(i):.1f}' cy='{y(p['value']):.1f}' r='4' fill='{colour}'>"
                   f"<title>{esc(p['date'])} · code {esc(p['code'])} · {p['value']:.4g}"
                   f"{' · flagged' if p['flagged'] else ''}</title></circle>")
    labels = [0, n - 1] if n > 8 else range(n)
    for i in sorted(set(labels)):
        out.append(f"<text x='{x(i):.1f}' y='{h - bottom + 14}' font-size='10' text-anchor='middle'>"
                   f"{esc(points[i]['date'][5:])}</text>"
                   f"<text x='{x(i):.1f}' y='{h - bottom + 27}' font-size='9' fill='#546e7a' text-anchor='middle'>"
                   f"{esc(points[i]['code'][:12])}</text>")
    out.append("</svg>")
    return "".join(out)


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


def project_form(csrf: str, values: dict | None = None) -> str:
    v = values or {}
    checked = " checked" if v.get("enabled", True) else ""
    return (f"<form method='post' action='/nightly' enctype='multipart/form-data' id='nightly-form'>{hidden_csrf(csrf)}"
            f"<label for='name'>Project name ({NAME_RULE})</label>"
            f"<input type='text' id='name' name='name' value='{esc(v.get('name', ''))}'>"
            "<label for='at'>Time of day, UTC (HH:MM)</label>"
            f"<input type='text' id='at' name='at' style='width:6em' value='{esc(v.get('at', '03:00'))}'>"
            f"<label><input type='checkbox' name='enabled' value='1'{checked}> enabled</label>"
            "<label for='suite'>Regress suite (TOML, docs/regress.md): paste it here ...</label>"
            f"<textarea id='suite' name='suite' rows='12'>{esc(v.get('suite', ''))}</textarea>"
            "<label for='suite_file'>... or upload the file (at most 256 KiB)</label>"
            "<input type='file' id='suite_file' name='suite_file' accept='.toml,text/plain'>"
            "<label for='baseline'>Baseline (JSON, from playtest regress --update-baseline): paste it here ...</label>"
            f"<textarea id='baseline' name='baseline' rows='8'>{esc(v.get('baseline', ''))}</textarea>"
            "<label for='baseline_file'>... or upload the file (at most 256 KiB)</label>"
            "<input type='file' id='baseline_file' name='baseline_file' accept='.json,text/plain'>"
            "<label for='cards'>Card files the suite's spec names in [data] (by file name, no folder; sent again "
            "with each change)</label><input type='file' id='cards' name='cards' accept='.toml' multiple>"
            "<p><button>Save the nightly project</button></p></form>")


def list_page(projects: list[dict], last: dict[str, dict], user: User, csrf: str, *, error: str = "",
              values: dict | None = None) -> str:
    out = ("<p>Each project's regression suite is queued once a day at its UTC time (docs/regress.md); its page "
           "shows the runs, a trend per metric and the failing cells.</p>")
    if error:
        out += f"<p class='error' id='error'>{esc(error)}</p>"
    if projects:
        rows = "".join(
            f"<tr><td><a href='/nightly/{esc(p['name'])}'>{esc(p['name'])}</a></td><td>{esc(p['at'])} UTC</td>"
            f"<td>{'enabled' if p['enabled'] else 'disabled'}</td><td>{esc(p.get('owner') or '')}</td>"
            f"<td>{esc((last.get(p['name']) or {}).get('verdict') or '')}</td>"
            f"<td>{esc(p['queued_day'])}</td></tr>" for p in projects)
        out += ("<table id='projects'><tr><th>project</th><th>time</th><th>state</th><th>defined by</th>"
                f"<th>last verdict</th><th>last queued (UTC day)</th></tr>{rows}</table>")
    else:
        out += "<p>No nightly projects yet.</p>"
    if user.may("admin"):
        out += "<h2>Define or change a project</h2>" + project_form(csrf, values)
    return out


def project_page(p: dict, runs: list[dict], user: User, csrf: str) -> str:
    name = esc(p["name"])
    out = ("<table>"
           f"<tr><th>project</th><td id='project'>{name}</td></tr>"
           f"<tr><th>time</th><td>{esc(p['at'])} UTC, {'enabled' if p['enabled'] else 'disabled'}</td></tr>"
           f"<tr><th>defined by</th><td>{esc(p.get('owner') or '')}, changed {when(p['updated'])}</td></tr>"
           f"<tr><th>last queued</th><td>{esc(p['queued_day'] or 'never')}</td></tr></table>")
    if p.get("last_error"):
        out += f"<p class='error' id='nightly-error'>the last scheduled run was refused: {esc(p['last_error'])}</p>"
    if user.may("admin"):
        out += (f"<form method='post' action='/nightly/{name}/run' class='inline'>{hidden_csrf(csrf)}"
                "<button id='run-now'>Run now</button></form>")
    latest = next((r for r in runs if r.get("result")), None)
    out += "<h2>Failing cells of the latest run</h2>"
    if latest is None:
        out += "<p>No finished run yet.</p>"
    else:
        failing = failing_cells(latest)
        jid = esc(latest["id"])
        out += (f"<p>Run <a href='/runs/{jid}'>{jid}</a> ({esc(day_of(latest['created']))}, code "
                f"{esc(code_version(latest))}): {esc(latest['result'].get('verdict'))}.</p>")
        if failing:
            out += "<ul id='failing'>" + "".join(
                f"<li><a href='/runs/{jid}/report#cell-{esc(c['cell'])}'>{esc(c['cell'])} ({esc(c['label'])})</a>: "
                f"{esc('; '.join(c['why']))}</li>" for c in failing) + "</ul>"
        else:
            out += "<p id='failing'>None: nothing moved.</p>"
    series = trends(runs)
    out += "<h2>Trend per metric</h2>"
    if not series:
        out += "<p>No finished run to chart yet.</p>"
    for metric, points in series.items():
        out += f"<h3>{esc(metric)}</h3>" + trend_svg(metric, points)
    out += ("<h2>Runs</h2><table id='history'><tr><th>date (UTC)</th><th>code version</th><th>state</th>"
            "<th>verdict</th><th>run</th></tr>" + "".join(
                f"<tr><td>{esc(day_of(r['created']))}</td><td>{esc(code_version(r))}</td>"
                f"<td class='state {esc(r['state'])}'>{esc(r['state'])}</td><td>{esc(r.get('verdict') or '')}</td>"
                f"<td><a href='/runs/{esc(r['id'])}'>{esc(r['id'])}</a></td></tr>" for r in runs) + "</table>")
    if user.may("admin"):
        out += ("<h2>Change this project</h2>"
                + project_form(csrf, {"name": p["name"], "at": p["at"], "enabled": bool(p["enabled"]),
                                      "suite": p["suite"], "baseline": p["baseline"]}))
    return out


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


# routes -----------------------------------------------------------------------------------------------------

def add_routes(app, *, nightly: Nightly, page, page_user, page_form, api_user, base_url) -> Nightly:
    """/nightly (read: the projects; admin: define or change one), /nightly/{project} (read: history, trends,
    failing cells), POST /nightly/{project}/run (admin: run now), and the API mirror under /api/nightly."""

    def last_runs() -> dict[str, dict]:
        out: dict[str, dict] = {}
        for r in nightly.catalog.q("SELECT project, verdict, state FROM jobs WHERE project != '' ORDER BY created"):
            out[r["project"]] = dict(r)
        return out

    async def form_text(form, name: str) -> str | bytes:
        upload = form.get(f"{name}_file")
        if upload is not None and not isinstance(upload, str) and upload.filename:
            return await upload.read(MAX_UPLOAD + 1)
        value = form.get(name)
        return value if isinstance(value, str) else ""

    @app.get("/nightly")
    def nightly_list(request: Request):
        s = page_user(request, "read")
        return page("Nightly", list_page(nightly.projects(), last_runs(), *s), *s)

    @app.post("/nightly")
    async def nightly_save(request: Request):
        user, csrf, form = await page_form(request, "admin")
        inputs = {"name": str(form.get("name") or "").strip(), "at": str(form.get("at") or ""),
                  "enabled": form.get("enabled") is not None,
                  "suite": await form_text(form, "suite"), "baseline": await form_text(form, "baseline"),
                  "cards": {u.filename: await u.read(MAX_UPLOAD + 1) for u in form.getlist("cards")
                            if not isinstance(u, str) and u.filename}}
        try:
            name, _ = nightly.save(user, inputs)
        except SpecError as e:
            shown = {k: (v if isinstance(v, (str, bool)) else v[:MAX_UPLOAD].decode("utf-8", "replace"))
                     for k, v in inputs.items() if k != "cards"}
            return page("Nightly", list_page(nightly.projects(), last_runs(), user, csrf,
                                             error=" ".join(str(e).split()), values=shown), user, csrf, status=400)
        return RedirectResponse(f"/nightly/{name}", status_code=303)

    @app.get("/nightly/{project}")
    def nightly_project(request: Request, project: str):
        s = page_user(request, "read")
        p = nightly.project(project)
        if p is None:
            return page("No such project", "<p class='error'>no such nightly project</p>", *s, status=404)
        return page(f"Nightly {p['name']}", project_page(p, nightly.runs(p["name"]), *s), *s)

    @app.post("/nightly/{project}/run")
    async def nightly_run(request: Request, project: str):
        user, csrf, _ = await page_form(request, "admin")
        p = nightly.project(project)
        if p is None:
            return page("No such project", "<p class='error'>no such nightly project</p>", user, csrf, status=404)
        if nightly.active(p["name"]):
            return page("Not queued", "<p class='error'>a run of this project is queued or running already</p>",
                        user, csrf, status=409)
        try:
            job = nightly.queue(p["name"], user.name)
        except SpecError as e:
            return page("Not queued", f"<p class='error'>{esc(' '.join(str(e).split()))}</p>", user, csrf, status=400)
        return RedirectResponse(f"/runs/{job}", status_code=303)

    @app.get("/api/nightly")
    def api_nightly(request: Request):
        api_user(request, "read")
        base = base_url(request)
        return {"projects": [project_json(p, None, base) for p in nightly.projects()]}

    @app.post("/api/nightly")
    async def api_nightly_save(request: Request):
        user = api_user(request, "admin")
        try:               # a body over the service's limit never gets here: its middleware answers 413
            body = json.loads(await request.body())
        except ValueError:
            body = None
        want = ("expected {\"name\": text, \"at\": \"HH:MM\" (UTC), \"suite\": TOML text, \"baseline\": JSON text, "
                "\"cards\": {file name: TOML text}, \"enabled\": true|false}")
        if not isinstance(body, dict) or not all(isinstance(body.get(k), str) for k in ("name", "at", "suite",
                                                                                          "baseline")) \
                or not isinstance(body.get("cards", {}), dict):
            return JSONResponse({"error": want}, 400)
        try:
            name, new = nightly.save(user, {k: body.get(k) for k in ("name", "at", "suite", "baseline", "cards")}
                                     | {"enabled": body.get("enabled", True)})
        except SpecError as e:
            return JSONResponse({"error": " ".join(str(e).split())}, 400)
        return JSONResponse({**project_json(nightly.project(name), None, base_url(request)), "created": new}, 200)

    @app.get("/api/nightly/{project}")
    def api_nightly_project(request: Request, project: str):
        api_user(request, "read")
        p = nightly.project(project)
        if p is None:
            return JSONResponse({"error": "no such nightly project"}, 404)
        return project_json(p, nightly.runs(p["name"]), base_url(request))

    @app.post("/api/nightly/{project}/run")
    def api_nightly_run(request: Request, project: str):
        user = api_user(request, "admin")
        p = nightly.project(project)
        if p is None:
            return JSONResponse({"error": "no such nightly project"}, 404)
        if nightly.active(p["name"]):
            return JSONResponse({"error": "a run of this project is queued or running already"}, 409)
        try:
            job = nightly.queue(p["name"], user.name)
        except SpecError as e:
            return JSONResponse({"error": " ".join(str(e).split())}, 400)
        return JSONResponse({"id": job, "url": f"{base_url(request)}/runs/{job}", "state": "queued"}, 201)

    return nightly
