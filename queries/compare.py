"""A vs B: two result folders, or one sweep split by a parameter, compared cell by cell (``playtest compare``).

Cells are matched by the values of every setup column and rule parameter that varies within a side
(DuckDB finds which); a cell only one side has is listed as unmatched, never pooled. Per matched cell,
every metric (the first player's win share, each seat's or team's win share, end-reason shares, the
stall and draw shares, mean and median game length, knockouts per game) is given as A, B and B - A
with a 95% interval and a p-value; the p-values of all metrics of all cells are adjusted together
(Holm by default, or Benjamini-Hochberg) and each line ends in a verdict in plain words.

When both sides played the same (seed, game index) games (a sweep's cells share the spec seed, and
two sweeps of one seed do too), the games are matched and B - A is the mean of per-game differences
(common random numbers): the same dice fall in both, so the noise that A and B share cancels and the
interval is narrower. The unpaired interval on the same games is reported beside it (their width
ratio). The statistics are :mod:`infra.stats`, the module the nightly regression uses too. What a
game's records mean here (who won, a draw, the first player's win) is the game's own declaration
(:class:`sim.games.CompareColumns`).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from queries import connection
from infra import stats
from queries.pages import BASE, CSS, CUR, SCRIPT, esc, html_table, png_base64
from sim.games import GAMES, CompareColumns
from sim.params import fields

LEVEL = 0.05                                   # "no real difference" when the adjusted p is at least this
# "the same" only by two one-sided tests within these margins (infra.stats.equivalence), per unit of the metric;
# a metric not shown to differ and not shown the same is "not enough games to say"
MARGINS = {"points": stats.MARGIN, "rounds": 0.5, "knockouts": 0.1}
METHODS = {"holm": "Holm (family-wise error)", "bh": "Benjamini-Hochberg (false discovery rate)"}


class CompareError(ValueError):
    """Bad input to compare (a folder, --by, --baseline, mismatched games); the message says which."""


@dataclass
class Side:
    """One side of a comparison: which games (an SQL predicate with bound parameters) and its name."""

    label: str
    predicate: str
    params: dict[str, Any]
    name: str = ""            # how a verdict names it beside A or B ("items=a.toml", a folder's name)


@dataclass
class Row:
    """One metric of one matched cell: A, B, B - A with its interval and p-values, and the verdict."""

    comparison: str           # "" for two folders; "PARAM A vs B" for --by
    cell: str                 # the matched cell's varied values ("" when nothing varies)
    metric: str
    kind: str                 # share | mean | median
    unit: str                 # points | rounds | knockouts
    a: float
    b: float
    diff: float
    low: float
    high: float
    p: float
    paired: bool
    n_a: int
    n_b: int
    n_pairs: int
    unpaired_low: float
    unpaired_high: float
    phrase: str = ""          # how the verdict names it ("the first player's edge")
    p_adj: float = 1.0
    verdict: str = ""

    @property
    def differs(self) -> bool:
        return self.p_adj < LEVEL

    @property
    def sameness(self) -> stats.Equivalence:
        """B - A judged against its unit's margin (:data:`MARGINS`) by two one-sided tests; its games are the
        pairs (paired) or the smaller side."""
        se = (self.high - self.low) / (2 * stats.Z95) if math.isfinite(self.high - self.low) else math.inf
        margin = MARGINS.get(self.unit, stats.MARGIN)
        return stats.equivalence(self.diff, se, self.n_pairs if self.paired else min(self.n_a, self.n_b), margin)

    @property
    def same(self) -> bool:
        """Not shown to differ, and shown the same within its margin."""
        return not self.differs and self.sameness.verdict in ("same", "negligible")

    @property
    def constant(self) -> bool:
        """The same single value in every game of both sides (no draws anywhere): shown, never tested."""
        return self.low == self.high == self.diff == 0 and self.unpaired_low == self.unpaired_high or \
            (self.kind == "share" and self.a == self.b and self.a in (0.0, 1.0))

    @property
    def width_ratio(self) -> float | None:
        """Paired interval width / unpaired width on the same games (None when not paired)."""
        up = self.unpaired_high - self.unpaired_low
        if not self.paired or self.constant or not math.isfinite(up) or up <= 0:
            return None
        return (self.high - self.low) / up

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("phrase")
        d["width_ratio"] = self.width_ratio
        d["differs"] = self.differs
        d["same"] = self.same
        d["margin"] = MARGINS.get(self.unit, stats.MARGIN)
        return d


@dataclass
class CellPlot:
    """What the HTML page draws for one matched cell: the rows and each side's game-length histogram."""

    comparison: str
    cell: str
    rounds_a: dict[float, int]
    rounds_b: dict[float, int]


@dataclass
class Report:
    game: str
    a: str
    b: str
    header: list[str]
    rows: list[Row]
    unmatched: list[str]
    method: str
    command: str = ""
    plots: list[CellPlot] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"title": "A vs B", "a": self.a, "b": self.b, "game": self.game, "notes": self.header,
                "adjustment": self.method, "level": LEVEL, "unmatched": self.unmatched,
                "rows": [r.as_dict() for r in self.rows]}


def _q(con, sql: str, params: dict[str, Any] | None = None, results: Sequence[str] = ()) -> list[tuple]:
    return connection.execute(con, sql, params, where="compare", results=results)[1]


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _text(col: str) -> str:
    return f"CAST({_ident(col)} AS VARCHAR)"


