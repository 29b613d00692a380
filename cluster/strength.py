"""How strong a bot is: its score against a field of another bot, each seat of each of the game's skill
line-ups in turn (``playtest bench --bots ... --strength``; the ladder of ``playtest train-bot``).

The score of a game is 1 for a win (its team's, in a team game), the fair share for a draw and 0 otherwise;
the edge is the score minus the fair share (1 / sides), so 0 is the field's own strength. Every seat plays
the same number of games on the same seeds, and the line-ups count equally.
"""

from __future__ import annotations

import math

import numpy as np

from cluster.train import Z95, edges, mean_edge
from sim.games import GAMES


def edge_summary(per: dict[str, np.ndarray]) -> dict:
    """The mean edge over the line-ups with a 95% interval (normal, over every game played)."""
    values = np.concatenate(list(per.values())) if per else np.zeros(0)
    m = mean_edge(per) if per else float("nan")
    half = Z95 * float(values.std(ddof=1)) / math.sqrt(len(values)) if len(values) > 1 else float("inf")
    return {"games": int(len(values)), "edge": round(m, 4), "edge_95": [round(m - half, 4), round(m + half, 4)]}


def fair_share(game_name: str) -> float | None:
    """The fair share of the game's skill line-ups (1 / sides) when they all have the same, else None."""
    import duckdb
    game = GAMES[game_name]
    shares = set()
    for lu in game.skill_setups:
        m = game.resolve(lu.rules, lu.overrides, lu.setup)
        con = duckdb.connect()
        con.register("games", m.play_batch(0, 0, 1)["games"])
        # the game class's own SQL expression (code, not user text): the sides a game is played between
        shares.add(round(con.execute(f"SELECT 1.0 / ({m.definition.compare_columns.units}) FROM games").fetchone()[0], 6))
        con.close()
    return shares.pop() if len(shares) == 1 else None


def strength(game_name: str, spec: str, seed: int, games: int, field: str = "heuristic") -> dict:
    """``spec`` against ``field`` in every other seat, ``games`` games a seat of each skill line-up."""
    game = GAMES[game_name]
    out = {"bot": spec, "vs": f"{field} in every other seat, each seat in turn",
           "line_ups": [lu.label for lu in game.skill_setups], "games_per_seat": games, "seed": seed,
           **edge_summary(edges(game_name, spec, field, seed, games))}
    fair = fair_share(game_name)
    if fair is not None:
        out["fair_share"] = fair
        out["win_share"] = round(out["edge"] + fair, 4)
        out["win_share_95"] = [round(x + fair, 4) for x in out["edge_95"]]
    return out
