"""Bradley-Terry ratings, their intervals, the win matrix and skill_depth's sentence (queries/ratings.py), and
the bot_meetings view read against the records themselves."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from budget import examples

from queries import connection
from queries.ratings import (ELO_SCALE, PRIOR_GAMES, RatingError, anchor_of, bootstrap_se, bradley_terry,
                             outcome_scores, ratings, read_meetings, read_outcomes, skill_sentence, win_matrix)
from sim.games import get
from sim.output import write_parquet

TRUE_ELO = np.array([0.0, 100.0, 200.0, 400.0])


def _heads_up(theta: np.ndarray, games: int, rng=None) -> np.ndarray:
    """scores[i, j] for ``games`` games per pair: drawn from the model, or (rng None) their expectation."""
    n = len(theta)
    s = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            p = 1.0 / (1.0 + math.exp(theta[j] - theta[i]))
            w = games * p if rng is None else rng.binomial(games, p)
            s[i, j], s[j, i] = w, games - w
    return s


def test_recovers_known_strengths_from_their_expected_results():
    theta = TRUE_ELO / ELO_SCALE
    fit = bradley_terry(_heads_up(theta, 10**6))
    # the prior (one virtual draw per pair) moves a million games' estimate by well under an Elo point
    assert np.allclose(fit.theta * ELO_SCALE, TRUE_ELO, atol=0.5)
    assert fit.theta[0] == 0.0 and fit.cov[0, 0] == 0.0


def test_two_bots_match_the_closed_form():
    # with two bots the penalized MLE is the log odds of (wins + prior/2) to (losses + prior/2), and its
    # Fisher standard error sqrt(1/a + 1/b)
    fit = bradley_terry(np.array([[0.0, 30.0], [70.0, 0.0]]))
    a, b = 70 + PRIOR_GAMES / 2, 30 + PRIOR_GAMES / 2
    assert fit.theta[1] == pytest.approx(math.log(a / b), abs=1e-9)
    assert fit.se()[1] == pytest.approx(math.sqrt(1 / a + 1 / b), abs=1e-9)


def test_intervals_cover_the_truth_about_95_percent_of_the_time():
    """400 simulated ladders of 4 bots (200 games per pair): of the 1,200 intervals of the 3 bots rated
    against the anchor, 92% to 98% cover the true rating. The nominal 95% over 1,200 intervals has a
    standard error of 0.63 points, so the band is about 4.7 standard errors wide each way: a correct
    interval fails it with odds below 1 in 10^5 (the three intervals of one ladder are correlated, which
    widens this a little); the seed is fixed, so the test is deterministic."""
    rng = np.random.default_rng(20261205)
    theta = TRUE_ELO / ELO_SCALE
    covered = total = 0
    for _ in range(400):
        fit = bradley_terry(_heads_up(theta, 200, rng))
        half = 1.959964 * fit.se()[1:]
        covered += int((np.abs(fit.theta[1:] - theta[1:]) <= half).sum())
        total += 3
    assert 0.92 <= covered / total <= 0.98, covered / total


def test_a_bot_that_never_loses_gets_a_finite_rating_above_the_rest():
    s = np.array([[0.0, 40.0, 50.0], [0.0, 0.0, 30.0], [0.0, 20.0, 0.0]])   # bot 0 never loses
    fit = bradley_terry(s, anchor=1)
    assert np.all(np.isfinite(fit.theta)) and np.all(np.isfinite(fit.se()))
    assert fit.theta[0] > fit.theta[2] > fit.theta[1] - 1.0


def test_bots_that_never_met_cannot_be_rated():
    s = np.array([[0, 5, 0, 0], [5, 0, 0, 0], [0, 0, 0, 3], [0, 0, 3, 0]], dtype=float)
    with pytest.raises(RatingError, match="2 groups that never met"):
        bradley_terry(s, names=["a", "b", "c", "d"])
    with pytest.raises(RatingError, match="no games"):
        bradley_terry(np.zeros((3, 3)))


@settings(max_examples=examples(150), deadline=None)
@given(st.integers(2, 5).flatmap(lambda n: st.lists(st.lists(st.integers(0, 10**6), min_size=n, max_size=n),
                                                    min_size=n, max_size=n)))
def test_any_win_loss_table_gives_finite_ratings_or_one_clear_message(table):
    s = np.array(table, dtype=float)
    try:
        fit = bradley_terry(s)
    except RatingError as e:
        assert "\n" not in str(e) and ("never met" in str(e) or "no games" in str(e))
        return
    assert np.all(np.isfinite(fit.theta)) and np.all(np.isfinite(fit.cov)) and fit.theta[0] == 0.0
    assert np.all(np.diag(fit.cov)[1:] > 0)


MEETINGS = [
    {"bot": "random", "opponent": "heuristic", "wins": 20, "draws": 5, "losses": 75},
    {"bot": "heuristic", "opponent": "random", "wins": 75, "draws": 5, "losses": 20},
]


def test_win_matrix_shares_add_up_to_one_minus_draws():
    m = {(r["bot"], r["opponent"]): r for r in win_matrix(["random", "heuristic"], MEETINGS)}
    ab, ba = m[("random", "heuristic")], m[("heuristic", "random")]
    assert ab["games"] == ba["games"] == 100
    assert ab["share"] + ba["share"] == pytest.approx(1 - ab["draws"] / ab["games"])
    assert ab["ci95_low"] < ab["share"] < ab["ci95_high"]
    rated = ratings(["random", "heuristic"], MEETINGS)
    assert rated[0]["elo"] == 0 and rated[1]["ci95_low"] > 0 and rated[1]["games"] == 100


def test_skill_sentence_says_how_much_skill_shows():
    cols = ["level", "bot", "against", "opponent", "games", "wins", "draws", "losses", "score", "ci95_low",
            "ci95_high"]
    luck = [(1, "heuristic", "level below", "random", 1000, 520, 0, 480, 0.52, 0.49, 0.55)]
    skill = [(1, "heuristic", "level below", "random", 1000, 900, 0, 100, 0.9, 0.88, 0.92)]
    assert skill_sentence(cols, luck).startswith("this game is mostly luck")
    assert "heuristic" in skill_sentence(cols, skill) and skill_sentence(cols, skill).startswith("skill matters a lot")
    assert skill_sentence(cols, []) is None
    # the best bot against random speaks, whatever its level; without random, against the lowest level
    mixed = skill + [(2, "heuristic:x", "level below", "heuristic", 1000, 400, 0, 600, 0.4, 0.37, 0.43),
                     (2, "heuristic:x", "random", "random", 1000, 700, 0, 300, 0.7, 0.67, 0.73)]
    assert "the best bot against random, heuristic, scores 90.0%" in skill_sentence(cols, mixed)
    no_random = [(1, "b", "level below", "a", 100, 60, 0, 40, 0.6, 0.5, 0.69),
                 (2, "c", "level below", "b", 100, 70, 0, 30, 0.7, 0.6, 0.78)]
    assert "the best bot against a, b, scores 60.0%" in skill_sentence(cols, no_random)


@pytest.mark.parametrize("mode, players", [("ffa", 2), ("ffa", 3), ("teams", 4)])
def test_bot_meetings_count_what_the_records_say(tmp_path, mode, players):
    """The bot_meetings view against the same count done in Python from each record's winner."""
    bots = ["random", "heuristic", "heuristic:aggression=5", "random"][:players]
    if players == 2:
        bots = bots[:2]
    m = get("paws").resolve("v4", {}, {"players": players, "mode": mode, "bots": ",".join(bots)})
    table = m.play_batch(3, 0, 300)["games"]
    write_parquet([table], tmp_path / "g.parquet", m.schemas["games"])
    con = connection.connect([str(tmp_path / "g.parquet")])
    try:
        connection.add_seat_outcomes(con, [str(tmp_path)])
        got = {(r["bot"], r["opponent"]): (r["wins"], r["draws"], r["losses"]) for r in read_meetings(con)}
    finally:
        con.close()
    want: dict = {}
    for rec in table.to_pylist():
        sides = [s % 2 for s in range(players)] if mode == "teams" else list(range(players))
        won = rec["winner_team"] if mode == "teams" else rec["winner_seat"]
        for a in range(players):
            for b in range(players):
                if sides[a] == sides[b] or bots[a] == bots[b]:
                    continue
                w, d, l = want.get((bots[a], bots[b]), (0, 0, 0))
                if won == sides[a]:
                    w += 1
                elif won == sides[b]:
                    l += 1
                elif won == -1:
                    d += 1
                want[(bots[a], bots[b])] = (w, d, l)
    assert got == want and got


