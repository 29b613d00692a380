"""Tension from a sweep's stored win-probability trace (the ``win_prob`` table; docs/tension.md).

A sweep with ``tables = ["games", "win_prob"]`` stores, for every game, each seat's chance to win by the oracle
(a learned model's value head, from what every player can see) at the start of every turn and once after the
game ended (``seat`` -1). Tension reads the turn rows: a side's chance is that of its seats (in a team mode each
seat holds its team's chance), **recalibrated** on the cell's own won games by cross-fitting
(calibration.py here: the map fitted on the odd game indexes rates the even ones and the other way round), so
the chances are those of this configuration, bots included; a cell whose held-out calibration fails (error 0.03
or more, or a Brier score no better than 1/sides for every side) or has too few won games is refused in one line
(``refused``), without numbers. From the eventual winner's curve, per game somebody won:

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
tests' yardstick); :func:`tension` computes them for every game at once in DuckDB. It is the win_prob table's
one reader: a folder's answer (answer.py), the report's per-cell section and ``playtest compare``'s per-game rows
(report.py, handed to queries.report and queries.compare by the layer above them) all read it here.
"""

from __future__ import annotations

import math

import numpy as np

from infra.sequential import share
from infra.stats import Z95

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


# One row per turn of every game (the raw rows, before calibration): the sides' chances by the oracle (a side's:
# its first seat's), the side whose turn begins, who won. A game is one (results, cell, seed, game index): the
# cells of a sweep share their seed, and two folders may too.
_RAW = """
CREATE OR REPLACE TEMP TABLE tension_raw AS
SELECT o.results, o.cell, w.seed, w.game_index, w.turn, w.round,
       [w.chances[list_position(o.seat_sides, k)] FOR k IN range(o.sides)]::DOUBLE[] AS side_chances,
       o.seat_sides[w.seat + 1] AS mover, o.winning_side, o.sides
FROM win_prob w JOIN seat_outcomes o
  ON w.seed = o.seed AND w.game_index = o.game_index AND w.results IS NOT DISTINCT FROM o.results
     AND w.cell IS NOT DISTINCT FROM o.cell
WHERE w.seat >= 0 {cell}
ORDER BY o.results, o.cell, w.seed, w.game_index, w.turn
"""