def _game(con, side: Side, results: Sequence[str]) -> str:
    rows = _q(con, f"SELECT DISTINCT game FROM games WHERE {side.predicate}", side.params, results)
    if not rows:
        raise CompareError(f"{side.label}: no games (after --where, if given)")
    games = sorted(str(g) for (g,) in rows)
    if len(games) > 1:
        raise CompareError(f"{side.label}: holds games of more than one game ({', '.join(games)}); "
                           f"compare one game at a time (--where \"game = '{games[0]}'\")")
    if games[0] not in GAMES:
        raise CompareError(f"{side.label}: holds {games[0]} games; compare knows {', '.join(GAMES.names())}")
    return games[0]


CARD_DATA = "data_name"       # the record column naming a game's card data files


def _candidates(game: str, columns: Sequence[str]) -> list[str]:
    """The setup columns and rule-parameter columns the records have: what may define a cell."""
    g = GAMES[game]
    params = {f.name for f in fields(g.rule_presets[g.default_preset])}
    # the card data files by name (items=a.toml; monsters=monsters.toml): a variant like any rule parameter
    return [c for c in columns if c in g.setup_columns or c in params or c == CARD_DATA]


def _distinct(con, side: Side, cols: Sequence[str], results: Sequence[str]) -> dict[str, list[str]]:
    """Each column's distinct values (as text, NULL left out) within one side, at most a few each."""
    if not cols:
        return {}
    sel = ", ".join(f"list(DISTINCT {_text(c)} ORDER BY {_text(c)})[1:21]" for c in cols)
    row = _q(con, f"SELECT {sel} FROM games WHERE {side.predicate}", side.params, results)[0]
    return {c: [v for v in (vals or []) if v is not None] for c, vals in zip(cols, row)}


def _cells(con, side: Side, keys: Sequence[str], results: Sequence[str]) -> dict[tuple, int]:
    """{cell key (the varied values as text): games} of one side."""
    if not keys:
        n = _q(con, f"SELECT count(*) FROM games WHERE {side.predicate}", side.params, results)[0][0]
        return {(): n}
    sel = ", ".join(_text(k) for k in keys)
    rows = _q(con, f"SELECT {sel}, count(*) FROM games WHERE {side.predicate} GROUP BY ALL ORDER BY ALL",
              side.params, results)
    return {tuple(r[:-1]): r[-1] for r in rows}


NAMING_DROP = ("ruleset", "bots", "people", "players", "board", "mode")   # tried first when shortening a label


def _naming(keys: Sequence[str], cells: Sequence[tuple]) -> list[str]:
    """The key columns a cell's label shows: the fewest that still tell every cell apart (mode=2v2 rather than
    ruleset=2v2, mode=2v2, players=4, people=..., bots=...). Matching always uses every key column."""
    shown = list(keys)
    order = [k for k in NAMING_DROP if k in keys] + [k for k in keys if k not in NAMING_DROP]
    for k in order:
        rest = [c for c in shown if c != k]
        if rest and len({tuple(key[keys.index(c)] for c in rest) for key in set(cells)}) == len(set(cells)):
            shown = rest
    return shown


def _label(keys: Sequence[str], key: tuple, shown: Sequence[str] | None = None) -> str:
    return ", ".join(f"{k}={_short(v)}" for k, v in zip(keys, key) if shown is None or k in shown)


def _short(v: Any) -> str:
    """A value as text; a list of one repeated value (bots = [heuristic, heuristic, heuristic]) as 'heuristic x3'."""
    s = str(v)
    if s.startswith("[") and s.endswith("]"):
        items = [i.strip() for i in s[1:-1].split(",")]
        if len(set(items)) == 1 and items[0]:
            return f"{items[0]} x{len(items)}"
    return s


@dataclass(frozen=True)
class PerGame:
    """Per-game measures a comparison adds where the results hold their table, handed in by the layer above
    (measures/answers.py: tension's, from the win_prob table): a side's games gain their columns, and each
    matched cell its rows."""

    table: str                                 # the table they are read from: results without it have none
    build: Callable[[Any], None]               # builds them on the connection (its seat_outcomes view added)
    games: str                                 # SQL over ``{games}`` aliased g: the games with their columns
    columns: tuple[str, ...]                   # the columns a side's games gain
    metrics: Callable[[dict, dict], list[tuple]]    # a matched cell's rows, as :func:`_metrics` gives them
    refused: Callable[[dict, dict], str | None]     # why a matched cell has none of its rows (None: it has them)


def _with_per_game(con, results: Sequence[str], per_game: Sequence[PerGame]) -> tuple[PerGame, ...]:
    """Build the per-game measures whose table the results hold; those they do."""
    held = []
    for m in per_game:
        if not con.execute("SELECT count(*) FROM duckdb_views() WHERE view_name = $n", {"n": m.table}).fetchone()[0]:
            continue
        connection.add_seat_outcomes(con, results)
        m.build(con)
        held.append(m)
    return tuple(held)


