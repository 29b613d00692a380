"""Submitting a job: the form of each job kind (service/kinds.py) and its API twin ``POST /api/runs``. Both check
the inputs by the kind and either say the cost or queue the job, through one function (:func:`submit`); nothing is
stored on a refusal. The routes read the request on the event loop and run :func:`submit` (it reads the inputs and
plays a pilot game) on a worker thread, so the service answers other requests meanwhile."""

from __future__ import annotations

import threading
import time
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, RedirectResponse
from starlette.concurrency import run_in_threadpool

from cluster.spec import SpecError
from service.catalog import User
from service.deps import ApiEditor, EditForm, Editor, Services, Svc, base_url, json_body
from service.jobkinds import KINDS, kind_of
from service.kinds import calibrated, only_shipped_models
from service.specs import MAX_UPLOAD

MAX_TITLE = 200
MAX_DESCRIPTION = 5000

router = APIRouter()
_queueing = threading.Lock()         # a user's limits are read and the job added as one step (submissions run at once)


def check_fields(title: str, description: str) -> str | None:
    if len(title) > MAX_TITLE:
        return f"the title is {len(title):,} characters; at most {MAX_TITLE}"
    if len(description) > MAX_DESCRIPTION:
        return f"the description is {len(description):,} characters; at most {MAX_DESCRIPTION:,}"
    if any(ord(ch) < 32 and ch not in "\t\n\r" for ch in title + description):
        return "the title and description may not hold control characters"
    return None


def _checked(svc: Services, kind, inputs: dict[str, Any]):
    try:
        only_shipped_models(inputs)          # before any reader: no model file of the server is ever opened
        return kind.check(inputs, svc.context())
    except (ValueError, OSError) as e:      # a reader's own error that is not a SpecError: still one line
        if isinstance(e, SpecError):
            raise
        raise SpecError(" ".join(str(e).split())[:500]) from None


def _cost(svc: Services, checked) -> tuple[dict, Any]:
    # the pilot's time, calibrated on what this kind's finished runs took here (service.kinds.calibrated)
    est = calibrated(checked.seconds, svc.catalog.timings(checked.kind)) if checked.seconds else None
    return {"kind": checked.kind, "name": checked.name, "game": checked.game, "cells": checked.cells,
            "games": checked.games, "stop": checked.stop, "rule_set": checked.rule_set,
            "seconds": None if checked.seconds is None else round(checked.seconds, 3),
            "estimate": None if est is None else {"low_s": round(est.low, 1), "high_s": round(est.high, 1),
                                                  "runs": est.runs},
            "cost": checked.cost(est)}, est


def _limited(svc: Services, user: User) -> str | None:
    limit, most = svc.settings.submit_per_minute, svc.settings.max_queued
    if svc.catalog.submissions_since(user, time.time() - 60) >= limit:
        return f"more than {limit} submissions in a minute; wait a minute"
    if svc.catalog.queued_by(user) >= most:
        return f"you have {most} runs queued already (the most a user may); wait for one to start or cancel one"
    return None


def submit(svc: Services, user: User, kind_name: Any, inputs: dict[str, Any], title: str, description: str,
           start: bool) -> tuple[int, dict]:
    """Check a job's inputs by its kind (and queue it when ``start``): (HTTP status, what to say)."""
    title, description = title.strip(), description.strip()
    if (bad := check_fields(title, description)) is not None:
        return 400, {"error": bad}
    kind = kind_of(kind_name)
    if kind is None:
        return 400, {"error": f"kind {str(kind_name)[:40]!r}: expected one of {', '.join(KINDS)}"}
    if svc.checks is not None:              # each check reads the inputs and plays a pilot: a few a minute a user
        if (wait := svc.checks.take(user.name)) is not None:
            return 429, {"error": f"more than {svc.settings.checks_per_minute} checks of a job's cost in a minute "
                                  f"(each plays a pilot game); wait {wait} s"}
    try:
        checked = _checked(svc, kind, inputs)
    except SpecError as e:
        return 400, {"error": " ".join(str(e).split())}
    cost, est = _cost(svc, checked)
    if not start:
        return 200, cost
    with _queueing:
        if (limited := _limited(svc, user)) is not None:
            return 429, {"error": limited}
        job = svc.catalog.add_job(owner=user, title=title or checked.name, description=description,
                                  spec_name=checked.name, game=checked.game, spec_text=checked.text,
                                  cells=checked.cells, games=checked.games, kind=checked.kind, params=checked.params,
                                  rule_set=checked.rule_set, results=svc.settings.results if kind.object_storage
                                  else "", pilot_s=checked.seconds, estimate="" if est is None else est.text())
    return 201, {**cost, "id": job, "state": "queued"}


