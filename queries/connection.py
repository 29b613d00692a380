"""The DuckDB connection over result directories, and running a question on it.

The connection reads the Parquet parts in place (DuckDB's parallel scan; which parts: queries/sources.py); the
view ``games`` covers every part of every result given. By default the connection is *locked*
(docs/queries-security.md): it can read those files and nothing else, load no extension and change no
setting. A ``--where`` filter is data, not SQL text: it is parsed by DuckDB's own parser
(``json_serialize_sql``) and accepted only as one boolean expression over the games' columns, constants,
operators and an allow-list of functions (``infra.sql_expr.check_filter``).

Every statement runs in a worker thread (``interruptible``) that Ctrl-C and the statement timeout stop; the
locked connection has a memory limit and never spills to disk (``LIMITS``).

A query that reads ``seat_outcomes`` or ``bot_meetings`` (who won per seat, and bot against bot: the
ladder's queries) gets them made on its connection (``add_seat_outcomes``) from each game's
``sql/seats.sql``.
"""

from __future__ import annotations

import math
import os
import re
import threading
import time
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

from infra.sql_expr import FILTER_RULE, Refused, check_filter
from infra.storage import is_uri
from queries.errors import QueryError, ResultsError, one_line
from queries.sources import read_error, remote_sources, run_identity, table_sources
from queries.sqlfiles import (MEETINGS_VIEW, QUESTION_FILE, READ_ONLY, SEAT_VIEW, SEATS_SQL, Query, all_macros,
                              bind, check_select, load, only_select, uses_seat_outcomes)
from sim.games import GAMES


# DuckDB 2.0's window_self_join rewrite scans a CTE twice and applies a hive file filter (cell = 'c001') to
# one scan only: a filtered end_reasons summed every cell in its denominator (tests/queries/test_variants.py).
SAFE_CONFIG = {"disabled_optimizers": "window_self_join"}
# Every two seats of different sides in a game are a meeting of their bots: the row bot won it (its side
# won), lost it (the other's side won), drew it (nobody won: -1) or neither (a third side won: not counted).
# Seats of one bot against itself are left out. Outcomes are counted first, then expanded per seat pair.
# Parts written with infra.derived's bots_key and sides_key (the two lists as JSON text) are counted by those
# flat strings, read back into lists afterwards; games without them by the lists themselves.
KEYED = f"""SELECT * FROM (SELECT NULL::VARCHAR AS bots_key, NULL::VARCHAR AS sides_key WHERE false)
    UNION ALL BY NAME SELECT * FROM {SEAT_VIEW}"""
MEETINGS = f"""
CREATE OR REPLACE TEMP VIEW {MEETINGS_VIEW} AS
WITH keyed AS NOT MATERIALIZED (
    {KEYED}
), outcomes AS (
    SELECT bots_key::JSON::VARCHAR[] AS bots, sides_key::JSON::BIGINT[] AS seat_sides, winning_side, n
    FROM (SELECT bots_key, sides_key, winning_side, count(*) AS n FROM keyed
          WHERE bots_key IS NOT NULL GROUP BY ALL)           -- infra.derived writes both keys or neither
    UNION ALL
    SELECT bots, seat_sides, winning_side, count(*) AS n FROM keyed
    WHERE bots_key IS NULL GROUP BY ALL
), pairs AS (
    SELECT *, unnest(range(len(bots)::BIGINT)) AS b
    FROM (SELECT *, unnest(range(len(bots)::BIGINT)) AS a FROM outcomes)
)
SELECT bots[a + 1] AS bot, bots[b + 1] AS opponent,
       coalesce(sum(n) FILTER (WHERE winning_side = seat_sides[a + 1]), 0) AS wins,
       coalesce(sum(n) FILTER (WHERE winning_side = -1), 0) AS draws,
       coalesce(sum(n) FILTER (WHERE winning_side = seat_sides[b + 1]), 0) AS losses
FROM pairs
WHERE seat_sides[a + 1] <> seat_sides[b + 1] AND bots[a + 1] <> bots[b + 1]
GROUP BY ALL
"""


