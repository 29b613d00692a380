"""Kingmaking, answered from a sweep's folder: the ``kingmaking`` table (sim/kit/kingmaking.py) read as what the
out seats' options change **beyond chance** (docs/kingmaking.md).

At each decision of a seat that can no longer win, the table says whether its options, each taken under its own
re-deal of the hidden cards and dice, end with two different winners among the other sides (the *dealt
options*), and whether its own choice under the same re-deals does (*chance*). The headline is their paired
difference, the options' excess over chance: the share of the out seats' decisions (and of games) where the
choice changes the winner beyond what chance does, with a 95% interval clustered by game
(:func:`paired_excess`, :func:`games_excess`). It is claimed only when its interval lies above zero; otherwise
the answer is "no kingmaking shown beyond chance". The older count (every option on the game's own random
stream, the hidden cards kept) is shown labelled as a count that includes chance.

``kingmaking(folder)`` is what ``playtest kingmaker`` prints and what a report can show; it reads only the parts
the manifest vouches for (``queries.sources.table_sources``) and is None when the folder has no such table.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Sequence

import duckdb
import numpy as np
import pyarrow.parquet as pq

from queries.errors import ResultsError
from queries.sources import read_manifest, table_sources
from sim.kit.kingmaking import CHANCE_COLUMNS, TABLE
from infra.sequential import share

COUNTS = ("games", "out_games", "king_games", "out_decisions", "king_decisions", "playouts", "self_rescues",
          "dealt_king_decisions", "chance_king_decisions", "dealt_king_games", "chance_king_games", "chance_playouts")
LEVEL = 0.95

COUNTS_SQL = """
-- name: kingmaking_counts
-- Per cell: games, games with a seat out, kingmaker games on the same stream, out-seat decisions examined, those
-- whose options changed the winner on the same stream, playouts, self-rescues, the decisions (and games) whose
-- dealt options and whose own choice under re-deals (chance) changed the winner; the threshold and oracle.
SELECT cell, count(*) AS games, count(*) FILTER (WHERE seat_out) AS out_games, count(*) FILTER (WHERE king)
       AS king_games, sum(out_decisions) AS out_decisions, sum(king_decisions) AS king_decisions,
       sum(playouts) AS playouts, sum(self_rescues) AS self_rescues,
       sum(dealt_king_decisions) AS dealt_king_decisions, sum(chance_king_decisions) AS chance_king_decisions,
       count(*) FILTER (WHERE dealt_king_decisions > 0) AS dealt_king_games,
       count(*) FILTER (WHERE chance_king_decisions > 0) AS chance_king_games, sum(chance_playouts) AS chance_playouts,
       list_sort(list_distinct(list(threshold))) AS thresholds, list_sort(list_distinct(list(oracle))) AS oracles
