"""The SQL question library: canned SQL files and a DuckDB connection over result directories.

The canned questions are the game-agnostic ``queries/*.sql`` beside this module and every registered
game's own (``sql/queries/*.sql`` in its package, found through :data:`sim.games.GAMES`). Each SQL file
opens with a comment header (the aiosql pattern)::

    -- name: stall_rate
    -- Share of games that stall or end by the round limit, ... (the question, one or more lines)
    -- game: <the game whose records it reads, or any>
    -- param: limits int[] >= 1 <= 1000 = 15,20,25,30 | round limits to try
    -- param: kind str in (creature, equipment, any) = any | which cards
    -- columns: ruleset, board, ..., ci95_high

``param`` values are bound as DuckDB ``$name`` parameters, never pasted into the SQL; a parameter may
declare a range (``>= N``, ``<= N``; for ``int[]`` each element) or, for ``str``, its choices (``in (...)``),
and every type has a sane default range (integers fit DuckDB's INTEGER, floats are finite). A column listed
with a trailing ``?`` appears only when the results have it (game-agnostic queries group by whichever
setup columns the game records).

The connection reads the Parquet parts in place (DuckDB's parallel scan); the view ``games`` covers every
part of every result given. For a sweep's results directory (one with ``manifest.json``) it reads exactly
the parts the manifest lists as done, after checking that each is there with its recorded size; for a loose
folder, a single Parquet file or a glob it reads the Parquet files found. By default the connection is
*locked* (docs/queries-security.md): it can read those files and nothing else, load no extension and change
no setting. A ``--where`` filter is data, not SQL text: it is parsed by DuckDB's own parser
(``json_serialize_sql``) and accepted only as one boolean expression over the games' columns, constants,
operators and an allow-list of functions (``check_filter``).

A ``.sql`` file given by path (a question file) is untrusted text too: it must be one SELECT statement
(``only_select``), and it may read only the connection's own views and call only pure functions
(``check_select``), as ``playtest sql --read-only`` may. Every statement runs in a worker thread
(``interruptible``) that Ctrl-C and the statement timeout stop; the locked connection has a memory
limit and never spills to disk (``LIMITS``).

A query that reads ``seat_outcomes`` or ``bot_meetings`` (who won per seat, and bot against bot: the
ladder's queries) gets them made on its connection (``add_seat_outcomes``) from each game's
``sql/seats.sql``.
"""

from __future__ import annotations

import functools
import glob
import math
import os
import re
import shlex
import threading
import time
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterable, Sequence

from infra import folder
from sim.files import read_text_bounded
from infra.storage import StorageError, is_uri, open_location, shown
from sim.games import GAMES
from infra.sql_expr import (Allowed, ExprCheck, Refused, SelectAllowed, SelectCheck, refuse_comments_and_statements,
                          serialize, strip_locations)

QUERY_DIR = Path(__file__).parent            # the game-agnostic questions; each game brings its own
MANIFEST = "manifest.json"
MANIFEST_FORMAT = 1

# Wilson score interval (z = 1.959964: 95%); n = 0 gives NULL. Created on every connection, with every
# registered game's own macros (all_macros).
MACROS = """
CREATE OR REPLACE MACRO wilson_low(k, n, z := 1.959963984540054) AS
    CASE WHEN n > 0 THEN greatest(0.0, ((k::DOUBLE / n + z * z / (2 * n))
        - z * sqrt((k::DOUBLE / n) * (1 - k::DOUBLE / n) / n + z * z / (4.0 * n * n))) / (1 + z * z / n)) END;
CREATE OR REPLACE MACRO wilson_high(k, n, z := 1.959963984540054) AS
    CASE WHEN n > 0 THEN least(1.0, ((k::DOUBLE / n + z * z / (2 * n))
        + z * sqrt((k::DOUBLE / n) * (1 - k::DOUBLE / n) / n + z * z / (4.0 * n * n))) / (1 + z * z / n)) END;
"""
# DuckDB 2.0's window_self_join rewrite scans a CTE twice and applies a hive file filter (cell = 'c001') to
# one scan only: a filtered end_reasons summed every cell in its denominator (tests/queries/test_variants.py).
SAFE_CONFIG = {"disabled_optimizers": "window_self_join"}
SEAT_VIEW = "seat_outcomes"     # games with each seat's side and the winning side (add_seat_outcomes)
MEETINGS_VIEW = "bot_meetings"  # per ordered pair of bots on opposing seats: wins, draws, losses
RESERVED_VIEWS = frozenset(["games_all", "games_unsplit", "variant_values", SEAT_VIEW, MEETINGS_VIEW])
SEATS_SQL = "seats.sql"         # each game's SELECT behind seat_outcomes: sim/<game>/sql/seats.sql
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

