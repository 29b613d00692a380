"""Known answers of restricted play (measures/restrict/answer.py; docs/restricted-play.md).

Planted: a Paws bot forbidden to move never leaves its start, so forbidding ``move`` must be **dominant** (a cost
far above the 5-point threshold); simulated paired games with a true cost of 10 points must be called dominant
with the stated power. Null: the Tales heuristic never takes a card back off a creature, so forbidding
``take_off`` leaves every game as it was (a cost of exactly 0: **useless**); simulated paired games with a true cost
of 0 must not be called a cost (matters, dominant or overused) more often than alpha, a true cost at the margin
not called useless, and a true cost at the threshold not called dominant.
"""

from __future__ import annotations

import numpy as np

from measures.known import ALPHA, Context, Outcome, case, rate_case
from measures.known._play import played, variant_raw
from measures.restrict.answer import restricted_play, verdict
from measures.restrict.sweep import MARGIN, THRESHOLD
from infra.stats import Z95
from sim.games import GAMES

POWER = 0.8                 # the stated power: a 10-point cost from 2,000 paired games is dominant this often
RUNS = 2000                 # simulated runs per rate
CHANGED = 0.3               # the share of paired games whose seat score the restriction changes (the spread)


def _simulated_verdicts(cost: float, games: int, seed: int, runs: int = RUNS) -> list[str]:
    """The verdicts of ``runs`` simulated restricted-play answers with a true cost ``cost``: each paired game's
    difference +1 (the base seat won, the restricted one did not), -1, or 0, with P(+1) - P(-1) = cost and
    P(+1) + P(-1) = CHANGED; the interval as measures.restrict.answer computes it (mean, normal 95%)."""
    rng = np.random.default_rng(seed)
    up, down = (CHANGED + cost) / 2, (CHANGED - cost) / 2
    counts = rng.multinomial(games, [up, down, 1 - up - down], size=runs)
    mean = (counts[:, 0] - counts[:, 1]) / games
    var = (counts[:, 0] + counts[:, 1]) / games - mean ** 2
    se = np.sqrt(var * games / (games - 1) / games)
    return [verdict(float(m), float(m - Z95 * s), float(m + Z95 * s), games)[0] for m, s in zip(mean, se)]


def _sim_case(cost: float, games: int, said: set[str], null: bool, rate: float, what: str):
    return rate_case(lambda ctx: _simulated_verdicts(cost, ctx.games(games), ctx.seed), said, null=null, rate=rate,
                     what=what)


case("restrict", "sim-cost-10-points", "planted", f"a true cost of 10 points (2,000 paired games) called dominant "
     f"in at least {POWER:.0%} of runs")(_sim_case(0.10, 2000, {"dominant"}, False, POWER, "dominant"))
case("restrict", "sim-no-cost", "null", f"a true cost of 0 called matters, dominant or overused in at most "
     f"{ALPHA:.0%} of runs")(_sim_case(0.0, 2000, {"matters", "dominant", "overused"}, True, ALPHA, "a cost"))
case("restrict", "sim-cost-at-margin", "null", f"a true cost of {MARGIN * 100:g} points (the margin) called useless "
     f"in at most {ALPHA:.0%} of runs")(_sim_case(MARGIN, 2000, {"useless"}, True, ALPHA, "useless"))
case("restrict", "sim-cost-at-threshold", "null", f"a true cost of {THRESHOLD * 100:g} points (the threshold) "
     f"called dominant in at most {ALPHA:.0%} of runs")(_sim_case(THRESHOLD, 2000, {"dominant"}, True, ALPHA,
                                                                   "dominant"))


def _one_line_up(game: str, bot: str, option: str, setup: dict, games: int, ctx: Context) -> dict:
    """A restricted-play sweep of one line-up: ``bot`` in every seat (the base cell), and ``bot:forbid=option``
    in each seat in turn; the designer's variant where it is of this game."""
    raw = {"name": f"validate restrict {game}", "game": game, "seed": ctx.seed, "games_per_cell": games,
           **variant_raw(ctx, game)}
    shape = {**setup, **(dict(ctx.setup) if ctx.game == game else {})}
    probe = GAMES[game].resolve(raw.get("rules"), raw.get("overrides"), {**shape, "bots": bot})
    seats = len(probe.setup.bots)
    cells = [{**shape, "bots": [bot] * seats}]
    for s in range(seats):
        bots = [bot] * seats
        bots[s] = f"{bot}:forbid={option}"
        cells.append({**shape, "bots": bots})
    raw["cells"] = cells
    with played(raw, ctx) as folder:
        return restricted_play(folder)


def _cost_words(row: dict) -> str:
    lo, hi = row["cost_95"]
    return (f"{row['verdict']}: cost {100 * row['cost'] + 0.0:+.1f} points [{100 * lo:+.1f}, {100 * hi:+.1f}], "
            f"{row['games']:,} paired games")


@case("restrict", "paws-forbid-move", "planted", "forbidding move is dominant (cost above 5 points)", game="paws",
      variant=True)
def _paws_move(ctx: Context) -> Outcome:
    r = _one_line_up("paws", "heuristic", "move", {"players": 4, "board": "beginner"}, ctx.games(100), ctx)
    row = r["options"][0]
    return Outcome(_cost_words(row), row["verdict"] == "dominant", row["cost"], tuple(row["cost_95"]))


@case("restrict", "tales-forbid-take-off", "null", "forbidding take_off (never taken) costs exactly 0: useless",
      game="tales", variant=True)
def _tales_take_off(ctx: Context) -> Outcome:
    r = _one_line_up("tales", "heuristic", "take_off", {"mode": "standard"}, ctx.games(200), ctx)
    row = r["options"][0]
    return Outcome(_cost_words(row), row["verdict"] == "useless", row["cost"], tuple(row["cost_95"]))