def _option_defaults_sql(cols: set[str]) -> str:
    """`` REPLACE (...)``: an engine option's column (sim.params) at its default in the rows of results written
    before the option existed (NULL there when read with newer results), so the same games read as one
    variant and compare across the two; rows of other games keep their value. "" when nothing to fill."""
    per_column: dict[str, list[str]] = {}
    for name in GAMES.names():
        for col, default in GAMES[name].engine_options.items():
            if col in cols:
                value = _literal(default) if isinstance(default, str) else str(int(default))
                per_column.setdefault(col, []).append(f"WHEN {_literal(name)} THEN coalesce({_ident(col)}, {value})")
    if not per_column or "game" not in cols:
        return ""
    return " REPLACE (" + ", ".join(f"CASE game {' '.join(whens)} ELSE {_ident(col)} END AS {_ident(col)}"
                                    for col, whens in per_column.items()) + ")"


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


# --- limits on a statement: time (a worker thread the main thread can interrupt) and memory (the locked
# connection) ---

STATEMENT_TIMEOUT = 300.0                 # seconds one statement may run (playtest query/sql --timeout)
MAX_TIMEOUT = 86400.0                     # a day
MIN_TIMEOUT = 1.0
MEMORY_SHARE = 0.5                        # of the machine's memory, the locked connection's default limit
READ_ONLY_TIMEOUT = 10.0                  # SQL one did not write (the web console, playtest sql --read-only):
READ_ONLY_MEMORY_GIB = 1.0                # its limits unless given
MIN_MEMORY_GIB = 0.25
POLL_S = 0.1                              # how often the main thread looks at a running statement
STOP_GRACE_S = 10.0                       # how long an interrupted statement has to stop
FETCH_ROWS = 10000                        # rows fetched at a time (a stop between two fetches)


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped a running statement; the message says which (a KeyboardInterrupt: exit code 130)."""


def machine_memory_gib() -> float:
    """The memory this process may use in GiB: the machine's physical memory, or its container's limit
    (cgroup v2 ``memory.max``) when lower; 16 when neither can be read."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        total = 16 * 2**30
    try:
        text = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        if text.isdigit() and 0 < int(text) < total:
            total = int(text)
    except OSError:
        pass
    return total / 2**30


@dataclass(frozen=True)
class Limits:
    """How long one statement may run and how much memory a locked connection may use."""
    timeout: float = STATEMENT_TIMEOUT    # seconds
    memory_gib: float | None = None       # None: MEMORY_SHARE of the machine's memory

    def memory(self) -> float:
        return self.memory_gib if self.memory_gib is not None else max(MIN_MEMORY_GIB,
                                                                          MEMORY_SHARE * machine_memory_gib())


LIMITS: ContextVar[Limits] = ContextVar("playtest_sql_limits", default=Limits())


def check_limits(timeout: float | None = None, memory_gib: float | None = None) -> Limits:
    """The limits ``--timeout`` and ``--memory-limit`` ask for, checked (a QueryError naming the flag)."""
    if timeout is not None and not (math.isfinite(timeout) and MIN_TIMEOUT <= timeout <= MAX_TIMEOUT):
        raise QueryError(f"--timeout {timeout:g}: expected seconds from {MIN_TIMEOUT:g} to {MAX_TIMEOUT:g}")
    most = max(MIN_MEMORY_GIB, machine_memory_gib())
    if memory_gib is not None and not (math.isfinite(memory_gib) and MIN_MEMORY_GIB <= memory_gib <= most):
        raise QueryError(f"--memory-limit {memory_gib:g}: expected GiB from {MIN_MEMORY_GIB:g} to {most:.1f} "
                         f"(this machine's memory)")
    return Limits(STATEMENT_TIMEOUT if timeout is None else float(timeout), memory_gib)


