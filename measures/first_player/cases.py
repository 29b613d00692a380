"""Known answers of the first player's edge (queries/first_player_advantage.sql, queries/first_player.py).

Planted: simulated games with a true edge of 5 points must be called an edge with the stated power. Null: a calibration game whose winner is drawn uniformly among the sides (no seat order at all) must
not be called an edge more often than alpha, and a true edge at the margin must not be called "no edge" more
often than alpha.

No rigged line-up plants a first-player edge in the real games: the first player is drawn in every game (Paws §2.5,
the highest roll of two dice; Tales, the side that begins), so a strong bot in seat 0 is the first player in only
a share of the games. A planted real-game case needs a rule that favours the first player (not yet a parameter).
"""

from __future__ import annotations

import numpy as np

from measures.known import ALPHA, case, rate_case
from queries.first_player import edge_verdict
from infra.stats import MARGIN

POWER = 0.8
RUNS = 2000


def _simulated(edge: float, sides: int, decided: int, seed: int, runs: int = RUNS) -> list[str]:
    """Verdicts of ``runs`` calibration games: ``decided`` decided games each, the first side winning with
    probability 1 / sides + ``edge``."""
    rng = np.random.default_rng(seed)
    wins = rng.binomial(decided, 1.0 / sides + edge, size=runs)
    return [edge_verdict(int(k), decided, sides).verdict for k in wins]


def _sim(edge: float, sides: int, decided: int, said: set[str], null: bool, rate: float, what: str):
    return rate_case(lambda ctx: _simulated(edge, sides, ctx.games(decided), ctx.seed), said, null=null, rate=rate,
                     what=what)


case("first-player", "sim-uniform-winner", "null", f"a winner drawn uniformly among 4 seats (4,000 decided games) "
     f"called an edge in at most {ALPHA:.0%} of runs")(_sim(0.0, 4, 4000, {"differs"}, True, ALPHA, "an edge"))
case("first-player", "sim-edge-at-margin", "null", f"a true edge of {100 * MARGIN:g} points (the margin) called "
     f"no edge in at most {ALPHA:.0%} of runs")(_sim(MARGIN, 2, 4000, {"same"}, True, ALPHA, "no edge"))
case("first-player", "sim-edge-5-points", "planted", f"a true edge of 5 points (2 seats, 4,000 decided games) "
     f"called an edge in at least {POWER:.0%} of runs")(_sim(0.05, 2, 4000, {"differs"}, False, POWER, "an edge"))
