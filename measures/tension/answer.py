"""Tension of a sweep's folder (``playtest tension``; docs/tension.md): every cell's answer from the stored
win-probability trace (trace.py computes it per cell, as the report does), with what produced it."""

from __future__ import annotations

from queries import connection, sources
from measures.tension.trace import DECIDED, TABLE, tension


def answer_of(folder, decided: float = DECIDED) -> dict | None:
    """Tension of a sweep's folder (every cell together when it has one; the cells' answers in ``cells``), with
    what produced it (game, rules, setup, bots, seed, oracle: the manifest's, which verification ties to the
    parts); None when the folder has no win_prob table."""
    m = sources.read_manifest(folder)
    if m is None or TABLE not in (m.get("tables") or []):
        return None
    spec = m.get("spec") if isinstance(m.get("spec"), dict) else {}
    con = connection.connect([folder])
    try:
        connection.add_seat_outcomes(con, [folder])
        cells = [c for (c,) in connection.execute(con, "SELECT DISTINCT cell FROM games ORDER BY 1", where="tension",
                                               results=[folder])[1]]
        bots = sorted({", ".join(map(str, b)) for (b,) in connection.execute(
            con, "SELECT DISTINCT bots FROM games", where="tension", results=[folder])[1]})
        # each cell's statements in a worker thread: Ctrl-C stops them (connection.Interrupted, exit code 130), as
        # for every query; a long analysis is not a runaway statement, so no timeout but the longest allowed
        with connection.limits(connection.MAX_TIMEOUT, connection.LIMITS.get().memory_gib):
            per_cell = {c: connection.interruptible(con, lambda stop, c=c: tension(con, c, decided), "tension")
                        for c in cells}
    finally:
        con.close()
    one = per_cell[cells[0]] if len(cells) == 1 else None
    oracle = str(spec.get("oracle") or m.get("oracle") or "the game's default oracle")
    return {"game": m.get("game"), "rules": spec.get("rules"), "overrides": spec.get("overrides") or {},
            "setup": {k: v for k, v in (spec.get("setup") or {}).items() if k != "bots"}, "bots": bots,
            "seed": spec.get("seed"), "oracle": oracle, "folder": str(folder),
            **(one or {"games": sum(a["games"] for a in per_cell.values()), "note_cells": "see cells"}),
            "cells": {c: a for c, a in per_cell.items()},
            "method": (f"each side's chance at the start of every turn by the value head of {oracle} (the win_prob "
                       "table, computed in the engine core), recalibrated on this cell's won games by cross-fitting "
                       "(fitted on the odd game indexes for the even and the other way round; refused when the "
                       "held-out calibration error is 0.03 or more or the Brier score no better than 1/sides); per won game: the winner's lowest chance, a comeback "
                       "(under half the fair share), leader changes, the decisive point (the share of the game's "
                       f"turns after which the winner stays above {decided:g}); means with normal 95%, shares with "
                       "Wilson 95% intervals"),
            "note": "bots, not people: how tense these bots' games are, by this oracle"}