FROM km GROUP BY cell ORDER BY cell
"""
GAMES_SQL = """
-- name: kingmaking_games
-- Per game: its cell, out-seat decisions, those the dealt options changed, those chance changed (paired).
SELECT cell, out_decisions, dealt_king_decisions, chance_king_decisions FROM km
ORDER BY cell, seed, game_index
"""
KINDS_SQL = """
-- name: kingmaking_kinds
-- Per cell: each kind of option that handed the win to another side at a kingmaking decision, how often.
SELECT cell, kind, count(*) AS n FROM (SELECT cell, unnest(king_kinds) AS kind FROM km)
GROUP BY cell, kind ORDER BY cell, n DESC, kind
"""


def _t(df: int) -> float:
    from scipy.stats import t
    return float(t.ppf(0.5 + LEVEL / 2, df))


def verdict(low: float | None, high: float | None) -> str:
    """"shown" (the interval above zero), "none shown" (it holds zero), "below" (chance changes the winner more
    often than the options: the interval under zero), or "not enough" (no interval)."""
    if low is None or high is None:
        return "not enough"
    return "shown" if low > 0 else "below" if high < 0 else "none shown"


def _ratio(num: np.ndarray, den: np.ndarray) -> tuple[float | None, float | None, list]:
    """sum(num)/sum(den) over games (clusters) with its cluster-robust standard error and t 95% interval."""
    used = den > 0
    g, total = int(used.sum()), float(den.sum())
    if g < 2 or total <= 0:
        return (None if total <= 0 else float(num.sum()) / total), None, [None, None]
    r = float(num.sum()) / total
    resid = (num - r * den)[used]
    se = math.sqrt(g / (g - 1) * float(resid @ resid)) / total
    h = _t(g - 1) * se
    return r, se, [r - h, r + h]


def paired_excess(out_decisions: Sequence[int], dealt: Sequence[int], chance: Sequence[int]) -> dict:
    """The options' excess over chance at the out seats' decisions, paired per decision, clustered by game.

    Per game: its out-seat decisions n, those whose dealt options changed the winner o, those chance changed c.
    Returns {"decisions", "games" (with an out decision), "options" and "chance" (each {"rate", "se", "ci95"}),
    "excess" {"rate", "se", "ci95"}, "verdict"}: rate = sum(o - c) / sum(n), its standard error robust to the
    decisions of one game hanging together, and a t interval on games - 1 degrees of freedom."""
    n, o, c = (np.asarray(x, dtype=float) for x in (out_decisions, dealt, chance))
    out = {"decisions": int(n.sum()), "games": int((n > 0).sum())}
    for key, num in (("options", o), ("chance", c), ("excess", o - c)):
        rate, se, ci = _ratio(num, n)
        if key != "excess" and ci[0] is not None:
            ci = [max(0.0, ci[0]), min(1.0, ci[1])]
        out[key] = {"rate": rate, "se": se, "ci95": ci}
    out["verdict"] = verdict(*out["excess"]["ci95"])
    return out


def games_excess(dealt_games: Sequence[bool], chance_games: Sequence[bool]) -> dict:
    """The same per game: the share of games with a decision the dealt options changed, minus the share with one
    chance changed, paired per game (every game counted, a t interval). {"games", "options", "chance" (shares
    with Wilson 95%), "excess" {"rate", "se", "ci95"}, "verdict"}."""
    a, b = np.asarray(dealt_games, dtype=float), np.asarray(chance_games, dtype=float)
    g = len(a)
    out = {"games": g, "options": share(int(a.sum()), g), "chance": share(int(b.sum()), g)}
    if g < 2:
        out["excess"] = {"rate": None, "se": None, "ci95": [None, None]}
    else:
        d = a - b
        rate, se = float(d.mean()), float(d.std(ddof=1)) / math.sqrt(g)
        h = _t(g - 1) * se
        out["excess"] = {"rate": rate, "se": se, "ci95": [rate - h, rate + h]}
    out["verdict"] = verdict(*out["excess"]["ci95"])
    return out


def _older(files: list[str]) -> str | None:
    """The first part written before the chance comparison (without its columns), or None."""
    for f in files:
        if not set(CHANCE_COLUMNS) <= set(pq.read_schema(f).names):
            return f
    return None


def summary(counts: dict, threshold: float, per_game: list[tuple[int, int, int]]) -> dict:
    """The counts (:data:`COUNTS` and ``kinds``) with their shares (Wilson 95%), and the options against chance
    from ``per_game`` ((out decisions, dealt-option kings, chance kings) per game): "beyond_chance" (per decision,
    :func:`paired_excess`) and "beyond_chance_games" (per game, :func:`games_excess`)."""
    n, o, c = zip(*per_game) if per_game else ((), (), ())
    return {"threshold": threshold, **counts,
            "beyond_chance": paired_excess(n, o, c),
            "beyond_chance_games": games_excess([x > 0 for x in o], [x > 0 for x in c]),
            "kingmaker_games": share(counts["king_games"], counts["games"]),
            "kingmaker_games_among_out": share(counts["king_games"], counts["out_games"]),
            "games_with_a_seat_out": share(counts["out_games"], counts["games"]),
            "kingmaker_decisions": share(counts["king_decisions"], counts["out_decisions"])}


def method(oracle: str, threshold: float) -> str:
    return (f"a seat is out once the oracle ({oracle}, value head) rates its chance under {threshold:g}; at each "
            "later decision of an out seat with K options, each option is taken on a copy with its own re-deal of "
            "what the seat cannot see and of the dice, and the seat's own choice is played on the same K "
            "re-deals; a set changes the winner when two of its copies end with different winners among the other "
            "seats (or one and none); the headline is the options' share minus chance's, paired per decision, "
            f"{100 * LEVEL:g}% t interval clustered by game, claimed only above zero; the count on the game's own "
            "random stream (every option, the hidden cards kept) is shown apart, with Wilson intervals")


def kingmaking(folder: str | Path) -> dict | None:
    """The kingmaking answer of a sweep's folder, or None when it has no kingmaking table.

    {"game", "seed", "oracle", "threshold", the counts (:data:`COUNTS`), "kinds" {option kind: count, most
    first}, "beyond_chance" (per decision: the dealt options' and chance's rates and the paired excess with its
    interval and verdict, :func:`paired_excess`), "beyond_chance_games" (the same per game,
    :func:`games_excess`), the shares on the game's own stream (kingmaker_games, kingmaker_games_among_out,
    games_with_a_seat_out, kingmaker_decisions: each {count, of, share, ci95}), "setup", "bots", "method", "note",
    "cells" [one such summary per cell, with "cell" and "values"]}; the top level pools the cells (one cell: that
    cell's answer). Raises queries.errors.ResultsError for a folder it cannot read safely, or one written before
    the chance comparison (one line: play it again)."""
    sources = table_sources(folder)
    if TABLE not in sources:
        return None
    files, _ = sources[TABLE]
    older = _older(files)
    if older is not None:
        raise ResultsError(f"{folder}: its {TABLE} table was written before kingmaking was measured against chance "
                           f"({Path(older).name} has no column {CHANCE_COLUMNS[0]}): play it again into a new "
                           "folder (playtest kingmaker GAME --out NEW)")
    manifest = read_manifest(folder) or {}
    con = duckdb.connect()
    try:
        con.read_parquet(files, hive_partitioning=True).create_view("km")
        rows = con.execute(COUNTS_SQL).fetchall()
        kinds_rows = con.execute(KINDS_SQL).fetchall()
        game_rows = con.execute(GAMES_SQL).fetchall()
    finally:
        con.close()
    cells_meta = {c.get("id"): c for c in manifest.get("cells", []) if isinstance(c, dict)}
    cells, pooled = [], {k: 0 for k in COUNTS}
    pooled_kinds: dict[str, int] = {}
    thresholds, oracles = set(), set()
    for cell, *numbers, ths, ors in rows:
        counts = dict(zip(COUNTS, (int(x or 0) for x in numbers)))
        kinds = {k: int(n) for c, k, n in kinds_rows if c == cell}
        thresholds |= set(ths)
        oracles |= set(ors)
        for k in COUNTS:
            pooled[k] += counts[k]
        for k, n in kinds.items():
            pooled_kinds[k] = pooled_kinds.get(k, 0) + n
        meta = cells_meta.get(cell, {})
        setup = (meta.get("match") or {}).get("setup") or {}
        per_game = [tuple(r[1:]) for r in game_rows if r[0] == cell]
        cells.append({"cell": cell, "values": meta.get("values", {}), "setup": setup, "bots": setup.get("bots"),
                      "oracle": ", ".join(ors),
                      **summary({**counts, "kinds": kinds}, ths[0] if len(ths) == 1 else None, per_game)})
    threshold = next(iter(thresholds)) if len(thresholds) == 1 else None
    oracle = ", ".join(sorted(oracles))
    kinds = dict(sorted(pooled_kinds.items(), key=lambda kv: (-kv[1], kv[0])))
    first = cells[0] if len(cells) == 1 else {}
    return {"game": manifest.get("game"), "seed": manifest.get("seed"), "oracle": oracle,
            **summary({**pooled, "kinds": kinds}, threshold, [tuple(r[1:]) for r in game_rows]),
            "setup": first.get("setup"), "bots": first.get("bots"),
            "method": method(oracle, threshold) if threshold is not None else "",
            "note": "bots, not people: how these bots would let a losing seat decide the winner",
            "cells": cells}


def _pct(s: dict) -> str:
    """A Wilson share in words."""
    if s["share"] is None:
        return "n/a"
    return (f"{100 * s['share']:.1f}% (95%: {100 * s['ci95'][0]:.1f} to {100 * s['ci95'][1]:.1f}; "
            f"{s['count']:,} of {s['of']:,})")


def _rate(r: dict) -> str:
    """A clustered rate in words."""
    if r["rate"] is None:
        return "n/a"
    if r["ci95"][0] is None:
        return f"{100 * r['rate']:.1f}%"
    return f"{100 * r['rate']:.1f}% (95%: {100 * r['ci95'][0]:.1f} to {100 * r['ci95'][1]:.1f})"


def _points(ci: list) -> str:
    return f"{100 * ci[0]:+.1f} to {100 * ci[1]:+.1f} points"


def headline(r: dict) -> str:
    """The answer's first claim: what the out seats' options change beyond chance, per decision and per game
    (a rate only where its interval lies above zero)."""
    d, g = r["beyond_chance"], r["beyond_chance_games"]
    if d["verdict"] == "not enough":
        return (f"kingmaking beyond chance: not enough to say ({d['decisions']:,} decisions of seats that could no "
                f"longer win, in {d['games']:,} games; it needs two games or more with such a decision)")
    where = f"{d['decisions']:,} decisions of seats that could no longer win, in {d['games']:,} games"
    if d["verdict"] == "shown":
        ex = d["excess"]
        out = (f"kingmaking beyond chance: a seat that could no longer win decides which other seat wins at "
               f"{100 * ex['rate']:.1f}% of its decisions beyond what chance does (95%: {100 * ex['ci95'][0]:.1f} "
               f"to {100 * ex['ci95'][1]:.1f}; {where})")
    else:
        out = (f"kingmaking: no kingmaking shown beyond chance: trying the options of a seat that could no longer "
               f"win changed the winner among the others no more often than chance did (the options' excess, "
               f"95%: {_points(d['excess']['ci95'])} of its decisions; {where})")
        if d["verdict"] == "below":
            out += "; chance changed the winner more often than the options"
    if g["verdict"] == "shown" and d["verdict"] == "shown":      # per game claimed only beside the checked headline
        ex = g["excess"]
        out += (f"; per game: in {100 * ex['rate']:.1f}% of the games beyond chance (95%: {100 * ex['ci95'][0]:.1f} "
                f"to {100 * ex['ci95'][1]:.1f})")
    elif g["verdict"] == "shown":
        out += (f"; per game: not claimed without the decisions (95%: {_points(g['excess']['ci95'])} of the "
                "games)")
    elif g["verdict"] != "not enough":
        out += f"; per game: none shown beyond chance (95%: {_points(g['excess']['ci95'])} of the games)"
    return out


def sentences(r: dict[str, Any]) -> list[str]:
    """The answer in words, one sentence a line (what ``playtest kingmaker`` prints): the headline (beyond
    chance), both rates it compares, the count on the game's own stream labelled as one that includes chance,
    and the oracle's caveat."""
    d, g = r["beyond_chance"], r["beyond_chance_games"]
    threshold = "the threshold" if r["threshold"] is None else f"{r['threshold']:g}"
    out = [headline(r),
           f"the two rates it compares, at the same decisions: each option taken under its own re-deal of the "
           f"hidden cards and dice changed the winner among the other seats at {_rate(d['options'])} of them "
           f"(in {_pct(g['options'])} of the games); the seat's own choice under the same re-deals, chance alone, "
           f"at {_rate(d['chance'])} (in {_pct(g['chance'])} of the games)",
           f"a seat went out (the oracle rates its chance under {threshold}) before the end in "
           f"{_pct(r['games_with_a_seat_out'])} of the games",
           f"on the game's own random stream (the hidden cards kept), trying every option changed the winner at "
           f"{_pct(r['kingmaker_decisions'])} of those decisions, in {_pct(r['kingmaker_games'])} of the games: "
           "a count that includes chance (the dice fall differently after another choice), not kingmaking by itself"]
    if r["kinds"]:
        out.append("the options that changed the winner on the game's own stream: "
                   + ", ".join(f"{k} {n:,}" for k, n in r["kinds"].items()))
    if r["self_rescues"]:
        out.append(f"a caveat about the oracle, not a finding: {r['self_rescues']:,} options on the game's own stream "
                   "would have made the out seat itself win, so the oracle called some seats out too soon")
    return out
