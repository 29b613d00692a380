"""Per-game metrics a sweep can stop on: a name, or ``sql: <expression>``, turned into a bounded per-game value.

A :class:`Metric` says what one game contributes: a share (the game's value is 0 or 1, or a number in
[0, 1]) or a mean (a number between known bounds ``low`` and ``high``, e.g. rounds, scaled into [0, 1] by
them). :func:`summarize` reads one Arrow table of games (a part of a sweep, in memory) and returns, per
metric, ``(games, sum of the scaled values)``: what a confidence sequence or an SPRT is updated with
(``infra.sequential``). :func:`estimate` puts a sum back on the metric's own scale.

Nothing here names a game. Who won is read from the game's own SQL: ``sql/seats.sql`` beside its module
(``seat_sides``, ``winning_side``: the view ``seat_outcomes`` the query layer makes the same way) and its
``compare_columns`` (first player won, draw, seat or team play, the stall reason); the end reasons from
``Game.end_reasons``; the bound of ``mean_rounds`` from the game's ``max_rounds`` rule parameter (its
declared maximum: no rule set of the game plays more rounds).

The named metrics (``metric_names`` lists them for one game):

==========================  ==========================================================================
``first_player_share``      share of games the first player won (Teams and 2 vs. 2: the first player's
                            team); a game nobody won counts 0
``win_share:player=N``      share of games Player N (1-based seat, the rulebooks' "Player 2") won, or
                            in a team game Player N's team
``win_share:team=N``        share of games Team N (1-based: Team 1 is the team of Player 1) won; only in
                            a team mode (refused on the games of a free-for-all cell)
``...:decided``             any of the three above counted among the games somebody won only
                            (``first_player_share:decided``): the edge against the fair share, with the
                            undecided games left out rather than counted as losses; its ``games`` are the
                            decided games
``end_share:REASON``        share of games that ended by REASON (one of the game's end reasons)
``stall_share``             share of games nobody won by the round cap (games with a stall reason)
``draw_share``              share of games that ended in a draw (the game's own definition)
``mean_rounds``             mean rounds played, bounded by 0 and the game's largest round cap
``sql: <expression>``       a custom expression over one row of the games (its columns, plus
                            ``seat_sides`` and ``winning_side``) giving a number in [0, 1] or a boolean
==========================  ==========================================================================

``sql:`` text is code by design, so it is held to what docs/queries-security.md does for ``--where``:
DuckDB's own tokenizer and parser read ``SELECT (<expression>) FROM seat_outcomes``; comments and ``;``
are refused, the statement must be that one SELECT with exactly one expression, and every node of the
expression must be a column, a constant, an operator, CASE, a cast to a plain type or an allow-listed
scalar function (no subquery, table function, aggregate, window, lambda, parameter or ``*``). It then
runs on a fresh in-process connection that holds only the part's table, with external access disabled
and the configuration locked, and every value must lie in [0, 1] (else a MetricError naming the metric).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Sequence

import numpy as np
import pyarrow as pa

from sim.params import fields
from infra.sql_expr import Allowed, Refused, check_expression

if TYPE_CHECKING:
    from sim.games import Game

__all__ = ["MetricError", "Metric", "parse_metric", "summarize", "estimate", "metric_names", "fair_share"]

SEATS_SQL = "seats.sql"             # each game's SELECT that adds seat_sides and winning_side to its games
SEAT_VIEW = "seat_outcomes"
SQL_PREFIX = "sql:"
SQL_MAX_CHARS = 2000
SQL_MAX_DEPTH = 64
BOUND_SLACK = 1e-9                  # a value this far outside its bounds is rounding, not an error
MAX_SEAT_NUMBER = 8                 # win_share:player=N takes N up to this; a game with fewer seats is refused
ROUND_CAP_PARAM = "max_rounds"      # the rule parameter whose declared maximum bounds mean_rounds
DECIDED = ":decided"                # a win share counted among the games somebody won (first_player_share:decided)

# scalar functions a sql: metric may call (no table, aggregate, window, file, setting or macro functions)
SQL_FUNCTIONS = frozenset("""
    abs sign round floor ceil ceiling sqrt greatest least coalesce ifnull nullif
    lower upper length len strlen starts_with ends_with prefix suffix contains
    list_value list_contains list_has array_contains list_position list_indexof
    list_sum list_max list_min list_avg list_count list_extract list_element array_length len
""".split())
SQL_OPERATORS = frozenset(["+", "-", "*", "/", "//", "%", "||", "~~", "!~~", "like_escape", "not_like_escape"])
SQL_OPERATOR_TYPES = frozenset(["OPERATOR_NOT", "OPERATOR_IS_NULL", "OPERATOR_IS_NOT_NULL", "COMPARE_IN",
                                "COMPARE_NOT_IN", "ARRAY_EXTRACT", "OPERATOR_COALESCE"])
SQL_CAST_TYPES = frozenset("""
    boolean bool tinyint smallint integer int int2 int4 int8 bigint utinyint usmallint uinteger ubigint
    float real float4 double float8 decimal numeric