def _games(con, game: str, side: Side, keys: Sequence[str], key: tuple, results: Sequence[str],
           per_game: Sequence[PerGame] = ()) -> dict:
    """The per-game values of one side's cell, sorted by (seed, game index), as numpy arrays."""
    sql = GAMES[game].compare_columns
    source = "games"
    for m in per_game:
        source = f"({m.games.format(games=source)})"
    cond = [side.predicate] + [f"{_text(k)} IS NOT DISTINCT FROM $k{i}" for i, k in enumerate(keys)]
    params = dict(side.params) | {f"k{i}": v for i, v in enumerate(key)}
    res = con.execute(
        f"SELECT seed, game_index, ({sql.first_win})::TINYINT AS first_win, ({sql.winner})::INTEGER AS winner, "
        f"end_reason, ({sql.draw})::TINYINT AS draw, rounds::INTEGER AS rounds, "
        f"({sql.knockouts or '0'})::DOUBLE AS knockouts, {sql.unit} AS unit, ({sql.units})::INTEGER AS units"
        + "".join(f", {c}" for m in per_game for c in m.columns)
        + f" FROM {source + ' AS games' if per_game else 'games'} WHERE {' AND '.join(cond)} ORDER BY seed, game_index",
        params)
    return {k: np.asarray(v) for k, v in res.fetchnumpy().items()}


def _match(a: dict, b: dict) -> tuple[np.ndarray, np.ndarray] | None:
    """Indices of the games both sides played, by (seed, game index); None when none (or a side repeats one)."""
    ia, ib = [], []
    for seed in np.intersect1d(a["seed"], b["seed"]):
        sa, sb = np.flatnonzero(a["seed"] == seed), np.flatnonzero(b["seed"] == seed)
        ga, gb = a["game_index"][sa], b["game_index"][sb]
        if len(np.unique(ga)) != len(ga) or len(np.unique(gb)) != len(gb):
            return None            # a game played twice on one side: no one-to-one match
        _, xa, xb = np.intersect1d(ga, gb, assume_unique=True, return_indices=True)
        ia.append(sa[xa])
        ib.append(sb[xb])
    if not ia or sum(len(i) for i in ia) < 2:
        return None
    return np.concatenate(ia), np.concatenate(ib)


def _hist(x: np.ndarray) -> dict[float, int]:
    v, c = np.unique(x, return_counts=True)
    return {float(k): int(n) for k, n in zip(v, c)}


def _metrics(cols: CompareColumns, a: dict, b: dict,
             per_game: Sequence[PerGame] = ()) -> list[tuple[str, str, str, np.ndarray, np.ndarray]]:
    """(name, kind, verdict phrase, A values, B values) of every metric both sides can have."""
    units_a, units_b = set(a["unit"].tolist()), set(b["unit"].tolist())
    out = []
    fair = units_a == units_b and set(a["units"].tolist()) == set(b["units"].tolist())
    da, db = (a["winner"] >= 0).astype(np.int8), (b["winner"] >= 0).astype(np.int8)
    # a change in a side's share of all games is "more games decided" plus "a real edge": each its own row
    out.append(("games decided", "share", "the share of games somebody won", da, db))
    out.append(("first player's share of decided games", "ratio",
                "the first player's edge among decided games" if fair else
                "the first player's share of decided games",
                np.stack([a["first_win"], da], axis=1), np.stack([b["first_win"], db], axis=1)))
    out.append(("first player's win share", "share", "the first player's share of all games (undecided included)",
                a["first_win"], b["first_win"]))
    if units_a == units_b and len(units_a) == 1:
        unit = units_a.pop()
        for s in range(int(max(a["units"].max(), b["units"].max()))):
            name = f"{'Player' if unit == 'seat' else unit.capitalize()} {s + 1}"    # the book's numbering
            out.append((f"{name}'s share of decided games", "ratio", f"{name}'s share of decided games",
                        np.stack([(a["winner"] == s).astype(np.int8), da], axis=1),
                        np.stack([(b["winner"] == s).astype(np.int8), db], axis=1)))
    reasons = sorted(set(a["end_reason"].tolist()) | set(b["end_reason"].tolist()))
    for r in reasons:
        if r not in cols.own_rows:
            out.append((f"ends by {r}", "share", f"the share of games ending by {r}",
                        (a["end_reason"] == r).astype(np.int8), (b["end_reason"] == r).astype(np.int8)))
    if cols.stall_reason:          # a game that can stall (no winner by its round cap)
        stalled = cols.stall_reason
        out.append(("stall share", "share", "the stall share",
                    (a["end_reason"] == stalled).astype(np.int8), (b["end_reason"] == stalled).astype(np.int8)))
    out.append(("draw share", "share", "the draw share", a["draw"], b["draw"]))
    out.append(("game length (mean)", "mean", "the mean game length", a["rounds"], b["rounds"]))
    out.append(("game length (median)", "median", "the median game length", a["rounds"], b["rounds"]))
    if cols.knockouts:
        out.append(("knockouts per game", "mean", "knockouts per game", a["knockouts"], b["knockouts"]))
    for m in per_game:
        out += m.metrics(a, b)
    return out


def _ratio(x: np.ndarray) -> tuple[int, int]:
    """(wins, decided games) of a ratio metric's rows (win, decided)."""
    return int(x[:, 0].sum()), int(x[:, 1].sum())


def _unpaired(kind: str, xa: np.ndarray, xb: np.ndarray) -> tuple[float, float, float, float]:
    """(difference, low, high, p) as if A and B were independent."""
    if kind == "ratio":          # a share of the decided games: a proportion over each side's decided games
        (k1, n1), (k2, n2) = _ratio(xa), _ratio(xb)
        d, lo, hi = stats.newcombe(k1, n1, k2, n2)
        return d, lo, hi, stats.two_proportion_z(k1, n1, k2, n2)[1] if n1 and n2 else 1.0
    if kind == "share":
        k1, n1, k2, n2 = int(xa.sum()), len(xa), int(xb.sum()), len(xb)
        d, lo, hi = stats.newcombe(k1, n1, k2, n2)
        return d, lo, hi, stats.two_proportion_z(k1, n1, k2, n2)[1]
    if kind == "mean":
        return stats.mean_difference(float(xa.mean()), float(xa.var(ddof=1)), len(xa),
                                     float(xb.mean()), float(xb.var(ddof=1)), len(xb))
    return stats.median_difference(_hist(xa), _hist(xb))


