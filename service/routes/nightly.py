"""Nightly projects (service/nightly.py): /nightly (read: the projects; admin: define or change one),
/nightly/{project} (read: history, trends, failing cells), POST /nightly/{project}/run (admin: run now), and the
API twins under /api/nightly; each page and its twin call the same function of the scheduler."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, RedirectResponse
from starlette.concurrency import run_in_threadpool

from cluster.spec import SpecError
from service.deps import AdminForm, ApiAdmin, ApiReader, Page, Reader, Services, Svc, base_url, json_body
from regress.html import trend_plot
from service.nightly import NAME_RULE, code_version, day_of, failing_cells, project_json, trends
from service.specs import MAX_UPLOAD

WANT = ("expected {\"name\": text, \"at\": \"HH:MM\" (UTC), \"suite\": TOML text, \"baseline\": JSON text, "
        "\"cards\": {file name: TOML text}, \"enabled\": true|false}")

router = APIRouter()


def _last_runs(svc: Services) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for r in svc.catalog.q("SELECT project, verdict, state FROM jobs WHERE project != '' ORDER BY created"):
        out[r["project"]] = dict(r)
    return out


def _list(page: Page, svc: Services, *, error: str = "", values: dict | None = None, status: int = 200):
    return page.render("nightly_list.html", "Nightly", status=status, projects=svc.nightly.projects(),
                       last=_last_runs(svc), error=error, values=values or {}, name_rule=NAME_RULE)


def _queue(svc: Services, name: str, who: str) -> tuple[int, str]:
    """Run a project now: (HTTP status, the job or why not)."""
    if svc.nightly.active(name):
        return 409, "a run of this project is queued or running already"
    try:
        return 201, svc.nightly.queue(name, who)
    except SpecError as e:
        return 400, " ".join(str(e).split())


async def _form_text(form, name: str) -> str | bytes:
    upload = form.get(f"{name}_file")
    if upload is not None and not isinstance(upload, str) and upload.filename:
        return await upload.read(MAX_UPLOAD + 1)
    value = form.get(name)
    return value if isinstance(value, str) else ""


@router.get("/nightly")
def nightly_list(page: Reader, svc: Svc):
    return _list(page, svc)


@router.post("/nightly")
async def nightly_save(page: AdminForm, svc: Svc):
    form = page.form
    inputs: dict[str, Any] = {
        "name": str(form.get("name") or "").strip(), "at": str(form.get("at") or ""),
        "enabled": form.get("enabled") is not None,
        "suite": await _form_text(form, "suite"), "baseline": await _form_text(form, "baseline"),
        "cards": {u.filename: await u.read(MAX_UPLOAD + 1) for u in form.getlist("cards")
                  if not isinstance(u, str) and u.filename}}
    try:            # on a worker thread: the check reads the suite and plays a pilot game
        name, _ = await run_in_threadpool(svc.nightly.save, page.user, inputs)
    except SpecError as e:
        shown = {k: (v if isinstance(v, (str, bool)) else v[:MAX_UPLOAD].decode("utf-8", "replace"))
                 for k, v in inputs.items() if k != "cards"}
        return _list(page, svc, error=" ".join(str(e).split()), values=shown, status=400)
    return RedirectResponse(f"/nightly/{name}", status_code=303)


@router.get("/nightly/{project}")
def nightly_project(project: str, page: Reader, svc: Svc):
    p = svc.nightly.project(project)
    if p is None:
        return page.message("No such project", "no such nightly project", 404)
    runs = svc.nightly.runs(p["name"])
    latest = next((r for r in runs if r.get("result")), None)
    return page.render("nightly_project.html", f"Nightly {p['name']}", p=p, runs=runs, latest=latest,
                       failing=failing_cells(latest) if latest else [], day_of=day_of, code_version=code_version,
                       charts=[trend_plot(m, pts) for m, pts in trends(runs).items()], name_rule=NAME_RULE,
                       values={"name": p["name"], "at": p["at"], "enabled": bool(p["enabled"]), "suite": p["suite"],
                               "baseline": p["baseline"]})


@router.post("/nightly/{project}/run")
def nightly_run(project: str, page: AdminForm, svc: Svc):
    p = svc.nightly.project(project)
    if p is None:
        return page.message("No such project", "no such nightly project", 404)
    status, said = _queue(svc, p["name"], page.user.name)
    if status != 201:
        return page.message("Not queued", said, status)
    return RedirectResponse(f"/runs/{said}", status_code=303)


@router.get("/api/nightly")
def api_nightly(request: Request, user: ApiReader, svc: Svc):
    base = base_url(request)
    return {"projects": [project_json(p, None, base) for p in svc.nightly.projects()]}


@router.post("/api/nightly")
async def api_nightly_save(request: Request, user: ApiAdmin, svc: Svc):
    body = await json_body(request)
    if not isinstance(body, dict) or not all(isinstance(body.get(k), str) for k in ("name", "at", "suite", "baseline")) \
            or not isinstance(body.get("cards", {}), dict):
        return JSONResponse({"error": WANT}, 400)
    try:            # on a worker thread: the check reads the suite and plays a pilot game
        name, new = await run_in_threadpool(svc.nightly.save, user, {k: body.get(k) for k in (
            "name", "at", "suite", "baseline", "cards")} | {"enabled": body.get("enabled", True)})
    except SpecError as e:
        return JSONResponse({"error": " ".join(str(e).split())}, 400)
    return JSONResponse({**project_json(svc.nightly.project(name), None, base_url(request)), "created": new}, 200)


@router.get("/api/nightly/{project}")
def api_nightly_project(request: Request, project: str, user: ApiReader, svc: Svc):
    p = svc.nightly.project(project)
    if p is None:
        return JSONResponse({"error": "no such nightly project"}, 404)
    return project_json(p, svc.nightly.runs(p["name"]), base_url(request))


@router.post("/api/nightly/{project}/run")
def api_nightly_run(request: Request, project: str, user: ApiAdmin, svc: Svc):
    p = svc.nightly.project(project)
    if p is None:
        return JSONResponse({"error": "no such nightly project"}, 404)
    status, said = _queue(svc, p["name"], user.name)
    if status != 201:
        return JSONResponse({"error": said}, status)
    return JSONResponse({"id": said, "url": f"{base_url(request)}/runs/{said}", "state": "queued"}, 201)
