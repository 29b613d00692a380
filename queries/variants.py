"""Never pool variants silently: a canned query answers once per variant its own columns do not tell apart.

A variant column is one that says which game was played: ``game``, ``ruleset``, every setup value
(board, mode, players, bots, people), every rule parameter of the records' game and the card data
(``data_name``, ``data_digest``). The canned queries
group by a fixed list of them; when the results vary in another (a sweep over ``mansion_monster_hp_bonus``,
over bots, or over card files, which only the sweep's cells tell apart), the query runs once per value
of those columns, and the answer shows them as its first columns. ``--pool COLUMN`` sums over a column
on purpose, and the answer says so. Values are read back from the results and bound as parameters:
never pasted into SQL.
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

from queries.connection import _ident, answer, execute
from queries.errors import QueryError
from queries.sqlfiles import Query
from infra.stats import MARGIN, Z95, Equivalence, equivalence
from sim.games import GAMES
from sim.params import fields

MAX_VARIANTS = 500          # answers split further than this are refused: narrow with --where or --pool
SOURCE_COLUMNS = ("results", "cell")   # what tells apart cells that share every variant value (card files)


@dataclass
class Variants:
    """How an answer was split or pooled."""

    split: list[str] = field(default_factory=list)          # columns the answer is given per value of
    pooled: dict[str, list] = field(default_factory=dict)   # column -> the values summed over (--pool)
    asked: list[str] = field(default_factory=list)          # of split: the columns asked for (--by)

    def notes(self) -> list[str]:
        out = []
        if self.asked:
            out.append(f"answered per {', '.join(self.asked)}, as asked (--by)")
        found = [c for c in self.split if c not in self.asked]
        if found:
            names = ", ".join(found)
            out.append(f"answered per {names}: {'it varies' if len(found) == 1 else 'they vary'} in these "
                       f"results and the query does not group by {'it' if len(found) == 1 else 'them'}; "
                       f"--pool {found[0]} sums over it on purpose")
        for col, values in self.pooled.items():
            shown = ", ".join(_show(v) for v in values[:8]) + (f" and {len(values) - 8} more" if len(values) > 8 else "")
            out.append(f"pooled on purpose over {col} ({len(values)} value{'s' if len(values) != 1 else ''}: "
                       f"{shown})")
        return out


def _show(v: Any) -> str:
    return json.dumps(v) if isinstance(v, (list, dict)) else str(v)


def _key(v: Any) -> str:
    return json.dumps(v, sort_keys=True, default=str)


def variant_columns(con, results: Sequence[str | Path] = ()) -> list[str]:
    """The columns of ``games`` that name a variant, in the record's order."""
    present = [r[0] for r in execute(con, "DESCRIBE games", where="results", results=results)[1]]
    games = {g for (g,) in execute(con, "SELECT DISTINCT game FROM games", where="results", results=results)[1]}
    names = variant_names(games)
    out = [c for c in present if c in names]
    if "data_name" in out and "data_digest" in out:     # split by the files' names first: easier to read
        out.remove("data_name")
        out.insert(out.index("data_digest"), "data_name")
    return out


def plan(con, query: Query, own: Sequence[str], pool: Sequence[str],
         results: Sequence[str | Path] = (), by: Sequence[str] = ()) -> tuple[Variants, list[tuple]]:
    """Which columns to split the answer by (and their value combinations), and which are pooled; the
    columns ``by`` (``--by bots``: one answer per bot line-up) are split by first, whatever the query
    groups by."""
    candidates = variant_columns(con, results)
    cols = candidates + list(SOURCE_COLUMNS)
    rows = execute(con, f"SELECT DISTINCT {', '.join(_ident(c) for c in cols)} FROM games", where="results",
                   results=results)[1]
    keyed = [{c: _key(r[i]) for i, c in enumerate(cols)} for r in rows]
    values = {c: sorted({k[c] for k in keyed}) for c in cols}
    for col in pool:
        if col not in cols:
            varying = [c for c in cols if len(values[c]) > 1]
            raise QueryError(f"--pool {col!r}: not a variant column of these results; the columns that vary "
                             f"here: {', '.join(varying) or 'none'}")
    for col in by:
        if col not in candidates:
            raise QueryError(f"--by {col!r}: not a variant column of these results; variant columns here: "
                             f"{', '.join(candidates) or 'none'}")
        if col in pool:
            raise QueryError(f"--by {col!r} and --pool {col!r}: a column is split by or pooled, not both")
    v = Variants()
    v.pooled = {c: [json.loads(x) for x in values[c]] for c in pool}
    # split by a column only where it still varies once the query's own columns, the split so far and the
    # pooled columns are fixed (bots follow players: a sweep over players alone is not also split by bots)
    by = list(dict.fromkeys(by))
    v.asked = by
    keys = [c for c in candidates if c in set(own) | set(query.fixed) and c not in by]
    split: list[str] = list(by)
    for c in candidates:
        if c in keys or c in pool or c in split or len(values[c]) < 2:
            continue
        seen: dict[tuple, set] = {}
        for k in keyed:
            seen.setdefault(tuple(k[x] for x in keys + split + list(pool)), set()).add(k[c])
        if any(len(vals) > 1 for vals in seen.values()):
            split.append(c)
    # cells that no variant column tells apart (card files, another code version): split by source too
    tuples = {tuple(k[c] for c in candidates if c not in pool) for k in keyed}
    sources = {(k["results"], k["cell"]) for k in keyed}
    if len(sources) > len(tuples) and not set(SOURCE_COLUMNS) & set(pool):
        split += [c for c in SOURCE_COLUMNS if len(values[c]) > 1]
    v.split = split
    if not split:
        return v, []
    idx = [cols.index(c) for c in split]
    combos = sorted({tuple(r[i] for i in idx) for r in map(lambda r: tuple(_hashable(x) for x in r), rows)},
                    key=lambda t: [_key(x) for x in t])
    if len(combos) > MAX_VARIANTS:
        raise QueryError(f"the answer would split into {len(combos)} variants ({', '.join(split)}); at most "
                         f"{MAX_VARIANTS}: narrow the results with --where, or --pool a column on purpose")
    return v, [tuple(_plain(x) for x in c) for c in combos]


