"""Verdicts that agree with the numbers beside them: an interval never prints as [0.00, 0.00] beside a "real
change", and a metric whose own 95% interval leaves out zero but that the Holm adjustment calls no real difference
says so in its line (once "no real difference ... (+2.0 points [+0.4, +3.6])")."""

import math

from hypothesis import given, settings, strategies as st
from budget import examples

from queries.compare import Row, amount, decimals, verdict


def row(kind="share", diff=0.02, low=0.004, high=0.036, p_adj=0.21, phrase="seat 3's win share"):
    unit = {"share": "points", "mean": "knockouts"}[kind]
    return Row("", "", "m", kind, unit, 0.25, 0.27, diff, low, high, 0.01, True, 1000, 1000, 1000, low, high,
               phrase, p_adj)


def test_no_real_difference_with_an_interval_that_leaves_out_zero_says_why():
    text = verdict(row(), tested=11)
    assert text == ("no real difference shown in seat 3's win share, but not enough games to say it is the same within "
                    "+-2 points (+2.0 points; its own 95% interval [+0.4, +3.6] leaves out 0, but not once 11 metrics "
                    "are tested together (adjusted p 0.210))")


def test_no_real_difference_with_an_interval_around_zero_is_the_short_line():
    """"The same" only by two one-sided tests within the 2-point margin; a wide interval around zero is "not enough
    games to say", with the pairs that would settle it."""
    assert verdict(row(diff=0.007, low=-0.004, high=0.018, p_adj=1.0)) == \
        "no real difference in seat 3's win share, the same within +-2 points (+0.7 points [-0.4, +1.8])"
    assert verdict(row(diff=0.007, low=-0.03, high=0.044, p_adj=1.0)) == \
        ("no real difference shown in seat 3's win share, but not enough games to say it is the same within +-2 "
         "points; about 7,630 pairs would settle it (+0.7 points [-3.0, +4.4])")


def test_a_tiny_real_change_shows_the_digits_it_needs():
    r = row(kind="mean", diff=-0.0031, low=-0.0052, high=-0.0010, p_adj=0.001, phrase="knockouts per game")
    assert verdict(r) == "B lowers knockouts per game by 0.003 [0.001, 0.005]"
    assert decimals(row()) == 1 and decimals(row(kind="mean", low=-0.2, high=0.3)) == 2


@settings(max_examples=examples(300), deadline=None)
@given(st.floats(-1, 1), st.floats(1e-4, 0.5), st.sampled_from(["share", "mean"]))
def test_a_real_change_never_prints_an_interval_that_touches_zero(diff, half, kind):
    """Whatever the size of the effect, a real change's printed interval does not read [0.00, 0.00] or cross 0."""
    lo, hi = (diff - half, diff + half)
    if lo <= 0 <= hi:
        return
    r = row(kind=kind, diff=diff, low=lo, high=hi, p_adj=0.001)
    text = verdict(r)
    nums = [float(x) for x in text.split("[")[1].rstrip("]").split(", ")]
    assert max(abs(x) for x in nums) > 0, text
    assert decimals(r) <= 4 and not math.isnan(float(amount(r, diff)))


def test_the_paired_share_of_decided_games_covers_its_true_difference_95_percent_of_the_time():
    """The delta-method interval for a share of decided games on matched games, checked by simulation: matched
    games share their randomness (a game decided on one side is mostly decided on the other), the true shares
    among decided games are 0.30 (A) and 0.32 (B); 1,000 replications of 3,000 games cover the true difference
    0.02 about 95% of the time (binomial 99.9% band for 1,000 tries: 0.928 to 0.968)."""
    import numpy as np
    from queries.compare import _paired
    rng = np.random.default_rng(29)
    covered = 0
    for _ in range(1000):
        n = 3000
        u = rng.random(n)                                   # common random numbers of each matched game
        da = (u < 0.90).astype(np.int8)
        db = ((u < 0.85) | (rng.random(n) < 0.05)).astype(np.int8)
        v = rng.random(n)
        wa = (da & (v < 0.30)).astype(np.int8)
        wb = (db & (np.where(rng.random(n) < 0.8, v, rng.random(n)) < 0.32)).astype(np.int8)
        _, lo, hi, _ = _paired("ratio", np.stack([wa, da], axis=1), np.stack([wb, db], axis=1))
        covered += lo <= 0.02 <= hi
    assert 928 <= covered <= 968, covered