def _paired(kind: str, xa: np.ndarray, xb: np.ndarray) -> tuple[float, float, float, float]:
    """(difference, low, high, p) on matched games: xa[i] and xb[i] are the same (seed, game index). A share of the
    decided games (a ratio of sums) is linearized (the delta method): per matched game, each side's
    (win - share * decided) / mean decided, whose mean difference has the ratio difference's variance."""
    if kind == "ratio":
        (ka, na), (kb, nb) = _ratio(xa), _ratio(xb)
        if not na or not nb:
            return 0.0, -1.0, 1.0, 1.0
        ra, rb, n = ka / na, kb / nb, len(xa)
        za = (xa[:, 0] - ra * xa[:, 1]) / (na / n)
        zb = (xb[:, 0] - rb * xb[:, 1]) / (nb / n)
        return stats.paired_difference((rb - ra) + (zb - za))
    if kind in ("share", "mean"):
        return stats.paired_difference(xb.astype(float) - xa.astype(float))
    pairs, counts = np.unique(np.stack([xa, xb], axis=1), axis=0, return_counts=True)
    return stats.paired_median_difference({(float(p[0]), float(p[1])): int(c) for p, c in zip(pairs, counts)})


def _cell_rows(game: str, comparison: str, cell: str, a: dict, b: dict,
               per_game: Sequence[PerGame] = ()) -> tuple[list[Row], bool, CellPlot]:
    m = _match(a, b)
    if m is not None:
        a = {k: v[m[0]] for k, v in a.items()}
        b = {k: v[m[1]] for k, v in b.items()}
    rows = []
    for name, kind, phrase, xa, xb in _metrics(GAMES[game].compare_columns, a, b, per_game):
        if len(xa) < 2 or len(xb) < 2:
            continue
        ud, ulo, uhi, up = _unpaired(kind, xa, xb)
        d, lo, hi, p = _paired(kind, xa, xb) if m is not None else (ud, ulo, uhi, up)
        if kind == "median":   # the lower median, as the bootstrap and the regress report use
            va, vb = _median(xa), _median(xb)
        elif kind == "ratio":
            (ka, na), (kb, nb) = _ratio(xa), _ratio(xb)
            if not na or not nb:       # no decided game on a side: nothing to share out
                continue
            va, vb = ka / na, kb / nb
        else:
            va, vb = float(xa.mean()), float(xb.mean())
        unit = "points" if kind in ("share", "ratio") else "knockouts" if name.startswith("knockouts") else "rounds"
        rows.append(Row(comparison, cell, name, "share" if kind == "ratio" else kind, unit, float(va), float(vb), d, lo, hi, p, m is not None,
                        len(xa), len(xb), len(xa) if m is not None else 0, ulo, uhi, phrase))
    plot = CellPlot(comparison, cell, _hist(a["rounds"]), _hist(b["rounds"]))
    return rows, m is not None, plot


def _median(x: np.ndarray) -> float:
    h = _hist(x)
    return float(stats.hist_median(np.array(sorted(h), dtype=float), np.array([h[k] for k in sorted(h)]))[()])


# ---------------------------------------------------------------------------------------------------
# Verdicts in words
# ---------------------------------------------------------------------------------------------------

def decimals(r: Row) -> int:
    """Decimals that show the row's effect: its usual ones (1 for points, 2 for means), more when the interval
    is so narrow that they would print it as [0.00, 0.00]: the first significant digit of its half-width, and of
    the bound nearest zero when the interval leaves zero out (so it never prints as 0); at most 4."""
    base = 1 if r.kind == "share" else 2
    scale = 100 if r.kind == "share" else 1
    half = abs(r.high - r.low) * scale / 2
    if not math.isfinite(half) or half <= 0:
        return base
    need = [base, -math.floor(math.log10(half))]
    if r.low * r.high > 0:
        need.append(-math.floor(math.log10(min(abs(r.low), abs(r.high)) * scale)))
    return min(4, max(need))


def amount(r: Row, x: float, signed: bool = True) -> str:
    """A difference in the row's unit: points for shares (1.0 point), rounds, knockouts, with enough digits
    (:func:`decimals`)."""
    x = x + 0.0                 # no "-0"
    if r.kind == "median":
        return f"{x:+g}" if signed else f"{x:g}"
    v, d = (100 * x if r.kind == "share" else x), decimals(r)
    return f"{v:+.{d}f}" if signed else f"{v:.{d}f}"


def _unit_word(r: Row, x: float) -> str:
    shown = float(amount(r, abs(x), signed=False))
    if r.unit == "points":
        return "point" if shown == 1 else "points"
    if r.unit == "rounds":
        return "round" if shown == 1 else "rounds"
    return ""