@contextmanager
def limits(timeout: float | None = None, memory_gib: float | None = None):
    """Statements run inside this block (execute) and locked connections made in it use these limits."""
    token = LIMITS.set(check_limits(timeout, memory_gib))
    try:
        yield LIMITS.get()
    finally:
        LIMITS.reset(token)


def interruptible(con, work, where: str):
    """``work()`` (statements on ``con``) run in a worker thread while this (the main) thread waits: on
    Ctrl-C (KeyboardInterrupt) or when the statement timeout passes it calls ``con.interrupt()`` and ends
    in one line: Interrupted (exit code 130) or a QueryError naming the timeout. DuckDB runs a statement in
    C++ where Python's signal handler cannot run, so without the thread Ctrl-C waits for the statement."""
    limit = LIMITS.get().timeout
    box: dict[str, Any] = {}
    stop, done = threading.Event(), threading.Event()    # not Thread.join: an interrupted join misreports

    def target() -> None:
        try:
            box["value"] = work(stop)
        except BaseException as e:        # noqa: BLE001 - handed to the main thread
            box["error"] = e
        finally:
            done.set()

    why = None
    try:
        worker = threading.Thread(target=target, name="playtest-sql", daemon=True)
        deadline = time.monotonic() + limit
        worker.start()
        while not done.is_set():
            left = deadline - time.monotonic()
            if left <= 0:
                why = "timeout"
                break
            done.wait(min(POLL_S, left))
    except KeyboardInterrupt:
        why = "interrupt"
    if why:
        stop.set()
        until = time.monotonic() + STOP_GRACE_S
        while not done.is_set() and time.monotonic() < until:
            con.interrupt()               # again until it stops: a statement that had not begun yet misses one
            done.wait(POLL_S)
        if why == "interrupt":
            raise Interrupted(f"{where}: interrupted (Ctrl-C); the statement was stopped")
        raise QueryError(f"{where}: stopped after {limit:g} s, the statement timeout (--timeout SECONDS, "
                         f"at most {MAX_TIMEOUT:g})")
    if "error" in box:
        raise box["error"]
    return box.get("value")


# --- the connection ---------------------------------------------------------------------------------------

def locked_connection(paths: Iterable[str], threads: int | None = None, arrow: dict[str, Any] | None = None):
    """A DuckDB connection that can read exactly ``paths`` (files) and nothing else: no other file, no
    extension install or load, no setting change. The settings are made before any user text is seen:
    ``allowed_paths`` (the files), then ``enable_external_access = false``, the memory limit (LIMITS) and no
    temporary directory (a statement that needs more memory fails; it never spills to disk), then
    ``lock_configuration``. ``arrow``: {name: Arrow dataset} registered first (results on object storage,
    read by pyarrow).

    DuckDB has no setting that makes ``allowed_paths`` read-only (``COPY ... TO`` a part would replace
    it), so no statement reaches this connection from user text unless it is one SELECT (only_select):
    the console's and question files' check every call and table too (check_select)."""
    import duckdb
    config: dict[str, Any] = {"autoinstall_known_extensions": False, "autoload_known_extensions": False,
                              "allow_community_extensions": False, "allow_unsigned_extensions": False,
                              "temp_directory": "",     # no spilling: DuckDB would write GiBs into ./.tmp
                              **SAFE_CONFIG}
    if threads:
        config["threads"] = threads
    con = duckdb.connect(config=config)
    try:
        for name, dataset in (arrow or {}).items():
            con.register(name, dataset)
        files = sorted(set(paths))
        if files:
            con.execute("SET allowed_paths = $paths", {"paths": files})
        con.execute("SET enable_external_access = false")
        con.execute("SET memory_limit = $m", {"m": f"{max(1, round(LIMITS.get().memory() * 1024))}MiB"})
        con.execute("SET lock_configuration = true")
    except BaseException:
        con.close()
        raise
    return con


