"""A game of a done run drawn (service/replays.py): the form (a cell, a game's index) and the replay page, read
role; the page is served with the report's sandbox policy."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse

from service import replays
from service.deps import Reader, Services, Svc
from service.routes.runs import REPORT_CSP

router = APIRouter()


def _run_of(svc: Services, job: str):
    """(the run, its cells and games per cell) of a done run with results; (None, None) otherwise."""
    row = svc.catalog.job(job)
    out = replays.job_layout(svc.root, row)["out"] if row and row["state"] == "done" else None
    got = replays.cells_of(out) if out is not None else None
    return (row, got) if got is not None else (None, None)


def _form(page, row: dict, got, *, cell: str = "", index: str = "0", error: str = "", status: int = 200):
    cells, per_cell = got
    return page.render("replay.html", f"Replay: {row['title']}", status=status, job=row, cells=cells,
                       per_cell=per_cell, cell=cell, index=index, error=error)


def _nothing(page):
    return page.message("No replay", "no such run, or no results to replay for it (yet)", 404)


@router.get("/runs/{job}/replay")
def replay_form(job: str, page: Reader, svc: Svc):
    row, got = _run_of(svc, job)
    return _nothing(page) if row is None else _form(page, row, got)


@router.get("/runs/{job}/replay/game")
def replay_game(request: Request, job: str, page: Reader, svc: Svc):
    row, got = _run_of(svc, job)
    if row is None:
        return _nothing(page)
    cell = (request.query_params.get("cell") or "")[:100]
    index = (request.query_params.get("index") or "").strip()[:100]
    status, error = 400, ""
    try:
        path = replays.draw(svc.root, row["id"], *replays.checked(*got, cell, index), row.get("results") or "")
        return FileResponse(path, media_type="text/html; charset=utf-8", headers={"Content-Security-Policy": REPORT_CSP})
    except BlockingIOError:
        status, error = 503, f"{replays.MAX_AT_ONCE} replays are being drawn already; try again in a moment"
    except TimeoutError:
        status, error = 503, f"the replay took more than {replays.TIMEOUT_S:g} s, this service's limit; not drawn"
    except ValueError as e:
        error = str(e)
    return _form(page, row, got, cell=cell, index=index, error=error, status=status)
