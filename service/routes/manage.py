"""The queue, managed (service/manage.py holds the rules): a queued run's priority (admins), deleting an ended run
(its owner or an admin), following a run and the notifications when a followed run ends. Each page POST and its
API twin call the same function."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, RedirectResponse

from service import manage
from service.catalog import PRIORITIES, User
from service.deps import (AdminForm, ApiAdmin, ApiEditor, ApiReader, EditForm, ReadForm, Services, Svc, base_url,
                          json_body, no_such_run)

router = APIRouter()


def set_priority(svc: Services, user: User, row: dict, value, text: bool) -> tuple[int, str]:
    """A queued run's priority from a form's text (``text``) or a JSON integer: (HTTP status, '' or why not)."""
    priority, error = manage.parse_priority(value, text=text)
    if error:
        return 400, error
    if row["state"] != "queued" or not svc.catalog.set_priority(row["id"], priority):
        now = (svc.catalog.job(row["id"]) or row)["state"]
        return 409, f"only a queued run's priority can be set; this run is {now}"
    svc.catalog.audit(user.name, "priority", row["id"], f"{row.get('priority', 0)} -> {priority}")
    return 200, ""


def delete(svc: Services, user: User, row: dict) -> tuple[int, str]:
    return manage.delete_run(svc.catalog, svc.root, svc.runner, svc.live, user, row)


@router.post("/runs/{job}/priority")
def priority_page(job: str, page: AdminForm, svc: Svc):
    row = svc.catalog.job(job)
    if row is None:
        return page.no_run()
    status, error = set_priority(svc, page.user, row, page.form.get("priority"), True)
    if error:
        return page.message("Priority not set", error, status)
    return RedirectResponse(f"/runs/{row['id']}", status_code=303)


@router.post("/api/runs/{job}/priority")
async def priority_api(request: Request, job: str, user: ApiAdmin, svc: Svc):
    row = svc.catalog.job(job)
    if row is None:
        return no_such_run()
    body = await json_body(request)
    if not isinstance(body, dict) or set(body) != {"priority"}:
        low, high = PRIORITIES
        return JSONResponse({"error": f"expected {{\"priority\": an integer from {low} to {high}}}"}, 400)
    status, error = set_priority(svc, user, row, body["priority"], False)
    if error:
        return JSONResponse({"error": error}, status)
    return {"id": row["id"], "priority": body["priority"]}


@router.post("/runs/{job}/delete")
def delete_page(job: str, page: EditForm, svc: Svc):
    row = svc.catalog.job(job)
    if row is None:
        return page.no_run()
    status, error = delete(svc, page.user, row)
    if error:
        return page.message("Not deleted", error, status)
    return RedirectResponse("/runs", status_code=303)


@router.delete("/api/runs/{job}")
def delete_api(job: str, user: ApiEditor, svc: Svc):
    row = svc.catalog.job(job)
    if row is None:
        return no_such_run()
    status, error = delete(svc, user, row)
    if error:
        return JSONResponse({"error": error}, status)
    return {"id": row["id"], "deleted": True}


@router.post("/runs/{job}/follow")
def follow_page(job: str, page: ReadForm, svc: Svc):
    row = svc.catalog.job(job)
    if row is None:
        return page.no_run()
    svc.catalog.follow(page.user, row["id"])
    return RedirectResponse(f"/runs/{row['id']}", status_code=303)


def _follow(svc: Services, user: User, job: str, on: bool):
    row = svc.catalog.job(job)
    if row is None:
        return no_such_run()
    return {"id": row["id"], "following": svc.catalog.follow(user, row["id"], on)}


@router.post("/api/runs/{job}/follow")
def follow_on(job: str, user: ApiReader, svc: Svc):
    return _follow(svc, user, job, True)


@router.delete("/api/runs/{job}/follow")
def follow_off(job: str, user: ApiReader, svc: Svc):
    return _follow(svc, user, job, False)


@router.post("/notifications/seen")
def seen_page(page: ReadForm, svc: Svc):
    svc.catalog.mark_seen(page.user)
    return RedirectResponse("/runs", status_code=303)


@router.get("/api/notifications")
def notifications_api(request: Request, user: ApiReader, svc: Svc):
    every = request.query_params.get("all", "") in ("1", "true")
    base = base_url(request)
    rows = svc.catalog.notifications(user, unseen=not every, limit=200)
    return {"notifications": [{"id": n["id"], "run": n["job"], "title": n["title"], "state": n["state"],
                               "at": n["at"], "seen": bool(n["seen"]), "url": f"{base}/runs/{n['job']}"}
                              for n in rows]}
