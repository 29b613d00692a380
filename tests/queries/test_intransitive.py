"""Cycles and the Nash equilibrium of a ladder's field (queries/intransitive.py): synthetic win matrices whose
answers are known by hand, the bootstrap intervals' coverage by simulation, and a real ladder's output."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from budget import examples

from queries import intransitive as it


def meetings(rows):
    """Both directions of (a, b, a's wins, draws, b's wins)."""
    out = []
    for a, b, w, d, lose in rows:
        out += [{"bot": a, "opponent": b, "wins": w, "draws": d, "losses": lose},
                {"bot": b, "opponent": a, "wins": lose, "draws": d, "losses": w}]
    return out


def cyclic(x: float, y: float, z: float, n: int = 1_000_000):
    """rock beats scissors by x, scissors beats paper by y, paper beats rock by z (score share less 1/2)."""
    return meetings([("rock", "scissors", round(n * (0.5 + x)), 0, n - round(n * (0.5 + x))),
                     ("scissors", "paper", round(n * (0.5 + y)), 0, n - round(n * (0.5 + y))),
                     ("paper", "rock", round(n * (0.5 + z)), 0, n - round(n * (0.5 + z)))])


BOTS = ["rock", "paper", "scissors"]


def test_rock_paper_scissors_is_a_cycle_with_the_uniform_mix():
    r = it.analyse(BOTS, cyclic(0.2, 0.2, 0.2), replicates=20)
    assert r["cycle"] == ["rock", "scissors", "paper"]
    assert [round(e["weight"], 6) for e in r["equilibrium"]] == [round(1 / 3, 6)] * 3
    assert r["says"][0].startswith("not a ladder: rock beats scissors beats paper beats rock")


@pytest.mark.parametrize("x, y, z", [(0.1, 0.2, 0.3), (0.4, 0.05, 0.15), (0.25, 0.3, 0.01)])
def test_an_uneven_cycle_has_the_mix_worked_by_hand(x, y, z):
    """Against the mix (rock y, paper x, scissors z) / (x + y + z) every pure bot scores exactly one half:
    rock's column z * x - x * z = 0, and so on; it is the only equilibrium."""
    r = it.analyse(BOTS, cyclic(x, y, z), replicates=20)
    want = np.array([y, x, z]) / (x + y + z)
    got = np.array([e["weight"] for e in r["equilibrium"]])
    assert np.allclose(got, want, atol=2e-5), (got, want)


def test_a_ladder_has_no_cycle_and_its_top_bot_takes_all_the_weight():
    rows = [("a", "b", 600, 0, 400), ("b", "c", 600, 0, 400), ("a", "c", 700, 0, 300)]
    r = it.analyse(["c", "b", "a"], meetings(rows), replicates=50)
    assert r["cycle"] is None and r["says"][0].startswith("no cycle")
    assert [e["weight"] for e in r["equilibrium"]] == [0.0, 0.0, 1.0]
    assert "c, b get no weight" in r["says"][1]


def test_a_dominated_bot_outside_the_cycle_gets_no_weight_and_draws_count_half():
    rows = [("rock", "scissors", 700, 0, 300), ("scissors", "paper", 700, 0, 300), ("paper", "rock", 700, 0, 300),
            ("rock", "weak", 500, 400, 100), ("paper", "weak", 500, 400, 100), ("scissors", "weak", 500, 400, 100)]
    r = it.analyse(BOTS + ["weak"], meetings(rows), replicates=50)
    weights = {e["bot"]: e["weight"] for e in r["equilibrium"]}
    assert weights["weak"] == 0.0 and all(abs(weights[b] - 1 / 3) < 1e-6 for b in BOTS)
    assert "weak gets no weight" in r["says"][1]


def test_an_edge_inside_its_noise_makes_no_cycle():
    """55 of 100 decided games is no real edge (Wilson 95% from 0.45): the same cycle with small samples is
    not called one."""
    rows = [("rock", "scissors", 55, 0, 45), ("scissors", "paper", 55, 0, 45), ("paper", "rock", 55, 0, 45)]
    assert it.analyse(BOTS, meetings(rows), replicates=10)["cycle"] is None


def test_pairs_that_never_met_count_as_even_and_longer_cycles_are_found():
    rows = [("a", "b", 900, 0, 100), ("b", "c", 900, 0, 100), ("c", "d", 900, 0, 100), ("d", "a", 900, 0, 100)]
    r = it.analyse(["a", "b", "c", "d"], meetings(rows), replicates=10)
    assert r["cycle"] == ["a", "b", "c", "d"]
    assert abs(sum(e["weight"] for e in r["equilibrium"]) - 1) < 1e-9


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(st.integers(0, 300), min_size=12, max_size=12))
def test_the_mix_is_an_equilibrium_of_any_matrix(counts):
    """For any 4-bot table of wins and draws: the mix is a distribution, and no bot scores above one half
    against it (to the solver's tolerance)."""
    bots = ["a", "b", "c", "d"]
    pairs = [(i, j) for i in range(4) for j in range(i + 1, 4)]
    rows = [(bots[i], bots[j], counts[2 * k], 3, counts[2 * k + 1]) for k, (i, j) in enumerate(pairs)]
    m = meetings(rows)
    r = it.analyse(bots, m, replicates=2)
    p = np.array([e["weight"] for e in r["equilibrium"]])
    a = it.payoff(*it.tallies(bots, m))
    assert abs(p.sum() - 1) < 1e-9 and (p >= 0).all()
    assert (p @ a).min() >= -1e-7 and (a @ p).max() <= 1e-7


