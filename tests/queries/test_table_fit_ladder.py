"""The fit test of ladders of more than 2 seats (queries.ratings.table_fit): the Bradley-Terry deviance over one
game's meetings cannot fail when every game seats every bot; the Luce model of the winners per line-up can.
Hand-worked tables, the degrees of freedom counted by hand, the model's recovery of a planted truth, the
bootstrap branch, and what the line says."""

import itertools

import numpy as np
import pytest

from measures.ladder_fit import cases as lf
from queries import ratings

BOTS = list(lf.BOTS)


def test_bradley_terry_over_one_games_meetings_fits_any_four_seat_ladder_exactly():
    """The issue's point: when every game seats all four bots, bot i's score against each other bot is its own
    wins, and Bradley-Terry with theta = log wins reproduces every pair's share: deviance 0 whatever happened."""
    rng = np.random.default_rng(3)
    outcomes = lf.simulate(lf.strong_in_first_seat(1.5), 4, 300, rng)
    wins = {b: 0 for b in BOTS}
    for o in outcomes:
        wins[o["bots"][o["winning_side"]]] += o["games"]
    scores = np.array([[wins[a] if a != b else 0 for b in BOTS] for a in BOTS], dtype=float)
    assert ratings.fit_check(scores)["deviance"] == pytest.approx(0.0, abs=1e-6)
    check = ratings.table_fit(BOTS, outcomes)
    assert check["fits"] is False and check["p"] < 1e-6 and check["every_bot_every_game"]


@pytest.mark.parametrize("seats, teams, df", [(4, False, 24 * 3 - 3 - 3), (3, False, 24 * 2 - 3 - 2),
                                               (2, False, 12 - 3 - 1), (4, True, 24 - 3 - 1)])
def test_degrees_of_freedom_are_the_line_ups_free_shares_less_the_models_parameters(seats, teams, df):
    """4 bots: 4 seats, 24 line-ups of 3 free shares, 3 ratings + 3 seat effects; 3 seats, 24 of 2, 3 + 2;
    heads-up, 12 of 1, 3 + 1; 2 vs. 2, 24 of 1, 3 ratings + 1 team effect (4 bots split three ways into two
    teams, and three ratings fit three splits: all 3 ratings count)."""
    outcomes = lf.simulate(lf.one_rating, seats, 50, np.random.default_rng(1), teams=teams)
    assert ratings.table_fit(BOTS, outcomes)["df"] == df


def test_the_fit_recovers_the_strengths_and_seat_effects_it_was_drawn_from():
    outcomes = lf.simulate(lf.one_rating, 3, 4000, np.random.default_rng(11))
    t = ratings.tables_of(BOTS, outcomes)
    beta = ratings.luce_fit(t)
    assert t.columns == ["b", "c", "d", "side 1", "side 2"]
    want = [0.3, 0.6, 0.9, 0.1 - 0.2, 0.0 - 0.2]
    assert np.allclose(beta, want, atol=0.05), beta


def test_a_hand_worked_table_one_line_up_of_three_seats_fits_exactly():
    """One line-up alone: 2 free shares, 2 seat effects (the bots' ratings are not identified apart from
    them): no degrees of freedom, and the test claims nothing."""
    outcomes = [{"bots": ["a", "b", "c"], "seat_sides": [0, 1, 2], "winning_side": s, "games": n}
                for s, n in ((0, 50), (1, 30), (2, 20))]
    check = ratings.table_fit(["a", "b", "c"], outcomes)
    assert check["df"] <= 0 and check["fits"] is None
    assert "no fit is claimed" in ratings.table_fit_line(check)


def test_a_hand_worked_misfit_two_line_ups_with_opposite_orders():
    """Line-ups (a, b, c) winning 800/100/100 and (c, b, a) winning 100/400/500. Seat 0 against seat 2 gives
    log 8 = a - c - s2 and log(1/5) = c - a - s2, so a - c = log(40) / 2 (about 1.84); seat 1 against seat 0
    gives log(1/8) = b + s1 - a and log 4 = b + s1 - c, so a - c = log 32 (about 3.47): no one rating of a and
    c says both. Degrees of freedom: 4 free shares less the rank 3 of the contrasts (c, b + s1, s2)."""
    rows = []
    for seated, shares in ((["a", "b", "c"], (800, 100, 100)), (["c", "b", "a"], (100, 400, 500))):
        rows += [{"bots": seated, "seat_sides": [0, 1, 2], "winning_side": s, "games": n} for s, n in enumerate(shares)]
    check = ratings.table_fit(["a", "b", "c"], rows)
    assert check["df"] == 1 and check["fits"] is False and check["method"] == "chi-square", check
    consistent = [dict(r, games=n) for r, n in zip(rows, (800, 100, 100, 100, 100, 800))]   # a - c = log 8 twice
    assert ratings.table_fit(["a", "b", "c"], consistent)["deviance"] == pytest.approx(0.0, abs=1e-3)


