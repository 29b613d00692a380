"""The runs: the run list, a run's page and its JSON, cancelling, the run's result pages (the report, a kind's own
pages) and its verdict card. A page and its API twin share one function that says what to show."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, RedirectResponse

from cluster.manifest import ManifestError, counts, load_manifest
from service import console, manage, pages, replays
from service.catalog import ACTIVE, ENDED, PRIORITIES, STATES, User
from service.deps import ApiEditor, ApiReader, EditForm, Reader, Services, Svc, base_url, no_such_run
from service.jobkinds import kind_of
from service.live import SCRIPT as LIVE_SCRIPT
from service.runner import job_layout, layout
from sim.games import GAMES

REPORT_CSP = ("sandbox allow-scripts; default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
              "script-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'")
FILTERS = ("game", "state", "owner", "q", "rule_set", "verdict", "from", "to")
JOB_FIELDS = ("id", "title", "description", "owner", "state", "spec_name", "game", "cells", "games", "created",
              "started", "ended", "error", "priority", "rule_set", "verdict", "estimate")
LIST_FIELDS = ("id", "title", "owner", "state", "spec_name", "game", "cells", "games", "created", "started", "ended",
               "priority", "rule_set", "verdict")

router = APIRouter()


# what a run's pages say, shared by the pages and the API --------------------------------------------------------

def _counts(out: Path) -> dict | None:
    try:
        m = load_manifest(out)
    except (ManifestError, OSError, ValueError):
        return None
    return counts(m) if m else None


def progress(svc: Services, job: dict) -> dict | None:
    """Parts and games done, from the run's manifest (shared and re-read only when it changed)."""
    out = job_layout(svc.root, job)["out"]
    return svc.snapshots.get(out, "counts", _counts, fresh=job["state"] not in ACTIVE)


def run_tables(svc: Services, job: dict) -> list[str]:
    """The tables the run's manifest lists (none before its sweep wrote one)."""
    out = job_layout(svc.root, job)["out"]
    return svc.snapshots.get(out, "tables", console.tables, fresh=job["state"] not in ACTIVE)


def results_of(svc: Services, row: dict | None) -> Path | None:
    """The run's results folder, once its sweep has written a manifest; else None."""
    out = job_layout(svc.root, row)["out"] if row else None
    return out if out is not None and run_tables(svc, row) else None


def read_own(svc: Services, job: dict, key: str) -> str | None:
    try:
        return layout(svc.root, job["id"])[key].read_text(encoding="utf-8")
    except OSError:
        return None


def verdict(svc: Services, job: dict, base: str) -> str | None:
    """The done run's verdict card (Markdown), from the facts its job wrote; None before."""
    if job["state"] != "done":
        return None
    raw = read_own(svc, job, "verdict")
    try:
        facts = json.loads(raw) if raw else None
    except ValueError:
        facts = None
    if not isinstance(facts, dict):
        return None
    return verdict_card(job, facts, f"{base}/runs/{job['id']}")


def job_json(svc: Services, job: dict, base: str) -> dict:
    out = {k: job[k] for k in JOB_FIELDS}
    out["took_s"] = round(job["ended"] - job["started"], 1) if job["ended"] and job["started"] else None
    out["url"] = f"{base}/runs/{job['id']}"
    out["report_url"] = f"{base}/runs/{job['id']}/report" if layout(svc.root, job["id"])["report"].is_file() else None
    out["progress"] = progress(svc, job)
    if job["state"] == "done":
        out["summary"] = read_own(svc, job, "summary")
        out["verdict"] = verdict(svc, job, base)
    return out


def may_cancel(user: User, job: dict) -> bool:
    return job["state"] in ACTIVE and (user.may("admin") or (user.may("edit") and job["owner"] == user.name))


def result_links(svc: Services, row: dict) -> list[tuple[str, str, str]]:
    """The run's result pages that exist: (id, href, text); the report has its own route."""
    kind = kind_of(row.get("kind", "sweep"))
    own = layout(svc.root, row["id"])["own"]
    return [(name, f"/runs/{row['id']}/report" if name == "report" else f"/runs/{row['id']}/pages/{name}", text)
            for name, file, text in (kind.pages if kind else ()) if (own / file).is_file()]


def filters(request: Request) -> dict[str, str]:
    return {k: (request.query_params.get(k) or "")[:200] for k in FILTERS}


def listed(svc: Services, f: dict[str, str], *, strict: bool = True) -> tuple[list[dict], str | None]:
    """The runs the list's filters select, newest first, or what is wrong with a filter (``strict``: a state that
    is none of STATES too; the page's select offers only those, so there a typed one just lists nothing)."""
    if strict and f["state"] and f["state"] not in STATES:
        return [], f"state {f['state']!r}: expected one of {', '.join(STATES)}"
    since, before, bad = manage.date_range(f)
    if bad:
        return [], bad
    return svc.catalog.jobs(game=f["game"], state=f["state"], owner=f["owner"], text=f["q"], rule_set=f["rule_set"],
                            verdict=f["verdict"], since=since, before=before), None