""".split())
SQL_ALLOWED = Allowed(functions=SQL_FUNCTIONS, operators=SQL_OPERATORS, operator_types=SQL_OPERATOR_TYPES,
                      cast_types=SQL_CAST_TYPES, max_depth=SQL_MAX_DEPTH)
_NUMERIC_TYPE = re.compile(r"BOOLEAN|U?(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT)|FLOAT|DOUBLE|DECIMAL\(\d+,\d+\)")
_SEAT = re.compile(r"(player|team)=(\d{1,3})")


class MetricError(ValueError):
    """A metric was refused: one line with the text and what is allowed."""


@dataclass(frozen=True)
class Metric:
    """One per-game quantity: its canonical ``name``, ``kind`` ("share" or "mean") and the bounds of the
    per-game value before scaling into [0, 1] (a share: 0 and 1)."""

    name: str
    kind: str
    low: float
    high: float
    expr: str = field(default="", compare=False, repr=False)    # SQL over one seat_outcomes row: the value
    words: str = field(default="", compare=False, repr=False)   # describe()'s text
    check: str = field(default="", compare=False, repr=False)   # SQL: NULL where the game fits, else why not
    among: str = field(default="", compare=False, repr=False)   # SQL: the games it counts ("": every game)

    def describe(self) -> str:
        """The metric in plain words."""
        return self.words or self.name


# --- the named metrics ------------------------------------------------------------------------------------

def _max_seats(game: "Game") -> int:
    """The largest seat number a metric may name (each cell's games are checked against their own seats)."""
    return MAX_SEAT_NUMBER


def _round_cap(game: "Game") -> int | None:
    """The largest value the game's round cap (its ``max_rounds`` rule parameter) may take, or None."""
    for f in fields(game.rule_presets[game.default_preset]):
        if f.name == ROUND_CAP_PARAM and f.metadata.get("max"):
            return int(f.metadata["max"])
    return None


def metric_names(game: "Game") -> list[str]:
    """Every metric text ``game`` allows, in the form it is written (N: a number)."""
    names = ["first_player_share", "first_player_share:decided", "win_share:player=N", "win_share:team=N",
             "win_share:player=N:decided", "win_share:team=N:decided"]
    names += [f"end_share:{r}" for r in game.end_reasons]
    if game.compare_columns.stall_reason:
        names.append("stall_share")
    names.append("draw_share")
    if _round_cap(game) is not None:
        names.append("mean_rounds")
    return names + ["sql: <expression>"]


def _allowed(game: "Game") -> str:
    return (f"allowed: {', '.join(metric_names(game))} (N from 1 to {_max_seats(game)}; "
            "sql: one expression over a games row giving a number in [0, 1] or a boolean)")


def _bad(game: "Game", text: str, problem: str) -> MetricError:
    shown = repr(text) if len(text) <= 120 else repr(text[:120]) + " (cut)"
    return MetricError(f"metric {shown}: {problem}; {_allowed(game)}")


def _share(expr: str) -> str:
    """A condition as a per-game share: 1 where it holds, 0 where not (NULL counts 0)."""
    return f"CASE WHEN ({expr}) THEN 1.0 ELSE 0.0 END"


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def parse_metric(game: "Game", text: str) -> Metric:
    """The metric ``text`` names for ``game``; a MetricError (one line, what is allowed) before any game."""
    if not isinstance(text, str):
        raise _bad(game, str(text), "a metric is text")
    t = text.strip()
    cc = game.compare_columns
    seats = game.seats_column
    if t.lower().startswith(SQL_PREFIX):
        return _sql_metric(game, text, t[len(SQL_PREFIX):].strip())
    if t.endswith(DECIDED) and (t.startswith("first_player_share") or t.startswith("win_share:")):
        if t[:-len(DECIDED)].endswith(DECIDED):
            raise _bad(game, text, f"{DECIDED} is said once")
        base = parse_metric(game, t[:-len(DECIDED)])     # the same share, counted among the games somebody won
        return Metric(t, base.kind, base.low, base.high, base.expr,
                      base.words.replace("; a game nobody won counts 0", "") + ", among the games somebody won "
                      "(a game nobody won is not counted: the edge against the fair share)", base.check,
                      "winning_side >= 0")
    if t == "first_player_share":
        return Metric(t, "share", 0.0, 1.0, _share(cc.first_win),
                      "share of games the first player (in a team mode: the first player's team) won; "
                      "a game nobody won counts 0")
    if t.startswith("win_share:"):
        m = _SEAT.fullmatch(t[len("win_share:"):])
        if not m:
            raise _bad(game, text, "win_share takes player=N or team=N")
        who, k = m.group(1), int(m.group(2))
        top = _max_seats(game) if who == "player" else _max_seats(game) // 2
        if not 1 <= k <= top:
            raise _bad(game, text, f"{who} must be from 1 to {top}")
        name = f"win_share:{who}={k}"
        if who == "player":
            return Metric(name, "share", 0.0, 1.0, _share(f"winning_side = seat_sides[{k}]"),
                          f"share of games Player {k} won (in a team mode: Player {k}'s team); "
                          "a game nobody won counts 0",
                          f"CASE WHEN {seats} < {k} THEN 'a game of ' || {seats} || ' players has no Player {k}' END")
        return Metric(name, "share", 0.0, 1.0, _share(f"winning_side = {k - 1}"),
                      f"share of games Team {k} (the team of Player {k}) won; a game nobody won counts 0",
                      f"CASE WHEN ({cc.unit}) <> 'team' THEN 'a game without teams (mode ' || mode || ') has no "
                      f"Team {k}' WHEN ({cc.units}) < {k} THEN 'a game of ' || ({cc.units}) || ' teams has no "
                      f"Team {k}' END")
    if t.startswith("end_share:"):
        reason = t[len("end_share:"):]
        if reason not in game.end_reasons:
            raise _bad(game, text, f"unknown end reason {reason!r} (the game's: {', '.join(game.end_reasons)})")
        return Metric(t, "share", 0.0, 1.0, _share(f"end_reason = {_literal(reason)}"),
                      f"share of games that ended by {reason}")
    if t == "stall_share" and cc.stall_reason:
        return Metric(t, "share", 0.0, 1.0, _share(f"end_reason = {_literal(cc.stall_reason)}"),
                      f"share of games nobody won by the round cap (end reason {cc.stall_reason})")
    if t == "draw_share":
        return Metric(t, "share", 0.0, 1.0, _share(cc.draw), "share of games that ended in a draw")
    if t == "mean_rounds" and (cap := _round_cap(game)) is not None:
        return Metric(t, "mean", 0.0, float(cap), "CAST(rounds AS DOUBLE)",
                      f"mean rounds per game (each game's rounds between 0 and {cap}, the largest round cap "
                      f"{ROUND_CAP_PARAM} allows)")
    raise _bad(game, text, "unknown metric")


# --- sql: metrics -------------------------------------------------------------------------------------------

def _connection(table: pa.Table | None):
    """A fresh in-process DuckDB connection holding only ``table`` (as ``games``): no file, no extension,
    no setting change, one thread (the same sums whatever the machine)."""
    import duckdb
    con = duckdb.connect(config={"autoinstall_known_extensions": False, "autoload_known_extensions": False,
                                 "allow_community_extensions": False, "allow_unsigned_extensions": False,
                                 "threads": 1})
    try:
        if table is not None:
            con.register("games", table)
        con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")
    except BaseException:
        con.close()
        raise
    return con


def _seat_view(game: "Game") -> str:
    """The game's ``sql/seats.sql`` (comments dropped): SELECT *, seat_sides, winning_side FROM games."""
    path = game.sql_dir / SEATS_SQL
    body = "\n".join(line for line in path.read_text().splitlines() if not line.lstrip().startswith("--"))
    return body.strip().rstrip(";")


def _check_expression(con, expr: str, columns: Sequence[str]) -> str:
    """The SELECT that evaluates ``expr`` over ``seat_outcomes``, after checking it is one allowed expression
    (the filter's checker, infra.sql_expr); a problem is raised as Refused (one phrase)."""
    return check_expression(con, expr, ("SELECT (", f") FROM {SEAT_VIEW}"), f"SELECT 1 FROM {SEAT_VIEW}",
                            "select_list", SQL_ALLOWED, columns, SQL_MAX_CHARS,
                            "it reaches past it: a comma, FROM, WHERE, UNION, ...", empty="empty expression")


def _sql_metric(game: "Game", text: str, expr: str) -> Metric:
    """A ``sql:`` metric: checked on DuckDB's parse tree and bound against an empty games table."""
    import duckdb
    empty = game.schemas["games"].empty_table()
    con = _connection(empty)
    try:
        con.execute(f"CREATE TEMP VIEW {SEAT_VIEW} AS {_seat_view(game)}")
        columns = [d[0] for d in con.execute(f"SELECT * FROM {SEAT_VIEW} LIMIT 0").description]
        try:
            _check_expression(con, expr, columns)
        except Refused as e:
            raise _bad(game, text, str(e)) from None
        try:       # binds the expression: unknown functions, wrong types
            kind = str(con.execute(f"SELECT ({expr}) FROM {SEAT_VIEW} LIMIT 0").description[0][1])
        except duckdb.Error as e:
            raise _bad(game, text, f"not a number or boolean over a games row ({str(e).splitlines()[0][:160]})") \
                from None
        if not _NUMERIC_TYPE.fullmatch(kind):
            raise _bad(game, text, f"not a number or boolean over a games row (it gives {kind})")
    finally:
        con.close()
    return Metric(f"{SQL_PREFIX}{expr}", "share", 0.0, 1.0, f"CAST(({expr}) AS DOUBLE)",
                  f"mean over games of the SQL expression {expr} (each game's value in [0, 1])")


# --- summaries ----------------------------------------------------------------------------------------------

def summarize(game: "Game", metrics: Sequence[Metric], table: pa.Table) -> dict[str, tuple[int, float]]:
    """For each metric name: (games, sum of per-game values scaled into [0, 1]). Pure and deterministic
    (the sum is exactly rounded, whatever the order of the rows); a value outside the metric's bounds, or
    NULL, is a MetricError naming the metric."""
    if not metrics:
        return {}
    import duckdb
    con = _connection(table)
    try:
        con.execute(f"CREATE TEMP VIEW {SEAT_VIEW} AS {_seat_view(game)}")
        out: dict[str, tuple[int, float]] = {}
        for m in metrics:
            if m.name in out:
                continue
            if m.check:
                why = con.execute(f"SELECT min({m.check}) FROM {SEAT_VIEW}").fetchall()[0][0]
                if why is not None:
                    raise MetricError(f"metric {m.name!r}: {why}; choose a metric these games have")
            try:
                where = f" WHERE {m.among}" if m.among else ""
                values = con.sql(f"SELECT {m.expr} AS v FROM {SEAT_VIEW}{where}").to_arrow_table().column("v")
            except duckdb.Error as e:
                raise MetricError(f"metric {m.name!r}: cannot be evaluated on these games "
                                  f"({str(e).splitlines()[0][:160]})") from None
            out[m.name] = _sum_scaled(m, values)
    finally:
        con.close()
    return out


def _sum_scaled(m: Metric, values: pa.ChunkedArray) -> tuple[int, float]:
    if values.null_count:
        raise MetricError(f"metric {m.name!r}: {values.null_count} game(s) gave no value (NULL); "
                          f"every game must give a number in [{_num(m.low)}, {_num(m.high)}]")
    v = np.asarray(values.to_numpy(zero_copy_only=False), dtype=float)
    if v.size:
        lo, hi = float(v.min()), float(v.max())
        span = m.high - m.low
        if not (math.isfinite(lo) and math.isfinite(hi)) or lo < m.low - BOUND_SLACK * span \
                or hi > m.high + BOUND_SLACK * span:
            bad = lo if not math.isfinite(lo) or lo < m.low - BOUND_SLACK * span else hi
            raise MetricError(f"metric {m.name!r}: a game's value {bad!r} is outside "
                              f"[{_num(m.low)}, {_num(m.high)}]; every game must give a number in that range")
    scaled = np.clip((v - m.low) / (m.high - m.low), 0.0, 1.0)
    return int(v.size), math.fsum(scaled.tolist())


def _num(x: float) -> str:
    return f"{x:g}"


FAIR_METRICS = ("first_player_share", "win_share:")   # metrics whose fair value is one seat's or team's share


def fair_share(game: "Game", metric: Metric, table: pa.Table) -> float:
    """The fair value of a win share on these games: 1 / the seats or teams that compete (the game's
    ``compare_columns.units``); a MetricError if the metric is not a win share or the games disagree."""
    if not metric.name.startswith(FAIR_METRICS):
        raise MetricError(f"metric {metric.name!r}: 'fair' is the share of one seat or team, so it goes with "
                          "first_player_share or win_share:player=N / team=N only")
    con = _connection(table)
    try:
        rows = con.execute(f"SELECT DISTINCT CAST(({game.compare_columns.units}) AS BIGINT) FROM games").fetchall()
    finally:
        con.close()
    units = sorted(r[0] for r in rows if r[0] is not None)
    if len(units) != 1 or units[0] < 1:
        raise MetricError(f"metric {metric.name!r}: these games do not have one number of seats or teams "
                          f"({units}); 'fair' needs one")
    return 1.0 / units[0]


def estimate(metric: Metric, n: int, total: float) -> float:
    """The metric on its own scale from ``n`` games whose scaled values sum to ``total`` (NaN for no games)."""
    if n <= 0:
        return math.nan
    return metric.low + (metric.high - metric.low) * (total / n)


def unscale(metric: Metric, x: float) -> float:
    """A value in [0, 1] (an interval end, a half-width's share of the range) back on the metric's scale."""
    return metric.low + (metric.high - metric.low) * x