PARAM_TYPES = {"int": "an integer", "float": "a number", "str": "a string",
               "int[]": "a comma-separated list of integers"}
INT_MIN, INT_MAX = -2**31, 2**31 - 1      # DuckDB INTEGER: every int parameter fits, whatever its declared range
MAX_LIST, MAX_STR = 1000, 1000            # elements of an int[] parameter, characters of a str one


class QueryError(ValueError):
    """A bad query name, parameter, filter or SQL; the message says which and what is allowed."""


class ResultsError(ValueError):
    """A results path that is missing, empty, corrupt or unreadable; the message names it (and the repair)."""


@dataclass(frozen=True)
class Param:
    name: str
    type: str
    default: Any
    help: str
    low: float | None = None                 # declared bounds (inclusive); int[]: each element
    high: float | None = None
    choices: tuple[str, ...] = ()            # str: the allowed values (none: any string)

    def expected(self) -> str:
        """What a value must be, in words: its type and declared range or choices."""
        if self.choices:
            return " or ".join(filter(None, [", ".join(self.choices[:-1]), self.choices[-1]]))
        bounds = [f">= {_num(self.low)}" if self.low is not None else "",
                  f"<= {_num(self.high)}" if self.high is not None else ""]
        bounds = " and ".join(b for b in bounds if b)
        if not bounds:
            return PARAM_TYPES[self.type]
        return f"{PARAM_TYPES[self.type]}{', each' if self.type == 'int[]' else ''} {bounds}"


@dataclass(frozen=True)
class Query:
    """One SQL file: its name, question, game, parameters, output columns and text."""

    name: str
    question: str
    game: str
    params: dict[str, Param]
    columns: tuple[str, ...]
    sql: str
    path: Path
    fixed: tuple[str, ...] = ()      # columns the query picks a value of itself (a WHERE on them): never split
    user: bool = False               # a .sql file given by path (untrusted text), not a canned query
    empty: str = ""                  # why it may answer nothing (its header's "-- empty:" line)

    def why_empty(self, where: str | None = None) -> str:
        """The one line said when the query answers no rows: its header's reason, or the general one."""
        why = self.empty or "no game of these results is one this query reads"
        return f"query {self.name} answers nothing: {why}" + (f" (after --where {where!r})" if where else "")


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def parse_value(p: Param, text: str, where: str) -> Any:
    """A parameter value from its text form, by the declared type, range and choices."""
    def bad() -> QueryError:
        return QueryError(f"{where}: {p.name} = {text!r} is not allowed; expected {p.expected()}")

    def in_range(v: float) -> bool:
        return (p.low is None or v >= p.low) and (p.high is None or v <= p.high)

    text = str(text)
    try:
        if p.type == "int":
            value = int(text)
            if not INT_MIN <= value <= INT_MAX or not in_range(value):
                raise bad()
            return value
        if p.type == "float":
            value = float(text)
            if not math.isfinite(value) or not in_range(value):
                raise bad()
            return value
        if p.type == "int[]":
            values = [int(v) for v in text.split(",") if v.strip()]
            if not values or len(values) > MAX_LIST or not all(INT_MIN <= v <= INT_MAX and in_range(v)
                                                                for v in values):
                raise bad()
            return values
        if len(text) > MAX_STR or (p.choices and text not in p.choices):
            raise bad()
        return text
    except ValueError as e:
        if isinstance(e, QueryError):
            raise
        raise bad() from None


_PARAM_LINE = re.compile(r"(\w+)\s+(int\[\]|int|float|str)((?:\s*(?:>=|<=)\s*-?\d+(?:\.\d+)?|\s+in\s*\([^)]*\))*)"
                         r"\s*=\s*([^|]*?)\s*\|\s*(.*)")


def _param(line: str, path: Path) -> Param:
    m = _PARAM_LINE.fullmatch(line)
    if not m:
        raise QueryError(f"{path}: bad param line {line!r}; expected 'param: NAME TYPE [>= LOW] [<= HIGH] = DEFAULT "
                         f"| help' (str: 'in (a, b)' for choices) with TYPE one of {', '.join(PARAM_TYPES)}")
    low = high = None
    choices: tuple[str, ...] = ()
    for op, num, options in re.findall(r"(>=|<=)\s*(-?\d+(?:\.\d+)?)|in\s*\(([^)]*)\)", m[3]):
        if op == ">=":
            low = float(num)
        elif op == "<=":
            high = float(num)
        else:
            choices = tuple(c.strip() for c in options.split(",") if c.strip())
    if choices and m[2] != "str":
        raise QueryError(f"{path}: bad param line {line!r}; only a str parameter has choices ('in (...)')")
    if (low is not None or high is not None) and m[2] == "str":
        raise QueryError(f"{path}: bad param line {line!r}; a str parameter has choices, not a range")
    p = Param(m[1], m[2], None, m[5], low, high, choices)
    return Param(p.name, p.type, parse_value(p, m[4], str(path)), p.help, low, high, choices)


