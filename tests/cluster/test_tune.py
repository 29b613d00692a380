"""``playtest tune``: the racing policy on arms with known truth, a real small tune on Ray, bad tune specs."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest

from cluster.racing import CAP, NARROW, WON, Constraint, Objective, Race, round_ends


@dataclass(frozen=True)
class Arm:
    """A game-free metric: a share (per game value 0 or 1)."""

    name: str
    low: float = 0.0
    high: float = 1.0


SHARE = Arm("share")
STALL = Arm("stall")


def race_for(k: int, h: int, objective: Objective, constraints=(), **kw) -> Race:
    cells = {f"c{i:03d}": divmod(i, h) for i in range(k * h)}
    return Race(cells, k, h, objective, constraints, **kw)


def run_arms(race: Race, means: np.ndarray, rng: np.random.Generator, stall: np.ndarray | None = None) -> Race:
    """Drive the race like the sweep driver: every startable part, in batch order, Bernoulli games."""
    ids = {v: c for c, v in race.cells.items()}
    while race.finished is None:
        progressed = False
        for k in range(race.K):
            for h in range(race.H):
                cid = ids[(k, h)]
                while race.finished is None and race.may_start(cid, int(race.parts[k, h])):
                    n = race.batch
                    summary = {"share": (n, float(rng.binomial(n, means[k, h])))}
                    if stall is not None:
                        summary["stall"] = (n, float(rng.binomial(n, stall[k, h])))
                    race.observe(cid, int(race.parts[k, h]), summary)
                    progressed = True
        assert progressed or race.finished is not None, "the race stalled: no part may start"
    return race


def test_round_ends_grow_geometrically_and_end_at_the_cap():
    assert round_ends(1) == [1]
    assert round_ends(10) == [1, 2, 4, 8, 10]
    assert round_ends(9, growth=1.5) == [1, 2, 3, 5, 8, 9]
    assert round_ends(5, first=3) == [3, 5]


def test_rounds_are_kept_in_step_and_parts_must_come_in_batch_order():
    race = race_for(2, 2, Objective(SHARE, "target", 0.5), batch=10, max_parts=8)
    assert race.may_start("c000", 0) and not race.may_start("c000", 1)
    race.observe("c000", 0, {"share": (10, 5.0)})
    with pytest.raises(ValueError, match="part 0 expected"):
        race.observe("c001", 1, {"share": (10, 5.0)})
    assert not race.may_start("c000", 1)          # round 0 not whole yet: c001..c003 still owe part 0
    for cid in ("c001", "c002", "c003"):
        race.observe(cid, 0, {"share": (10, 5.0)})
    assert race.round == 1 and race.may_start("c000", 1) and not race.may_start("c000", 2)


# Eight candidates, two hold cells each, a first-player share whose distance to 1/2 is the loss (worst
# over the holds). Candidate 0 is the true best (worst distance 0.01); candidate 1 is close (0.02).
MEANS = np.array([[0.51, 0.49], [0.52, 0.50], [0.47, 0.53], [0.56, 0.50],
                  [0.60, 0.55], [0.45, 0.65], [0.70, 0.70], [0.30, 0.50]])
RUNS = 200


def test_the_chosen_set_holds_the_true_best_in_at_least_1_minus_alpha_of_runs_and_spends_far_less():
    """200 races on Bernoulli arms with known means, alpha = 0.1: the indistinguishable set holds the true
    best in >= 90% of runs (it is conservative: a union bound over 16 confidence sequences); racing spends
    a fraction of the exhaustive grid's games."""
    alpha = 0.1
    misses, spent, grid, sizes = 0, 0, 0, []
    for run in range(RUNS):
        race = race_for(8, 2, Objective(SHARE, "target", 0.5, "worst"), confidence=1 - alpha, batch=200,
                        max_parts=256, tolerance=0.002)
        run_arms(race, MEANS, np.random.default_rng([2026, run]))
        chosen = race.indistinguishable()
        misses += 0 not in chosen
        spent += race.games_spent()
        grid += 8 * 2 * 200 * 256
        sizes.append(len(chosen))
    assert misses <= alpha * RUNS, misses
    # fewer games than every candidate played to the cap (measured: 41.7%: candidates 0-2 are close and race on)
    assert spent < 0.5 * grid, (spent, grid)
    print(f"\nracing: true best kept in {RUNS - misses}/{RUNS} runs; games {spent:,} vs {grid:,} for the grid "
          f"at the cap ({spent / grid:.1%}); chosen set size mean {np.mean(sizes):.2f}")


def test_a_naive_race_with_fixed_n_intervals_loses_the_best_more_often(monkeypatch):
    """The control, showing the coverage test can fail: the same race with fixed-n Wilson intervals at 70%
    checked after every round (no confidence sequence, no union bound) drops the true best in more than
    5% of 100 runs on four close arms (measured: 7; the confidence-sequence race: 0)."""
    import cluster.racing as racing
    from sim.sequential import wilson_interval

    def wilson(n, total, alpha):
        return tuple(np.clip(x, 0, 1) for x in wilson_interval(np.broadcast_to(np.maximum(n, 1), total.shape),
                                                               total, alpha))

    monkeypatch.setattr(racing, "share_interval", wilson)
    means = np.array([[0.50], [0.51], [0.49], [0.52]])
    misses = 0
    for run in range(100):
        race = race_for(4, 1, Objective(SHARE, "target", 0.5), batch=100, max_parts=512, tolerance=0.0005)
        race.alpha_each = 0.3
        run_arms(race, means, np.random.default_rng([9, run]))
        misses += 0 not in race.indistinguishable()
    assert misses > 5, misses


def test_a_constraint_drops_the_candidates_that_break_it_and_the_best_feasible_wins():
    # candidate 0 hits the target exactly but stalls 5% of games; candidate 1 is next best and feasible
    means = np.array([[0.50], [0.53], [0.60], [0.70]])
    stall = np.array([[0.05], [0.002], [0.002], [0.002]])
    race = race_for(4, 1, Objective(SHARE, "target", 0.5), [Constraint(STALL, "<=", 0.01)],
                    confidence=0.95, batch=500, max_parts=200)
    run_arms(race, means, np.random.default_rng(3), stall)
    assert race.standings[0].reason.startswith("dropped: stall <= 0.01 fails")
    assert race.best() == 1 and race.finished == WON
    assert race.standings[1].certified
    assert [s.reason.split(":")[0] for s in race.standings] == ["dropped", WON, "dropped", "dropped"]


def test_goal_max_with_mean_combine_and_the_cap():
    means = np.array([[0.30, 0.40], [0.31, 0.40], [0.10, 0.20]])
    race = race_for(3, 2, Objective(SHARE, "max", None, "mean"), batch=100, max_parts=8)
    run_arms(race, means, np.random.default_rng(5))
    assert race.finished == CAP
    assert race.standings[2].reason.startswith("dropped")
    assert set(race.indistinguishable()) == {0, 1}
    assert race.games_spent() < race.exhaustive_games() == 3 * 2 * 800


def test_narrow_stops_when_every_alive_interval_is_within_tolerance():
    means = np.array([[0.5], [0.5]])
    race = race_for(2, 1, Objective(SHARE, "min"), batch=1000, max_parts=1000, tolerance=0.02)
    run_arms(race, means, np.random.default_rng(1))
    assert race.finished == NARROW
    for s in race.standings:
        assert s.loss_high - s.loss_low <= 0.04 and s.loss_low <= 0.5 <= s.loss_high
