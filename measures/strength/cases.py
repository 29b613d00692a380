"""Known answers of bot strength (cluster/strength.py; docs/learned-bots.md "Known answers").

The claim checked is the one a strength comparison makes: "bot A is stronger than bot B" heads-up. Its decision
rule (:func:`verdict`): A and B play each deal twice, A in the first seat and then in the second (seats swapped on
the same deals: the deal's luck and the seat's edge fall on both bots alike); A's share of the decided games
(wins over wins and losses; games nobody won are counted apart, never as half a win) is compared with 50% by
two one-sided tests within a margin of 2 points (infra.stats.equivalence), its standard error taken over the
deals (each deal's two games together: a ratio linearized by the delta method). Four verdicts: *stronger*
(the 95% interval above 50% and not within the margin), *weaker*, *the same within +-2 points* (or a
negligible difference, within the margin), *not enough games*.

- planted, real games: the heuristic against the random bot, 2 players (Tales 1v1; Paws v4 Beginner, 2 players),
  seats swapped on the same deals: called stronger;
- null, real games: the heuristic against itself, seats swapped on the same deals: A wins each deal's game in one
  seat and loses it in the other, so its share is 50% exactly; called the same within +-2 points;
- the rule simulated on deals of known truth (a first-seat edge of 5 points and 10% draws in every run):
  a true 50% called stronger in at most alpha of runs (null), a true 52% (the margin) called the same in at most
  alpha of runs (null), a true 55% called stronger with the stated power (planted, 600 deals).
"""

from __future__ import annotations

import numpy as np

from measures.known import ALPHA, Context, Outcome, case, rate_outcome
from infra.stats import MARGIN, Equivalence, equivalence

MEASURE = "strength"
POWER = 0.8
RUNS = 1000
SIM_DEALS = 600               # the planted simulation's deals (1,200 games): power about 90% at a true 55%
SEAT_EDGE = 0.05              # the simulated first seat's edge (in both seats' games of a deal)
DRAWS = 0.10                  # the simulated share of games nobody wins


def verdict(wins: np.ndarray, decided: np.ndarray, margin: float = MARGIN) -> tuple[float, Equivalence]:
    """A's share of the decided games and its equivalence verdict against 50%, from per-deal counts: ``wins[i]``
    A's wins and ``decided[i]`` the decided games of deal i (its games with A in each seat)."""
    wins, decided = np.asarray(wins, float), np.asarray(decided, float)
    n = int(decided.sum())
    deals = len(decided)
    if n == 0 or deals < 2:
        return float("nan"), equivalence(0.0, float("inf"), deals, margin)
    r = float(wins.sum()) / n
    z = (wins - r * decided) / (n / deals)            # per deal: the ratio's linearization (delta method)
    se = float(z.std(ddof=1)) / np.sqrt(deals)
    return r, equivalence(r - 0.5, se, deals, margin)


def called(e: Equivalence) -> str:
    """The verdict in the strength claim's words: stronger, weaker, the same, or not enough games."""
    if e.verdict == "differs":
        return "stronger" if e.diff > 0 else "weaker"
    if e.verdict in ("same", "negligible"):
        return "the same"
    return "not enough games"


