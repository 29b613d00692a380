"""The anytime-valid stopping statistics (infra/sequential.py): coverage of the confidence sequence under
continuous monitoring (with a fixed-n Wilson control that must lose it), its width, the narrow-enough stop,
Wald's SPRT error rates and sample sizes by simulation, and input validation.

Simulations use fixed seeds, so each run is exact; the stated tolerances are what a fresh seed would need
(about 3 standard errors of the simulated rate: a false failure about once in 700 seeds)."""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from budget import examples

from infra.sequential import (ACCEPT_H0, CONTINUE, REJECT_H0, UNDECIDED_AT_CAP, ShareSequence, Sprt,
                            games_for_half_width, share_interval, stop_when_narrow, wilson_interval)

ALPHA = 0.05


def _batch_sums(rng, kind: str, p: float, batches: np.ndarray, sequences: int) -> np.ndarray:
    """(looks, sequences) running sums of per-game values: Bernoulli(p), or with draws worth 1/2."""
    if kind == "bernoulli":
        sums = rng.binomial(batches[:, None], p, size=(len(batches), sequences)).astype(float)
    else:   # win 1 / draw 1/2 / loss 0 with probabilities 0.3 / 0.4 / 0.3: mean 0.5, variance 0.15
        wins = rng.binomial(batches[:, None], 0.3, size=(len(batches), sequences))
        draws = rng.binomial(batches[:, None] - wins, 0.4 / 0.7)
        sums = wins + 0.5 * draws
    return np.cumsum(sums, axis=0)


def _ever_excluded(interval, p: float, batches: np.ndarray, sums: np.ndarray) -> float:
    """Share of sequences whose interval excludes p at one look or more (one look after every batch)."""
    n = np.cumsum(batches)
    ever = np.zeros(sums.shape[1], dtype=bool)
    for look in range(len(batches)):
        low, high = interval(np.full(sums.shape[1], float(n[look])), sums[look])
        ever |= (p < low) | (p > high)
    return float(ever.mean())


def _tolerance(rate: float, sequences: int) -> float:
    return 3.0 * math.sqrt(rate * (1 - rate) / sequences)


# --- coverage under continuous monitoring ---------------------------------------------------------------------

@pytest.mark.parametrize("kind, p", [("bernoulli", 0.5), ("bernoulli", 0.05), ("draws", 0.5)])
def test_confidence_sequence_keeps_coverage_when_checked_after_every_batch(kind, p):
    # 1,000 sequences, a look after each of 200 batches of 100 games (20,000 games)
    rng = np.random.default_rng(20260105)
    batches = np.full(200, 100)
    sums = _batch_sums(rng, kind, p, batches, 1000)
    rate = _ever_excluded(lambda n, s: share_interval(n, s, ALPHA), p, batches, sums)
    assert rate <= ALPHA + _tolerance(ALPHA, 1000), rate
    # the control: the same looks with a fixed-n 95 % Wilson interval lose coverage several times over
    wilson_rate = _ever_excluded(lambda n, s: wilson_interval(n, s, ALPHA), p, batches, sums)
    assert wilson_rate >= 3 * ALPHA, wilson_rate


@pytest.mark.slow
@pytest.mark.parametrize("p", [0.5, 0.05])
def test_confidence_sequence_keeps_coverage_to_a_million_games(p):
    # batches that grow by 5 % from 100 games, to about a million games (about 190 looks)
    rng = np.random.default_rng(7)
    sizes, total = [], 0
    while total < 10**6:
        sizes.append(max(100, int(0.05 * total)))
        total += sizes[-1]
    batches = np.array(sizes)
    sums = _batch_sums(rng, "bernoulli", p, batches, 1000)
    rate = _ever_excluded(lambda n, s: share_interval(n, s, ALPHA), p, batches, sums)
    assert rate <= ALPHA + _tolerance(ALPHA, 1000), rate
    wilson_rate = _ever_excluded(lambda n, s: wilson_interval(n, s, ALPHA), p, batches, sums)
    assert wilson_rate >= 3 * ALPHA, wilson_rate


# --- width -------------------------------------------------------------------------------------------------

def test_width_shrinks_like_sqrt_log_n_over_n():
    ns = [10**k for k in range(2, 11)]
    half = [0.5 * (lambda lh: lh[1] - lh[0])(share_interval(n, n / 2)) for n in ns]
    # the mixture's asymptotic half-width: sqrt(p q (log(n / (2 pi p q)) + 2 log(1 / alpha)) / n), that is
    # sqrt(log n / n) up to constants; the exact one meets it within 1 % from n = 10**4 on ...
    predicted = [math.sqrt(0.25 * (math.log(n / (2 * math.pi * 0.25)) + 2 * math.log(1 / ALPHA)) / n) for n in ns]
    ratios = [h / q for h, q in zip(half, predicted)]
    assert all(abs(r - 1) < 0.01 for r in ratios[2:]), ratios
    # ... while half-width * sqrt(n) keeps growing: the price of looking at every n, unlike Wilson's
    root = [h * math.sqrt(n) for h, n in zip(half, ns)]
    assert all(b > a for a, b in zip(root, root[1:])), root
    wilson_root = [0.5 * (lambda lh: lh[1] - lh[0])(wilson_interval(n, n / 2)) * math.sqrt(n) for n in ns]
    assert max(wilson_root) / min(wilson_root) < 1.03     # Wilson: sqrt(1 / n), no log


