"""Tension from a sweep's stored win-probability trace (the ``win_prob`` table; docs/tension.md).

A sweep with ``tables = ["games", "win_prob"]`` stores, for every game, each seat's chance to win by the oracle
(a learned model's value head, from what every player can see) at the start of every turn and once after the
game ended (``seat`` -1). Tension reads the turn rows: a side's chance is that of its seats (in a team mode each
seat holds its team's chance). From the eventual winner's curve, per game somebody won:

- **lowest chance**: the lowest chance the eventual winner had at the start of a turn (drama: how far behind);
- **comeback**: the winner was once under half its fair share (1 / sides / 2);
- **leader changes**: how often the side the oracle rates highest changes from one turn to the next;
- **decisive point**: the share of the game's turns after which the winner's chance stays above ``decided``
  (0.9) to the end (1 when it never does); a game is **decided early** when that is in its first half;
- **lead for good**: the share of the game's turns after which the winner is the side rated highest to the end.

Means with normal 95% intervals, shares with Wilson 95% intervals; games nobody won are counted apart (their own
line). The curve: the winner's chance and the others' mean chance at 21 points of progress through the game
(point k takes turn floor(k * turns / 20), the last turn at most), median and quartiles over the won games.

:func:`game_measures` and :func:`progress_rows` define the measures on one game's curve (readable, and the
tests' yardstick); :func:`tension` computes them for every game at once in DuckDB.
"""

from __future__ import annotations

import math

import numpy as np

from sim.sequential import share

DECIDED = 0.9
STEPS = 20
TABLE = "win_prob"


def game_measures(curve: np.ndarray, winner: int, sides: int, decided: float = DECIDED) -> dict | None:
    """One won game's measures from its curve (rows: turns; columns: sides); None for a game nobody won or
    with no turn."""
    if winner < 0 or not len(curve):
        return None
    w = curve[:, winner]
    leaders = curve.argmax(axis=1)
    tail = np.flatnonzero(~(w > decided))
    first = 0 if not len(tail) else int(tail[-1]) + 1
    behind = np.flatnonzero(leaders != winner)
    leads = 0 if not len(behind) else int(behind[-1]) + 1
    return {"lowest": float(w.min()), "comeback": bool(w.min() < 0.5 / sides),
            "leader_changes": int((leaders[1:] != leaders[:-1]).sum()),
            "decisive": first / len(w), "decided_early": first / len(w) < 0.5, "leads_from": leads / len(w)}