def head_to_head(game: str, a: str, b: str, seed: int, deals: int, ctx: Context | None = None,
                 setup: dict | None = None, rules: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per deal (games 0 .. deals - 1 of ``seed``): A's wins and the decided games of its two games, A in the
    first seat then in the second (B in the other), on the designer's variant when ``ctx`` has one."""
    from cluster.train import seat_scores
    from sim.games import GAMES
    variant = ctx is not None and ctx.variant
    rules = ctx.rules if variant and ctx.rules else rules
    overrides = dict(ctx.overrides) if variant else {}
    base = {**(setup or {}), **(dict(ctx.setup) if variant else {})}
    edges = []
    for seat, bots in ((0, [a, b]), (1, [b, a])):
        match = GAMES[game].resolve(rules, overrides, {**base, "bots": bots}, where=f"strength case {a} vs {b}")
        edges.append(seat_scores(match, seat, seed, 0, deals))     # a win above 0, a draw 0, a loss below
    e = np.stack(edges, axis=1)
    return (e > 1e-12).sum(axis=1), (np.abs(e) > 1e-12).sum(axis=1)


def _words(a: str, b: str, r: float, e: Equivalence, decided: int, deals: int) -> str:
    said = called(e)
    if said == "the same":
        said = f"the same within +-{100 * e.margin:g} points"
    elif said == "not enough games" and e.games_needed:
        said += f" (about {e.games_needed:,} deals would settle it)"
    return (f"{a} won {100 * r:.1f}% of {decided:,} decided games against {b} ({deals:,} deals, each played with the "
            f"seats swapped): {said}, {100 * e.diff:+.1f} points from 50% [{100 * e.low:+.1f}, {100 * e.high:+.1f}]")


def _real(game: str, setup: dict, a: str, b: str, want: str, n: int):
    rules = "v4" if game == "paws" else None

    def run(ctx: Context) -> Outcome:
        deals = ctx.games(n)
        w, d = head_to_head(game, a, b, ctx.seed, deals, ctx, setup, rules)
        r, e = verdict(w, d)
        if not d.sum():
            return Outcome(f"no decided game in {deals:,} deals", False)
        return Outcome(_words(a, b, r, e, int(d.sum()), deals), called(e) == want, r - 0.5, (e.low, e.high))
    return run


case(MEASURE, "tales-heuristic-vs-random", "planted",
     "Tales 1v1, the heuristic against the random bot, seats swapped on the same 300 deals: stronger (its share of "
     "decided games above 50%)", game="tales", variant=True)(
    _real("tales", {"mode": "standard"}, "heuristic", "random", "stronger", 300))
case(MEASURE, "paws-heuristic-vs-random", "planted",
     "Paws v4 Beginner, 2 players, the heuristic against the random bot, seats swapped on the same 300 deals: "
     "stronger", game="paws", variant=True)(
    _real("paws", {"board": "beginner", "players": 2}, "heuristic", "random", "stronger", 300))
case(MEASURE, "tales-heuristic-vs-itself", "null",
     "Tales 1v1, the heuristic against itself, seats swapped on the same 1,000 deals: 50% exactly, the same within "
     f"+-{100 * MARGIN:g} points", game="tales", variant=True)(
    _real("tales", {"mode": "standard"}, "heuristic", "heuristic", "the same", 1000))
case(MEASURE, "paws-heuristic-vs-itself", "null",
     "Paws v4 Beginner, 2 players, the heuristic against itself, seats swapped on the same 1,000 deals: the same "
     f"within +-{100 * MARGIN:g} points", game="paws", variant=True)(
    _real("paws", {"board": "beginner", "players": 2}, "heuristic", "heuristic", "the same", 1000))


# -- the decision rule, simulated ---------------------------------------------------------------------------
def simulate(share: float, deals: int, seed: int, runs: int = RUNS) -> list[str]:
    """The verdicts of ``runs`` simulated head-to-heads of ``deals`` deals: A's true share of decided games
    ``share``; each deal's first game gives the first seat (A) an edge of :data:`SEAT_EDGE`, its second game
    the first seat (B) the same edge; :data:`DRAWS` of games nobody wins."""
    rng = np.random.default_rng([seed, 4040])
    out = []
    for _ in range(runs):
        draw = rng.random((deals, 2)) < DRAWS
        p = np.array([share + SEAT_EDGE, share - SEAT_EDGE])    # A's chance to win a decided game, by A's seat
        win = (rng.random((deals, 2)) < p) & ~draw
        _, e = verdict(win.sum(axis=1), (~draw).sum(axis=1))
        out.append(called(e))
    return out


def _sim(share: float, deals: int, said: str, null: bool, rate: float, what: str):
    def run(ctx: Context) -> Outcome:
        v = simulate(share, ctx.games(deals), ctx.seed)
        return rate_outcome(sum(x == said for x in v), len(v), null=null, rate=rate, what=what)
    return run


case(MEASURE, "sim-equal-bots", "null",
     f"a true 50% share of decided games (2,000 deals) called stronger in at most {ALPHA:.0%} of runs")(
    _sim(0.5, 2000, "stronger", True, ALPHA, "stronger"))
case(MEASURE, "sim-at-the-margin", "null",
     f"a true {50 + 100 * MARGIN:g}% (the margin, 2,000 deals) called the same in at most {ALPHA:.0%} of runs")(
    _sim(0.5 + MARGIN, 2000, "the same", True, ALPHA, "the same"))
case(MEASURE, "sim-55-percent", "planted",
     f"a true 55% share of decided games ({SIM_DEALS:,} deals) called stronger in at least {POWER:.0%} of runs")(
    _sim(0.55, SIM_DEALS, "stronger", False, POWER, "stronger"))
