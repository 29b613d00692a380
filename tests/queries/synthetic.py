"""A hand-made result set whose answers are worked out by hand in test_synthetic.py.

Rows use the real Paws record schema (sim/paws/record.py) in the sweep layout
``DIR/games/cell=<id>/part-<n>.parquet``. Three cells:

- c000: v4, beginner, ffa, 4 players, no round limit; games A0..A9 (two parts)
- c001: v4, explorer, ffa, 2 players (heuristic vs random), round_limit 20; games B0..B3
- c002: v4, beginner, teams, 4 players, team_vp_target 4, no round limit; games C0..C3

Plus a Tales-shaped file (only the columns every game records) for the game-agnostic queries.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from sim.params import as_dict
from sim.paws.record import SCHEMA
from sim.paws.rules import V4


def stalled(first: list[int], rest: list[int], rounds: int = 100) -> list[list[int]]:
    """A VP trace of a game that stalls: the given early rounds, then ``rest`` every round to ``rounds``."""
    return first + [rest] * (rounds - len(first))


# (first_seat, winner, end_reason, rounds, vp_trace[, knockouts, knockouts_dealt, lives_left])
CELL_A = [
    (0, 0, "vp", 1, [[4, 0, 0, 0]]),
    (1, 1, "vp", 2, [[1, 1, 0, 0], [1, 4, 0, 0]]),
    (2, 2, "vp", 3, [[0, 0, 1, 0], [1, 0, 2, 0], [1, 0, 4, 0]]),
    (3, 3, "vp", 3, [[0, 0, 0, 1], [0, 1, 0, 2], [0, 1, 0, 4]]),
    (0, 0, "last_alive", 4, [[1, 0, 0, 0], [1, 0, 0, 0], [2, 0, 0, 0], [2, 0, 0, 0]],
     [1, 2, 2, 2], [3, 1, 0, 0], [1, 0, 0, 0]),
    (0, 1, "vp", 4, [[0, 0, 0, 0], [1, 1, 0, 0], [1, 2, 0, 0], [1, 4, 0, 0]]),
    (1, -1, "stalled", 100, stalled([[0, 0, 0, 0], [2, 1, 0, 0]], [2, 2, 0, 0]),
     [1, 0, 0, 0], [0, 0, 0, 0], [1, 2, 2, 2]),
    (2, -1, "stalled", 100, stalled([], [0, 0, 0, 1])),
    (0, 0, "vp", 2, [[2, 0, 0, 0], [4, 0, 0, 0]]),
    (0, 2, "vp", 5, [[0, 0, 0, 0], [0, 0, 3, 0], [3, 0, 3, 0], [3, 0, 3, 0], [3, 0, 4, 0]]),
]
CELL_B = [  # explorer 2 players, round_limit 20: the limit already played
    (0, 0, "round_limit", 20, stalled([], [2, 1], 20)),
    (1, -1, "round_limit", 20, stalled([], [1, 1], 20)),
    (1, 1, "vp", 7, stalled([], [0, 1], 6) + [[0, 3]]),
    (0, 0, "vp", 12, stalled([], [1, 0], 11) + [[3, 0]]),
]
CELL_C = [  # Teams (winner is the team: seats 0+2 vs 1+3), team_vp_target 4
    (1, 0, "vp", 2, [[1, 0, 1, 0], [2, 0, 2, 0]]),
    (1, 1, "vp", 3, [[0, 1, 0, 0], [0, 1, 0, 1], [1, 2, 0, 2]]),
    (0, 0, "last_alive", 4, [[1, 0, 0, 0], [1, 0, 1, 0], [1, 1, 1, 1], [2, 1, 1, 1]]),
    (2, -1, "stalled", 100, stalled([[0, 0, 0, 0], [1, 0, 0, 1]], [1, 0, 1, 1])),
]


def rows(games, board, mode, players, bots, **rules) -> list[dict]:
    """Records for one cell; turns = 4 x rounds, unused counters 0, rule columns from v4 + ``rules``."""
    params = {k: v for k, v in as_dict(V4).items() if k != "ruleset"} | rules
    out = []
    for i, g in enumerate(games):
        first, winner, reason, rounds, trace = g[:5]
        ko, dealt, lives = g[5:] if len(g) > 5 else ([0] * players, [0] * players, [2] * players)
        out.append({
            "game": "paws", "ruleset": "v4", "board": board, "mode": mode, "players": players, "bots": bots,
            "seed": 1, "game_index": i, "first_seat": first,
            "winner_seat": winner if mode == "ffa" else -1, "winner_team": winner if mode == "teams" else -1,
            "end_reason": reason, "rounds": rounds, "turns": 4 * rounds, "idle_turns": 0,
            "vp": trace[-1],
            "buildings": [0] * players, "lives_left": lives, "knockouts": ko, "knockouts_dealt": dealt,
            "building_fights": 0, "invasions": 0, "raids": 0, "items_played": 0, "vp_trace": trace, **params,
        })
    return out


def _write(path: Path, records: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(records, schema=SCHEMA), path)


def write_synthetic(root: Path) -> Path:
    """The three cells in the sweep layout under ``root``; returns ``root``."""
    a = rows(CELL_A, "beginner", "ffa", 4, ["heuristic"] * 4)
    _write(root / "games" / "cell=c000" / "part-00000.parquet", a[:6])
    _write(root / "games" / "cell=c000" / "part-00001.parquet", a[6:])
    _write(root / "games" / "cell=c001" / "part-00000.parquet",
           rows(CELL_B, "explorer", "ffa", 2, ["heuristic", "random"], round_limit=20))
    _write(root / "games" / "cell=c002" / "part-00000.parquet",
           rows(CELL_C, "beginner", "teams", 4, ["heuristic"] * 4, team_vp_target=4))
    return root


def write_tales(path: Path) -> Path:
    """Four Tales-shaped records (game, mode, end_reason, rounds, turns, winner_side) in one Parquet file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table({
        "game": ["tales"] * 4, "mode": ["standard"] * 4,
        "end_reason": ["champion_killed", "champion_killed", "losses", "draw"],
        "rounds": pa.array([3, 5, 7, 9], pa.int16()), "turns": pa.array([6, 10, 14, 18], pa.int32()),
        "winner_side": pa.array([0, 1, 0, -1], pa.int8()),
    }), path)
    return path
