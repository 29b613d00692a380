"""Results in the page: a read-only SQL console per run, the canned queries as forms, and downloads of a run's tables.

Everything reads the run's folder through the query library (``queries.connection``): the console's text is checked
as one SELECT over the results' views (``check_select``) and run on the locked connection (``connect``: it can read
only the run's verified part files; no other file, ATTACH, setting or extension), with the service's time and memory
limit per statement and a cap on the rows fetched. A canned query's values are checked by the library's own binding
(``bind``) and bound, never pasted. A download is a table the run's manifest lists, read by pyarrow from the same
verified part files. No message shows a server path: the run's folder is "this run's results".

Cheap under load (docs/service.md, "Load"): a statement runs with one DuckDB thread (the other core stays the
sweep's); at most ``AT_ONCE`` statements run at once in the service (``Shared``: the others wait up to ``WAIT_S``,
then get 503 in one line); and an answer is kept (a small LRU) by (run, statement, the run's done parts): the same
statement over the same finished parts, which never change once done, is answered from memory."""

from __future__ import annotations

import csv
import hashlib
import io
import math
import os
import re
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from queries import connection, errors, sources, sqlfiles
from queries.variants import answer_per_variant
from infra import folder
from infra.storage import is_uri, shown
from service.live import lower_priority

CONSOLE = ("in the console", "the console runs")          # how a refusal says what runs (sqlfiles.check_select)
MAX_SQL = 20_000                                          # characters of console SQL
TABLE_NAME = re.compile(r"[a-z][a-z0-9_]{0,62}")           # a downloadable table's name (and the manifest's)
QUERY_NAME = re.compile(r"\w{1,64}")
FORMATS = {"parquet": "application/vnd.apache.parquet", "csv": "text/csv; charset=utf-8"}
OPTIONS = {"where": "filter the games first (as playtest query --where): one boolean expression over their columns, "
                    "e.g. players = 4 AND round_limit = 0; empty: every game",
           "pool": "sum over these variant columns on purpose (as --pool; comma-separated); empty: an answer per "
                   "value of every column that varies",
           "by": "answer per value of these variant columns (as --by; comma-separated), e.g. bots"}