def verdict(r: Row, tested: int = 1, a: str = "", b: str = "") -> str:
    """'B lowers the first player's edge by 1.0 point [0.3, 1.7]', or 'no real difference in ...'. The verdict
    follows the adjusted p (``tested`` metrics and cells); when this metric's own 95% interval leaves out zero
    but the adjustment says no real difference, the line says so, so the interval never seems to contradict it.
    ``a``, ``b``: the sides' names; given, the verdict names both ('B (items=b.toml) lowers ... than A
    (items=a.toml)', 'no real difference between A (...) and B (...) in ...')."""
    if a and b:
        plain = verdict(r, tested)
        if plain.startswith("B "):
            return f"B ({b}) {plain[2:]} against A ({a})"
        return plain.replace("no real difference in ", f"no real difference between A ({a}) and B ({b}) in ", 1) \
            .replace("no real difference shown in ", f"no real difference shown between A ({a}) and B ({b}) in ", 1)
    if not r.differs:
        alone = r.low > 0 or r.high < 0
        why = (f"; its own 95% interval [{amount(r, r.low)}, {amount(r, r.high)}] leaves out 0, but not once "
               f"{tested} metrics are tested together (adjusted p {p_text(r.p_adj)})") if alone else \
            f" [{amount(r, r.low)}, {amount(r, r.high)}]"
        eq = r.sameness
        margin = f"+-{100 * eq.margin:g} points" if r.unit == "points" else f"+-{eq.margin:g} {r.unit}"
        if r.same:
            said = f"no real difference in {r.phrase}, the same within {margin}"
        else:
            need = f"; about {eq.games_needed:,} {'pairs' if r.paired else 'games a side'} would settle it" \
                if eq.games_needed else ""
            said = f"no real difference shown in {r.phrase}, but not enough games to say it is the same within " \
                   f"{margin}{need}"
        return (f"{said} ({amount(r, r.diff)} {_unit_word(r, r.diff)}"
                f"{why})").replace("  ", " ").replace(" )", ")").replace(" ;", ";")
    up = r.diff > 0
    lo, hi = (r.low, r.high) if up else (-r.high, -r.low)
    unit = _unit_word(r, r.diff)
    return (f"B {'raises' if up else 'lowers'} {r.phrase} by {amount(r, abs(r.diff), False)}"
            f"{' ' + unit if unit else ''} [{amount(r, lo, False)}, {amount(r, hi, False)}]")


# ---------------------------------------------------------------------------------------------------
# The comparison
# ---------------------------------------------------------------------------------------------------

def _check_path(p: str, what: str) -> None:
    if not any(ch in p for ch in "*?[") and not Path(p).exists():
        raise CompareError(f"{what} {p}: no such results folder or Parquet file")


def _bots(con, side: Side, results: Sequence[str]) -> list[str]:
    """The bot specs that played a side's games: one per seat line, or the one bot when it is every seat's."""
    rows = _q(con, f"SELECT DISTINCT CAST(bots AS VARCHAR), list_distinct(bots) FROM games WHERE {side.predicate} "
                   "ORDER BY 1", side.params, results)
    if len({tuple(one) for _, one in rows}) == 1 and len(rows[0][1]) == 1:
        return [f"{rows[0][1][0]} in every seat"]
    return [_short(b) for b, _ in rows]


def _analyse(con, pairs: list[tuple[Side, Side, str]], exclude: Sequence[str], results: Sequence[str],
             method: str, per_game: Sequence[PerGame] = ()) -> tuple[str, list[str], list[Row], list[str], list[CellPlot]]:
    columns = [r[0] for r in con.execute("DESCRIBE games").fetchall()]
    games = {_game(con, s, results) for a, b, _ in pairs for s in (a, b)}
    if len(games) > 1:
        a, b, _ = pairs[0]
        raise CompareError(f"mismatched games: {a.label} holds {_game(con, a, results)} games, {b.label} holds "
                           f"{_game(con, b, results)}; compare results of one game")
    game = games.pop()
    held = _with_per_game(con, results, per_game)
    cands = _candidates(game, columns)
    header, rows, unmatched, plots = [], [], [], []
    bots_seen: list[str] = []
    names: list[tuple[str, str]] = []          # each row's sides, as its verdict names them
    for a, b, comparison in pairs:
        n_rows = len(rows)
        va, vb = _distinct(con, a, cands, results), _distinct(con, b, cands, results)
        keys = [c for c in cands if c not in exclude and (len(va[c]) > 1 or len(vb[c]) > 1)]
        differ = [f"{'card data' if c == CARD_DATA else c} {_short(va[c][0])} -> {_short(vb[c][0])}" for c in cands
                  if c not in keys and va[c] and vb[c] and va[c] != vb[c]]
        what = f"{comparison}: " if comparison else ""
        header.append(f"{what}A and B differ in "
                      + (", ".join(differ) if differ else "no setup value or rule parameter (same rules)"))
        header.append(f"{what}cells matched by " + (", ".join(keys) if keys else "nothing (one cell a side)"))
        for s in (a, b):
            bots_seen += [x for x in _bots(con, s, results) if x not in bots_seen]
        ca, cb = _cells(con, a, keys, results), _cells(con, b, keys, results)
        shown = _naming(keys, list(ca) + list(cb))
        for key, n in ca.items():
            if key not in cb:
                unmatched.append(f"{what}cell {_label(keys, key, shown)} only in A ({n:,} games)")
        for key, n in cb.items():
            if key not in ca:
                unmatched.append(f"{what}cell {_label(keys, key, shown)} only in B ({n:,} games)")
        matched = [k for k in ca if k in cb]
        n_paired = 0
        for key in matched:
            label = _label(keys, key, shown)
            ga, gb = (_games(con, game, a, keys, key, results, held),
                      _games(con, game, b, keys, key, results, held))
            cell_rows, paired, plot = _cell_rows(game, comparison, label, ga, gb, held)
            for m in held:                                     # a measure's rows left out: the refusal instead
                refused = m.refused(ga, gb)
                if refused:
                    header.append(f"{what}{'cell ' + label + ': ' if label else ''}{refused}")
            rows += cell_rows
            plots.append(plot)
            n_paired += paired
        names += [(a.name, b.name)] * (len(rows) - n_rows)
        header.append(f"{what}paired on common random numbers (the same seed and game index on both sides) in "
                      f"{n_paired} of {len(matched)} matched cells" if n_paired else
                      f"{what}unpaired (no game of A has the same seed and game index as one of B)")
    header.insert(0, f"game {game}; bot games, not people: {'; '.join(bots_seen)}")
    tested = [r for r in rows if not r.constant]
    for r, q in zip(tested, stats.adjust([r.p for r in tested], method)):
        r.p_adj = q
    for r, (na, nb) in zip(rows, names):
        r.verdict = verdict(r, len(tested), na, nb)
    header.append(f"95% intervals; p-values adjusted by {METHODS[method]} across all {len(tested)} tested metrics "
                  f"and cells (a metric with one value in every game of both sides, such as no draws, is not tested); "
                  f"'no real difference' when the adjusted p is {LEVEL} or more, and 'the same' only when two one-sided "
                  f"tests put B - A within its margin (shares +-{100 * MARGINS['points']:g} points, lengths "
                  f"+-{MARGINS['rounds']:g} rounds, knockouts +-{MARGINS['knockouts']:g}); otherwise 'not enough games "
                  "to say'")
    return game, header, rows, unmatched, plots