@pytest.mark.parametrize("n, p, ratio_low, ratio_high", [
    (10**3, 0.5, 1.7, 1.9), (10**6, 0.5, 2.15, 2.35), (10**3, 0.05, 1.8, 2.0), (10**6, 0.05, 2.25, 2.45)])
def test_width_against_wilson_matches_the_documented_table(n, p, ratio_low, ratio_high):
    low, high = share_interval(n, p * n)
    wlow, whigh = wilson_interval(n, p * n)
    assert ratio_low < (high - low) / (whigh - wlow) < ratio_high


def test_exact_interval_for_a_fixed_sum():
    # the interval is the set {p : M_t(p) < 20}; at its ends M_t is 20 (to bisection precision)
    low, high = share_interval(1000, 500.0)
    logb = math.lgamma(501) + math.lgamma(501) - math.lgamma(1002)
    for end in (low, high):
        log_m = logb - 500 * math.log(end) - 500 * math.log1p(-end)
        assert log_m == pytest.approx(math.log(20.0), abs=1e-9)
    assert 0.5 - low == pytest.approx(high - 0.5, abs=1e-12)    # symmetric at one half
    assert share_interval(0, 0.0) == (0.0, 1.0)
    assert share_interval(10, 0.0)[0] == 0.0 and share_interval(10, 10.0)[1] == 1.0


def test_batches_update_exactly_whatever_their_split():
    one = ShareSequence().update(1000, 487)
    split = ShareSequence().update(300, 150).update(0, 0).update(700, 337)
    assert one == split and one.interval() == split.interval()


# --- stopping when narrow --------------------------------------------------------------------------------

@pytest.mark.parametrize("p, target, batch", [(0.5, 0.02, 100), (0.05, 0.01, 100), (0.2, 0.005, 2000)])
def test_stop_when_narrow_stops_at_the_first_batch_past_the_planned_count(p, target, batch):
    needed = games_for_half_width(target, p)
    state = ShareSequence()
    while not stop_when_narrow(state, half_width=target):
        assert state.n < needed           # not narrow yet before the planned count
        state = state.update(batch, p * batch)
    assert needed <= state.n < needed + batch
    assert state.half_width() <= target


def test_stop_when_narrow_relative_target():
    state = ShareSequence().update(10_000, 500)
    hw = state.half_width()
    assert stop_when_narrow(state, relative=hw / state.estimate + 1e-9)
    assert not stop_when_narrow(state, relative=hw / state.estimate - 1e-9)
    assert not stop_when_narrow(ShareSequence().update(10_000, 0), relative=0.5)   # no share, no relative width


# --- SPRT --------------------------------------------------------------------------------------------------

def _simulate_sprt(test: Sprt, p: float, sequences: int, batch: int, seed: int):
    """(decisions, games) for `sequences` independent runs checked after every batch."""
    rng = np.random.default_rng(seed)
    z1, z0 = math.log(test.p1 / test.p0), math.log((1 - test.p1) / (1 - test.p0))
    succ = np.zeros(sequences)
    games = np.zeros(sequences, dtype=np.int64)
    decided = np.full(sequences, CONTINUE, dtype=object)
    active = np.ones(sequences, dtype=bool)
    while active.any():
        idx = np.flatnonzero(active)
        succ[idx] += rng.binomial(batch, p, size=len(idx))
        games[idx] += batch
        llr = succ[idx] * z1 + (games[idx] - succ[idx]) * z0
        rej, acc = llr >= test.upper, llr <= test.lower
        capped = ~rej & ~acc & (games[idx] >= (test.cap or 2**62))
        decided[idx[rej]], decided[idx[acc]], decided[idx[capped]] = REJECT_H0, ACCEPT_H0, UNDECIDED_AT_CAP
        active[idx[rej | acc | capped]] = False
    return decided, games


def test_sprt_simulation_agrees_with_the_state_object():
    test = Sprt(0.5, 0.55, cap=5000)
    rng = np.random.default_rng(3)
    for _ in range(20):
        state = test
        while state.decision() == CONTINUE:
            state = state.update(10, int(rng.binomial(10, 0.52)))
        llr = state.successes * math.log(1.1) + (state.n - state.successes) * math.log(0.9)
        assert state.llr() == pytest.approx(llr, rel=1e-12)
        assert state.decision() in (ACCEPT_H0, REJECT_H0, UNDECIDED_AT_CAP)