def connect(results: Sequence[str | Path], where: str | None = None, threads: int | None = None,
            locked: bool = True, names: Sequence[str] | None = None):
    """A DuckDB connection with the Wilson macros, every game's own (all_macros) and one view per result table.

    ``games`` (and any other table the results hold, e.g. ``cards``) unions every given result; each
    row also has ``results`` (the path it came from) and ``cell`` (NULL for a single Parquet file).
    ``where`` filters the ``games`` view before any query sees it: one boolean expression over the games'
    columns (check_filter), never pasted unchecked. ``locked`` (the default, and always for the canned
    queries): the connection can read only these results' files (locked_connection); ``locked=False``
    is DuckDB with its full power, for ``playtest sql`` on one's own machine. ``names``: the ``results``
    value of each local result's rows instead of its path (the web console shows no server path).
    """
    import duckdb
    if not results:
        raise ResultsError("no results given; pass --results DIR (a sweep's output, a Parquet file or a glob)")
    per_table: dict[str, list[str]] = {}
    paths: list[str] = []
    remote: dict[str, Any] = {}          # results on object storage: Arrow datasets, registered by name
    mixed = False                        # a glob or loose folder, read by column name (its files may differ)
    sources = {}
    for i, r in enumerate(results):
        if is_uri(r):
            for table, dataset in remote_sources(str(r)).items():
                name = f"remote_{i}_{table}"
                remote[name] = dataset
                per_table.setdefault(table, []).append(f"SELECT *, {_literal(str(r))} AS results FROM {_ident(name)}")
            continue
        sources[i] = table_sources(r)
    labels = _paired_labels(results, sources)
    if names is not None:
        labels = {i: str(names[i]) for i in labels}
    for i, tables in sources.items():
        for table, (files, one_schema) in tables.items():
            paths += files
            mixed = mixed or not one_schema
            per_table.setdefault(table, []).append(
                f"SELECT *, {_literal(labels[i])} AS results FROM read_parquet([{', '.join(map(_literal, files))}], "
                f"hive_partitioning = true, union_by_name = {str(not one_schema).lower()})")
    if "games" not in per_table:
        raise ResultsError(f"{', '.join(map(str, results))}: no games table")
    if locked:
        con = locked_connection(paths, threads, remote)
    else:
        con = duckdb.connect(config={**SAFE_CONFIG, **({"threads": threads} if threads else {})})
        for name, dataset in remote.items():
            con.register(name, dataset)
    try:
        con.execute(all_macros())
        for table, selects in per_table.items():
            raw = f"{table}_all" if table == "games" else table
            try:
                con.execute(f"CREATE VIEW {_ident(raw + '_parts')} AS " + " UNION ALL BY NAME ".join(selects))
                cols = {row[0] for row in con.execute(f"DESCRIBE {_ident(raw + '_parts')}").fetchall()}
                cell = "" if "cell" in cols else ", NULL::VARCHAR AS cell"
                # a sweep's parts share one schema: only results read together may lack a column some have
                fill = _option_defaults_sql(cols) if table == "games" and (len(selects) > 1 or mixed) else ""
                con.execute(f"CREATE VIEW {_ident(raw)} AS SELECT *{fill}{cell} FROM {_ident(raw + '_parts')}")
            except duckdb.Error as e:
                raise read_error(e, results) or ResultsError(
                    f"{', '.join(map(str, results))}: cannot read the {table} records: {one_line(e)}") from None
        select = "SELECT * FROM games_all"
        if where is not None:
            columns = [row[0] for row in con.execute("DESCRIBE games_all").fetchall()]
            select = _filter(con, where, columns)
        try:
            con.execute("CREATE VIEW games AS " + select)
        except duckdb.Error as e:
            raise read_error(e, results) or QueryError(
                f"--where {_shown(str(where))}: {one_line(e)}; {FILTER_RULE}") from None
    except BaseException:
        con.close()
        raise
    return con


def _filter(con, where: str, columns: Sequence[str]) -> str:
    """The SELECT of the games view filtered by ``where`` (infra.sql_expr.check_filter); a refusal is a QueryError."""
    try:
        return check_filter(con, where, columns)
    except Refused as e:
        raise QueryError(f"--where {_shown(where)}: {e}; {FILTER_RULE}") from None