def compare_folders(a: str, b: str, where: str | None = None, method: str = "holm",
                    per_game: Sequence[PerGame] = ()) -> Report:
    """A vs B: two result folders (or Parquet files or globs), cell by matched cell; ``per_game``: the
    measures that add rows where the results hold their table."""
    _check_method(method)
    _check_path(a, "A:")
    _check_path(b, "B:")
    if str(a) == str(b):
        raise CompareError(f"A and B are the same results ({a}); give two folders, or one with --by PARAM")
    results = [str(a), str(b)]
    con = connection.connect(results, where)
    try:
        sides = [Side(f"A ({a})", "results = $side", {"side": str(a)}, _folder_name(a)),
                 Side(f"B ({b})", "results = $side", {"side": str(b)}, _folder_name(b))]
        game, header, rows, unmatched, plots = _analyse(con, [(sides[0], sides[1], "")], (), results, method,
                                                        per_game)
    finally:
        con.close()
    return Report(game, str(a), str(b), header, rows, unmatched, method, plots=plots)


def compare_by(folder: str, by: str, baseline: str | None = None, where: str | None = None,
               method: str = "holm", per_game: Sequence[PerGame] = ()) -> Report:
    """One sweep split by a parameter: each of its values (B) against the first, or against ``baseline`` (A);
    ``per_game`` as :func:`compare_folders`."""
    _check_method(method)
    _check_path(folder, "")
    results = [str(folder)]
    con = connection.connect(results, where)
    try:
        columns = [r[0] for r in con.execute("DESCRIBE games").fetchall()]
        games = sorted(g for (g,) in _q(con, "SELECT DISTINCT game FROM games", None, results))
        if len(games) != 1:
            raise CompareError(f"{folder}: " + ("no games" + (" match --where" if where else "") if not games else
                                                f"holds games of more than one game ({', '.join(games)})"))
        cands = _candidates(games[0], columns) if games[0] in GAMES else []
        data_key = None
        if games[0] in GAMES and by in GAMES[games[0]].data_keys and CARD_DATA in cands:
            data_key, by = by, CARD_DATA    # a card data file (a sweep's grid key): split by the files games used
        if by not in cands:
            raise CompareError(f"--by {by!r} is not a setup column or rule parameter of these {games[0]} records; "
                               f"expected one of {', '.join(cands)}")
        # in the spec's order (its first cell holding each value: cell ids follow the spec's grid and cells),
        # so A is the value the spec lists first; results without cells, by value
        values = [v for (v,) in _q(con, f"SELECT {_text(by)} FROM games WHERE {_ident(by)} IS NOT NULL "
                                        f"GROUP BY {_ident(by)} ORDER BY min(cell) NULLS LAST, {_ident(by)}",
                                   None, results)]
        name = {v: v for v in values}
        if data_key is not None:    # "items=a.toml; monsters=monsters.toml" -> "a.toml", the --by file's name
            name = {v: dict(p.partition("=")[::2] for p in v.split("; ")).get(data_key, "?") for v in values}
            if len(set(name.values())) != len(values) and len(set(name.values())) > 1:
                raise CompareError(f"--by {data_key}: these games also differ in other card data files ("
                                   f"{'; '.join(values[:3])}); compare one file at a time, or the sweep by card data")
            by_shown = data_key
        else:
            by_shown = by
        if len(set(name.values())) < 2:
            raise CompareError(f"--by {by_shown}: every game has {by_shown} = "
                               f"{name[values[0]] if values else 'NULL'}; nothing to compare (it must take at least "
                               "two values)")
        base = values[0] if baseline is None else next((v for v in values if baseline in (v, name[v])), None)
        if base is None:
            raise CompareError(f"--baseline {baseline!r}: no game has {by_shown} = {baseline}; its values: "
                               f"{', '.join(name[v] for v in values)}")
        what = f"{data_key}" if data_key is not None else by
        side = {v: Side(f"{what}={name[v]}", f"{_text(by)} = $side", {"side": v}, f"{what}={name[v]}")
                for v in values}
        pairs = [(side[base], side[v], f"{what} {name[base]} vs {name[v]}") for v in values if v != base]
        game, header, rows, unmatched, plots = _analyse(con, pairs, (by,), results, method, per_game)
    finally:
        con.close()
    label_b = ", ".join(name[v] for v in values if v != base)
    return Report(game, f"{what}={name[base]}", f"{what}={label_b}", header, rows, unmatched, method, plots=plots)


