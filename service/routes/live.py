"""A run's live state (service/live.py): server-sent events for its page and the same state as JSON for the API,
both from :func:`service.live.look`."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse, StreamingResponse

from service.deps import ApiReader, Reader, Svc, no_such_run
from service.live import look, stream

router = APIRouter()


@router.get("/runs/{job}/events")
def run_events(request: Request, job: str, page: Reader, svc: Svc):
    if svc.catalog.job(job) is None:
        return PlainTextResponse("error: no such run\n", status_code=404)
    token = svc.streams.open(page.user.name)        # a few open streams a user, a few dozen in all (service/live.py)
    if isinstance(token, str):
        return PlainTextResponse(f"error: {token}\n", status_code=429, headers={"Retry-After": "20"})

    async def held():
        try:
            async for chunk in stream(request, lambda: look(svc.catalog, svc.live, svc.root, job)):
                yield chunk
        finally:
            svc.streams.close(page.user.name, token)
    return StreamingResponse(held(), media_type="text/event-stream", headers={"X-Accel-Buffering": "no"})


@router.get("/api/runs/{job}/progress")
def api_progress(job: str, user: ApiReader, svc: Svc):
    got = look(svc.catalog, svc.live, svc.root, job)
    return no_such_run() if got is None else got
