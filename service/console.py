"""Results in the page: a read-only SQL console per run, the canned queries as forms, and downloads of a run's tables.

Everything reads the run's folder through the query library (``queries.library``): the console's text is checked
as one SELECT over the results' views (``check_select``) and run on the locked connection (``connect``: it can read
only the run's verified part files; no other file, ATTACH, setting or extension), with the service's time and memory
limit per statement and a cap on the rows fetched. A canned query's values are checked by the library's own binding
(``bind``) and bound, never pasted. A download is a table the run's manifest lists, read by pyarrow from the same
verified part files. No message shows a server path: the run's folder is "this run's results"."""

from __future__ import annotations

import csv
import io
import math
import os
import re
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from queries import library
from queries.variants import answer_per_variant
from service.pages import esc

CONSOLE = ("in the console", "the console runs")          # how a refusal says what runs (library.check_select)
MAX_SQL = 20_000                                          # characters of console SQL
TABLE_NAME = re.compile(r"[a-z][a-z0-9_]{0,62}")           # a downloadable table's name (and the manifest's)
QUERY_NAME = re.compile(r"\w{1,64}")
FORMATS = {"parquet": "application/vnd.apache.parquet", "csv": "text/csv; charset=utf-8"}


@dataclass(frozen=True)
class ConsoleLimits:
    """The service's limits on what a user's SQL may cost (Settings.console)."""
    timeout: float = 10.0             # seconds a statement may run
    memory_gib: float = 1.0           # memory the locked connection may use
    max_rows: int = 1000              # rows shown; the rest is never fetched
    csv_max_rows: int = 1_000_000     # rows of a CSV download


@dataclass
class Answer:
    columns: list[str] = field(default_factory=list)
    rows: list[tuple] = field(default_factory=list)
    cut: bool = False                 # more rows than shown
    seconds: float = 0.0
    error: str = ""                   # one line; the page shows it instead of a table
    notes: list[str] = field(default_factory=list)   # lines said under the table (why it is empty, how split)


def _scrub(message: str, out: Path, job: str) -> str:
    """A library message without the server's paths: the run's folder is "this run's results"."""
    text = " ".join(str(message).split())
    for p in sorted({str(out), str(out.resolve())}, key=len, reverse=True):
        text = text.replace(p + "/", "").replace(p, "this run's results")
    text = re.sub(r"the statement timeout \(--timeout SECONDS, at most [^)]*\)",
                  "the service's time limit per statement", text)
    text = text.replace(" (--memory-limit GIB)", ", the service's limit per statement")
    return text.replace("--read-only", "the console").replace(": --param: ", ": ")


def _connect(out: Path, job: str):
    return library.connect([str(out)], names=[f"runs/{job}"])


def run_sql(out: Path, job: str, sql: str, limits: ConsoleLimits) -> Answer:
    """One statement of the user's over the run's results, on the locked connection: the answer or one line."""
    if not sql.strip():
        return Answer(error="sql: the statement is empty; give one SELECT over the view games, e.g. "
                            "SELECT players, count(*) FROM games GROUP BY ALL")
    if len(sql) > MAX_SQL:
        return Answer(error=f"sql: the statement is {len(sql):,} characters; at most {MAX_SQL:,}")
    t0 = time.monotonic()
    try:
        with library.limits(limits.timeout, limits.memory_gib):
            con = _connect(out, job)
            try:
                library.check_select(con, sql, "sql", CONSOLE)
                columns, rows = library.execute(con, sql, where="sql", results=[str(out)],
                                                max_rows=limits.max_rows + 1)
            finally:
                con.close()
    except (library.QueryError, library.ResultsError) as e:
        return Answer(error=_scrub(str(e), out, job), seconds=time.monotonic() - t0)
    return Answer(columns, rows[:limits.max_rows], len(rows) > limits.max_rows, time.monotonic() - t0)


def queries() -> list[library.Query]:
    """The canned queries, by name (the library's own list)."""
    return library.available()


def canned(name: str) -> library.Query | None:
    if not QUERY_NAME.fullmatch(name or ""):
        return None
    files = library.canned_files()
    return library.load(name) if name in files else None


def shown_default(p: library.Param) -> str:
    return ",".join(map(str, p.default)) if isinstance(p.default, list) else str(p.default)


