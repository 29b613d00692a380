"""The SQL question library: canned ``queries/*.sql`` files and a DuckDB connection over result directories.

Each SQL file opens with a comment header (the aiosql pattern)::

    -- name: stall_rate
    -- Share of games that stall or end by the round limit, ... (the question, one or more lines)
    -- game: paws
    -- param: limits int[] = 15,20,25,30 | round limits to try
    -- columns: ruleset, board, ..., ci95_high

``param`` values are bound as DuckDB ``$name`` parameters, never pasted into the SQL. A column listed
with a trailing ``?`` appears only when the results have it (game-agnostic queries group by whichever
setup columns the game records). The connection reads the Parquet parts in place (DuckDB's parallel
scan); the view ``games`` covers every part of every result given.
"""

from __future__ import annotations

import glob
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

QUERY_DIR = Path(__file__).parent

# Wilson score interval (z = 1.959964: 95%); n = 0 gives NULL. Created on every connection.
# Round-limit helpers: the winner after round `l` from the per-round VP trace (Teams: seats 0+2 vs 1+3;
# a tie for most VP is a draw, -1) — docs/rules-interpretation.md, "Round limit". A game that stalled at
# max_rounds = l is decided by a limit of l: the limit is checked before the safety cap.
MACROS = """
CREATE OR REPLACE MACRO wilson_low(k, n, z := 1.959963984540054) AS
    CASE WHEN n > 0 THEN greatest(0.0, ((k::DOUBLE / n + z * z / (2 * n))
        - z * sqrt((k::DOUBLE / n) * (1 - k::DOUBLE / n) / n + z * z / (4.0 * n * n))) / (1 + z * z / n)) END;
CREATE OR REPLACE MACRO wilson_high(k, n, z := 1.959963984540054) AS
    CASE WHEN n > 0 THEN least(1.0, ((k::DOUBLE / n + z * z / (2 * n))
        + z * sqrt((k::DOUBLE / n) * (1 - k::DOUBLE / n) / n + z * z / (4.0 * n * n))) / (1 + z * z / n)) END;
CREATE OR REPLACE MACRO sole_leader(scores) AS
    CASE WHEN list_position(scores, list_max(scores))
              = len(scores) + 1 - list_position(list_reverse(scores), list_max(scores))
         THEN list_position(scores, list_max(scores)) - 1 ELSE -1 END;
CREATE OR REPLACE MACRO scores_after(vp_trace, l, mode) AS
    CASE WHEN mode = 'teams' THEN [vp_trace[l][1] + vp_trace[l][3], vp_trace[l][2] + vp_trace[l][4]]
         ELSE vp_trace[l] END;
CREATE OR REPLACE MACRO decided_by_limit(rounds, end_reason, l) AS
    rounds > l OR (rounds = l AND end_reason = 'stalled');
CREATE OR REPLACE MACRO limit_winner(vp_trace, l, mode) AS sole_leader(scores_after(vp_trace, l, mode));
"""

PARAM_TYPES = {"int": "an integer", "float": "a number", "str": "a string",
               "int[]": "a comma-separated list of integers"}


class QueryError(ValueError):
    """A bad query name, parameter, filter or SQL; the message says which and what is allowed."""


class ResultsError(ValueError):
    """A results path that is missing, empty or unreadable; the message names it."""


@dataclass(frozen=True)
class Param:
    name: str
    type: str
    default: Any
    help: str


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


def parse_value(p: Param, text: str, where: str) -> Any:
    """A parameter value from its text form, by the declared type."""
    try:
        if p.type == "int":
            return int(text)
        if p.type == "float":
            return float(text)
        if p.type == "int[]":
            values = [int(v) for v in str(text).split(",") if v.strip()]
            if not values:
                raise ValueError
            return values
        return str(text)
    except ValueError:
        raise QueryError(f"{where}: {p.name} = {text!r} is not allowed; expected {PARAM_TYPES[p.type]}") from None


def parse_sql_file(path: Path) -> Query:
    """Read one SQL file and its header. A file with no header is an ad hoc query named after its stem."""
    text = path.read_text()
    head = []
    for line in text.splitlines():
        if not line.startswith("--"):
            break
        head.append(line[2:].strip())
    name, game, question, params, columns = path.stem, "any", [], {}, ()
    for line in head:
        key, _, rest = line.partition(":")
        if key == "name":
            name = rest.strip()
        elif key == "game":
            game = rest.strip()
        elif key == "columns":
            columns = tuple(c.strip() for c in rest.split(",") if c.strip())
        elif key == "param":
            m = re.fullmatch(r"(\w+)\s+(int\[\]|int|float|str)\s*=\s*([^|]*?)\s*\|\s*(.*)", rest.strip())
            if not m:
                raise QueryError(f"{path}: bad param line {line!r}; expected 'param: NAME TYPE = DEFAULT | help' "
                                 f"with TYPE one of {', '.join(PARAM_TYPES)}")
            p = Param(m[1], m[2], None, m[4])
            params[p.name] = Param(p.name, p.type, parse_value(p, m[3], str(path)), p.help)
        elif line:
            question.append(line)
    return Query(name, " ".join(question), game, params, columns, text, path)


def available() -> list[Query]:
    """Every canned query in ``queries/``, by name."""
    return [parse_sql_file(p) for p in sorted(QUERY_DIR.glob("*.sql"))]