HEADER_KEYS = ("name", "game", "kind", "unit", "columns", "fixed", "param", "empty")   # "-- key: value" lines


@dataclass(frozen=True)
class SqlHeader:
    """The opening ``--`` comment of a SQL file: its ``key: value`` lines and the rest (its question)."""

    values: dict[str, str]            # name, game, kind, unit, columns, fixed: as written, stripped
    params: tuple[str, ...]           # every ``param:`` line, in order
    question: str                     # the other comment lines, joined

    def names(self, key: str) -> tuple[str, ...]:
        """A comma-separated header value (``columns``, ``fixed``) as a tuple."""
        return tuple(c.strip() for c in self.values.get(key, "").split(",") if c.strip())


def sql_header(text: str) -> SqlHeader:
    """The header of a SQL file's text: the comment lines before its first line of SQL.

    The one parser of these headers: canned queries here, the regression's metric families too."""
    values: dict[str, str] = {}
    params, question = [], []
    for line in text.splitlines():
        if not line.startswith("--"):
            break
        line = line[2:].strip()
        key, sep, rest = line.partition(":")
        if sep and key in HEADER_KEYS:
            if key == "param":
                params.append(rest.strip())
            else:
                values[key] = rest.strip()
        elif line:
            question.append(line)
    return SqlHeader(values, tuple(params), " ".join(question))


def parse_sql_file(path: Path, game: str = "any") -> Query:
    """Read one SQL file and its header. A file with no header is an ad hoc query named after its stem;
    ``game`` is the game its header names when it names none (a game's own query: that game)."""
    text = read_text_bounded(path, "SQL file", QueryError)
    head = sql_header(text)
    params = {}
    for line in head.params:
        p = _param(line, path)
        params[p.name] = p
    return Query(head.values.get("name", path.stem), head.question, head.values.get("game", game), params,
                 head.names("columns"), text, path, head.names("fixed"), empty=head.values.get("empty", ""))


def canned_files() -> dict[str, tuple[Path, str]]:
    """Every canned query by name (its file's stem): (file, the game it is for or "any"), by name.

    The game-agnostic ones beside this module, then each registered game's own."""
    found = {p.stem: (p, "any") for p in sorted(QUERY_DIR.glob("*.sql"))}
    for game in GAMES.names():
        for p in GAMES[game].query_files():
            if p.stem in found:
                raise QueryError(f"{p}: a canned query named {p.stem!r} exists already ({found[p.stem][0]}); "
                                 f"every canned query needs a name of its own")
            found[p.stem] = (p, game)
    return dict(sorted(found.items()))


def available() -> list[Query]:
    """Every canned query, by name."""
    return [parse_sql_file(path, game) for path, game in canned_files().values()]


def load(name: str) -> Query:
    """A canned query by name, or any ``.sql`` file by path (a question file: it must hold one SELECT
    statement, as the canned queries do, checked here before any results are read; ``answer`` checks
    what it calls and reads on the results' connection)."""
    if name.endswith(".sql") or "/" in name:
        path = Path(name)
        if not path.is_file():
            raise QueryError(f"{name}: no such SQL file")
        query = replace(parse_sql_file(path), user=True)
        con = _parser()
        try:
            only_select(con, query.sql, str(path), QUESTION_FILE)
        finally:
            con.close()
        return query
    files = canned_files()
    if not re.fullmatch(r"\w+", name) or name not in files:
        raise QueryError(f"unknown query {name!r}; available: {', '.join(q.name for q in available())}")
    return parse_sql_file(*files[name])


@functools.lru_cache(maxsize=1)
def all_macros() -> str:
    """The macros every connection gets: the Wilson interval and every registered game's own."""
    return MACROS + "".join(GAMES[game].sql_macros() for game in GAMES.names())


def macro_names() -> frozenset[str]:
    return frozenset(name.lower() for name in re.findall(r"MACRO (\w+)", all_macros()))


def bind(query: Query, given: dict[str, Any] | None) -> dict[str, Any]:
    """Defaults overlaid with the given values (text or typed), checked against the declared parameters."""
    given = dict(given or {})
    for k in given:
        if k not in query.params:
            allowed = ", ".join(query.params) or "none"
            raise QueryError(f"query {query.name}: unknown parameter {k!r}; its parameters: {allowed}")
    values = {}
    for k, p in query.params.items():
        v = given.get(k, p.default)
        values[k] = parse_value(p, ",".join(map(str, v)) if isinstance(v, (list, tuple)) else str(v),
                                f"query {query.name}: --param")
    return values


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


# ---------------------------------------------------------------------------------------------------
# Which files to read: a sweep's verified parts (manifest), or the Parquet files of a loose folder/glob
# ---------------------------------------------------------------------------------------------------