# The turn rows with the chances tension reads (recalibrated, or the oracle's own): the winner's, the others'
# mean, the side rated highest (the first on ties), the turn's place in its game.
_TURNS = """
CREATE OR REPLACE TEMP TABLE tension_turns AS
WITH r AS (
    SELECT *, list_position(side_chances, list_max(side_chances)) - 1 AS leader,
           CASE WHEN winning_side >= 0 THEN side_chances[winning_side + 1] END AS wc,
           row_number() OVER g - 1 AS i, count(*) OVER (PARTITION BY results, cell, seed, game_index) AS n
    FROM {source} WINDOW g AS (PARTITION BY results, cell, seed, game_index ORDER BY turn)
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
       count_if(comeback), count_if(decisive < 0.5), count(*), count_if(winning_side < 0), count_if(decisive < 1)
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


def per_game(con, cell: str | None = None, decided: float = DECIDED, calibrate: bool = True) -> dict:
    """The temp tables ``tension_turns`` and ``tension_games`` (one row a game: results, cell, seed, game_index,
    winning_side and, for a game somebody won, lowest, comeback, leader_changes, decisive, leads_from) from the
    views ``win_prob`` and ``seat_outcomes`` of ``con`` (one cell's rows when ``cell`` is given), and
    ``tension_calibration`` (results, cell, passed, refusal). ``calibrate``: the chances recalibrated per
    (results, cell) by cross-fitting (measures/tension/calibration.py), the games of a configuration whose calibration
    fails left out of both tables; False: the oracle's own chances (the definitions' tests). Returns
    {(results, cell): Calibration} (empty when not calibrating)."""
    where = "AND w.cell = $cell" if cell is not None else ""
    con.execute(_RAW.format(cell=where), {"cell": cell} if cell is not None else {})
    checks = _calibrate(con) if calibrate else {}
    con.execute(_TURNS.format(source="tension_cal" if calibrate else "tension_raw"))
    con.execute(_GAMES, {"decided": decided})
    # a game nobody won has no measures (its winner's curve does not exist)
    con.execute("UPDATE tension_games SET " + ", ".join(f"{c} = NULL" for c in _WON_ONLY) + " WHERE winning_side < 0")
    con.execute("CREATE OR REPLACE TEMP TABLE tension_calibration (results VARCHAR, cell VARCHAR, passed BOOLEAN, "
                "refusal VARCHAR)")
    for (results, c), check in checks.items():
        con.execute("INSERT INTO tension_calibration VALUES ($r, $c, $p, $x)",
                    {"r": results, "c": c, "p": check.passed, "x": check.refusal})
    if calibrate:
        con.unregister("tension_cal")
    con.execute("DROP TABLE IF EXISTS tension_raw")
    return checks


def _calibrate(con) -> dict:
    """Register ``tension_cal``: tension_raw's rows with each won game's side chances recalibrated (cross-fitted
    per results and cell); the rows of a configuration whose calibration fails are left out."""
    import pyarrow as pa

    from measures.tension.calibration import crossfit
    t = con.sql("SELECT * FROM tension_raw").to_arrow_table()
    n = t.num_rows
    lists = t.column("side_chances").combine_chunks()
    offsets = lists.offsets.to_numpy()
    flat = lists.values.to_numpy(zero_copy_only=False).astype(np.float64)
    results = t.column("results").to_pylist()
    cells = t.column("cell").to_pylist()
    keys = list(zip(results, cells))
    rounds = t.column("round").to_numpy().astype(np.float64)
    mover = np.asarray(t.column("mover").to_numpy(zero_copy_only=False), dtype=np.int64)
    winner = t.column("winning_side").to_numpy().astype(np.int64)
    seeds = t.column("seed").to_numpy()
    games = t.column("game_index").to_numpy()
    sides = t.column("sides").to_numpy().astype(np.int64)
    keep = np.ones(n, bool)
    checks = {}
    start = 0
    while start < n:
        end = start
        while end < n and keys[end] == keys[start]:
            end += 1
        rows = np.arange(start, end)
        k = int(sides[start])
        won = rows[winner[rows] >= 0]
        n_won = len({(int(a), int(b)) for a, b in zip(seeds[won], games[won])})
        idx = offsets[won][:, None] + np.arange(k)
        q, check = crossfit(flat[idx], rounds[won], mover[won], winner[won], games[won], n_won)
        checks[keys[start]] = check
        if q is None:
            keep[rows] = False
        else:
            flat[idx] = q
        start = end
    cal = t.set_column(t.schema.get_field_index("side_chances"), "side_chances",
                       pa.ListArray.from_arrays(pa.array(offsets.astype(np.int32)), pa.array(flat)))
    con.register("tension_cal", cal.filter(pa.array(keep)))
    return checks


def _mean(m: float | None, sd: float | None, n: int) -> dict:
    """A mean with its normal 95% interval, to 9 decimals: DuckDB sums in parallel, in an order that can move
    the last bits of a double from one read to the next; the answer read twice is the same."""
    if m is None or n < 2 or sd is None:
        return {"mean": None if m is None else round(float(m), 9), "ci95": [None, None], "n": int(n)}
    half = Z95 * float(sd) / math.sqrt(n)
    return {"mean": round(float(m), 9), "ci95": [round(float(m) - half, 9), round(float(m) + half, 9)], "n": int(n)}


def tension(con, cell: str | None = None, decided: float = DECIDED, calibrate: bool = True) -> dict:
    """The tension answer over the views ``win_prob`` and ``seat_outcomes`` of ``con`` (one cell's rows when
    ``cell`` is given): games, won, the undecided share, each measure with its interval, the curve, and the
    calibration's held-out check (``calibration``). When the oracle cannot be calibrated there (too few won games,
    a held-out calibration error of :data:`measures.tension.calibration.MAX_ECE` or more, or a Brier score no
    better than the uninformed forecast), ``refused`` holds the one line said instead, and no measure has a number."""
    checks = per_game(con, cell, decided, calibrate)
    refused = [c.refusal for c in checks.values() if not c.passed]
    games = int(con.execute("SELECT count(*) FROM seat_outcomes" + (" WHERE cell = $c" if cell is not None else ""),
                            {"c": cell} if cell is not None else {}).fetchone()[0])
    calibration = ([c.as_dict() for c in checks.values()] if len(checks) > 1 else
                   next(iter(checks.values())).as_dict() if checks else None)
    if refused:
        con.execute("DROP TABLE IF EXISTS tension_turns")
        con.execute("DROP TABLE IF EXISTS tension_games")
        none, empty = _mean(None, None, 0), share(0, 0)
        return {"games": games, "won": None, "refused": refused[0], "calibration": calibration, "decided_at": decided,
                "undecided": empty, "lowest_chance_of_winner": none, "comebacks": empty, "leader_changes": none,
                "decisive_point": none, "decided_early": empty, "sure_before_end": empty, "winner_leads_from": none,
                "curve": {"progress": [k / STEPS for k in range(STEPS + 1)], "winner_quartiles": [[], [], []],
                          "others_quartiles": [[], [], []]}}
    row = con.execute(_SUMMARY).fetchone()
    won, games, undecided = int(row[0]), int(row[11]), int(row[12])
    quart: dict[str, list] = {"w": [[], [], []], "o": [[], [], []]}
    for k, w, o in con.execute(_CURVE).fetchall():
        for key, q in (("w", w), ("o", o)):
            for j in range(3):
                quart[key][j].append(round(float(q[j]), 4))
    con.execute("DROP TABLE IF EXISTS tension_turns")
    con.execute("DROP TABLE IF EXISTS tension_games")
    return {"games": games, "won": won, "refused": None, "calibration": calibration,
            "undecided": share(undecided, games), "decided_at": decided,
            "lowest_chance_of_winner": _mean(row[1], row[2], won),
            "comebacks": share(int(row[9] or 0), won),
            "leader_changes": _mean(row[3], row[4], won),
            "decisive_point": _mean(row[5], row[6], won),
            "decided_early": share(int(row[10] or 0), won),
            "sure_before_end": share(int(row[13] or 0), won),
            "winner_leads_from": _mean(row[7], row[8], won),
            "curve": {"progress": [k / STEPS for k in range(STEPS + 1)], "winner_quartiles": quart["w"],
                      "others_quartiles": quart["o"]}}


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
    if r.get("refused"):
        return [r["refused"]]
    sure = r["sure_before_end"]
    if not sure["count"]:
        decisive = (f"in none of the won games was the winner's chance above {r['decided_at']:g} from some turn to the "
                    "end (never sure before the game ended); decided in the first half: "
                    f"{pct(r['decided_early'])} of the won games")
    else:
        decisive = (f"the winner was sure (its chance above {r['decided_at']:g} to the end) before the game ended in "
                    f"{pct(sure)} of the won games; on average from {mean(r['decisive_point'], 100, '%', 1)} of the way "
                    f"through (100% for a game never sure); decided in the first half: {pct(r['decided_early'])} of "
                    "the won games")
    lines = [f"of {r['games']:,} games, {r['won']:,} were won; {pct(r['undecided'])} ended with no winner (not in "
            "the numbers below)",
            f"the eventual winner's lowest chance at the start of a turn: {mean(r['lowest_chance_of_winner'])} on "
            f"average; it came back from under half its fair share in {pct(r['comebacks'])} of the won games",
            f"the side the oracle rates highest changed {mean(r['leader_changes'])} times a game",
            f"the eventual winner was rated highest for good from {mean(r['winner_leads_from'], 100, '%', 1)} of the "
            "way through the game (its turns)", decisive]
    if r.get("calibration") and isinstance(r["calibration"], dict) and r["calibration"].get("ece") is not None:
        c = r["calibration"]
        lines.append(f"the chances are the oracle's recalibrated on these games (cross-fitted on even and odd game "
                     f"indexes, each game's from the other half): held-out calibration error {c['ece']:.3f} (limit "
                     f"{c['max_ece']:g}; the oracle's own {c['raw_ece']:.3f}), Brier {c['brier']:.3f} against "
                     f"{c['uninformed_brier']:.3f} for the uninformed forecast")
    return lines


def tension_of_batch(game: str, tables: dict, decided: float = DECIDED, calibrate: bool = True) -> dict:
    """The tension answer of one batch played in memory (``Match.play_batch``'s tables ``games`` and
    ``win_prob``), as one cell: what the known-answer cases and tests read without writing a sweep."""
    import duckdb
    import pyarrow as pa

    from queries.sqlfiles import SEATS_SQL
    from sim.games import GAMES
    con = duckdb.connect()
    try:
        for name in ("games", TABLE):
            t = tables[name]
            t = t.append_column("results", pa.array(["batch"] * t.num_rows, pa.string()))
            con.register(f"_{name}", t.append_column("cell", pa.array(["0"] * t.num_rows, pa.string())))
            con.execute(f"CREATE VIEW {name} AS SELECT * FROM _{name}")
        con.execute(f"CREATE VIEW seat_outcomes AS {(GAMES[game].sql_dir / SEATS_SQL).read_text()}")
        return tension(con, "0", decided, calibrate)
    finally:
        con.close()