def load(name: str) -> Query:
    """A canned query by name, or any ``.sql`` file by path."""
    if name.endswith(".sql") or "/" in name:
        path = Path(name)
        if not path.is_file():
            raise QueryError(f"{name}: no such SQL file")
        return parse_sql_file(path)
    path = QUERY_DIR / f"{name}.sql"
    if not re.fullmatch(r"\w+", name) or not path.is_file():
        raise QueryError(f"unknown query {name!r}; available: {', '.join(q.name for q in available())}")
    return parse_sql_file(path)


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


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def table_sources(result: str | Path) -> dict[str, tuple[str, bool]]:
    """{table: (Parquet glob, one schema)} for one results directory, Parquet file or glob.

    A sweep's parts of one table share one schema (one game), so DuckDB binds them from the first
    part; a glob or a loose folder may mix games and is unioned by column name (slower to open).
    """
    text = str(result)
    if any(ch in text for ch in "*?["):
        if not glob.glob(text, recursive=True):
            raise ResultsError(f"{text}: no Parquet files match this pattern")
        return {"games": (text, False)}
    path = Path(text)
    if path.is_file():
        return {"games": (text, True)}
    if not path.is_dir():
        raise ResultsError(f"{text}: no such results directory or Parquet file")
    tables = {t.name: (str(t / "*" / "*.parquet"), True) for t in sorted(path.iterdir())
              if t.is_dir() and re.fullmatch(r"[A-Za-z_]\w*", t.name) and glob.glob(str(t / "*" / "*.parquet"))}
    if "games" in tables:
        return tables
    if glob.glob(str(path / "**" / "*.parquet"), recursive=True):
        return {"games": (str(path / "**" / "*.parquet"), False)}
    raise ResultsError(f"{text}: no game records here (expected {text}/games/cell=<id>/part-<n>.parquet "
                       f"or *.parquet files)")


def sweep_notes(results: Sequence[str | Path]) -> list[str]:
    """A line for each results directory whose sweep manifest says it is not finished (answers are partial)."""
    notes = []
    for r in results:
        try:
            m = json.loads((Path(r) / "manifest.json").read_text())
            parts = [p for c in m["cells"] for p in c["parts"]]
            if m.get("state") != "done":
                done = sum(p.get("state") == "done" for p in parts)
                notes.append(f"{r}: the sweep is {m.get('state')!r} ({done} of {len(parts)} parts done); "
                             f"the answer covers the parts written so far")
        except (OSError, ValueError, KeyError, TypeError):
            continue          # no manifest (a plain Parquet file or folder), or not a sweep's
    return notes


def connect(results: Sequence[str | Path], where: str | None = None, threads: int | None = None):
    """A DuckDB connection with the Wilson and round-limit macros and one view per result table.

    ``games`` (and any other table the results hold, e.g. ``cards``) unions every given result; each
    row also has ``results`` (the path it came from) and ``cell`` (NULL for a single Parquet file).
    ``where`` (SQL) filters the ``games`` view before any query sees it.
    """
    import duckdb
    if not results:
        raise ResultsError("no results given; pass --results DIR (a sweep's output, a Parquet file or a glob)")
    per_table: dict[str, list[str]] = {}
    for r in results:
        for table, (pattern, one_schema) in table_sources(r).items():
            per_table.setdefault(table, []).append(
                f"SELECT *, {_literal(str(r))} AS results FROM read_parquet({_literal(pattern)}, "
                f"hive_partitioning = true, union_by_name = {str(not one_schema).lower()})")
    con = duckdb.connect(config={"threads": threads} if threads else {})
    con.execute(MACROS)
    for table, selects in per_table.items():
        raw = f"{table}_all" if table == "games" else table
        try:
            con.execute(f"CREATE VIEW {raw}_parts AS " + " UNION ALL BY NAME ".join(selects))
            cols = {row[0] for row in con.execute(f"DESCRIBE {raw}_parts").fetchall()}
            cell = "" if "cell" in cols else ", NULL::VARCHAR AS cell"
            con.execute(f"CREATE VIEW {raw} AS SELECT *{cell} FROM {raw}_parts")
        except duckdb.Error as e:
            raise ResultsError(f"{', '.join(map(str, results))}: cannot read the {table} records: "
                               f"{str(e).splitlines()[0]}") from None
    if "games" not in per_table:
        raise ResultsError(f"{', '.join(map(str, results))}: no games table")
    try:
        con.execute("CREATE VIEW games AS SELECT * FROM games_all" + (f" WHERE ({where})" if where else ""))
    except duckdb.Error as e:
        raise QueryError(f"--where {where!r}: {one_line(e)}") from None
    return con


def one_line(e: Exception) -> str:
    """A DuckDB error as one readable line."""
    return " ".join(str(e).split())


def execute(con, sql: str, params: dict[str, Any] | None = None, where: str = "SQL"):
    """Run SQL with bound parameters; returns (column names, rows). DuckDB errors become QueryError."""
    import duckdb
    try:
        res = con.execute(sql, params or None)
        if res.description is None:
            return [], []
        return [d[0] for d in res.description], res.fetchall()
    except duckdb.Error as e:
        raise QueryError(f"{where}: {one_line(e)}") from None


def answer(con, query: Query, values: dict[str, Any], results: Sequence[str | Path]):
    """Run a parsed query on a connection; a failure names the query, the results and, when the records
    are of another game than the query's, says so."""
    label = f"query {query.name} over {', '.join(map(str, results))}"
    try:
        return execute(con, query.sql, values, where=label)
    except QueryError as e:
        if query.game != "any":
            games = sorted(str(g) for (g,) in con.execute("SELECT DISTINCT game FROM games").fetchall())
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
        return answer(con, query, values, results)
    finally:
        con.close()


def expected_columns(query: Query, present: Iterable[str]) -> list[str]:
    """The header's output columns, optional ones (``name?``) kept only when the records have them."""
    present = set(present)
    return [c.rstrip("?") for c in query.columns if not c.endswith("?") or c.rstrip("?") in present]