_TABLE_NAME = re.compile(r"[A-Za-z_]\w*")


@functools.lru_cache(maxsize=1)
def _keywords() -> frozenset[str]:
    import duckdb
    con = duckdb.connect()
    try:
        return frozenset(k for (k,) in con.execute(
            "SELECT lower(keyword_name) FROM duckdb_keywords() WHERE keyword_category <> 'unreserved'").fetchall())
    finally:
        con.close()


def table_name_ok(name: str) -> bool:
    """A table folder the connection can turn into a view without touching its own views: an identifier,
    not a SQL keyword, not ``games_all`` or ``*_parts`` (the raw views) and not a macro's name."""
    low = name.lower()
    return bool(_TABLE_NAME.fullmatch(name)) and low not in _keywords() and low not in RESERVED_VIEWS \
        and not low.endswith("_parts") and low not in macro_names()


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def read_manifest(root: str | Path) -> dict[str, Any] | None:
    """The sweep manifest in a results directory (read by the one bounded reader, ``infra.folder``), None if there
    is none; a broken or unsafe one is a ResultsError of one line."""
    got = _read_manifest(root)
    return None if got is None else got.data


def _read_manifest(root: str | Path) -> folder.Manifest | None:
    try:
        got = folder.read_manifest(root)
    except folder.FolderError as e:
        raise ResultsError(str(e)) from None
    if got is not None and got.signature == folder.BROKEN:     # edited by hand after the sweep signed it
        raise ResultsError(f"{got.where}: its signature does not match its content (edited after the sweep saved "
                           f"it), so it cannot say which parts the sweep wrote; {repair_hint(root, got.data)}")
    return got


def repair_hint(root: str | Path, manifest: dict[str, Any] | None) -> str:
    spec = (manifest or {}).get("spec_file") or "SPEC"
    d = shlex.quote(str(root))
    return f"repair with: playtest status --verify {d}, then playtest sweep {shlex.quote(str(spec))} --out {d} --resume"


def corrupt_message(root: str | Path, manifest: dict[str, Any] | None, parts: Sequence[str],
                    why: str = "") -> str:
    listed = ", ".join(parts[:5]) + (f", and {len(parts) - 5} more" if len(parts) > 5 else "")
    return (f"{root}: {len(parts)} corrupt or missing part(s) ({listed}){why}; {repair_hint(root, manifest)}")


def sweep_files(root: str | Path, manifest: dict[str, Any] | folder.Manifest, listed: dict[str, int] | None = None
                ) -> dict[str, list[str]]:
    """{table: [part file, ...]} of a sweep's done parts, in (cell, batch) order, each checked by the one bounded
    reader (``infra.folder.part_files``): a regular file inside the folder with the size and SHA-256 the manifest
    records (each file hashed once, remembered outside the folder); a part that differs is a ResultsError
    naming it and the repair commands.

    ``listed``: for results on object storage, {relative path: size} of its objects; the parts are then given
    by their relative paths and checked by size."""
    read = manifest if isinstance(manifest, folder.Manifest) else folder.Manifest(manifest, str(root))
    m = read.data
    tables = [t for t in m.get("tables", ["games"]) if table_name_ok(t)]
    if listed is None:
        files, bad = folder.part_files(root, read, tables)
    else:
        files, bad = {t: [] for t in tables}, []
        for cell, batch, p in folder.done_parts(m):
            recorded = p.get("files") or {}
            rels = {t: folder.part_rel(t, cell, batch) for t in m.get("tables", ["games"])}
            for t, rel in rels.items():
                size, want = listed.get(rel), (recorded.get(t) or {}).get("bytes")
                if size is None or (want is not None and want != size):
                    bad.append((rel, "missing" if size is None else f"{size:,} bytes; the manifest records {want:,}"))
                elif t in files:
                    files[t].append(rel)
            if not recorded and p.get("bytes", 0) > 0 and all(r in listed for r in rels.values()) \
                    and sum(listed[r] for r in rels.values()) != p["bytes"]:
                bad += [(r, "its size differs from the manifest's") for r in rels.values()]
    if bad:
        why = bad[0][1] if len(bad) == 1 else f"the first, {bad[0][0]}: {bad[0][1]}"
        raise ResultsError(corrupt_message(root, m, [rel for rel, _ in bad], f" ({why})"))
    if not folder.done_parts(m):
        raise ResultsError(f"{root}: the sweep has no finished parts yet (state {m.get('state')!r}); "
                           f"nothing to answer from")
    return files


def _parquet_files(pattern: str) -> list[str]:
    return sorted(os.path.abspath(f) for f in glob.glob(pattern, recursive=True) if os.path.isfile(f))


