"""Tension's known answers (measures/tension/cases.py) and the recalibration they rest on (measures/tension/calibration.py):

- every fast case passes for seed 1 (the rigged Paws line-up decided early ~100% vs 0%, the Tales side that
  never equips 7.4% vs 0.2%, the normal games' held-out calibration);
- cross-fitting on synthetic games whose true chances are known: an oracle that is right but too timid
  (chances shrunk toward 1/k) is recalibrated to a held-out ECE near 0 and reaches 0.9 where the truth does;
- an oracle that knows nothing is refused (a Brier score no better than 1/k), too few won games are refused, each
  in one line; a real configuration whose calibration fails (Paws Explorer, 2 players: held-out ECE 0.039) is
  refused by tension instead of given numbers.
"""

from __future__ import annotations

import numpy as np
import pytest

from measures.known import Context, cases
from measures.tension import calibration as cal

FAST = [c for c in cases() if c.measure == "tension" and not c.slow]


def test_tension_declares_planted_and_null_cases():
    kinds = {c.kind for c in cases() if c.measure == "tension"}
    assert kinds == {"planted", "null"}


@pytest.mark.parametrize("c", FAST, ids=[c.name for c in FAST])
def test_each_fast_case_passes(c):
    out = c.run(Context(seed=1))
    assert out.passed, out.measured


def _synthetic(seed: int, games: int, k: int, shrink: float):
    """Games of ``k`` sides over 8 turns whose winner is drawn from the true chances t (a random walk of logits
    that sharpens with the round); the oracle says t shrunk toward 1/k by ``shrink`` (0: exact)."""
    rng = np.random.default_rng(seed)
    p, rounds, mover, winner, game = [], [], [], [], []
    for g in range(games):
        z = np.cumsum(rng.normal(0, 0.8, (8, k)), axis=0)
        t = np.exp(z - z.max(axis=1, keepdims=True))
        t /= t.sum(axis=1, keepdims=True)
        w = rng.choice(k, p=t[-1])
        p.append((1 - shrink) * t + shrink / k)
        rounds.extend(range(1, 9))
        mover.extend([i % k for i in range(8)])
        winner.extend([w] * 8)
        game.extend([g] * 8)
    return np.vstack(p), np.array(rounds, float), np.array(mover), np.array(winner), np.array(game)


def test_a_timid_oracle_is_recalibrated_and_reaches_what_the_truth_reaches():
    p, r, m, w, g = _synthetic(3, 1500, 3, shrink=0.5)
    q, check = cal.crossfit(p, r, m, w, g, 1500)
    assert check.passed and check.ece < cal.MAX_ECE and check.raw_ece > 0.06 > 2 * check.ece
    assert check.brier < check.raw_brier < check.uninformed
    assert p.max() < 0.67 < 0.9 < q.max()        # the timid oracle never says 0.9; recalibrated, it does


def test_an_oracle_that_knows_nothing_is_refused_in_one_line():
    p, r, m, w, g = _synthetic(4, 1000, 2, shrink=0.0)
    rng = np.random.default_rng(5)
    q, check = cal.crossfit(p, r, m, rng.integers(0, 2, 1000)[g], g, 1000)
    assert q is None and not check.passed and check.refusal.startswith("tension refused") and "\n" not in check.refusal


def test_too_few_won_games_are_refused():
    p, r, m, w, g = _synthetic(6, 50, 2, shrink=0.0)
    q, check = cal.crossfit(p, r, m, w, g, 50)
    assert q is None and check.refusal.startswith(f"tension refused: 50 won games are too few") and check.ece is None


def test_reliability_is_train_bots_ece_and_brier():
    q = np.array([[0.05, 0.95], [0.15, 0.85], [0.5, 0.5]])
    y = np.array([[0, 1], [1, 0], [0, 1]], float)
    ece, brier = cal.reliability(q, y)
    # bins: 0.0-0.1 {0.05: 0}, 0.1-0.2 {0.15: 1}, 0.5-0.6 {0.5: 0, 0.5: 1}, 0.8-0.9 {0.85: 0}, 0.9-1.0 {0.95: 1}
    assert ece == pytest.approx((0.05 + 0.85 + 0 + 0.85 + 0.05) / 6)
    assert brier == pytest.approx(((q - y) ** 2).mean())


def test_a_configuration_whose_calibration_fails_is_refused_by_tension():
    from measures.tension.trace import sentences, tension_of_batch
    from sim.games import GAMES
    m = GAMES["paws"].resolve(setup={"board": "explorer", "players": 2}, tables=("games", "win_prob"),
                              options={"win_prob": {"oracle": "paws-2"}})
    a = tension_of_batch("paws", m.play_batch(1, 0, 2000))
    assert a["refused"] and a["calibration"]["ece"] >= cal.MAX_ECE
    assert sentences(a) == [a["refused"]] and a["decided_early"]["share"] is None