def test_draws_are_left_out_and_counted():
    rows = lf.simulate(lf.one_rating, 3, 200, np.random.default_rng(2), draw=0.2)
    check = ratings.table_fit(BOTS, rows)
    assert check["draws"] + check["games"] == 24 * 200 and check["draws"] > 0.15 * 24 * 200


def test_few_games_use_the_parametric_bootstrap_and_its_p_value_is_a_fraction_of_replicates():
    rows = lf.simulate(lf.one_rating, 3, 3, np.random.default_rng(4))
    check = ratings.table_fit(BOTS, rows, replicates=49)
    assert check["method"] == "parametric bootstrap (49 replicates)"
    assert round(check["p"] * 50) == pytest.approx(check["p"] * 50) and 0.02 <= check["p"] <= 1.0
    assert ratings.table_fit(BOTS, rows, replicates=49) == check        # a fixed seed: the same answer


def test_the_line_says_what_every_bot_at_every_table_cannot_test():
    ok = ratings.fit_of(BOTS, [], 4, lf.simulate(lf.one_rating, 4, 100, np.random.default_rng(5)))
    assert ok["fits"] is True and ok["model"] == "luce"
    assert "one rating per bot describes these games" in ok["says"] and "needs more bots than seats" in ok["says"]
    bad = ratings.fit_of(BOTS, [], 3, lf.simulate(lf.rock_paper_scissors(0.5), 3, 100, np.random.default_rng(5)))
    assert bad["fits"] is False and "does NOT describe these games" in bad["says"]
    assert "head-to-head matrix first" in bad["says"] and "needs more bots" not in bad["says"]


def test_a_bot_outside_the_field_or_a_side_nobody_holds_is_one_line():
    rows = [{"bots": ["a", "x", "c"], "seat_sides": [0, 1, 2], "winning_side": 0, "games": 3}]
    with pytest.raises(ratings.RatingError, match="bot 'x'"):
        ratings.table_fit(["a", "b", "c"], rows)
    rows = [{"bots": ["a", "b", "c"], "seat_sides": [0, 1, 2], "winning_side": 5, "games": 3}]
    with pytest.raises(ratings.RatingError, match="side 5"):
        ratings.table_fit(["a", "b", "c"], rows)
    with pytest.raises(ratings.RatingError, match="needs their outcomes"):
        ratings.fit_of(["a", "b", "c"], [], 3, None)


def test_heads_up_keeps_bradley_terry_over_the_meetings():
    rows = lf.simulate(lf.rock_paper_scissors(0.5), 2, 300, np.random.default_rng(6))
    check = ratings.fit_of(BOTS, lf.meetings_of(rows), 2, rows)
    assert check["model"] == "bradley-terry" and check["df"] == 6 - 3 and check["fits"] is False
    assert check["says"].startswith("Bradley-Terry fit: deviance")


def test_meetings_of_count_both_directions():
    rows = [{"bots": ["a", "b"], "seat_sides": [0, 1], "winning_side": w, "games": n}
            for w, n in ((0, 5), (1, 3), (-1, 2))]
    m = {(r["bot"], r["opponent"]): (r["wins"], r["draws"], r["losses"]) for r in lf.meetings_of(rows)}
    assert m == {("a", "b"): (5, 2, 3), ("b", "a"): (3, 2, 5)}


def test_the_simulated_ladder_plays_every_line_up_its_games():
    rows = lf.simulate(lf.one_rating, 3, 7, np.random.default_rng(8))
    per = {}
    for r in rows:
        per[tuple(r["bots"])] = per.get(tuple(r["bots"]), 0) + r["games"]
    want = {p for g in itertools.combinations(BOTS, 3) for p in itertools.permutations(g)}
    assert set(per) == want and set(per.values()) == {7}