def run_query(out: Path, job: str, query: library.Query, given: dict[str, str], limits: ConsoleLimits) -> Answer:
    """A canned query with the form's values (checked and bound by the library), answered per variant as
    ``playtest query`` answers it."""
    t0 = time.monotonic()
    try:
        values = library.bind(query, given)
        with library.limits(limits.timeout, limits.memory_gib):
            con = _connect(out, job)
            try:
                if library.uses_seat_outcomes(query):
                    library.add_seat_outcomes(con, [str(out)])
                columns, rows, variants = answer_per_variant(con, query, values, [str(out)])
            finally:
                con.close()
    except (library.QueryError, library.ResultsError) as e:
        return Answer(error=_scrub(str(e), out, job), seconds=time.monotonic() - t0)
    notes = [_scrub(line, out, job).replace("--pool", "playtest query --pool") for line in variants.notes()]
    if not rows:
        notes.insert(0, query.why_empty())
    return Answer(columns, rows[:limits.max_rows], len(rows) > limits.max_rows, time.monotonic() - t0, notes=notes)


def cell(v: Any) -> str:
    """A value as ``playtest query`` prints it in a table (floats to 4 places, NULL as nothing)."""
    if isinstance(v, float):
        return f"{v:.4f}"
    return "" if v is None else str(v)


def json_rows(rows: list[tuple]) -> list[list]:
    """Rows as JSON values: numbers, text, booleans and nulls stay; NaN and infinities become null; anything
    else (dates, lists, decimals) its text."""
    def value(v: Any) -> Any:
        if v is None or isinstance(v, (bool, int, str)):
            return v
        if isinstance(v, float):
            return v if math.isfinite(v) else None
        return str(v)
    return [[value(v) for v in r] for r in rows]


# downloads ------------------------------------------------------------------------------------------------

def tables(out: Path) -> list[str]:
    """The tables the run's manifest lists (none before the sweep wrote its manifest)."""
    try:
        m = library.read_manifest(out)
    except (library.ResultsError, library.QueryError, OSError, ValueError):
        return []
    if not isinstance(m, dict):
        return []
    return [t for t in m.get("tables", ["games"]) if isinstance(t, str) and TABLE_NAME.fullmatch(t)]


def dataset(out: Path, table: str):
    """The table as a pyarrow dataset over the manifest's verified done parts (with the ``cell`` column)."""
    import pyarrow.dataset as ds
    files = library.table_sources(out)[table][0]
    return ds.dataset(files, format="parquet", partitioning="hive", partition_base_dir=str(out / table))


def write_parquet(out: Path, table: str, tmp: Path) -> Path:
    """The table written to one Parquet file under ``tmp`` (the caller streams it and removes it)."""
    import pyarrow.parquet as pq
    d = dataset(out, table)
    fd, name = tempfile.mkstemp(dir=tmp, suffix=".parquet")
    os.close(fd)
    try:
        with pq.ParquetWriter(name, d.schema) as w:
            for batch in d.to_batches():
                w.write_batch(batch)
    except BaseException:
        os.unlink(name)
        raise
    return Path(name)


def csv_chunks(out: Path, table: str, max_rows: int) -> Iterator[bytes]:
    """The table as CSV, batch by batch, at most ``max_rows`` rows (lists and structs as their text)."""
    d = dataset(out, table)
    names = d.schema.names
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(names)
    left = max_rows
    for batch in d.to_batches():
        if left <= 0:
            break
        part = batch.slice(0, left).to_pylist()
        left -= len(part)
        for row in part:
            w.writerow(["" if row[n] is None else row[n] for n in names])
        yield buf.getvalue().encode()
        buf.seek(0)
        buf.truncate()
    yield buf.getvalue().encode()


def count_rows(out: Path, table: str) -> int:
    return dataset(out, table).count_rows()


# HTML -------------------------------------------------------------------------------------------------------