def table_sources(result: str | Path) -> dict[str, tuple[list[str], bool]]:
    """{table: (Parquet files, one schema)} for one results directory, Parquet file or glob.

    A sweep's directory (``manifest.json``) gives the done parts of the manifest's tables (sweep_files).
    A sweep's parts of one table share one schema (one game), so DuckDB binds them from the first part;
    a glob or a loose folder may mix games and is unioned by column name (slower to open). Table folders
    whose names could collide with the connection's own views or SQL (table_name_ok) are left out.
    """
    text = str(result)
    if any(ch in text for ch in "*?[") and not os.path.lexists(text):     # a folder named "a[1]" is a folder
        files = _parquet_files(text)
        if not files:
            raise ResultsError(f"{text}: no Parquet files match this pattern")
        return {"games": (files, False)}
    path = Path(text)
    if path.is_file():
        return {file_table(path): ([os.path.abspath(path)], True)}
    if not path.is_dir():
        raise ResultsError(f"{text}: no such results directory or Parquet file")
    manifest = _read_manifest(path)
    if manifest is not None:
        return {t: (files, True) for t, files in sweep_files(text, manifest).items()}
    tables = {}
    for t in sorted(path.iterdir()):
        if t.is_dir() and table_name_ok(t.name):
            files = _parquet_files(glob.escape(str(t)) + "/*/*.parquet")
            if files:
                tables[t.name] = (files, True)
    if "games" in tables:
        return tables
    files = _parquet_files(glob.escape(str(path)) + "/**/*.parquet")
    if files:
        return {"games": (files, False)}
    raise ResultsError(f"{text}: no game records here (expected {text}/games/cell=<id>/part-<n>.parquet "
                       f"or *.parquet files)")


RUN_KEYS = (b"playtest.game", b"playtest.seed", b"playtest.engine", b"playtest.rules_digest", b"playtest.cards_digest")


def _footer(path: str | Path) -> tuple[list[str], dict[bytes, bytes]]:
    """(column names, key-value metadata) of a Parquet file; ([], {}) when it cannot be read (DuckDB says why)."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    try:
        schema = pq.read_schema(path)
    except (OSError, pa.ArrowException, ValueError):
        return [], {}
    return schema.names, dict(schema.metadata or {})


def file_table(path: str | Path) -> str:
    """Which table one Parquet file of ``playtest run`` holds: "cards" for the per-card file its ``--cards-out``
    wrote (its columns are its game's card table's), else "games"."""
    names, meta = _footer(path)
    game = GAMES.get(meta.get(b"playtest.game", b"").decode(errors="replace"))
    if game is not None and "cards" in game.schemas and names == game.schemas["cards"].names:
        return "cards"
    return "games"


def run_identity(path: str | Path) -> tuple | None:
    """What pairs a run's games file with its cards file: the game, seed, engine and digests both footers carry."""
    meta = _footer(path)[1]
    got = tuple(meta.get(k) for k in RUN_KEYS)
    return got if all(got) else None


def remote_sources(result: str) -> dict[str, Any]:
    """{table: pyarrow dataset} of a sweep's done parts on object storage (``s3://bucket/prefix``), read in place:
    the parts the manifest lists as done, each checked to be there with its recorded size (as sweep_files)."""
    import pyarrow as pa
    import pyarrow.dataset as pads
    try:
        loc = open_location(result)
        m = _read_manifest(result)
        if m is None:
            raise ResultsError(f"{loc.name()}: no sweep here (no {MANIFEST}); results on object storage are read "
                               "through their sweep manifest")
        files = sweep_files(loc.name(), m, loc.files())
        cell = pads.partitioning(pa.schema([("cell", pa.string())]), flavor="hive")
        return {t: pads.dataset([loc.path(r) for r in rels], filesystem=loc.fs, format="parquet", partitioning=cell,
                                partition_base_dir=loc.path(t))
                for t, rels in files.items()}
    except StorageError as e:
        raise ResultsError(str(e)) from None
    except (OSError, pa.ArrowException) as e:
        raise ResultsError(f"{result}: cannot read the parts ({one_line(e)})") from None


def sweep_notes(results: Sequence[str | Path]) -> list[str]:
    """A line for each results directory whose sweep manifest says it is not finished (answers are partial), and
    one for each whose parts only the folder itself vouches for (no signature of this machine's: infra.folder)."""
    notes = []
    for r in results:
        try:
            got = folder.read_manifest(r) if is_uri(r) or Path(r).is_dir() else None
        except folder.FolderError:
            continue          # refused where the parts are read, in one line
        if got is None:
            continue          # no manifest (a plain Parquet file or folder)
        m = got.data
        if m.get("state") != "done":
            parts = [p for c in m["cells"] for p in c["parts"] if p["state"] != folder.BEYOND]
            done = sum(p["state"] == "done" for p in parts)
            notes.append(f"{r}: the sweep is {m.get('state')!r} ({done} of {len(parts)} parts done); "
                         f"the answer covers the parts written so far")
        if (note := got.note()) is not None:
            notes.append(note)
    return notes


