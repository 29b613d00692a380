"""Known answers of ``playtest compare`` (queries/compare.py): "B differs", "the same within the margin" (two
one-sided tests) or "not enough games to say".

Planted: the same deals played with seat 0's bot forbidden to move (Paws) must show a real drop of its win share;
simulated paired games with a true difference of 5 points must be called a difference with the stated power.
Null: simulated paired games with no difference must not be called a difference more often than alpha, and a
true difference at the margin must not be called "the same" more often than alpha; the same spec played twice must
read "the same" in every metric.
"""

from __future__ import annotations

import numpy as np

from measures.known import ALPHA, Context, Outcome, case, rate_case
from measures.known._play import played, variant_raw
from queries.compare import compare_by, compare_folders
from infra.stats import MARGIN, Z95, equivalence, paired_difference

POWER = 0.8
RUNS = 1000
CHANGED = 0.4               # share of pairs whose 0/1 outcome differs between A and B


def _simulated(diff: float, pairs: int, seed: int, runs: int = RUNS) -> list[str]:
    """Verdicts of one share metric over ``runs`` simulated paired comparisons: each pair's B - A is +1, -1 or 0
    (P(+1) - P(-1) = diff, P(+1) + P(-1) = CHANGED), judged as compare judges a metric alone (the paired 95%
    interval for "differs", two one-sided tests within the 2-point margin for "the same")."""
    rng = np.random.default_rng(seed)
    up, down = (CHANGED + diff) / 2, (CHANGED - diff) / 2
    out = []
    for counts in rng.multinomial(pairs, [up, down, 1 - up - down], size=runs):
        d = np.repeat([1.0, -1.0, 0.0], counts)
        mean, low, high, p = paired_difference(d)
        e = equivalence(mean, (high - low) / (2 * Z95), pairs, MARGIN)
        out.append("differs" if p < 0.05 else "same" if e.verdict in ("same", "negligible") else "open")
    return out


def _sim(diff: float, pairs: int, said: str, null: bool, rate: float, what: str):
    return rate_case(lambda ctx: _simulated(diff, ctx.games(pairs), ctx.seed), {said}, null=null, rate=rate,
                     what=what)


case("compare", "sim-no-difference", "null", f"no true difference (4,000 pairs) called a difference in at most "
     f"{ALPHA:.0%} of runs")(_sim(0.0, 4000, "differs", True, ALPHA, "a difference"))
case("compare", "sim-difference-at-margin", "null", f"a true difference of {100 * MARGIN:g} points (the margin) "
     f"called the same in at most {ALPHA:.0%} of runs")(_sim(MARGIN, 4000, "same", True, ALPHA, "the same"))
case("compare", "sim-difference-5-points", "planted", f"a true difference of 5 points (4,000 pairs) called a "
     f"difference in at least {POWER:.0%} of runs")(_sim(0.05, 4000, "differs", False, POWER, "a difference"))


@case("compare", "paws-seat-0-forbidden-to-move", "planted", "seat 0 forbidden to move on the same deals: its win "
      "share drops, a real difference", game="paws", variant=True)
def _paws_forbid(ctx: Context) -> Outcome:
    raw = {"name": "validate compare", "game": "paws", "seed": ctx.seed, "games_per_cell": ctx.games(300),
           **variant_raw(ctx, "paws"),
           "setup": {"players": 4, "board": "beginner", **(dict(ctx.setup) if ctx.game == "paws" else {})},
           "grid": {"bots": [["heuristic"] * 4, ["heuristic:forbid=move"] + ["heuristic"] * 3]}}
    with played(raw, ctx) as folder:
        report = compare_by(str(folder), "bots")
    rows = [r for r in report.rows if r.metric.startswith("Player 1's")]      # the book's Player 1 is seat 0
    hit = [r for r in rows if r.differs and r.diff < 0]
    r = (hit or rows or report.rows)[0]
    return Outcome(f"{r.metric}: {r.verdict}", bool(hit), r.diff, (r.low, r.high))


@case("compare", "tales-the-same-spec-twice", "null", "the same spec played twice: the same in every metric",
      game="tales", variant=True)
def _same_twice(ctx: Context) -> Outcome:
    raw = {"name": "validate compare", "game": "tales", "seed": ctx.seed, "games_per_cell": ctx.games(300),
           **variant_raw(ctx, "tales"), "setup": {"mode": "standard", "bots": "heuristic",
                                                  **(dict(ctx.setup) if ctx.game == "tales" else {})}}
    with played(raw, ctx) as a, played(raw, ctx) as b:
        report = compare_folders(str(a), str(b))
    same = sum(r.same or r.constant for r in report.rows)
    return Outcome(f"the same in {same} of {len(report.rows)} metrics; differs in "
                   f"{sum(r.differs for r in report.rows)}", same == len(report.rows), float(same))