def progress_rows(curve: np.ndarray, winner: int, steps: int = STEPS) -> tuple[np.ndarray, np.ndarray]:
    """The winner's chance and the others' mean chance at each of ``steps`` + 1 points of progress (point k:
    the turn floor(k * turns / steps), the last at most)."""
    n = len(curve)
    at = np.minimum(np.arange(steps + 1) * n // steps, n - 1)
    others = np.delete(curve, winner, axis=1).mean(axis=1) if curve.shape[1] > 1 else np.zeros(n)
    return curve[at, winner], others[at]


# One row per turn of every game: the sides' chances (a side's: its first seat's), the winner's, the others'
# mean, the side rated highest (the first on ties), the turn's place in its game. A game is one (results, cell,
# seed, game index): the cells of a sweep share their seed, and two folders may too.
_TURNS = """
CREATE OR REPLACE TEMP TABLE tension_turns AS
WITH t AS (
    SELECT o.results, o.cell, w.seed, w.game_index, w.turn,
           [w.chances[list_position(o.seat_sides, k)] FOR k IN range(o.sides)] AS side_chances,
           o.winning_side, o.sides
    FROM win_prob w JOIN seat_outcomes o
      ON w.seed = o.seed AND w.game_index = o.game_index AND w.results IS NOT DISTINCT FROM o.results
         AND w.cell IS NOT DISTINCT FROM o.cell
    WHERE w.seat >= 0 {cell}
), r AS (
    SELECT *, list_position(side_chances, list_max(side_chances)) - 1 AS leader,
           CASE WHEN winning_side >= 0 THEN side_chances[winning_side + 1] END AS wc,
           row_number() OVER g - 1 AS i, count(*) OVER (PARTITION BY results, cell, seed, game_index) AS n
    FROM t WINDOW g AS (PARTITION BY results, cell, seed, game_index ORDER BY turn)
)
SELECT *, lag(leader) OVER (PARTITION BY results, cell, seed, game_index ORDER BY turn) AS before,
       CASE WHEN sides > 1 THEN (list_sum(side_chances) - wc) / (sides - 1) ELSE 0 END AS oc
FROM r
"""

# One row per game: who won (-1 nobody) and, for a game somebody won, its measures
_GAMES = """
CREATE OR REPLACE TEMP TABLE tension_games AS
SELECT results, cell, seed, game_index, any_value(winning_side) AS winning_side,
       min(wc) AS lowest, min(wc) < 0.5 / any_value(sides) AS comeback,
       count_if(before IS NOT NULL AND leader <> before) AS leader_changes,
       coalesce(max(i) FILTER (WHERE NOT wc > $decided) + 1, 0) / any_value(n) AS decisive,
       coalesce(max(i) FILTER (WHERE leader <> winning_side) + 1, 0) / any_value(n) AS leads_from
FROM tension_turns GROUP BY results, cell, seed, game_index
"""

_SUMMARY = """
SELECT count(*) FILTER (WHERE winning_side >= 0) AS won,
       avg(lowest), stddev_samp(lowest), avg(leader_changes), stddev_samp(leader_changes),
       avg(decisive), stddev_samp(decisive), avg(leads_from), stddev_samp(leads_from),
       count_if(comeback), count_if(decisive < 0.5), count(*), count_if(winning_side < 0)
FROM (SELECT *, CASE WHEN winning_side >= 0 THEN 1 END AS w FROM tension_games)
"""

_WON_ONLY = ("lowest", "comeback", "leader_changes", "decisive", "leads_from")

_CURVE = f"""
WITH g AS (SELECT DISTINCT results, cell, seed, game_index, n FROM tension_turns WHERE winning_side >= 0),
     pts AS (SELECT results, cell, seed, game_index, k, least(k * n // {STEPS}, n - 1) AS i
             FROM g, range({STEPS + 1}) s(k))
SELECT pts.k, quantile_cont(wc, [0.25, 0.5, 0.75]) AS w, quantile_cont(oc, [0.25, 0.5, 0.75]) AS o
FROM pts JOIN tension_turns t
  ON t.results IS NOT DISTINCT FROM pts.results AND t.cell IS NOT DISTINCT FROM pts.cell AND t.seed = pts.seed
     AND t.game_index = pts.game_index AND t.i = pts.i
GROUP BY pts.k ORDER BY pts.k
"""


def per_game(con, cell: str | None = None, decided: float = DECIDED) -> None:
    """The temp tables ``tension_turns`` and ``tension_games`` (one row a game: results, cell, seed, game_index,
    winning_side and, for a game somebody won, lowest, comeback, leader_changes, decisive, leads_from) from the
    views ``win_prob`` and ``seat_outcomes`` of ``con`` (one cell's rows when ``cell`` is given)."""
    where = "AND w.cell = $cell" if cell is not None else ""
    con.execute(_TURNS.format(cell=where), {"cell": cell} if cell is not None else {})
    con.execute(_GAMES, {"decided": decided})
    # a game nobody won has no measures (its winner's curve does not exist)
    con.execute("UPDATE tension_games SET " + ", ".join(f"{c} = NULL" for c in _WON_ONLY) + " WHERE winning_side < 0")


def _mean(m: float | None, sd: float | None, n: int) -> dict:
    """A mean with its normal 95% interval, to 9 decimals: DuckDB sums in parallel, in an order that can move
    the last bits of a double from one read to the next; the answer read twice is the same."""
    if m is None or n < 2 or sd is None:
        return {"mean": None if m is None else round(float(m), 9), "ci95": [None, None], "n": int(n)}
    half = 1.959964 * float(sd) / math.sqrt(n)
    return {"mean": round(float(m), 9), "ci95": [round(float(m) - half, 9), round(float(m) + half, 9)], "n": int(n)}


def tension(con, cell: str | None = None, decided: float = DECIDED) -> dict:
    """The tension answer over the views ``win_prob`` and ``seat_outcomes`` of ``con`` (one cell's rows when
    ``cell`` is given): games, won, the undecided share, each measure with its interval, the curve."""
    per_game(con, cell, decided)
    row = con.execute(_SUMMARY).fetchone()
    won, games, undecided = int(row[0]), int(row[11]), int(row[12])
    quart: dict[str, list] = {"w": [[], [], []], "o": [[], [], []]}
    for k, w, o in con.execute(_CURVE).fetchall():
        for key, q in (("w", w), ("o", o)):
            for j in range(3):
                quart[key][j].append(round(float(q[j]), 4))
    con.execute("DROP TABLE IF EXISTS tension_turns")
    con.execute("DROP TABLE IF EXISTS tension_games")
    return {"games": games, "won": won, "undecided": share(undecided, games), "decided_at": decided,
            "lowest_chance_of_winner": _mean(row[1], row[2], won),
            "comebacks": share(int(row[9] or 0), won),
            "leader_changes": _mean(row[3], row[4], won),
            "decisive_point": _mean(row[5], row[6], won),
            "decided_early": share(int(row[10] or 0), won),
            "winner_leads_from": _mean(row[7], row[8], won),
            "curve": {"progress": [k / STEPS for k in range(STEPS + 1)], "winner_quartiles": quart["w"],
                      "others_quartiles": quart["o"]}}


def answer_of(folder, decided: float = DECIDED) -> dict | None:
    """Tension of a sweep's folder (every cell together when it has one; the cells' answers in ``cells``), with
    what produced it (game, rules, setup, bots, seed, oracle: the manifest's, which verification ties to the
    parts); None when the folder has no win_prob table."""
    from queries import library
    m = library.read_manifest(folder)
    if m is None or TABLE not in (m.get("tables") or []):
        return None
    spec = m.get("spec") if isinstance(m.get("spec"), dict) else {}
    con = library.connect([folder])
    try:
        library.add_seat_outcomes(con, [folder])
        cells = [c for (c,) in library.execute(con, "SELECT DISTINCT cell FROM games ORDER BY 1", where="tension",
                                               results=[folder])[1]]
        bots = sorted({", ".join(map(str, b)) for (b,) in library.execute(
            con, "SELECT DISTINCT bots FROM games", where="tension", results=[folder])[1]})
        per_cell = {c: tension(con, c, decided) for c in cells}
    finally:
        con.close()
    one = per_cell[cells[0]] if len(cells) == 1 else None
    oracle = str(spec.get("oracle") or m.get("oracle") or "the game's newest shipped model")
    return {"game": m.get("game"), "rules": spec.get("rules"), "overrides": spec.get("overrides") or {},
            "setup": {k: v for k, v in (spec.get("setup") or {}).items() if k != "bots"}, "bots": bots,
            "seed": spec.get("seed"), "oracle": oracle, "folder": str(folder),
            **(one or {"games": sum(a["games"] for a in per_cell.values()), "note_cells": "see cells"}),
            "cells": {c: a for c, a in per_cell.items()},
            "method": (f"each side's chance at the start of every turn by the value head of {oracle} (the win_prob "
                       "table, computed in the engine core); per won game: the winner's lowest chance, a comeback "
                       "(under half the fair share), leader changes, the decisive point (the share of the game's "
                       f"turns after which the winner stays above {decided:g}); means with normal 95%, shares with "
                       "Wilson 95% intervals"),
            "note": "bots, not people: how tense these bots' games are, by this oracle"}


def sentences(r: dict) -> list[str]:
    """The answer in plain words."""
    def mean(m: dict, scale: float = 1.0, unit: str = "", digits: int = 2) -> str:
        if m["mean"] is None or m["ci95"][0] is None:
            return "n/a"
        return (f"{scale * m['mean']:.{digits}f}{unit} (95%: {scale * m['ci95'][0]:.{digits}f} to "
                f"{scale * m['ci95'][1]:.{digits}f})")

    def pct(s: dict) -> str:
        if s["share"] is None:
            return "n/a"
        return f"{100 * s['share']:.1f}% (95%: {100 * s['ci95'][0]:.1f} to {100 * s['ci95'][1]:.1f})"
    return [f"of {r['games']:,} games, {r['won']:,} were won; {pct(r['undecided'])} ended with no winner (not in "
            "the numbers below)",
            f"the eventual winner's lowest chance at the start of a turn: {mean(r['lowest_chance_of_winner'])} on "
            f"average; it came back from under half its fair share in {pct(r['comebacks'])} of the won games",
            f"the side the oracle rates highest changed {mean(r['leader_changes'])} times a game",
            f"the eventual winner was rated highest for good from {mean(r['winner_leads_from'], 100, '%', 1)} of the "
            "way through the game (its turns)",
            f"the winner was sure (above {r['decided_at']:g} to the end) from {mean(r['decisive_point'], 100, '%', 1)} "
            f"of the way through; decided in the first half: {pct(r['decided_early'])} of the won games"]