@pytest.mark.slow
def test_the_bootstrap_intervals_cover_the_true_mix():
    """150 ladders of 400 games a pair drawn from an uneven cycle with a known mix: each bot's 95% interval
    holds its true weight in about 95% of them (at least 88% of 450 intervals; by the binomial, a 95% rate
    falls below that about once in 10^7)."""
    x, y, z = 0.1, 0.2, 0.15
    true = np.array([y, x, z]) / (x + y + z)
    rng = np.random.default_rng(4)
    covered = total = 0
    for _ in range(150):
        rows = []
        for a, b, edge in (("rock", "scissors", x), ("scissors", "paper", y), ("paper", "rock", z)):
            w = int(rng.binomial(400, 0.5 + edge))
            rows.append((a, b, w, 0, 400 - w))
        r = it.analyse(BOTS, meetings(rows), replicates=100)
        for k, e in enumerate(r["equilibrium"]):
            covered += e["ci95_low"] - 1e-9 <= true[k] <= e["ci95_high"] + 1e-9
            total += 1
    print(f'coverage {covered / total:.3f}')
    assert covered / total >= 0.88, covered / total


# ---------------------------------------------------------------------------------------------------------
# alpha-Rank beside the equilibrium
# ---------------------------------------------------------------------------------------------------------

def _fixation_by_solving_the_chain(share, resident, mutant, alpha, m):
    """The mutant's fixation chance as the absorbing probability of the birth-death chain over k mutants,
    solved as a linear system (no closed form): from k, one more mutant with chance
    k (m - k) / m^2 * 1 / (1 + exp(-alpha (f_mut - f_res))), one fewer with the same times exp(...)."""
    a = np.zeros((m + 1, m + 1))
    b = np.zeros(m + 1)
    a[0, 0] = a[m, m] = 1.0
    b[m] = 1.0
    for k in range(1, m):
        f_mut = ((k - 1) * share[mutant, mutant] + (m - k) * share[mutant, resident]) / (m - 1)
        f_res = (k * share[resident, mutant] + (m - k - 1) * share[resident, resident]) / (m - 1)
        meet = k * (m - k) / m ** 2
        up = meet / (1 + np.exp(-alpha * (f_mut - f_res)))
        down = meet / (1 + np.exp(alpha * (f_mut - f_res)))
        a[k, k], a[k, k + 1], a[k, k - 1] = -(up + down), up, down
    return np.linalg.solve(a, b)[1]


@pytest.mark.parametrize("alpha, m", [(1.0, 10), (5.0, 20), (20.0, 8)])
def test_the_fixation_chance_is_the_birth_death_chains(alpha, m):
    share = np.array([[0.5, 0.62, 0.3], [0.38, 0.5, 0.55], [0.7, 0.45, 0.5]])
    for s in range(3):
        for t in range(3):
            if s != t:
                assert it.fixation(share, s, t, alpha, m) == pytest.approx(
                    _fixation_by_solving_the_chain(share, s, t, alpha, m), rel=1e-9)


def test_a_neutral_mutant_fixes_with_chance_one_over_the_population():
    assert it.fixation(np.full((2, 2), 0.5), 0, 1) == pytest.approx(1 / it.ALPHARANK_POPULATION)


def test_alpharank_of_two_bots_is_the_ratio_of_their_fixation_chances():
    share = np.array([[0.5, 0.51], [0.49, 0.5]])
    pi = it.alpharank(share, alpha=3.0, m=10)
    assert pi[0] / pi[1] == pytest.approx(it.fixation(share, 1, 0, 3.0, 10) / it.fixation(share, 0, 1, 3.0, 10))


def test_alpharank_of_rock_paper_scissors_is_uniform_and_of_a_ladder_its_top_bot():
    r = it.analyse(BOTS, cyclic(0.2, 0.2, 0.2), replicates=20)
    assert [round(e["mass"], 6) for e in r["alpharank"]] == [round(1 / 3, 6)] * 3
    assert r["says"][2].startswith("alpha-Rank") and "seats" not in r["says"][2]
    rows = [("a", "b", 600, 0, 400), ("b", "c", 600, 0, 400), ("a", "c", 700, 0, 300)]
    r = it.analyse(["c", "b", "a"], meetings(rows), replicates=20, seats=3)
    assert r["alpharank"][2]["mass"] > 0.999 and r["alpharank"][2]["ci95_low"] > 0.99
    assert "c, b next to none" in r["says"][2] and "with 3 seats both this and the equilibrium" in r["says"][2]


def test_stationary_by_elimination_solves_a_chain_worked_by_hand():
    """Two states, 0 -> 1 with 0.1, 1 -> 0 with 0.3: pi = (0.75, 0.25)."""
    assert it.stationary(np.array([[0.9, 0.1], [0.3, 0.7]])) == pytest.approx([0.75, 0.25])
