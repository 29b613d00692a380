"""The SQL a question may be: the ``.sql`` file format, its parameters, the macros and views every connection
offers, and the check that a question file is one SELECT over them.

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

A ``.sql`` file given by path (a question file) is untrusted text: it must be one SELECT statement
(``only_select``), and it may read only the connection's own views and call only pure functions
(``check_select``), as ``playtest sql --read-only`` may.
"""

from __future__ import annotations

import functools
import math
import os
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterable

from infra.sql_expr import Refused, SelectAllowed, SelectCheck, serialize
from infra.stats import Z95
from queries.errors import QueryError, one_line
from sim.files import read_text_bounded
from sim.games import GAMES


QUERY_DIR = Path(__file__).parent            # the game-agnostic questions; each game brings its own
# Wilson score interval (z = infra.stats.Z95: 95%); n = 0 gives NULL. Created on every connection, with every
# registered game's own macros (all_macros).
MACROS = f"""
CREATE OR REPLACE MACRO wilson_low(k, n, z := {Z95!r}) AS
    CASE WHEN n > 0 THEN greatest(0.0, ((k::DOUBLE / n + z * z / (2 * n))
        - z * sqrt((k::DOUBLE / n) * (1 - k::DOUBLE / n) / n + z * z / (4.0 * n * n))) / (1 + z * z / n)) END;
CREATE OR REPLACE MACRO wilson_high(k, n, z := {Z95!r}) AS
    CASE WHEN n > 0 THEN least(1.0, ((k::DOUBLE / n + z * z / (2 * n))
        + z * sqrt((k::DOUBLE / n) * (1 - k::DOUBLE / n) / n + z * z / (4.0 * n * n))) / (1 + z * z / n)) END;
"""
SEAT_VIEW = "seat_outcomes"     # games with each seat's side and the winning side (add_seat_outcomes)
MEETINGS_VIEW = "bot_meetings"  # per ordered pair of bots on opposing seats: wins, draws, losses
RESERVED_VIEWS = frozenset(["games_all", "games_unsplit", "variant_values", SEAT_VIEW, MEETINGS_VIEW])
SEATS_SQL = "seats.sql"         # each game's SELECT behind seat_outcomes: sim/<game>/sql/seats.sql
PARAM_TYPES = {"int": "an integer", "float": "a number", "str": "a string",
               "int[]": "a comma-separated list of integers"}
INT_MIN, INT_MAX = -2**31, 2**31 - 1      # DuckDB INTEGER: every int parameter fits, whatever its declared range
MAX_LIST, MAX_STR = 1000, 1000            # elements of an int[] parameter, characters of a str one


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
    if name.endswith(".sql") or "/" in name or os.sep in name:
        path = Path(name)
        if not name.endswith(".sql"):       # refused unread: a file that is not a question file is never quoted
            raise QueryError(f"{name}: not a .sql file; a question file's name ends in .sql (or name a canned "
                             "query: playtest query --list)")
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


# --- a question file's text: one SELECT over the connection's own views, calling only pure functions ---

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


def uses_seat_outcomes(query: Query) -> bool:
    """Whether a query reads ``seat_outcomes`` or ``bot_meetings`` (who won, per seat): made on demand."""
    return re.search(rf"\b({SEAT_VIEW}|{MEETINGS_VIEW})\b", query.sql, re.IGNORECASE) is not None


def expected_columns(query: Query, present: Iterable[str]) -> list[str]:
    """The header's output columns, optional ones (``name?``) kept only when the records have them."""
    present = set(present)
    return [c.rstrip("?") for c in query.columns if not c.endswith("?") or c.rstrip("?") in present]
