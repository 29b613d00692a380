"""Bot strength's known answers (measures/strength/cases.py) and the held-out seeds it is measured on
(cluster/strength.py):

- every fast case passes for seed 1 (the heuristic against random called stronger, 2 players, seats swapped on the
  same deals; against itself 50% exactly, the same; the decision rule simulated: a true 50% called stronger in
  about 2.5% of runs, a true 52% called the same in about 5%, a true 55% called stronger in about 92% of 600 deals);
- the decision rule on hand-worked deals: the delta-method standard error equals the plain one when every deal
  is decided twice, a heuristic that never loses is stronger, no decided game says not enough games;
- held-out seeds: an evaluation plays 2^63 + seed, a seed a training run played is refused in one line naming what
  played it, the wins, draws and losses are counted from the per-game edges.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from cluster import strength as st
from measures.known import Context, cases
from measures.strength import cases as ks
from sim.params import RuleError

FAST = [c for c in cases() if c.measure == "strength" and not c.slow]


def test_strength_declares_planted_and_null_cases_of_both_kinds():
    mine = [c for c in cases() if c.measure == "strength"]
    assert {c.kind for c in mine} == {"planted", "null"}
    assert {c.game for c in mine} == {"paws", "tales", None}      # real games and simulations


@pytest.mark.parametrize("c", FAST, ids=[c.name for c in FAST])
def test_each_fast_case_passes(c):
    out = c.run(Context(seed=1))
    assert out.passed, out.measured


def test_a_case_is_the_same_for_the_same_seed():
    c = next(c for c in FAST if c.name == "tales-heuristic-vs-random")
    assert c.run(Context(seed=4)) == c.run(Context(seed=4))


def test_the_delta_method_error_is_the_plain_one_when_every_deal_is_decided_twice():
    rng = np.random.default_rng(2)
    wins = rng.integers(0, 3, 500)
    r, e = ks.verdict(wins, np.full(500, 2))
    assert r == wins.sum() / 1000
    se = (wins / 2).std(ddof=1) / math.sqrt(500)           # the deal's share, a plain mean over deals
    assert math.isclose((e.high - e.low) / (2 * 1.959964), se, rel_tol=1e-6)


def test_hand_worked_verdicts():
    # A wins both games of every decided deal: stronger
    r, e = ks.verdict(np.full(100, 2), np.full(100, 2))
    assert r == 1.0 and ks.called(e) == "stronger"
    # A loses both: weaker
    assert ks.called(ks.verdict(np.zeros(100), np.full(100, 2))[1]) == "weaker"
    # one win and one loss a deal (the same bot in both seats): 50% exactly, the same
    r, e = ks.verdict(np.ones(100), np.full(100, 2))
    assert r == 0.5 and e.verdict == "same" and ks.called(e) == "the same"
    # no decided game, or one deal: not enough games
    assert ks.called(ks.verdict(np.zeros(10), np.zeros(10))[1]) == "not enough games"
    assert ks.called(ks.verdict(np.ones(1), np.full(1, 2))[1]) == "not enough games"
    # a few deals that lean one way but not enough to say
    assert ks.called(ks.verdict(np.array([2, 1, 1, 2, 0, 1]), np.full(6, 2))[1]) == "not enough games"


def test_the_rule_simulated_at_equal_strength_calls_stronger_rarely():
    v = ks.simulate(0.5, 1000, seed=9, runs=400)
    assert sum(x == "stronger" for x in v) / 400 <= 0.06
    assert sum(x == "weaker" for x in v) / 400 <= 0.06


def test_the_evaluation_seed_is_never_a_training_seed():
    assert st.evaluation_seed(1) == 2 ** 63 + 1 and st.evaluation_seed(0) == 2 ** 63
    assert st.evaluation_seed(2 ** 63 + 5) == 2 ** 63 + 5
    assert st.evaluation_seed(2 ** 64 - 1) == 2 ** 64 - 1 and st.evaluation_seed(2 ** 63 - 1) == 2 ** 64 - 1
    prov = {"spec": {"seed": 2 ** 63 - 2, "iterations": 3, "improve": 30}, "iterations": [{}, {}, {}],
            "improvement": {"generations": 30}}
    used = st.training_seeds(prov)
    assert len(used) == 3 + 3 + 30 + 1 and max(used) < 2 ** 63          # wrapped below 2^63, as training does
    assert used[2 ** 63 - 2] == "self-play of iteration 1" and used[0] == "self-play of iteration 3"


def test_the_shipped_models_training_seeds_are_read_from_their_provenance():
    (_, paws), = st.models_named("paws", ["learned:model=paws-2"])
    used = st.training_seeds(paws.provenance)
    assert {1, 2, 3, 1001, 1003, 2001, 2030, 3001} <= set(used) and 2031 not in used and 4 not in used
    assert [b for b, _ in st.models_named("paws", ["heuristic,mcts:iterations=8:model=paws-2", "random"])] == \
        ["mcts:iterations=8:model=paws-2"]


@pytest.mark.parametrize("seed, what", [(1, "self-play of iteration 1"), (1002, "the ladder of iteration 2"),
                                        (2017, "policy improvement, generation 17"), (3001, "improved policy")])
def test_a_seed_the_model_was_trained_on_is_refused_in_one_line(seed, what):
    with pytest.raises(RuleError) as e:
        st.check_unseen("paws", ["heuristic", "learned:model=paws-2,heuristic"], seed)
    line = str(e.value)
    assert "\n" not in line and f"seed {seed}:" in line and what in line and "learned:model=paws-2" in line
    st.check_unseen("paws", ["heuristic", "learned:model=paws-2"], 4)                 # not a training seed
    st.check_unseen("paws", ["heuristic"], 1)                                          # no model named


def test_wins_draws_and_losses_are_counted_from_the_edges():
    # Tales (fair share 1/2): a win +0.5, a draw 0, a loss -0.5
    r = st.results({"a / seat 1": np.array([0.5, 0.0, -0.5, 0.5]), "a / seat 2": np.array([0.0, 0.5, 0.5, -0.5])})
    assert [r[k]["count"] for k in ("wins", "draws", "losses")] == [4, 2, 2]
    assert r["wins"]["share"] == 0.5 and r["share_of_decided"]["share"] == round(4 / 6, 4)
    lo, hi = r["draws"]["ci95"]
    assert lo < 0.25 < hi


def test_strength_plays_the_held_out_seed_and_counts_draws_apart():
    r = st.strength("tales", "heuristic", 7, 30)
    assert r["seed"] == 2 ** 63 + 7 and r["seed_given"] == 7 and r["games"] == 120
    assert r["wins"]["count"] == r["losses"]["count"]            # itself, each game from both seats
    assert r["score"] == 0.5 and r["win_share"] == r["wins"]["share"] < 0.5 < r["wins"]["share"] + r["draws"]["share"]
    assert r["wins"]["count"] + r["draws"]["count"] + r["losses"]["count"] == 120


def test_paired_compares_two_bots_on_the_same_games():
    p = st.paired("tales", "heuristic", "random", 3, 40)
    assert p["seed"] == 2 ** 63 + 3 and [r["line_up"] for r in p["rows"]][-1] == "all line-ups (equal weight)"
    overall = p["rows"][-1]
    assert overall["b_minus_a"] == round(overall["b_edge"] - overall["a_edge"], 4) and overall["ci95"][1] < 0
    same = st.paired("tales", "heuristic", "heuristic", 3, 40)["rows"][-1]     # the same bot twice: 0 exactly
    assert same["b_minus_a"] == 0 and same["ci95"] == [0, 0]
