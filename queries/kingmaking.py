"""Kingmaking, answered from a sweep's folder: the ``kingmaking`` table (sim/kit/kingmaking.py) as shares with
Wilson 95% intervals and the kinds of option that changed the winner, in the book's words (docs/kingmaking.md).

``kingmaking(folder)`` is what ``playtest kingmaker`` prints and what a report can show; it reads only the parts
the manifest vouches for (``queries.library.table_sources``) and is None when the folder has no such table.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb

from queries.library import read_manifest, table_sources
from sim.kit.kingmaking import TABLE
from sim.sequential import share

COUNTS = ("games", "out_games", "king_games", "out_decisions", "king_decisions", "playouts", "self_rescues")

COUNTS_SQL = """
-- name: kingmaking_counts
-- Per cell: games, games with a seat out, kingmaker games, out-seat decisions examined, those that made a king,
-- playouts and self-rescues; the threshold and oracle its rows were played with.
SELECT cell, count(*) AS games, count(*) FILTER (WHERE seat_out) AS out_games, count(*) FILTER (WHERE king)
       AS king_games, sum(out_decisions) AS out_decisions, sum(king_decisions) AS king_decisions,
       sum(playouts) AS playouts, sum(self_rescues) AS self_rescues,
       list_sort(list_distinct(list(threshold))) AS thresholds, list_sort(list_distinct(list(oracle))) AS oracles
FROM km GROUP BY cell ORDER BY cell
"""
KINDS_SQL = """
-- name: kingmaking_kinds
-- Per cell: each kind of option that handed the win to another side at a kingmaking decision, how often.
SELECT cell, kind, count(*) AS n FROM (SELECT cell, unnest(king_kinds) AS kind FROM km)
GROUP BY cell, kind ORDER BY cell, n DESC, kind
"""


def summary(counts: dict, threshold: float) -> dict:
    """The counts (:data:`COUNTS` and ``kinds``) with their shares and Wilson 95% intervals."""
    return {"threshold": threshold, **counts,
            "kingmaker_games": share(counts["king_games"], counts["games"]),
            "kingmaker_games_among_out": share(counts["king_games"], counts["out_games"]),
            "games_with_a_seat_out": share(counts["out_games"], counts["games"]),
            "kingmaker_decisions": share(counts["king_decisions"], counts["out_decisions"])}


def method(oracle: str, threshold: float) -> str:
    return (f"a seat is out once the oracle ({oracle}, value head) rates its chance under {threshold:g}; every "
            "option of each later decision of an out seat is taken on a copy and the copy played to the end on the "
            "same random stream; a decision makes a king when two of its options end differently for the other "
            "seats (another winner, or none); Wilson 95%")


def kingmaking(folder: str | Path) -> dict | None:
    """The kingmaking answer of a sweep's folder, or None when it has no kingmaking table.

    {"game", "seed", "oracle", "threshold", the counts (games, out_games, king_games, out_decisions,
    king_decisions, playouts, self_rescues), "kinds" {option kind: count, most first}, the shares
    (kingmaker_games, kingmaker_games_among_out, games_with_a_seat_out, kingmaker_decisions: each {count, of,
    share, ci95}), "setup", "bots", "method", "note", "cells" [one such summary per cell, with "cell" and
    "values"]}; the top level pools the cells (one cell: that cell's answer). Raises queries.library.ResultsError
    for a folder it cannot read safely."""
    sources = table_sources(folder)
    if TABLE not in sources:
        return None
    files, _ = sources[TABLE]
    manifest = read_manifest(folder) or {}
    con = duckdb.connect()
    try:
        con.read_parquet(files, hive_partitioning=True).create_view("km")
        rows = con.execute(COUNTS_SQL).fetchall()
        kinds_rows = con.execute(KINDS_SQL).fetchall()
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
        cells.append({"cell": cell, "values": meta.get("values", {}), "setup": setup, "bots": setup.get("bots"),
                      "oracle": ", ".join(ors), **summary({**counts, "kinds": kinds}, ths[0] if len(ths) == 1 else None)})
    threshold = next(iter(thresholds)) if len(thresholds) == 1 else None
    oracle = ", ".join(sorted(oracles))
    kinds = dict(sorted(pooled_kinds.items(), key=lambda kv: (-kv[1], kv[0])))
    first = cells[0] if len(cells) == 1 else {}
    return {"game": manifest.get("game"), "seed": manifest.get("seed"), "oracle": oracle,
            **summary({**pooled, "kinds": kinds}, threshold),
            "setup": first.get("setup"), "bots": first.get("bots"),
            "method": method(oracle, threshold) if threshold is not None else "",
            "note": "bots, not people: how these bots would let a losing seat decide the winner",
            "cells": cells}


def sentences(r: dict[str, Any]) -> list[str]:
    """The answer in words, one sentence a line (what ``playtest kingmaker`` prints)."""
    def pct(s: dict) -> str:
        if s["share"] is None:
            return "n/a"
        return (f"{100 * s['share']:.1f}% (95%: {100 * s['ci95'][0]:.1f} to {100 * s['ci95'][1]:.1f}; "
                f"{s['count']:,} of {s['of']:,})")
    threshold = "the threshold" if r["threshold"] is None else f"{r['threshold']:g}"
    out = [f"a seat went out (the oracle rates its chance under {threshold}) before the end in "
           f"{pct(r['games_with_a_seat_out'])} of the games",
           f"kingmaking: in {pct(r['kingmaker_games'])} of the games a seat that could no longer win had a choice "
           f"that decides which other seat wins ({pct(r['kingmaker_games_among_out'])} of the games with a seat "
           "out)",
           f"of the out seats' decisions, {pct(r['kingmaker_decisions'])} made a king"]
    if r["kinds"]:
        out.append("the options that changed the winner: " + ", ".join(f"{k} {n:,}" for k, n in r["kinds"].items()))
    if r["self_rescues"]:
        out.append(f"{r['self_rescues']:,} options would have made the out seat itself win: the oracle called it "
                   "out too soon there")
    return out