def cancel(svc: Services, user: User, row: dict) -> tuple[int, str]:
    """Cancel a run: (HTTP status, '' or why not)."""
    if not (user.may("admin") or row["owner"] == user.name):
        return 403, "only its owner or an admin may cancel a run"
    if not svc.runner.cancel(row["id"], user.name):
        return 409, f"the run has ended already ({row['state']})"
    return 200, ""


# pages ----------------------------------------------------------------------------------------------------------

@router.get("/runs")
def runs_page(request: Request, page: Reader, svc: Svc):
    f = filters(request)
    rows, bad = listed(svc, f, strict=False)
    return page.render("runs.html", "Runs", status=400 if bad else 200, notices=svc.catalog.notifications(page.user),
                       rows=rows, filters=f, games=list(GAMES.names()), states=list(STATES),
                       rule_sets=svc.catalog.rule_sets(), verdicts=svc.catalog.verdicts(), error=bad or "")


@router.get("/runs/{job}")
def run_page(request: Request, job: str, page: Reader, svc: Svc):
    row = svc.catalog.job(job)
    if row is None:
        return page.no_run()
    return page.render(
        "run.html", row["title"], script=pages.COPY_SCRIPT + LIVE_SCRIPT, job=row, time_text=pages.time_text(row),
        progress=progress(svc, row), waiting=pages.no_progress(row), verdict=verdict(svc, row, base_url(request)),
        summary=read_own(svc, row, "summary") if row["state"] == "done" else None,
        may_cancel=may_cancel(page.user, row), links=result_links(svc, row),
        following=svc.catalog.following(page.user, row["id"]), priorities=PRIORITIES,
        may_delete=row["state"] in ENDED and manage.may_delete(page.user, row),
        tables=run_tables(svc, row), replay=replays.replayable(row, svc.root))


@router.post("/runs/{job}/cancel")
def cancel_page(job: str, page: EditForm, svc: Svc):
    row = svc.catalog.job(job)
    if row is None:
        return page.no_run()
    status, error = cancel(svc, page.user, row)
    if error:
        return page.message("Not allowed" if status == 403 else "Not cancelled", error, status)
    return RedirectResponse(f"/runs/{row['id']}", status_code=303)


@router.get("/runs/{job}/pages/{name}")
def result_page(job: str, name: str, page: Reader, svc: Svc):
    row = svc.catalog.job(job)
    kind = kind_of(row.get("kind", "sweep")) if row else None
    files = {n: f for n, f, _ in (kind.pages if kind else ()) if n != "report"}
    path = layout(svc.root, row["id"])["own"] / files[name] if row and name in files else None
    if path is None or not path.is_file():
        return page.message("No such page", "no such page for this run (yet)", 404)
    return FileResponse(path, media_type="text/html; charset=utf-8", headers={"Content-Security-Policy": REPORT_CSP})


@router.get("/runs/{job}/report")
def report_page(job: str, page: Reader, svc: Svc):
    row = svc.catalog.job(job)
    path = layout(svc.root, row["id"])["report"] if row else None
    if path is None or not path.is_file():
        return page.message("No report", "no report for this run (yet)", 404)
    return FileResponse(path, media_type="text/html; charset=utf-8", headers={"Content-Security-Policy": REPORT_CSP})


@router.get("/runs/{job}/verdict.md")
def verdict_text(request: Request, job: str, page: Reader, svc: Svc):
    row = svc.catalog.job(job)
    card = verdict(svc, row, base_url(request)) if row else None
    if card is None:
        return PlainTextResponse("error: no verdict for this run (yet)\n", status_code=404)
    return PlainTextResponse(card, media_type="text/markdown; charset=utf-8")


# the API --------------------------------------------------------------------------------------------------------

@router.get("/api/runs")
def api_runs(request: Request, user: ApiReader, svc: Svc):
    rows, bad = listed(svc, filters(request))
    if bad:
        return JSONResponse({"error": bad}, 400)
    base = base_url(request)
    return {"runs": [{**{k: r[k] for k in LIST_FIELDS}, "url": f"{base}/runs/{r['id']}"} for r in rows]}


@router.get("/api/runs/{job}")
def api_run(request: Request, job: str, user: ApiReader, svc: Svc):
    row = svc.catalog.job(job)
    if row is None:
        return no_such_run()
    return job_json(svc, row, base_url(request))


@router.post("/api/runs/{job}/cancel")
def api_cancel(job: str, user: ApiEditor, svc: Svc):
    row = svc.catalog.job(job)
    if row is None:
        return no_such_run()
    status, error = cancel(svc, user, row)
    if error:
        return JSONResponse({"error": error}, status)
    return {"id": row["id"], "state": "cancelled"}


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