def _three_seat_outcomes(theta: np.ndarray, games: int, rng) -> list[dict]:
    """Free-for-all games of 3 seats, every seat order of bots a, b, c: a seat wins with probability
    proportional to exp(theta) of its bot (Luce), so each meeting is a Bradley-Terry comparison."""
    bots, out = ["a", "b", "c"], []
    for lineup in itertools.permutations(range(3)):
        p = np.exp(theta[list(lineup)])
        for seat, n in enumerate(rng.multinomial(games, p / p.sum())):
            if n:
                out.append({"bots": [bots[i] for i in lineup], "seat_sides": [0, 1, 2], "winning_side": seat,
                            "games": int(n)})
    return out


@pytest.mark.slow
def test_more_seats_bootstrap_intervals_cover_the_truth_where_fisher_ones_are_too_narrow():
    """100 simulated 3-seat ladders (100 games per seat order): the bootstrap intervals (100 replicates each)
    cover the true ratings in 90% to 99.5% of the 200 intervals (the standard error of a 95% coverage over
    200 is 1.5 points: the band is 3 to 3.5 of them each way); the Fisher intervals, which treat a game's two
    meetings as independent, come out narrower on every data set. Fixed seeds: deterministic."""
    rng = np.random.default_rng(3)
    theta = np.array([0.0, 0.3, 0.8])
    covered = total = 0
    for rep in range(100):
        outcomes = _three_seat_outcomes(theta, 100, rng)
        counts = np.array([o["games"] for o in outcomes], dtype=float)
        fit = bradley_terry(np.tensordot(counts, outcome_scores(["a", "b", "c"], outcomes), axes=1))
        se = bootstrap_se(["a", "b", "c"], outcomes, replicates=100, seed=rep)
        assert np.all(fit.se()[1:] < se[1:])
        covered += int((np.abs(fit.theta[1:] - theta[1:]) <= 1.959964 * se[1:]).sum())
        total += 2
    assert 0.90 <= covered / total <= 0.995, covered / total


