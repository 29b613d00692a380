"""Results in the page: the SQL console (page and API twin, through one runner of the statement), the canned queries
as forms, and downloads of a run's tables (service/console.py does the reading)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, StreamingResponse
from starlette.background import BackgroundTask
from starlette.concurrency import run_in_threadpool

from service import console
from service.deps import ApiReader, ReadForm, Reader, Services, Svc, json_body
from service.routes.runs import results_of

EXAMPLE = "SELECT players, count(*) AS games FROM games GROUP BY ALL ORDER BY ALL"

router = APIRouter()


def _no_results(page):
    return page.message("No results", "no such run, or no results for it (yet)", 404)


def _answer_values(svc: Services, answer) -> dict:
    limits = svc.settings.console_limits
    return {"limits": limits, "answer": answer, "cell": console.cell,
            "said": console.answer_said(answer, limits) if answer is not None else None}


async def ask(svc: Services, row: dict, sql: str):
    """The console's statement over the run's results, in a worker thread (the gate and the kept answers shared)."""
    out = results_of(svc, row)
    return await run_in_threadpool(console.run_sql, out, row["id"], sql, svc.settings.console_limits, svc.console)


@router.get("/runs/{job}/sql")
def sql_page(job: str, page: Reader, svc: Svc):
    row = svc.catalog.job(job)
    if results_of(svc, row) is None:
        return _no_results(page)
    return page.render("console.html", f"SQL: {row['title']}", job=row, sql=EXAMPLE, **_answer_values(svc, None))


@router.post("/runs/{job}/sql")
async def sql_post(job: str, page: ReadForm, svc: Svc):
    row = svc.catalog.job(job)
    if results_of(svc, row) is None:
        return _no_results(page)
    sql = str(page.form.get("sql") or "")
    answer = await ask(svc, row, sql)
    return page.render("console.html", f"SQL: {row['title']}", job=row, sql=sql,
                       status=503 if answer.busy else 400 if answer.error else 200, **_answer_values(svc, answer))


@router.post("/api/runs/{job}/sql")
async def api_sql(request: Request, job: str, user: ApiReader, svc: Svc):
    row = svc.catalog.job(job)
    if results_of(svc, row) is None:
        return JSONResponse({"error": "no such run, or no results for it (yet)"}, 404)
    body = await json_body(request)
    if not isinstance(body, dict) or not isinstance(body.get("sql"), str):
        return JSONResponse({"error": "expected {\"sql\": one SELECT statement}"}, 400)
    a = await ask(svc, row, body["sql"])
    if a.error:
        return JSONResponse({"error": a.error}, 503 if a.busy else 400)
    return {"columns": a.columns, "rows": console.json_rows(a.rows), "cut": a.cut,
            "max_rows": svc.settings.console_limits.max_rows, "seconds": round(a.seconds, 3), "kept": a.cached,
            "stale_s": None if a.stale_s is None else round(a.stale_s, 1)}


@router.get("/runs/{job}/queries")
def queries_page(job: str, page: Reader, svc: Svc):
    row = svc.catalog.job(job)
    if results_of(svc, row) is None:
        return _no_results(page)
    return page.render("queries.html", f"Canned queries: {row['title']}", job=row, queries=console.queries())


@router.get("/runs/{job}/queries/{name}")
def query_page(request: Request, job: str, name: str, page: Reader, svc: Svc):
    row = svc.catalog.job(job)
    out = results_of(svc, row)
    if out is None:
        return _no_results(page)
    q = console.canned(name)
    if q is None:
        return page.message("No such query", "no such canned query", 404)
    given = {k: v[:2000] for k, v in request.query_params.items() if k != "run"}
    answer = console.run_query(out, row["id"], q, given, svc.settings.console_limits, svc.console) \
        if request.query_params.get("run") else None
    return page.render("query.html", f"{q.name}: {row['title']}", job=row, q=q, given=given,
                       options=console.OPTIONS, shown_default=console.shown_default,
                       status=200 if answer is None or not answer.error else 503 if answer.busy else 400,
                       **_answer_values(svc, answer))


@router.get("/runs/{job}/download/{file}")
def download(job: str, file: str, page: Reader, svc: Svc):
    row = svc.catalog.job(job)
    out = results_of(svc, row)
    table, _, fmt = file.rpartition(".")
    if out is None or fmt not in console.FORMATS or table not in console.tables(out):
        return PlainTextResponse("error: no such table to download for this run\n", status_code=404)
    limits = svc.settings.console_limits
    headers = {"Content-Disposition": f'attachment; filename="{row["id"]}-{table}.{fmt}"'}
    try:
        if fmt == "parquet":
            path = console.write_parquet(out, table, svc.root / "tmp")
            return FileResponse(path, media_type=console.FORMATS[fmt], headers=headers,
                                background=BackgroundTask(path.unlink, missing_ok=True))
        total = console.count_rows(out, table)
    except (console.library.ResultsError, console.library.QueryError) as e:
        return PlainTextResponse(f"error: {console._scrub(str(e), out, row['id'])}\n", status_code=409)
    if total > limits.csv_max_rows:
        headers["X-Playtest-Rows"] = f"{limits.csv_max_rows} of {total} (the CSV row cap; the Parquet file has all)"
    return StreamingResponse(console.csv_chunks(out, table, limits.csv_max_rows), media_type=console.FORMATS[fmt],
                             headers=headers)
