"""Cycles and the Nash equilibrium of a ladder's field (queries/intransitive.py): synthetic win matrices whose
answers are known by hand, the bootstrap intervals' coverage by simulation, and a real ladder's output."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

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


@settings(max_examples=40, deadline=None)
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