def chosen_kind(value: Any):
    return kind_of(value or "sweep")


def _no_kind(page, status: int):
    return page.message("No such kind", f"no such job kind; expected one of {', '.join(KINDS)}", status)


@router.get("/submit")
def submit_page(request: Request, page: Editor):
    kind = chosen_kind(request.query_params.get("kind"))
    if kind is None:
        return _no_kind(page, 404)
    values = {f.name: f.default for f in kind.fields}
    return page.render("submit.html", f"Submit {kind.title}", kind=kind, kinds=list(KINDS.values()), values=values,
                       form_title="", description="", error="", cost="")


async def _form_inputs(kind, form) -> tuple[dict[str, Any], dict[str, str]]:
    """A kind's inputs from its form (an uploaded file in place of pasted text), and the text to show again."""
    inputs: dict[str, Any] = {}
    shown: dict[str, str] = {}
    for f in kind.fields:
        if f.widget == "cards":
            inputs[f.name] = {u.filename: await u.read(MAX_UPLOAD + 1) for u in form.getlist(f.name)
                              if not isinstance(u, str) and u.filename}
            continue
        value: bytes | str = str(form.get(f.name) or "")
        upload = form.get(f"{f.name}_file")
        if f.widget == "textarea" and upload is not None and not isinstance(upload, str) and upload.filename:
            value = await upload.read(MAX_UPLOAD + 1)
        inputs[f.name] = value
        shown[f.name] = value if isinstance(value, str) else value[:MAX_UPLOAD].decode("utf-8", "replace")
    return inputs, shown


@router.post("/submit")
async def submit_post(page: EditForm, svc: Svc):
    form = page.form
    kind = chosen_kind(form.get("kind"))
    if kind is None:
        return _no_kind(page, 400)
    title, description = str(form.get("title") or ""), str(form.get("description") or "")
    inputs, shown = await _form_inputs(kind, form)
    status, said = await run_in_threadpool(submit, svc, page.user, kind.name, inputs, title, description,
                                           form.get("action") == "start")
    if status == 201:
        return RedirectResponse(f"/runs/{said['id']}", status_code=303)
    return page.render("submit.html", f"Submit {kind.title}", status=status, kind=kind, kinds=list(KINDS.values()),
                       values=shown, form_title=title, description=description, error=said.get("error", ""),
                       cost="" if status != 200 else f"Cost: {said['cost']}. Press Start to queue it.")


def _api_inputs(body: Any) -> tuple[Any, dict[str, Any] | None]:
    """(the kind, its inputs) of an API submission; inputs None when the body is not of the expected shape."""
    kind = chosen_kind(body.get("kind") if isinstance(body, dict) else None)
    if not isinstance(body, dict) or kind is None \
            or not all(isinstance(body.get(k, ""), str) for k in ("title", "description")) \
            or not isinstance(body.get("check_only", False), bool) \
            or not all(isinstance(body.get(f.name, ""), str) for f in kind.fields if f.widget != "cards") \
            or not all(isinstance(body.get(f.name, {}), dict) for f in kind.fields if f.widget == "cards"):
        return kind, None
    return kind, {f.name: body.get(f.name, {} if f.widget == "cards" else "") for f in kind.fields}


@router.post("/api/runs")
async def api_submit(request: Request, user: ApiEditor, svc: Svc):
    body = await json_body(request)
    if body is None:
        return JSONResponse({"error": "the body is not JSON; send {\"spec\": TOML text, \"title\": ..., "
                                      "\"description\": ...}"}, 400)
    kind, inputs = _api_inputs(body)
    if inputs is None:
        names = ", ".join(f'"{f.name}": ' + ("{file name: TOML text}" if f.widget == "cards" else "text")
                          for f in (kind or KINDS["sweep"]).fields)
        return JSONResponse({"error": f"expected {{\"kind\": one of {', '.join(KINDS)}, {names}, \"title\": text, "
                                      "\"description\": text, \"check_only\": true|false}"}, 400)
    status, said = await run_in_threadpool(submit, svc, user, kind.name, inputs, body.get("title", ""),
                                           body.get("description", ""), body.get("check_only", False) is not True)
    if status == 201:
        said["url"] = f"{base_url(request)}/runs/{said['id']}"
    return JSONResponse(said, status_code=status)