def _folder_name(path: str) -> str:
    """A results folder as a verdict names it: its last name (a URI without its ?query), never its whole path."""
    head = str(path).partition("?")[0].rstrip("/")
    return head.rsplit("/", 1)[-1] or head


def _check_method(method: str) -> None:
    if method not in METHODS:
        raise CompareError(f"--adjust {method!r} is not available; expected one of {', '.join(METHODS)}")


# ---------------------------------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------------------------------

def p_text(p: float) -> str:
    return "<1e-300" if p <= 0 else f"{p:.2g}" if p < 0.001 else f"{p:.3f}"


def value_text(r: Row, x: float) -> str:
    if r.kind == "share":
        return f"{100 * x:.1f}%"
    if r.kind == "median":
        return f"{x:g}"
    return f"{x:.2f}"


def interval_text(r: Row, lo: float, hi: float) -> str:
    return f"[{amount(r, lo)}, {amount(r, hi)}]"


def ratio_text(r: Row) -> str:
    w = r.width_ratio
    if r.constant:
        return "-"
    if w is None:
        return "unpaired"
    return f"{w:.2f}x ({100 * (1 - w):.0f}% narrower)" if w < 1 else f"{w:.2f}x"


def table(report: Report) -> tuple[list[str], list[list[str]]]:
    """The rows as text: the terminal table and Markdown."""
    by = any(r.comparison for r in report.rows)
    head = (["comparison"] if by else []) + ["cell", "metric", "A", "B", "B-A", "95% interval", "p (adj.)",
                                             "paired/unpaired width", "verdict"]
    cells = []
    for r in report.rows:
        cells.append(([r.comparison] if by else []) + [
            r.cell or "all", r.metric, value_text(r, r.a), value_text(r, r.b),
            amount(r, r.diff) + ("" if r.kind == "median" else " pp" if r.kind == "share" else ""),
            interval_text(r, r.low, r.high), p_text(r.p_adj), ratio_text(r), r.verdict])
    return head, cells


CSV_COLUMNS = ("comparison", "cell", "metric", "kind", "unit", "a", "b", "diff", "low", "high", "p", "p_adj",
               "paired", "n_a", "n_b", "n_pairs", "unpaired_low", "unpaired_high", "width_ratio", "verdict")


def records(report: Report) -> tuple[list[str], list[tuple]]:
    """The rows as plain values (CSV): shares as fractions, lengths in rounds."""
    return list(CSV_COLUMNS), [tuple(r.as_dict()[c] for c in CSV_COLUMNS) for r in report.rows]


def summary(report: Report) -> list[str]:
    """The verdict lines that say B differs (the others: one line counting them)."""
    differ = [r for r in report.rows if r.differs]
    open_ = [r for r in report.rows if not r.differs and not r.same]
    out = [f"{(r.comparison + ', ') if r.comparison else ''}{r.cell or 'all games'}: {r.verdict}"
           for r in differ + open_]
    same = len(report.rows) - len(differ) - len(open_)
    margins = ", ".join(f"+-{100 * m:g} points" if u == "points" else f"+-{m:g} {u}" for u, m in MARGINS.items())
    if same:
        out.append(f"the same within the margins ({margins}, two one-sided tests) in "
                   f"{'the other' if differ or open_ else 'all'} {same} metric(s)")
    elif not differ and not open_:
        out.append("nothing to compare")
    return out


def markdown(report: Report) -> str:
    head, cells = table(report)
    lines = ["# A vs B", ""] + [f"- {h}" for h in report.header] + [""]
    lines += ["## Verdicts", ""] + [f"- {s}" for s in summary(report)] + [""]
    if report.unmatched:
        lines += ["## Unmatched cells (not compared)", ""] + [f"- {u}" for u in report.unmatched] + [""]
    lines += ["## Every metric", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in cells]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------------
# The HTML page: the regress report's style and plots (queries/pages.py), titled A vs B
# ---------------------------------------------------------------------------------------------------

def _css() -> str:
    keep = [line for line in CSS.splitlines() if ".pass" not in line]     # the regression's verdict colours
    return "\n".join(keep) + "\n.same { background: #e3f4e1; color: #1d6b25; } .differs { background: #fff3e0; " \
                             "color: #8a4b00; }\n"