def _shown(where: str) -> str:
    """A filter as quoted in a message: its repr, cut short when long."""
    return repr(where) if len(where) <= 200 else repr(where[:200]) + " (cut)"


def _paired_labels(results: Sequence[str | Path], sources: dict[int, dict]) -> dict[int, str]:
    """The ``results`` value of each local result's rows: its own path, except a run's cards file (``--cards-out``),
    whose rows carry the path of the games file written with it, so the card queries join the two. A cards file
    whose games file is not among the results is a ResultsError naming what to add."""
    labels = {i: str(results[i]) for i in sources}
    games = {run_identity(results[i]): i for i, t in sources.items() if list(t) == ["games"]
             and len(t["games"][0]) == 1}
    for i, tables in sources.items():
        if list(tables) == ["cards"]:
            mate = games.get(run_identity(results[i]))
            if mate is None:
                raise ResultsError(f"{results[i]}: a per-card table (a run's --cards-out file); give the games file "
                                   f"written with it as another --results (playtest run ... --out GAMES "
                                   f"--cards-out {results[i]}: --results GAMES --results {results[i]})")
            labels[i] = str(results[mate])
    return labels


def execute(con, sql: str, params: dict[str, Any] | None = None, where: str = "SQL",
            results: Sequence[str | Path] = (), max_rows: int | None = None):
    """Run SQL with bound parameters; returns (column names, rows). DuckDB errors become QueryError (a part
    that cannot be read: ResultsError naming it and the repair). It runs in a worker thread (interruptible):
    Ctrl-C stops it (Interrupted), so does the statement timeout (LIMITS). ``max_rows``: fetch at most this
    many rows (the web console's cap; the rest is never fetched)."""
    import duckdb

    def work(stop: threading.Event):
        res = con.execute(sql, params or None)
        if res is None:
            return None
        if res.description is None:
            return [], []
        rows: list[tuple] = []
        while not stop.is_set():
            want = FETCH_ROWS if max_rows is None else min(FETCH_ROWS, max_rows - len(rows))
            chunk = res.fetchmany(want) if want > 0 else []
            if not chunk:
                break
            rows += chunk
        return [d[0] for d in res.description], rows

    try:
        out = interruptible(con, work, where)
    except duckdb.OutOfMemoryException as e:      # DuckDB's advice after "... used)" is SET, which is locked
        raise QueryError(f"{where}: {re.split(r'(?<=used[)]) ', one_line(e))[0][:300]}; the memory limit is "
                         f"{LIMITS.get().memory():.2f} GiB (--memory-limit GIB)") from None
    except (duckdb.Error, OverflowError) as e:
        raise read_error(e, results) or QueryError(f"{where}: {one_line(e)}") from None
    if out is None:
        raise QueryError(f"{where}: no statement to run (the SQL is empty or only comments)")
    return out


# --- an answer whose size is bounded as it is made (the web console's; queries/connection.execute_capped) ---

# DuckDB type ids whose values are short by nature (numbers, truth values, times): shown as they are; any other
# column (text, bytes, lists, structs, maps ...) is shown as text, each value cut at the cap
SHORT_TYPES = frozenset({"boolean", "tinyint", "smallint", "integer", "bigint", "hugeint", "utinyint", "usmallint",
                         "uinteger", "ubigint", "uhugeint", "float", "double", "decimal", "date", "time",
                         "time with time zone", "time_ns", "timestamp", "timestamp_s", "timestamp_ms", "timestamp_ns",
                         "timestamp with time zone", "interval", "uuid"})
CUT_MARK = "\u2026 [cut: "                 # a cut value ends "... [cut: N characters]"


@dataclass(frozen=True)
class AnswerCap:
    """How big an answer may get as it is fetched: each text value at most ``cell_chars`` characters (longer ones
    cut, marked ``... [cut: N characters]``), the rows at most ``max_bytes`` of text in all (a QueryError past it)."""
    cell_chars: int = 2000
    max_bytes: int = 16 * 2**20