def _hashable(x: Any) -> Any:
    return tuple(_hashable(v) for v in x) if isinstance(x, list) else x


def _plain(x: Any) -> Any:
    return [_plain(v) for v in x] if isinstance(x, tuple) else x


def answer_per_variant(con, query: Query, values: dict[str, Any], results: Sequence[str | Path],
                       pool: Sequence[str] = (), by: Sequence[str] = ()) -> tuple[list[str], list[tuple], Variants]:
    """Answer ``query`` once per variant its own columns do not separate, and per value of the ``by``
    columns: (columns, rows, how it was split)."""
    own = [c.rstrip("?") for c in query.columns]
    whole = None
    if not own:                                   # an ad hoc .sql file: its columns are what it returns
        whole = answer(con, query, values, results)
        own = whole[0]
    v, combos = plan(con, query, own, pool, results, by)
    if not v.split:
        columns, rows = whole or answer(con, query, values, results)
        return columns, rows, v
    con.execute("ALTER VIEW games RENAME TO games_unsplit")
    con.execute(f"CREATE TEMP TABLE variant_values AS SELECT {', '.join(_ident(c) for c in v.split)} "
                "FROM games_unsplit LIMIT 0")
    match = " AND ".join(f"g.{_ident(c)} IS NOT DISTINCT FROM v.{_ident(c)}" for c in v.split)
    con.execute(f"CREATE VIEW games AS SELECT g.* FROM games_unsplit g SEMI JOIN variant_values v ON {match}")
    columns: list[str] = []
    out: list[tuple] = []
    marks = ", ".join("?" for _ in v.split)
    for combo in combos:
        con.execute("DELETE FROM variant_values")
        con.execute(f"INSERT INTO variant_values VALUES ({marks})", list(combo))
        cols, rows = answer(con, query, values, results)
        columns = cols or columns
        out += [tuple(combo) + tuple(r) for r in rows]
    return [*v.split, *columns], out, v


# -- does the answer hold under other bots? ------------------------------------------------------------------
def estimates(columns: Sequence[str]) -> list[tuple[str, int, int, int]]:
    """The estimates an answer gives with their intervals: a column followed by its ``..._low`` and
    ``..._high`` columns (``first_share, ci95_low, ci95_high``; ``advantage, advantage_low, advantage_high``),
    as (name, value, low, high) indices."""
    out = []
    for i in range(len(columns) - 2):
        if columns[i + 1].endswith("_low") and columns[i + 2].endswith("_high") \
                and not columns[i].endswith(("_low", "_high")):
            out.append((columns[i], i, i + 1, i + 2))
    return out