def test_the_anchor_is_random_when_the_field_has_it():
    assert anchor_of(["heuristic", "random", "x"]) == 1 and anchor_of(["heuristic", "x"]) == 0
    rated = ratings(["heuristic", "random"], MEETINGS, anchor=1)
    assert rated[1]["elo"] == 0 and rated[0]["elo"] > 0


def test_outcomes_and_meetings_agree(tmp_path):
    """read_outcomes (what the bootstrap resamples) sums to the same meetings as bot_meetings."""
    m = get("paws").resolve("v4", {}, {"players": 4, "mode": "teams",
                                       "bots": "random,heuristic,heuristic:aggression=5,random"})
    table = m.play_batch(4, 0, 200)["games"]
    write_parquet([table], tmp_path / "g.parquet", m.schemas["games"])
    con = connection.connect([str(tmp_path / "g.parquet")])
    try:
        connection.add_seat_outcomes(con)
        outcomes, meetings = read_outcomes(con), read_meetings(con)
    finally:
        con.close()
    bots = ["random", "heuristic", "heuristic:aggression=5"]
    counts = np.array([o["games"] for o in outcomes], dtype=float)
    assert counts.sum() == 200
    got = np.tensordot(counts, outcome_scores(bots, outcomes), axes=1)
    want = np.zeros((3, 3))
    for r in meetings:
        want[bots.index(r["bot"]), bots.index(r["opponent"])] = r["wins"] + r["draws"] / 2
    assert np.array_equal(got, want)