def statement_text(sql: str) -> str:
    """One statement's text without what follows its last token (a semicolon, a comment, space), by DuckDB's own
    tokenizer: the statement as a subquery."""
    import duckdb
    end = len(sql)
    for start, kind in reversed(duckdb.tokenize(sql)):
        if kind == duckdb.token_type.comment or (kind == duckdb.token_type.operator and sql[start] == ";"):
            end = start
            continue
        break
    return sql[:end].rstrip()


def capped_sql(con, sql: str, cell_chars: int) -> str:
    """``sql`` (one checked SELECT) inside a SELECT of its columns by position, each column that is not of a
    SHORT_TYPES type as text cut at ``cell_chars`` characters (so no long value reaches Python)."""
    rel = con.sql(sql)
    cols = []
    for i, (name, kind) in enumerate(zip(rel.columns, rel.types), start=1):
        value = f"#{i}" if kind.id == "varchar" else f"CAST(#{i} AS VARCHAR)"
        if kind.id in SHORT_TYPES:
            cols.append(f"#{i} AS {_ident(name)}")
        else:
            cols.append(f"CASE WHEN length({value}) > {int(cell_chars)} THEN left({value}, {int(cell_chars)}) || "
                        f"{_literal(CUT_MARK)} || length({value}) || ' characters]' ELSE {value} END AS {_ident(name)}")
    return f"SELECT {', '.join(cols)} FROM (\n{statement_text(sql)}\n) AS answer"


def text_size(row: tuple) -> int:
    """The bytes a row takes as text (as JSON or a page shows it, near enough): its values' text and a separator."""
    return sum(4 + (len(v.encode()) if isinstance(v, str) else len(str(v))) for v in row)