def skill_lines(columns: Sequence[str], rows: Sequence[tuple], query_columns: Sequence[str], split: Sequence[str],
                by: str = "bots", levels: Sequence[str] | None = None, margin: float = MARGIN) -> list[str]:
    """Where an answer is split by bots: for each setting (the other split columns and the query's own
    grouping columns), whether each estimate is the same across the bots, changes with them, or there are not
    enough games to say, in plain words (:func:`judge`: equivalence within +-``margin`` for shares, never from
    overlapping intervals). Empty when the answer is not split by bots or no setting has two bots."""
    found = estimates(columns)
    lines = []
    for where, members in bot_settings(columns, rows, query_columns, split, by):
        b = columns.index(by)
        held, moved, unsure = [], [], []
        for name, v, lo, hi in found:
            rated = [r for r in members if None not in (r[v], r[lo], r[hi])]
            if len(rated) < 2:
                continue
            pairs = [(x, y) for i, x in enumerate(rated) for y in rated[i + 1:]]
            said = [judge(name, x, y, v, lo, hi, margin, len(pairs)) for x, y in pairs]
            shown = "; ".join(f"{_lineup(r[b])} {_num(r[v])} [{_num(r[lo])}, {_num(r[hi])}]" for r in rated)
            if any(e.verdict == "differs" for e in said):
                moved.append(f"{name}: {shown}")
            elif all(e.verdict in ("same", "negligible") for e in said):
                held.append(name)
            else:
                unsure.append(f"{name}: {shown}")
        for m in moved:
            lines.append(f"{where}: changes with the bot (some two differ, 95%, Bonferroni over the pairs): {m}")
        if held:
            lines.append(f"{where}: the same across these bots within +-{_margin(margin)} (two one-sided tests, "
                         f"every pair): {', '.join(held)}")
        for m in unsure:
            lines.append(f"{where}: not enough games to say whether it changes with the bot: {m}")
        if levels:
            lines += _top_two(where, members, b, found, levels, margin)
    return lines


def bot_settings(columns: Sequence[str], rows: Sequence[tuple], query_columns: Sequence[str],
                 split: Sequence[str], by: str = "bots") -> list[tuple[str, list[tuple]]]:
    """An answer split by bots, per setting (the other split columns and the query's own grouping columns):
    (the setting in words, its rows: one per bot line-up), for the settings with two line-ups or more. Empty
    when the answer is not split by bots or gives no estimate with an interval."""
    if by not in split or by not in columns or not estimates(columns):
        return []
    known = variant_names()
    keys = [c for c in split if c != by and c in columns]
    keys += [c for c in columns if c != by and c not in keys and (c in known or f"{c}?" in query_columns)]
    b = columns.index(by)
    groups: dict[tuple, list[tuple]] = {}
    for r in rows:
        groups.setdefault(tuple(_key(r[columns.index(k)]) for k in keys), []).append(r)
    varying = [k for k in keys if k != "game" and len({_key(r[columns.index(k)]) for r in rows}) > 1]
    out = []
    for members in groups.values():
        bots = [_lineup(r[b]) for r in members]
        if len(members) < 2 or len(set(bots)) != len(bots):      # one row per bot line-up, or no verdict
            continue
        out.append((", ".join(f"{k}={_show(members[0][columns.index(k)])}" for k in varying) or "these results",
                    members))
    return out


def _plain_spec(spec: str) -> str:
    """A recorded bot spec without its model digests (``model=paws-2@55a1f45255b4`` -> ``model=paws-2``)."""
    return re.sub(r"(model=[^:@]+)@[0-9a-f]{12}", r"\1", spec)


def level_of(v: Any, levels: Sequence[str]) -> int | None:
    """The skill level (its index) a bots value plays at: the same level in every seat, else None."""
    names = {_plain_spec(str(x)) for x in (v if isinstance(v, (list, tuple)) else [v])}
    return levels.index(names.pop()) if len(names) == 1 and next(iter(names)) in levels else None


def is_share(name: str, *values: float) -> bool:
    """A share or a difference of shares (win share, first player's edge): equivalence margins are in its
    points. Other estimates (rounds, counts) have no default margin."""
    return any(w in name for w in ("share", "advantage", "edge", "rate")) and all(-1.0 <= x <= 1.0 for x in values)


def _margin(margin: float) -> str:
    return f"{100 * margin:g} points for shares"


def judge(name: str, a: tuple, z: tuple, v: int, lo: int, hi: int, margin: float = MARGIN,
          pairs: int = 1) -> Equivalence:
    """Estimate ``v`` of rows ``a`` and ``z`` (independent games: other bots) compared: the difference z - a with
    the standard error from each 95% interval (half its width over 1.96). A share is judged by equivalence
    against ``margin``; another estimate can only differ or leave it open (no margin in its units). ``pairs``:
    the pairs judged at once (the "differs" test at 5% / pairs, Bonferroni)."""
    se = ((a[hi] - a[lo]) ** 2 + (z[hi] - z[lo]) ** 2) ** 0.5 / (2 * Z95)
    alpha = 0.05 / pairs
    e = equivalence(z[v] - a[v], se, 0, margin, alpha=0.05)
    apart = equivalence(z[v] - a[v], se, 0, margin, alpha=alpha)
    shown_apart = apart.low > 0 or apart.high < 0          # the Bonferroni interval leaves out zero
    if not is_share(name, a[v], z[v]):          # no margin in its units: differs, or not enough games to say
        return dataclasses.replace(e, verdict="differs" if shown_apart else "not enough games", games_needed=None)
    if e.verdict in ("differs", "negligible") and not shown_apart:
        return dataclasses.replace(e, verdict="same" if e.verdict == "negligible" else "not enough games")
    return e