# ---------------------------------------------------------------------------------------------------
# The --where filter: one boolean expression, checked on DuckDB's own parse tree
# ---------------------------------------------------------------------------------------------------

FILTER_EXAMPLE = "board = 'explorer' AND players = 4"
FILTER_RULE = f"a filter is one boolean expression over the games' columns, e.g. \"{FILTER_EXAMPLE}\""
FILTER_MAX_CHARS = 4000
FILTER_MAX_DEPTH = 64                     # nested operators: beyond any real filter, within Python's stack
# scalar functions a filter may call (no table, aggregate, window, file, setting or macro functions)
FILTER_FUNCTIONS = frozenset("""
    abs sign round floor ceil ceiling sqrt greatest least coalesce ifnull nullif
    lower upper lcase ucase length len strlen starts_with ends_with prefix suffix contains substring substr
    trim ltrim rtrim concat regexp_matches
    list_value list_contains list_has array_contains list_has_any list_has_all list_position list_indexof
    list_sum list_max list_min list_avg list_count list_distinct list_unique list_sort list_reverse
    list_extract list_element array_length
""".split())
# operators DuckDB's parser turns into function calls: arithmetic, ||, LIKE/ILIKE (~~, ~~*), NOT LIKE ...
FILTER_OPERATORS = frozenset(["+", "-", "*", "/", "//", "%", "**", "^", "||", "~~", "!~~", "~~*", "!~~*",
                              "like_escape", "not_like_escape", "ilike_escape", "not_ilike_escape"])
FILTER_COMPARISONS = frozenset(["COMPARE_EQUAL", "COMPARE_NOTEQUAL", "COMPARE_LESSTHAN", "COMPARE_GREATERTHAN",
                                "COMPARE_LESSTHANOREQUALTO", "COMPARE_GREATERTHANOREQUALTO",
                                "COMPARE_DISTINCT_FROM", "COMPARE_NOT_DISTINCT_FROM"])
FILTER_OPERATOR_TYPES = frozenset(["OPERATOR_NOT", "OPERATOR_IS_NULL", "OPERATOR_IS_NOT_NULL", "COMPARE_IN",
                                   "COMPARE_NOT_IN", "ARRAY_EXTRACT", "ARRAY_SLICE", "OPERATOR_COALESCE"])
FILTER_CAST_TYPES = frozenset("""
    boolean bool tinyint smallint integer int int2 int4 int8 bigint hugeint utinyint usmallint uinteger ubigint
    float real float4 double float8 decimal numeric varchar text string date list
""".split())
FILTER_ALLOWED = Allowed(functions=FILTER_FUNCTIONS, operators=FILTER_OPERATORS,
                         operator_types=FILTER_OPERATOR_TYPES, cast_types=FILTER_CAST_TYPES,
                         max_depth=FILTER_MAX_DEPTH, where=" in a filter", comparisons=FILTER_COMPARISONS)


def check_filter(con, where: str, columns: Sequence[str], source: str = "games_all") -> str:
    """The SELECT over ``source`` that ``where`` filters, after checking that ``where`` is one boolean
    expression over ``columns``; anything else is a QueryError of one line.

    DuckDB's own parser reads the text exactly as it will run (``SELECT * FROM source WHERE (<where>)``,
    serialized by ``json_serialize_sql``); it must be one SELECT statement identical to the bare
    ``SELECT * FROM source`` but for its WHERE clause, and that clause may hold only column references
    (of ``columns``), constants, comparisons, AND/OR/NOT, IS NULL, IN lists, BETWEEN, CASE, casts to
    plain types, list indexing and the allow-listed functions and operators. Comments and ``;`` are
    refused outright (DuckDB's tokenizer). So the checked text, pasted, is the one expression and nothing more.
    """
    import duckdb

    def bad(problem: str) -> QueryError:
        return QueryError(f"--where {_shown(where)}: {problem}; {FILTER_RULE}")

    if not where.strip():
        raise bad("empty")
    if len(where) > FILTER_MAX_CHARS:
        raise bad(f"longer than {FILTER_MAX_CHARS} characters")
    if "\x00" in where:
        raise bad("a NUL character")
    sql = f"SELECT * FROM {source} WHERE ({where})"
    try:
        refuse_comments_and_statements(sql)
    except Refused as e:
        raise bad(str(e)) from None
    try:
        tree = serialize(con, sql)
        reference = serialize(con, f"SELECT * FROM {source}")
    except duckdb.Error as e:
        raise bad(f"cannot be read ({one_line(e)})") from None
    except RecursionError:
        raise bad("nested too deeply") from None
    if tree.get("error"):
        msg = str(tree.get("error_message", "not an expression"))
        if "Only SELECT" in msg:
            msg = "not an expression"
        raise bad(msg)
    statements = tree.get("statements") or []
    if len(statements) != 1:
        raise bad("not one expression")
    stmt = statements[0]
    node = stmt.get("node") if isinstance(stmt.get("node"), dict) else {}
    where_tree = node.get("where_clause")
    shape = strip_locations({**stmt, "node": {**node, "where_clause": None}})
    if where_tree is None or shape != strip_locations(reference["statements"][0]):
        raise bad("not one expression (it reaches past the filter: a closing parenthesis, UNION, "
                  "GROUP BY, ORDER BY ...)")
    try:
        ExprCheck(FILTER_ALLOWED, columns).check(where_tree)
    except Refused as e:
        raise bad(str(e)) from None
    return sql


