"""Does one rating per bot describe a ladder's games? The Bradley-Terry deviance test (queries.ratings.fit_check),
its false-alarm rate checked by simulation, its power on an intransitive field (rock-paper-scissors), and Elo
in win chances."""

import numpy as np
import pytest

from queries.ratings import FIT_LEVEL, fit_check, fit_line, rating_lines, win_chance


def simulate(theta, rng, n=1000):
    """Heads-up games between every pair: scores[i, j] = i's wins against j, Bradley-Terry with strengths theta."""
    k = len(theta)
    s = np.zeros((k, k))
    for i in range(k):
        for j in range(i + 1, k):
            w = rng.binomial(n, 1 / (1 + np.exp(-(theta[i] - theta[j]))))
            s[i, j], s[j, i] = w, n - w
    return s


def test_the_fit_check_flags_a_field_that_fits_about_as_often_as_its_level():
    """400 fields drawn from the model itself (4 bots, 1,000 games a pair): the check says "does not fit" in about
    1% of them (binomial 99.9% band for 400 tries at 1%: at most 12)."""
    rng = np.random.default_rng(2026)
    flagged = sum(not fit_check(simulate([0.0, 0.4, 1.0, 1.3], rng))["fits"] for _ in range(400))
    assert flagged <= 12, flagged


def test_an_intransitive_field_is_flagged_and_the_line_says_to_read_the_matrix():
    rng = np.random.default_rng(7)
    s = simulate([0.0, 0.0, 0.0], rng)
    for i, j in ((0, 1), (1, 2), (2, 0)):          # each beats the next 70% of the time: no rating order fits
        s[i, j], s[j, i] = 700, 300
    check = fit_check(s)
    assert not check["fits"] and check["df"] == 1 and check["p"] < FIT_LEVEL
    assert "does NOT describe these games" in fit_line(check) and "head-to-head matrix" in fit_line(check)


def test_two_bots_have_nothing_to_test():
    check = fit_check(np.array([[0.0, 60.0], [40.0, 0.0]]))
    assert check["df"] == 0 and check["fits"] and "head-to-head results themselves" in fit_line(check)


@pytest.mark.parametrize("elo, share", [(0, 0.5), (100, 0.640), (200, 0.760), (-200, 0.240), (400, 0.909)])
def test_elo_in_win_chances(elo, share):
    assert win_chance(elo) == pytest.approx(share, abs=0.001)


def test_rating_lines_say_the_win_chance_with_its_interval():
    rated = [{"bot": "random", "elo": 0.0, "ci95_low": 0.0, "ci95_high": 0.0, "games": 900},
             {"bot": "heuristic", "elo": 126.0, "ci95_low": 109.0, "ci95_high": 143.0, "games": 900}]
    assert rating_lines(rated)[1] == ("heuristic is rated 126 Elo above random (95%: 109 to 143), from 900 games: "
                                      "it would win 67% of their meetings (95%: 65 to 69%)")