@pytest.mark.parametrize("p0, p1", [(0.5, 0.55), (0.05, 0.07)])
def test_sprt_error_rates_and_sample_size(p0, p1):
    test, runs, batch = Sprt(p0, p1, alpha=0.05, beta=0.05), 10_000, 10
    under_h0, games_h0 = _simulate_sprt(test, p0, runs, batch, seed=11)
    under_h1, games_h1 = _simulate_sprt(test, p1, runs, batch, seed=12)
    false_reject = float(np.mean(under_h0 == REJECT_H0))
    false_accept = float(np.mean(under_h1 == ACCEPT_H0))
    # Wald: at most alpha / (1 - beta); in practice below alpha (the batches overshoot the boundaries)
    assert false_reject <= test.alpha + _tolerance(test.alpha, runs), false_reject
    assert false_accept <= test.beta + _tolerance(test.beta, runs), false_accept
    assert false_reject >= test.alpha / 3 and false_accept >= test.beta / 3     # a real test, not a vacuous one
    # a fixed-n one-sided z test with the same alpha and power needs n_fixed games
    z = NormalDist().inv_cdf(1 - 0.05)
    n_fixed = ((z * math.sqrt(p0 * (1 - p0)) + z * math.sqrt(p1 * (1 - p1))) / (p1 - p0)) ** 2
    assert games_h0.mean() < 0.6 * n_fixed and games_h1.mean() < 0.6 * n_fixed
    # Wald's approximation (no overshoot) is close to the simulated mean: within a batch and 10 %
    for games, p in ((games_h0, p0), (games_h1, p1)):
        assert abs(games.mean() - test.expected_games(p)) < batch + 0.1 * test.expected_games(p)


def test_sprt_cap_ends_undecided():
    state = Sprt(0.5, 0.51, cap=100).update(100, 50)
    assert state.decision() == UNDECIDED_AT_CAP
    assert Sprt(0.5, 0.51).update(100, 50).decision() == CONTINUE
    assert Sprt(0.5, 0.6).update(1000, 600).decision() == REJECT_H0
    assert Sprt(0.5, 0.6).update(1000, 500).decision() == ACCEPT_H0
    assert Sprt(0.0, 0.1).update(1, 1).decision() == REJECT_H0          # p0 = 0 ruled out by one success


# --- validation ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("make, field", [
    (lambda: ShareSequence(alpha=0), "alpha"),
    (lambda: ShareSequence(alpha=1.5), "alpha"),
    (lambda: ShareSequence(alpha="0.05"), "alpha"),
    (lambda: ShareSequence().update(-1, 0), "n"),
    (lambda: ShareSequence().update(2.5, 1), "n"),
    (lambda: ShareSequence().update(True, 1), "n"),
    (lambda: ShareSequence().update(10, 11), "total"),
    (lambda: ShareSequence().update(10, float("nan")), "total"),
    (lambda: ShareSequence(prior=(0, 1)), "prior"),
    (lambda: stop_when_narrow(ShareSequence()), "half_width"),
    (lambda: stop_when_narrow(ShareSequence(), half_width=0.1, relative=0.1), "half_width"),
    (lambda: stop_when_narrow(ShareSequence(), half_width=0), "half_width"),
    (lambda: stop_when_narrow("state", half_width=0.1), "state"),
    (lambda: Sprt(0.6, 0.5), "p0"),
    (lambda: Sprt(0.5, 1.2), "p1"),
    (lambda: Sprt(0.5, 0.6, beta=0), "beta"),
    (lambda: Sprt(0.5, 0.6, cap=0), "cap"),
    (lambda: Sprt(0.5, 0.6).update(10, 11), "successes"),
    (lambda: Sprt(0.5, 0.6).update(10, 5.0), "successes"),
    (lambda: games_for_half_width(0.01, 2.0), "p"),
])
def test_bad_arguments_give_one_clear_line(make, field):
    with pytest.raises(ValueError) as err:
        make()
    message = str(err.value)
    assert field in message and "\n" not in message


anything = st.one_of(st.integers(-10, 10**13), st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=3),
                     st.none(), st.booleans())


@settings(max_examples=examples(300), deadline=None)
@given(alpha=st.one_of(st.floats(0, 1), anything), n=st.one_of(st.integers(0, 10**9), anything),
       frac=st.floats(0, 1), total=anything, use_frac=st.booleans(),
       prior=st.one_of(st.tuples(st.floats(0.01, 100), st.floats(0.01, 100)), anything))
def test_any_inputs_give_a_valid_interval_or_one_clear_error(alpha, n, frac, total, use_frac, prior):
    if use_frac and isinstance(n, int) and not isinstance(n, bool) and n >= 0:
        total = frac * n
    try:
        state = ShareSequence(alpha=alpha, prior=prior).update(n, total)
    except ValueError as err:
        assert "\n" not in str(err) and "must be" in str(err)
        return
    low, high = state.interval()
    assert 0.0 <= low <= state.estimate <= high <= 1.0
    if state.n > 0:
        assert low < high
