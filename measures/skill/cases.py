"""Known answers of the skill verdicts (queries/variants.py ``judge``: "holds under stronger play", "moves with
skill", "not enough games to say"), between two skill levels' independent games.

Planted: two levels whose true shares differ by 5 points must be called "moves with skill" with the stated power.
Null: two levels with the same true share must not be called "moves" more often than alpha; two levels 2 points
apart (the margin) must not be called "holds" more often than alpha, whatever their intervals' overlap.
"""

from __future__ import annotations

import numpy as np

from measures.known import ALPHA, case, rate_case
from infra.stats import MARGIN, wilson
from queries.variants import judge

POWER = 0.8
RUNS = 2000


def _simulated(p_low: float, p_high: float, games: int, seed: int, runs: int = RUNS) -> list[str]:
    """Verdicts on a share measured at two levels from ``games`` decided games each (Wilson 95% intervals, as the
    canned queries give them)."""
    rng = np.random.default_rng(seed)
    a, z = rng.binomial(games, p_low, size=runs), rng.binomial(games, p_high, size=runs)
    out = []
    for ka, kz in zip(a, z):
        ra = (ka / games, *wilson(int(ka), games))
        rz = (kz / games, *wilson(int(kz), games))
        out.append(judge("first_share", ra, rz, 0, 1, 2).verdict)
    return out


def _sim(p_low: float, p_high: float, games: int, said: set[str], null: bool, rate: float, what: str):
    return rate_case(lambda ctx: _simulated(p_low, p_high, ctx.games(games), ctx.seed), said, null=null, rate=rate,
                     what=what)


case("skill", "sim-same-share", "null", f"the same true share at both levels (5,000 games each) called 'moves with "
     f"skill' in at most {ALPHA:.0%} of runs")(_sim(0.55, 0.55, 5000, {"differs"}, True, ALPHA, "moves with skill"))
case("skill", "sim-apart-by-margin", "null", f"true shares {100 * MARGIN:g} points apart called 'holds' in at most "
     f"{ALPHA:.0%} of runs")(_sim(0.55, 0.55 + MARGIN, 5000, {"same", "negligible"}, True, ALPHA, "holds"))
case("skill", "sim-apart-5-points", "planted", f"true shares 5 points apart (2,000 games each) called 'moves with "
     f"skill' in at least {POWER:.0%} of runs")(_sim(0.55, 0.60, 2000, {"differs"}, False, POWER, "moves with skill"))