THREADS = 1                                               # DuckDB threads per statement
AT_ONCE = max(1, min(2, (os.cpu_count() or 2) // 2))      # statements running at once in one service process
WAIT_S = 5.0                                              # how long a statement waits for its turn, at most
CACHE_ANSWERS = 64                                        # answers kept (each at most max_rows rows)
FRESH_S = 10.0                                            # while a run plays, its parts are looked at this often
STALE_S = 30.0                                            # while it plays, an older answer is shown this long at most


@dataclass(frozen=True)
class ConsoleLimits:
    """The service's limits on what a user's SQL may cost (Settings.console)."""
    timeout: float = connection.READ_ONLY_TIMEOUT        # seconds a statement may run
    memory_gib: float = connection.READ_ONLY_MEMORY_GIB  # memory the locked connection may use
    max_rows: int = 1000              # rows shown; the rest is never fetched
    csv_max_rows: int = 1_000_000     # rows of a CSV download
    cell_chars: int = 2000            # characters of one value shown; a longer one is cut, marked "... [cut: N ...]"
    max_bytes: int = 16 * 2**20       # bytes of an answer's rows as text; past them, one line instead of the answer

    def cap(self) -> connection.AnswerCap:
        return connection.AnswerCap(self.cell_chars, self.max_bytes)


@dataclass
class Answer:
    columns: list[str] = field(default_factory=list)
    rows: list[tuple] = field(default_factory=list)
    cut: bool = False                 # more rows than shown
    seconds: float = 0.0
    error: str = ""                   # one line; the page shows it instead of a table
    notes: list[str] = field(default_factory=list)   # lines said under the table (why it is empty, how split)
    busy: bool = False                # refused for now: AT_ONCE statements were running (503)
    cached: bool = False              # the kept answer of the same statement over the same done parts
    stale_s: float | None = None      # kept, made this long ago over fewer parts (the sweep plays on)


def parts_fingerprint(out: Path) -> tuple[str, bool] | None:
    """(a digest of the run's done parts as its manifest lists them: cell, batch, rows, each file's size and
    SHA-256; whether the sweep is still playing), None when the manifest cannot be read. A done part never
    changes, so the same digest means the same records."""
    try:
        m = sources.read_manifest(out)
    except (errors.ResultsError, errors.QueryError, OSError, ValueError):
        return None
    if not isinstance(m, dict):
        return None
    h = hashlib.sha256()
    for cell, batch, p in folder.done_parts(m):
        files = sorted((t, f.get("bytes"), f.get("sha256")) for t, f in (p.get("files") or {}).items())
        h.update(repr((cell, batch, p.get("rows"), p.get("bytes"), files)).encode())
    return h.hexdigest(), m.get("state") == "running"


@dataclass
class _Kept:
    parts: str                        # the done parts' digest it was made over (at least those)
    answer: Answer
    made: float                       # time.monotonic() when it was made


class Shared:
    """What the console's statements share in one service process: the gate (at most ``at_once`` statements
    run at once; a statement waits up to ``wait_s`` for its turn, else it is refused as busy) and the kept
    answers (an LRU of ``size``): per (run folder, what was asked, limits) the last answer and the done parts it
    was made over.

    ``fingerprint(out)`` gives (the run's done-parts digest, whether its sweep still plays) as the service's
    snapshot of the manifest knows it (service/live.py's Snapshots: while a run plays, at most ``FRESH_S`` old).
    The same digest: the kept answer. Another digest: a new answer, made now, over the parts done when it runs
    (those of the digest and any that finished since); except while the sweep still plays and the kept answer
    is under ``STALE_S`` old: that one is shown at once, marked as such, and the new one is made in the
    background (one at a time per statement, in the gate's turn). Errors are not kept: a time or memory limit met
    under load says nothing about the next try."""

    def __init__(self, fingerprint: Callable[[Path], tuple[str, bool] | None] | None = None, at_once: int = AT_ONCE,
                 wait_s: float = WAIT_S, size: int = CACHE_ANSWERS):
        self.fingerprint = fingerprint or parts_fingerprint
        self.at_once, self.wait_s, self.size = at_once, wait_s, size
        self.gate = threading.BoundedSemaphore(at_once)
        self._answers: OrderedDict = OrderedDict()
        self._making: set = set()     # keys whose fresher answer is being made in the background
        self._lock = threading.Lock()

    def kept(self, key: tuple) -> _Kept | None:
        with self._lock:
            got = self._answers.get(key)
            if got is not None:
                self._answers.move_to_end(key)
            return got

    def keep(self, key: tuple, parts: str | None, answer: Answer) -> None:
        if parts is None or answer.error:
            return
        with self._lock:
            self._answers[key] = _Kept(parts, answer, time.monotonic())
            self._answers.move_to_end(key)
            while len(self._answers) > self.size:
                self._answers.popitem(last=False)

    @staticmethod
    def shown(k: _Kept, stale: bool) -> Answer:
        a = k.answer
        return Answer(a.columns, a.rows, a.cut, a.seconds, notes=list(a.notes), cached=True,
                      stale_s=time.monotonic() - k.made if stale else None)

    def answer(self, out: Path, asked: tuple, limits: ConsoleLimits, work: Callable[[], Answer]) -> Answer:
        """The kept answer to ``asked`` over the run's done parts, else ``work()`` in its turn (or busy)."""
        got = self.fingerprint(out)
        parts, playing = got if got is not None else (None, False)
        key = (str(out), asked, limits)
        k = self.kept(key)
        if k is not None and k.parts == parts:
            return self.shown(k, False)
        if k is not None and playing and time.monotonic() - k.made < STALE_S:
            self._refresh(key, parts, work)
            return self.shown(k, True)
        if not self.gate.acquire(timeout=self.wait_s):
            return Answer(error=f"the console is busy: {self.at_once} statement{'s' if self.at_once != 1 else ''} "
                                f"running already (the most at once); try again in a few seconds", busy=True)
        try:
            k = self.kept(key)
            if k is not None and k.parts == parts:          # made while this one waited for its turn
                return self.shown(k, False)
            answer = work()
            self.keep(key, parts, answer)
            return answer
        finally:
            self.gate.release()

    def _refresh(self, key: tuple, parts: str | None, work: Callable[[], Answer]) -> None:
        """Make the answer over ``parts`` in a background thread, if no other is making it and a turn is free."""
        with self._lock:
            if key in self._making:
                return
            self._making.add(key)

        def made() -> None:
            try:
                lower_priority()
                if self.gate.acquire(blocking=False):
                    try:
                        self.keep(key, parts, work())
                    finally:
                        self.gate.release()
            finally:
                with self._lock:
                    self._making.discard(key)
        threading.Thread(target=made, name="console-refresh", daemon=True).start()


def _scrub(message: str, out: Path, job: str) -> str:
    """A library message without the server's paths: the run's folder is "this run's results"."""
    text = " ".join(str(message).split())
    seen = {str(out)} | ({shown(str(out))} if is_uri(out) else {str(Path(out).resolve())})
    for p in sorted(seen, key=len, reverse=True):
        text = text.replace(p + "/", "").replace(p, "this run's results")
    text = re.sub(r"the statement timeout \(--timeout SECONDS, at most [^)]*\)",
                  "the service's time limit per statement", text)
    text = text.replace(" (--memory-limit GIB)", ", the service's limit per statement")
    return text.replace("--read-only", "the console").replace(": --param: ", ": ")


def _connect(out: Path, job: str, where: str | None = None):
    return connection.connect([str(out)], where, names=[f"runs/{job}"], threads=THREADS)


def run_sql(out: Path, job: str, sql: str, limits: ConsoleLimits, shared: Shared | None = None) -> Answer:
    """One statement of the user's over the run's results, on the locked connection: the answer or one line.
    With ``shared``: the kept answer when there is one, else run in its turn (or refused as busy)."""
    if not sql.strip():
        return Answer(error="sql: the statement is empty; give one SELECT over the view games, e.g. "
                            "SELECT players, count(*) FROM games GROUP BY ALL")
    if len(sql) > MAX_SQL:
        return Answer(error=f"sql: the statement is {len(sql):,} characters; at most {MAX_SQL:,}")
    if shared is not None:
        return shared.answer(out, ("sql", job, sql.strip()), limits, lambda: _run_sql(out, job, sql, limits))
    return _run_sql(out, job, sql, limits)


def _run_sql(out: Path, job: str, sql: str, limits: ConsoleLimits) -> Answer:
    t0 = time.monotonic()
    try:
        with connection.limits(limits.timeout, limits.memory_gib):
            con = _connect(out, job)
            try:        # checked as one SELECT, its answer bounded as it is fetched (cut values, the byte cap)
                columns, rows = connection.execute_capped(con, sql, limits.cap(), where="sql", results=[str(out)],
                                                          max_rows=limits.max_rows + 1, how=CONSOLE)
            finally:
                con.close()
    except (errors.QueryError, errors.ResultsError) as e:
        return Answer(error=_scrub(str(e), out, job), seconds=time.monotonic() - t0)
    return Answer(columns, rows[:limits.max_rows], len(rows) > limits.max_rows, time.monotonic() - t0)


def capped_rows(rows: list[tuple], cap: connection.AnswerCap, where: str) -> list[tuple]:
    """A made answer's rows held to ``cap`` as a console answer is (a canned query's: its own SQL, its values from
    the records): each text value cut at ``cap.cell_chars`` characters, marked; past ``cap.max_bytes``, a QueryError
    of one line."""
    def cut(v: Any) -> Any:
        if isinstance(v, (str, bytes, list, tuple, dict)):
            text = v if isinstance(v, str) else str(v)
            if len(text) > cap.cell_chars:
                return f"{text[:cap.cell_chars]}{connection.CUT_MARK}{len(text)} characters]"
        return v
    out, size = [], 0
    for r in rows:
        row = tuple(cut(v) for v in r)
        size += connection.text_size(row)
        if size > cap.max_bytes:
            raise errors.QueryError(f"{where}: the answer is over {cap.max_bytes:,} bytes (the cap on an answer); "
                                    "ask for fewer rows (where, by)")
        out.append(row)
    return out


def queries() -> list[sqlfiles.Query]:
    """The canned queries, by name (the library's own list)."""
    return sqlfiles.available()


def canned(name: str) -> sqlfiles.Query | None:
    if not QUERY_NAME.fullmatch(name or ""):
        return None
    files = sqlfiles.canned_files()
    return sqlfiles.load(name) if name in files else None


def shown_default(p: sqlfiles.Param) -> str:
    return ",".join(map(str, p.default)) if isinstance(p.default, list) else str(p.default)


def query_options(query: sqlfiles.Query, given: dict[str, str]) -> tuple[dict[str, str], str | None, tuple, tuple]:
    """The form's values split into the query's parameters and ``playtest query``'s options (OPTIONS: ``where``,
    ``pool`` and ``by``, unless the query has a parameter of that name): (parameters, where or None, pool, by).
    ``pool`` and ``by`` are comma-separated column names."""
    params = dict(given)
    opts = {k: params.pop(k) for k in OPTIONS if k in params and k not in query.params}
    names = {k: tuple(dict.fromkeys(c.strip() for c in opts.get(k, "").split(",") if c.strip()))
             for k in ("pool", "by")}
    return params, opts.get("where", "").strip() or None, names["pool"], names["by"]


def run_query(out: Path, job: str, query: sqlfiles.Query, given: dict[str, str], limits: ConsoleLimits,
              shared: Shared | None = None) -> Answer:
    """A canned query with the form's values (checked and bound by the library), answered per variant as
    ``playtest query`` answers it, with its options: ``where`` (checked by the library's own filter check, as
    ``--where``), ``pool`` and ``by`` (variant columns, checked against the results, as ``--pool`` and ``--by``).
    With ``shared``: kept and gated as run_sql."""
    params, where, pool, by = query_options(query, given)
    try:
        values = sqlfiles.bind(query, params)
    except (errors.QueryError, errors.ResultsError) as e:
        return Answer(error=_scrub(str(e), out, job))
    if shared is not None:
        asked = ("query", job, query.name, repr(sorted(values.items())), where, pool, by)
        return shared.answer(out, asked, limits, lambda: _run_query(out, job, query, values, limits, where, pool, by))
    return _run_query(out, job, query, values, limits, where, pool, by)


def _run_query(out: Path, job: str, query: sqlfiles.Query, values: dict[str, Any], limits: ConsoleLimits,
               where: str | None = None, pool: tuple = (), by: tuple = ()) -> Answer:
    t0 = time.monotonic()
    try:
        with connection.limits(limits.timeout, limits.memory_gib):
            con = _connect(out, job, where)
            try:
                if sqlfiles.uses_seat_outcomes(query):
                    connection.add_seat_outcomes(con, [str(out)])
                columns, rows, variants = answer_per_variant(con, query, values, [str(out)], pool, by)
            finally:
                con.close()
        rows = capped_rows(rows[:limits.max_rows + 1], limits.cap(), f"query {query.name}")
    except (errors.QueryError, errors.ResultsError) as e:
        return Answer(error=_scrub(str(e), out, job), seconds=time.monotonic() - t0)
    notes = [_scrub(line, out, job).replace("--pool", "playtest query --pool") for line in variants.notes()]
    if not rows:
        notes.insert(0, query.why_empty(where))
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
        m = sources.read_manifest(out)
    except (errors.ResultsError, errors.QueryError, OSError, ValueError):
        return []
    if not isinstance(m, dict):
        return []
    return [t for t in m.get("tables", ["games"]) if isinstance(t, str) and TABLE_NAME.fullmatch(t)]


def dataset(out: Path, table: str):
    """The table as a pyarrow dataset over the manifest's verified done parts (with the ``cell`` column)."""
    import pyarrow.dataset as ds
    if is_uri(out):                  # object storage: the done parts read in place (the library's own reader)
        return sources.remote_sources(str(out))[table]
    files = sources.table_sources(out)[table][0]
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


# what a page says of an answer (service/templates/_answer.html) --------------------------------------------

def answer_said(a: Answer, limits: ConsoleLimits) -> dict[str, str]:
    """The lines under an answer's table: how many rows (or that the cap cut it), and whether it was kept."""
    note = (f"the first {limits.max_rows:,} rows are shown; the answer has more (the console's row cap)"
            if a.cut else f"{len(a.rows):,} row{'s' if len(a.rows) != 1 else ''}")
    kept = ("" if not a.cached else " (kept: the same statement over the same finished parts)" if a.stale_s is None
            else f" (kept from {a.stale_s:.0f} s ago, over the parts finished then; the sweep plays on and a newer "
                 "answer is being made: ask again)")
    return {"note": note, "kept": kept}