def cell_figure(plot: CellPlot, rows: list[Row]) -> str:
    """One matched cell's plots as a base64 PNG: shares A beside B (95% Wilson intervals), B - A with the
    interval used (paired or unpaired) beside the unpaired one, and the game lengths' cumulative shares."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    shares = [r for r in rows if r.kind == "share"]
    fig, axes = plt.subplots(1, 3, figsize=(15.6, 3.8))
    ax = axes[0]
    for j, (side, colour, dx) in enumerate((("A", BASE, -0.2), ("B", CUR, 0.2))):
        ys, lo, hi = [], [], []
        for r in shares:
            p, n = (r.a, r.n_a) if j == 0 else (r.b, r.n_b)
            w = stats.wilson(round(p * n), n)
            ys.append(p)
            lo.append(max(0.0, p - w[0]))
            hi.append(max(0.0, w[1] - p))
        ax.errorbar([i + dx for i in range(len(shares))], ys, yerr=[lo, hi], fmt="o", color=colour, capsize=3,
                    label=side)
    ax.set_xticks(range(len(shares)), [r.metric.replace(" win share", "") for r in shares], rotation=40,
                  ha="right", fontsize=8)
    ax.set_ylabel("share of games")
    ax.set_title("shares with 95% Wilson intervals")
    ax.legend(fontsize=8)
    ax = axes[1]
    labelled = set()
    for i, r in enumerate(shares):
        d = 100 * r.diff
        for dx, lo, hi, colour, name in ((-0.15, r.low, r.high, CUR, "B-A" + (" (paired)" if r.paired else "")),
                                         (0.15, r.unpaired_low, r.unpaired_high, BASE, "B-A (unpaired)")):
            if dx > 0 and not r.paired:
                continue
            ax.errorbar([i + dx], [d], yerr=[[max(0.0, d - 100 * lo)], [max(0.0, 100 * hi - d)]], fmt="o",
                        color=colour, capsize=3, label=None if name in labelled else name)
            labelled.add(name)
        ax.annotate(f"{amount(r, r.diff)}", (i - 0.15, d), textcoords="offset points", xytext=(6, 4), fontsize=7)
    ax.legend(fontsize=8)
    ax.axhline(0, color="#999", lw=0.8)
    # a 1-point headline beside a 10-point end-reason shift: linear within 1 point of zero, logarithmic beyond,
    # so neither is squeezed flat (each point also carries its number)
    ax.set_yscale("symlog", linthresh=1.0)
    ax.set_xticks(range(len(shares)), [r.metric.replace(" win share", "") for r in shares], rotation=40,
                  ha="right", fontsize=8)
    ax.set_ylabel("B - A, percentage points (symlog)")
    ax.set_title("differences with 95% intervals")
    ax = axes[2]
    for hist, colour, side in ((plot.rounds_a, BASE, "A"), (plot.rounds_b, CUR, "B")):
        xs = sorted(hist)
        n = sum(hist.values()) or 1
        ax.step(xs, np.cumsum([hist[x] for x in xs]) / n, where="post", color=colour, label=side)
    ends = [_quantile(h, 0.995) for h in (plot.rounds_a, plot.rounds_b) if h]
    if ends:                       # the long tail of stalled games would squeeze the curves to one side
        ax.set_xlim(0, max(ends) + 1)
    ax.set_xlabel("rounds")
    ax.set_ylabel("share of games at most x")
    ax.set_ylim(0, 1.02)
    ax.set_title("game length")
    ax.legend(fontsize=8)
    fig.tight_layout()
    data = png_base64(fig)
    plt.close(fig)
    return data


def _quantile(hist: dict[float, int], q: float) -> float:
    xs = sorted(hist)
    acc, n = 0, sum(hist.values())
    for x in xs:
        acc += hist[x]
        if acc >= q * n:
            return x
    return xs[-1]


def page(report: Report) -> str:
    """The comparison as one self-contained HTML page (inline PNG plots, no outside file or address)."""
    differ = [r for r in report.rows if r.differs]
    state = "differs" if differ else "same"
    title = "A vs B"
    unsure = [r for r in report.rows if not r.differs and not r.same]
    head = (f"B differs in {len(differ)} of {len(report.rows)} metrics" if differ else
            f"not enough games to say whether B is the same as A in {len(unsure)} of {len(report.rows)} metrics "
            "(none shown to differ)" if unsure else
            f"no real difference in any of the {len(report.rows)} metrics: the same within the margins")
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{title}</title><style>{_css()}</style>"
             f"</head><body><h1>{title}</h1>",
             f"<div class='verdict {state}' id='verdict'>{esc(head)}</div>",
             "<ul>" + "".join(f"<li>{esc(h)}</li>" for h in report.header) + "</ul>",
             "<section id='verdicts'><h2>Verdicts</h2><ul>"
             + "".join(f"<li>{esc(s)}</li>" for s in summary(report)) + "</ul></section>"]
    if report.unmatched:
        parts.append("<h2>Unmatched cells (not compared)</h2><ul>"
                     + "".join(f"<li>{esc(u)}</li>" for u in report.unmatched) + "</ul>")
    head_row, cells = table(report)
    parts.append(f"<section id='all'><h2>Every metric ({len(report.rows)})</h2>"
                 + html_table(head_row, cells, [r.differs for r in report.rows]) + "</section>")
    parts.append("<section id='plots'><h2>A beside B, per matched cell</h2>")
    for plot in report.plots:
        rows = [r for r in report.rows if r.comparison == plot.comparison and r.cell == plot.cell]
        name = ", ".join(x for x in (plot.comparison, plot.cell) if x) or "all games"
        parts.append(f"<h3>{esc(name)}</h3><img class='plot' alt='plots of {esc(name)}' "
                     f"src='data:image/png;base64,{cell_figure(plot, rows)}'>")
    parts.append("</section>")
    if report.command:
        parts.append(f"<h2>Reproduce</h2><pre><code>{esc(report.command)}</code></pre>")
    parts.append(f"<script>{SCRIPT}</script></body></html>")
    return "\n".join(parts)
