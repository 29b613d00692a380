"""Restricted play's interval (cluster.train.paired_gain per line-up, equal_weight over line-ups; docs/restricted-play.md)
covers the true cost at its stated rate, checked by simulation: line-ups of different sizes and different costs, each
game a paired outcome (the unrestricted seat's score, and the restricted seat's: the same unless the restriction
changes the game, then a loss more often). A wrong variance (the line-ups' variances not added, or added without the
equal weights) fails it."""

from __future__ import annotations

import numpy as np

from cluster.train import equal_weight, paired_gain


def _line_up(rng, games: int, p: float, changed: float, loss: float) -> tuple[np.ndarray, np.ndarray, float]:
    base = (rng.random(games) < p).astype(float)
    hit = rng.random(games) < changed
    restricted = np.where(hit, (rng.random(games) < p - loss).astype(float), base)
    return restricted, base, -changed * loss           # the true mean of restricted - base


def test_the_equal_weight_interval_covers_the_true_cost_95_percent_of_the_time():
    rng = np.random.default_rng(20261206)
    shapes = [(400, 0.25, 0.6, 0.10), (1200, 0.5, 0.3, 0.20), (800, 0.33, 0.9, 0.05)]
    reps, covered, widths = 1000, 0, []
    for _ in range(reps):
        rows, truth = [], []
        for i, (n, p, c, loss) in enumerate(shapes):
            r, b, t = _line_up(rng, n, p, c, loss)
            rows.append(paired_gain(f"line-up {i}", r, b))
            truth.append(t)
        over = equal_weight(rows)
        covered += over.low <= np.mean(truth) <= over.high
        widths.append(over.high - over.low)
    rate = covered / reps
    # 1,000 replications: the rate's standard error is 0.007; 0.93-0.97 is about 3 of them either side
    assert 0.93 <= rate <= 0.97, rate
    assert 0.01 < np.median(widths) < 0.1