def execute_capped(con, sql: str, cap: AnswerCap, where: str = "sql", results: Sequence[str | Path] = (),
                   max_rows: int | None = None, how: tuple[str, str] = READ_ONLY):
    """One SELECT (check_select, ``how`` saying where it runs) run as :func:`execute` runs it, its answer bounded
    as it is fetched (``cap``): long text values cut (capped_sql) and, past ``cap.max_bytes`` of rows, a QueryError
    of one line; a few rows are fetched at a time, so what Python holds is never much more than the cap. Returns
    (column names, rows)."""
    import duckdb
    check_select(con, sql, where, how)       # before DuckDB binds it: con.sql would run any other statement at once
    try:
        wrapped = capped_sql(con, sql, cap.cell_chars)
    except (duckdb.Error, OverflowError) as e:
        raise read_error(e, results) or QueryError(f"{where}: {one_line(e)}") from None
    check_select(con, wrapped, where, how)   # the statement that runs is checked too

    def work(stop: threading.Event):
        res = con.execute(wrapped)
        names = [d[0] for d in res.description]
        per_row = max(1, len(names)) * (4 * cap.cell_chars + 64)       # the most one row can take, cut
        at_once = max(1, min(FETCH_ROWS, cap.max_bytes // per_row))
        rows: list[tuple] = []
        size = 0
        while not stop.is_set():
            want = at_once if max_rows is None else min(at_once, max_rows - len(rows))
            chunk = res.fetchmany(want) if want > 0 else []
            if not chunk:
                break
            size += sum(map(text_size, chunk))
            if size > cap.max_bytes:
                raise QueryError(f"{where}: the answer is over {cap.max_bytes:,} bytes (the cap on an answer); "
                                 "ask for fewer rows or columns (LIMIT, GROUP BY) or shorter values (left(x, 100))")
            rows += chunk
        return names, rows

    try:
        return interruptible(con, work, where)
    except duckdb.OutOfMemoryException as e:
        raise QueryError(f"{where}: {re.split(r'(?<=used[)]) ', one_line(e))[0][:300]}; the memory limit is "
                         f"{LIMITS.get().memory():.2f} GiB (--memory-limit GIB)") from None
    except (duckdb.Error, OverflowError) as e:
        raise read_error(e, results) or QueryError(f"{where}: {one_line(e)}") from None


_ONE_SELECT: set[str] = set()            # canned queries' text that only_select passed (parsing needs no results)


def answer(con, query: Query, values: dict[str, Any], results: Sequence[str | Path]):
    """Run a parsed query on a connection; a failure names the query, the results and, when the records
    are of another game than the query's, says so. The SQL must be one SELECT statement; a question file's
    (``query.user``) may call only what check_select allows."""
    import duckdb
    label = f"query {query.name} over {', '.join(map(str, results))}"
    if query.user:
        check_select(con, query.sql, str(query.path), QUESTION_FILE)
    elif query.sql not in _ONE_SELECT:          # a canned query answered per variant is parsed once
        only_select(con, query.sql, label, QUESTION_FILE)
        _ONE_SELECT.add(query.sql)
    if re.search(r"\b(FROM|JOIN)\s+cards\b", query.sql, re.IGNORECASE) and not con.execute(
            "SELECT count(*) FROM duckdb_views() WHERE view_name = 'cards'").fetchone()[0]:
        raise QueryError(f"{label}: this query reads the per-card table, which these results do not hold; give a "
                         "sweep with tables = [\"games\", \"cards\"], or a run's --cards-out file beside its games "
                         "file (--results GAMES.parquet --results CARDS.parquet)")
    try:
        return execute(con, query.sql, values, where=label, results=results)
    except QueryError as e:
        if query.game != "any":
            try:
                games = sorted(str(g) for (g,) in con.execute("SELECT DISTINCT game FROM games").fetchall())
            except duckdb.Error:
                raise e from None
            if query.game not in games:
                raise QueryError(f"{label}: this query is for {query.game} records; these hold "
                                 f"{', '.join(games) or 'no games'}") from None
        raise e


def run(name: str, results: Sequence[str | Path], params: dict[str, Any] | None = None,
        where: str | None = None) -> tuple[list[str], list[tuple]]:
    """Answer the query ``name`` (or ``.sql`` path) over ``results``: (column names, rows)."""
    query = load(name)
    values = bind(query, params)
    con = connect(results, where)
    try:
        if uses_seat_outcomes(query):
            add_seat_outcomes(con, results)
        return answer(con, query, values, results)
    finally:
        con.close()


def add_seat_outcomes(con, results: Sequence[str | Path] = ()) -> None:
    """The views ``seat_outcomes``: every column of ``games`` plus ``seat_sides`` (each seat's side: seats of
    one side play together, seats of different sides against each other) and ``winning_side`` (-1: nobody
    won); and ``bot_meetings`` (bot, opponent, wins, draws, losses: MEETINGS). Each game says who won in
    its own ``sql/seats.sql``; the view unions those of the games present."""
    games = sorted(g for (g,) in execute(con, "SELECT DISTINCT game FROM games", where="results",
                                         results=results)[1])
    if not games:
        raise ResultsError(f"{', '.join(map(str, results))}: no games to read")
    selects = []
    for name in games:
        path = GAMES[name].sql_dir / SEATS_SQL if name in GAMES else None
        if path is None or not path.is_file():
            raise QueryError(f"{', '.join(map(str, results))}: {name} records do not say who won per seat "
                             f"(no {SEATS_SQL} in the game's sql folder)")
        body = "\n".join(line for line in path.read_text().splitlines() if not line.lstrip().startswith("--"))
        # every game's SELECT reads ``games``; a mix of games reads each one's own rows
        selects.append(f"SELECT * FROM ({body.strip().rstrip(';')}) WHERE game = {_literal(name)}")
    execute(con, f"CREATE OR REPLACE TEMP VIEW {SEAT_VIEW} AS " + " UNION ALL BY NAME ".join(selects),
            where="seat outcomes", results=results)
    execute(con, MEETINGS, where="bot meetings", results=results)