@dataclass(frozen=True)
class TopTwo:
    """One estimate at the two strongest levels of a setting: their indices in the levels (``low`` < ``high``),
    their rows, the estimate's column indices (value, low, high) and the verdict of :func:`judge` on them."""

    name: str
    low: int
    high: int
    a: tuple
    z: tuple
    v: int
    lo: int
    hi: int
    verdict: Equivalence

    @property
    def kind(self) -> str:
        """"holds" (the same within the margin), "moves" (shown to differ) or "unsure" (neither)."""
        if self.verdict.verdict == "differs":
            return "moves"
        return "holds" if self.verdict.verdict in ("same", "negligible") else "unsure"

    @property
    def share(self) -> bool:
        """Whether the estimate is a share (judged against the margin in its points)."""
        return is_share(self.name, self.a[self.v], self.z[self.v])

    def value(self, row: tuple) -> str:
        """A row's estimate and its interval: "0.56 [0.555, 0.565]"."""
        return f"{_num(row[self.v])} [{_num(row[self.lo])}, {_num(row[self.hi])}]"

    def shown(self) -> str:
        return f"{self.name} {self.value(self.a)} -> {self.value(self.z)}"


def top_two(members: Sequence[tuple], b: int, found, levels: Sequence[str], margin: float = MARGIN) -> list[TopTwo]:
    """Does the answer hold under stronger play? The two strongest levels present among a setting's rows
    (``levels``: weakest first; ``b``: the bots column), each estimate of ``found`` (:func:`estimates`) judged by
    :func:`judge`: the same within the margin (two one-sided tests), moves with skill (their difference's 95%
    interval leaves out zero), or not enough games to say; never from overlap."""
    at = {}
    for r in members:
        k = level_of(r[b], levels)
        if k is not None:
            at[k] = r
    if len(at) < 2:
        return []
    lo, hi = sorted(at)[-2:]
    a, z = at[lo], at[hi]
    return [TopTwo(name, lo, hi, a, z, v, low, high, judge(name, a, z, v, low, high, margin))
            for name, v, low, high in found if None not in (a[v], a[low], a[high], z[v], z[low], z[high])]


def _top_two(where: str, members: Sequence[tuple], b: int, found, levels: Sequence[str],
             margin: float = MARGIN) -> list[str]:
    """:func:`top_two` in words, one line per verdict."""
    said = top_two(members, b, found, levels, margin)
    if not said:
        return []
    lo, hi = said[0].low, said[0].high
    kept = [t.name for t in said if t.kind == "holds"]
    moved = [t.shown() for t in said if t.kind == "moves"]
    unsure = [t.shown() for t in said if t.kind == "unsure"]
    pair = f"{levels[lo]} and {levels[hi]}"
    out = []
    if kept:
        out.append(f"{where}: holds under stronger play (the two strongest levels, {pair}, the same within "
                   f"+-{_margin(margin)} by two one-sided tests): {', '.join(kept)}")
    if moved:
        out.append(f"{where}: moves with skill from {levels[lo]} to {levels[hi]} (their difference's 95% interval "
                   f"leaves out zero): {'; '.join(moved)}")
    if unsure:
        out.append(f"{where}: not enough games to say whether it holds from {levels[lo]} to {levels[hi]} "
                   f"(neither the same within +-{_margin(margin)} nor shown to differ): {'; '.join(unsure)}")
    return out


def variant_names(games: Iterable[str] | None = None) -> set[str]:
    """Every column that can name a variant of these games (default: every game): their setup keys and rule
    parameters, the rule set, the card files."""
    names = {"game", "ruleset", "data_name", "data_digest"}
    wanted = set(GAMES.names() if games is None else games)
    for name in GAMES.names():
        if name not in wanted:
            continue
        g = GAMES[name]
        names |= set(g.setup_keys)
        if g.rule_presets:
            names |= {f.name for f in fields(next(iter(g.rule_presets.values())))}
    return names


def _lineup(v: Any) -> str:
    """A bots value as a line-up: one name for every seat, or the seats' names in order."""
    if isinstance(v, (list, tuple)):
        names = [str(x) for x in v]
        return f"{names[0]} (every seat)" if names and len(set(names)) == 1 else ",".join(names)
    return str(v)


def _num(x: Any) -> str:
    return f"{x:.4g}" if isinstance(x, float) else _show(x)