def _shown(where: str) -> str:
    """A filter as quoted in a message: its repr, cut short when long."""
    return repr(where) if len(where) <= 200 else repr(where[:200]) + " (cut)"


# ---------------------------------------------------------------------------------------------------
# The connection
# ---------------------------------------------------------------------------------------------------

# ---------------------------------------------------------------------------------------------------
# Limits on a statement: time (a worker thread the main thread can interrupt) and memory (the locked connection)
# ---------------------------------------------------------------------------------------------------

STATEMENT_TIMEOUT = 300.0                 # seconds one statement may run (playtest query/sql --timeout)
MAX_TIMEOUT = 86400.0                     # a day
MIN_TIMEOUT = 1.0
MEMORY_SHARE = 0.5                        # of the machine's memory, the locked connection's default limit
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


_PARQUET_PATH = re.compile(r"""['"]([^'"]+?\.parquet)['"]""")


def read_error(e: Exception, results: Sequence[str | Path] = ()) -> ResultsError | None:
    """A DuckDB error reading a Parquet file (a corrupt or truncated part) as one line naming the results
    and, for a sweep's part, the repair commands; None for any other error."""
    import duckdb
    if not isinstance(e, (duckdb.InvalidInputException, duckdb.IOException)):
        return None
    msg = one_line(e)
    m = _PARQUET_PATH.search(msg)
    if not m:
        return None
    reason = msg.replace(" " + m[0], "").split(" LINE 1:")[0]
    for r in results:             # a part of a sweep on object storage (named bucket/prefix/... by pyarrow)
        if is_uri(r):
            try:
                root = open_location(str(r), probe=False).root + "/"
            except StorageError:
                continue
            if m[1].startswith(root):
                try:
                    manifest = read_manifest(r)
                except ResultsError:
                    manifest = None
                return ResultsError(corrupt_message(shown(str(r)), manifest, [m[1].removeprefix(root)],
                                                    f" ({reason})"))
    path = Path(os.path.abspath(m[1]))
    if path.parent.name.startswith("cell=") and len(path.parents) > 2 and (path.parents[2] / MANIFEST).is_file():
        root = path.parents[2]
        named = next((str(r) for r in results if os.path.abspath(str(r)) == str(root)), str(root))
        try:
            manifest = read_manifest(root)
        except ResultsError:
            manifest = None
        return ResultsError(corrupt_message(named, manifest, [str(path.relative_to(root))], f" ({reason})"))
    return ResultsError(f"{m[1]}: unreadable Parquet file ({reason}); remove or replace it")


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
            select = check_filter(con, where, columns)
        try:
            con.execute("CREATE VIEW games AS " + select)
        except duckdb.Error as e:
            raise read_error(e, results) or QueryError(
                f"--where {_shown(str(where))}: {one_line(e)}; {FILTER_RULE}") from None
    except BaseException:
        con.close()
        raise
    return con


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


def one_line(e: Exception) -> str:
    """A DuckDB error as one readable line (without the SQL excerpt DuckDB quotes after it)."""
    return re.split(r" LINE \d+:", " ".join(str(e).split()))[0]


READ_ONLY = ("with --read-only", "--read-only runs")             # how a refusal says what runs one SELECT
QUESTION_FILE = ("from a .sql file", "a .sql file holds")
# table functions a checked SELECT may call in FROM (no file, setting, catalog or query-text function)
SELECT_TABLE_FUNCTIONS = frozenset(["range", "generate_series", "unnest"])
# DuckDB declares these pure (CONSISTENT) but they read SQL text or DuckDB's own state, not the games
SELECT_REFUSED = frozenset(["json_serialize_sql", "json_deserialize_sql", "json_serialize_plan", "version",
                            "parse_duckdb_log_message", "current_user", "current_role", "current_catalog", "user",
                            "session_user", "get_block_size", "assert_true"])