def answer_html(a: Answer, limits: ConsoleLimits) -> str:
    if a.error:
        return f"<p class='error' id='answer-error'>{esc(a.error)}</p>"
    head = "".join(f"<th>{esc(c)}</th>" for c in a.columns)
    body = "".join("<tr>" + "".join(f"<td>{esc(cell(v))}</td>" for v in r) + "</tr>" for r in a.rows)
    note = (f"the first {limits.max_rows:,} rows are shown; the answer has more (the console's row cap)"
            if a.cut else f"{len(a.rows):,} row{'s' if len(a.rows) != 1 else ''}")
    said = "".join(f"<p class='note'>{esc(n)}</p>" for n in a.notes)
    return (f"<p id='answer-note'>{esc(note)} in {a.seconds:.2f} s</p>"
            f"<table id='answer'><tr>{head}</tr>{body}</table>{said}")


def console_page(job: dict, csrf: str, sql: str, answer: Answer | None, limits: ConsoleLimits) -> str:
    jid = esc(job["id"])
    out = (f"<p><a href='/runs/{jid}'>Back to the run</a> · <a href='/runs/{jid}/queries'>Canned queries</a></p>"
           "<p>One SELECT statement over this run's results: the view <code>games</code> (and <code>games_all</code>, "
           "the other tables of the run and the macros <code>wilson_low</code>, <code>wilson_high</code> ...). It runs "
           f"on a locked connection that reads only this run's files, for at most {limits.timeout:g} s and "
           f"{limits.memory_gib:g} GiB; at most {limits.max_rows:,} rows are shown. Files, ATTACH, settings, "
           "extensions and COPY are refused.</p>"
           f"<form method='post' action='/runs/{jid}/sql'>" + _hidden(csrf)
           + f"<label for='sql'>SQL</label><textarea id='sql' name='sql' rows='6'>{esc(sql)}</textarea>"
           "<p><button id='run-sql'>Run</button></p></form>")
    if answer is not None:
        out += answer_html(answer, limits)
    return out


def _hidden(csrf: str) -> str:
    return f"<input type='hidden' name='csrf' value='{esc(csrf)}'>"


def query_list(job: dict, qs: list[library.Query]) -> str:
    jid = esc(job["id"])
    rows = "".join(f"<tr><td><a href='/runs/{jid}/queries/{esc(q.name)}'>{esc(q.name)}</a></td><td>{esc(q.game)}</td>"
                   f"<td>{esc(q.question)}</td></tr>" for q in qs)
    return (f"<p><a href='/runs/{jid}'>Back to the run</a> · <a href='/runs/{jid}/sql'>SQL console</a></p>"
            "<p>The canned questions of <code>playtest query</code>, over this run's results.</p>"
            f"<table><tr><th>query</th><th>game</th><th>question</th></tr>{rows}</table>")


def query_page(job: dict, q: library.Query, given: dict[str, str], answer: Answer | None,
               limits: ConsoleLimits) -> str:
    jid = esc(job["id"])
    fields = ""
    for p in q.params.values():
        value = given.get(p.name, shown_default(p))
        fields += (f"<label for='p-{esc(p.name)}'>{esc(p.name)} ({esc(p.expected())}): {esc(p.help)}</label>"
                   f"<input type='text' id='p-{esc(p.name)}' name='{esc(p.name)}' value='{esc(value)}'>")
    out = (f"<p><a href='/runs/{jid}/queries'>All canned queries</a> · <a href='/runs/{jid}'>Back to the run</a></p>"
           f"<p id='question'>{esc(q.question)}</p>"
           f"<form method='get' action='/runs/{jid}/queries/{esc(q.name)}'>{fields}"
           "<input type='hidden' name='run' value='1'><p><button id='run-query'>Answer</button></p></form>")
    if answer is not None:
        out += answer_html(answer, limits)
    return out


def links(job: dict, table_names: list[str]) -> str:
    """The run page's links to its console, its canned queries and its downloads."""
    if not table_names:                 # no results yet (the sweep has not written its manifest)
        return ""
    jid = esc(job["id"])
    downloads = " ".join(f"{esc(t)} (<a href='/runs/{jid}/download/{esc(t)}.parquet'>Parquet</a>, "
                         f"<a href='/runs/{jid}/download/{esc(t)}.csv'>CSV</a>)" for t in table_names)
    return (f"<p id='results-links'><a id='sql-link' href='/runs/{jid}/sql'>SQL console</a> · "
            f"<a id='queries-link' href='/runs/{jid}/queries'>Canned queries</a>"
            f" · Download: {downloads}</p>")
