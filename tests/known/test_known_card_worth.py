"""Card worth's known answers (measures/card_worth/cases.py) and the statistics under its verdicts
(measures/card_worth/answer.py ``judge``):

- every fast case passes for seed 1 (Grenade made 20 damage too strong against typical cards; six identical
  heal-2 items none too strong or too weak; simulated cards of equal worth said to differ at most alpha of the
  time, one 10 points stronger said too strong and one at its weakest too weak with power 80%);
- the bootstrap's standard error of a card's difference from the reference agrees with the one worked by hand
  (two cards on disjoint games: the median is their mean, the difference half theirs);
- a simulated case gives the same answer for the same seed.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from measures.known import Context, cases

FAST = [c for c in cases() if c.measure == "card-worth" and not c.slow]


def test_card_worth_declares_planted_and_null_cases_fast_and_on_the_designers_deck():
    mine = [c for c in cases() if c.measure == "card-worth"]
    assert {c.kind for c in mine} == {"planted", "null"}
    assert {c.kind for c in mine if not c.slow and c.game} == {"planted", "null"}      # a fast real-game case each
    assert {c.kind for c in mine if not c.slow and not c.game} == {"planted", "null"}  # and a fast simulation each
    assert {c.name for c in mine if c.variant} == {"absurd item", "worthless item"}


@pytest.mark.parametrize("c", FAST, ids=[c.name for c in FAST])
def test_each_fast_case_passes(c):
    out = c.run(Context(seed=1))
    assert out.passed, out.measured


def test_the_bootstrap_error_of_the_difference_from_the_reference_by_hand():
    """Two cards used in disjoint games: the reference (median of two) is their mean, so each card's difference
    is half the difference of the two, its standard error half of sqrt(se1^2 + se2^2)."""
    from measures.card_worth.sweep import summarise
    from measures.card_worth.answer import judge
    rng = np.random.default_rng(3)
    rows = []
    for i, (start, worth) in enumerate(((0, 0.05), (3000, 0.10))):
        change = rng.choice([-1.0, 0.0, 1.0], size=3000, p=[0.1 + worth / 2, 0.8, 0.1 - worth / 2])
        rows.append({"card": f"c{i}", "deck": "items", "field": "amount", "value": 1, "used_in": 3000, "holders": 3000,
                     "blank": {"games": 3000, "diff": float(change.mean()),
                               "se": float(change.std(ddof=1) / math.sqrt(3000)),
                               "per_game": {start + g: float(d) for g, d in enumerate(change)}},
                     "removed": None, "up": None, "down": None})
    ses = [r["blank"]["se"] for r in rows]
    judge(summarise(rows), {"items": "the whole items deck"}, seed=1, replicates=2000)
    by_hand = math.hypot(*ses) / 2
    w0, w1 = (r["blank"]["effect"] for r in rows)
    assert [r["comparison"]["diff"] for r in rows] == pytest.approx([(w0 - w1) / 2, (w1 - w0) / 2])
    for r in rows:
        assert r["comparison"]["se"] == pytest.approx(by_hand, rel=0.08)


def test_a_simulated_case_is_the_same_for_the_same_seed():
    c = next(c for c in cases() if c.measure == "card-worth" and c.name == "simulated strong card")
    a, b = c.run(Context(seed=4, scale=0.5)), c.run(Context(seed=4, scale=0.5))
    assert a == b