# pure, but DuckDB marks them volatile or consistent within a query (time zones, list ranges; error() stops the
# query with its message): allowed too
SELECT_EXTRA = frozenset("""
    error unnest range generate_series date_part datepart date_trunc datetrunc date_diff datediff date_sub datesub
    year month day hour minute second millisecond microsecond quarter week weekday dayofweek dayofmonth
    dayofyear isodow isoyear yearweek weekofyear era decade century millennium dayname monthname last_day
    strftime time_bucket
""".split())


def _parser():
    """A bare in-memory connection to parse SQL with (json_serialize_sql): no results, no extensions."""
    import duckdb
    return duckdb.connect(config={"autoinstall_known_extensions": False, "autoload_known_extensions": False,
                                  "enable_external_access": False})


@functools.lru_cache(maxsize=1)
def select_functions() -> frozenset[str]:
    """The functions a checked SELECT may call: DuckDB's built-in scalar, aggregate and window functions it
    declares pure (``stability = 'CONSISTENT'``), its built-in macros in ``main``, SELECT_EXTRA and playtest's
    macros (all_macros), less SELECT_REFUSED and DuckDB's internal ones (``__internal_...``). Settings, the
    environment, the clock, random numbers, sequences, ``error``, ``query``, ``read_*`` and ``duckdb_*``
    are not among them."""
    con = _parser()
    try:
        names = {n.lower() for (n,) in con.execute(
            "SELECT DISTINCT function_name FROM duckdb_functions() WHERE internal AND schema_name = 'main' AND "
            "((function_type IN ('scalar', 'aggregate', 'window') AND stability = 'CONSISTENT') "
            " OR function_type = 'macro')").fetchall()}
    finally:
        con.close()
    names = {n for n in names if not n.startswith("__")} - SELECT_REFUSED
    return frozenset(names | SELECT_EXTRA | macro_names())


def only_select(con, sql: str, where: str = "sql", how: tuple[str, str] = READ_ONLY) -> dict[str, Any]:
    """Refuse anything but one SELECT statement (``playtest sql --read-only``, a question file): COPY,
    ATTACH, SET, INSTALL, CREATE ... and several statements are a QueryError. DuckDB's parser decides
    (json_serialize_sql serializes SELECT statements only). Returns the parse tree."""
    import duckdb
    try:
        tree = serialize(con, sql)
    except duckdb.Error as e:
        raise QueryError(f"{where}: {one_line(e)}") from None
    except RecursionError:
        raise QueryError(f"{where}: nested too deeply; {how[1]} one SELECT statement") from None
    if tree.get("error"):
        msg = str(tree.get("error_message", ""))
        if "Only SELECT" in msg:
            msg = f"only a SELECT statement runs {how[0]}"
        raise QueryError(f"{where}: {msg}")
    n = len(tree.get("statements") or [])
    if n != 1:
        raise QueryError(f"{where}: {'no statement' if n == 0 else f'{n} statements'}; {how[1]} one "
                         f"SELECT statement")
    return tree


def own_tables(con) -> frozenset[str]:
    """The views and tables the connection made itself (games, games_all, cards, seat_outcomes ...)."""
    return frozenset(n.lower() for (n,) in con.execute(
        "SELECT view_name FROM duckdb_views() WHERE NOT internal "
        "UNION ALL SELECT table_name FROM duckdb_tables() WHERE NOT internal").fetchall())


def check_select(con, sql: str, where: str = "sql", how: tuple[str, str] = READ_ONLY) -> None:
    """only_select, and the SELECT may read only the connection's own views and tables (check with
    SelectCheck): DuckDB's pure functions and playtest's macros (select_functions), the table functions
    range, generate_series and unnest; no file, setting, catalog, environment or query-text function
    (``query``, ``query_table``, ``read_*``, ``glob``, ``duckdb_*``, ``current_setting``, ``pragma_*`` ...)."""
    tree = only_select(con, sql, where, how)
    allowed = SelectAllowed(select_functions(), SELECT_TABLE_FUNCTIONS, own_tables(con))
    try:
        SelectCheck(allowed).check(tree["statements"][0])
    except Refused as e:
        raise QueryError(f"{where}: {e}; {how[1]} one SELECT over the results' views") from None


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


def uses_seat_outcomes(query: Query) -> bool:
    """Whether a query reads ``seat_outcomes`` or ``bot_meetings`` (who won, per seat): made on demand."""
    return re.search(rf"\b({SEAT_VIEW}|{MEETINGS_VIEW})\b", query.sql, re.IGNORECASE) is not None


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


def expected_columns(query: Query, present: Iterable[str]) -> list[str]:
    """The header's output columns, optional ones (``name?``) kept only when the records have them."""
    present = set(present)
    return [c.rstrip("?") for c in query.columns if not c.endswith("?") or c.rstrip("?") in present]
