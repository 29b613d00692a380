"""Anytime-valid stopping statistics for sweeps that stop when the answer is clear.

Two procedures no library has, both pure functions of their inputs, both updated with batches of
games, because the sweep driver looks at a cell after every batch:

* ``ShareSequence``: a **confidence sequence** for the mean of per-game values in [0, 1] (a share: 1 when
  the first player wins, 0 otherwise; a draw may count 1/2). After any number of looks, at times chosen
  by looking at the data, ``P(the true mean is ever outside (low, high)) <= alpha`` over all looks.

  Construction: the conjugate **beta-binomial mixture** of likelihood ratios for sub-Bernoulli processes
  (Robbins 1970, "Statistical methods related to the law of the iterated logarithm"; Lai 1976, "On
  confidence sequences"; Howard, Ramdas, McAuliffe & Sekhon 2021, "Time-uniform, nonparametric,
  nonasymptotic confidence sequences", Ann. Statist. 49(2), the beta-binomial mixture boundary for
  sub-Bernoulli processes). For a candidate mean ``p`` and ``S`` the sum of ``t`` values,

      M_t(p) = B(a + S, b + t - S) / B(a, b) / (p**S * (1 - p)**(t - S))

  is the Bernoulli likelihood ratio of ``q`` against ``p`` averaged over ``q ~ Beta(a, b)``. For values
  in [0, 1] with mean ``p`` it is a nonnegative supermartingale with ``M_0 = 1`` (``x -> (q/p)**x *
  ((1-q)/(1-p))**(1-x)`` is convex, so a value in [0, 1] with mean ``p`` never beats a Bernoulli(p) one:
  Hoeffding's 1963 lemma), so by Ville's inequality ``P(exists t: M_t(p) >= 1/alpha) <= alpha``. The
  confidence set ``{p : M_t(p) < 1/alpha}`` is an interval (``-log M_t`` is concave in ``p``) found by
  bisection; it depends only on ``(t, S)``, so a batch update is exact whatever the order of games in it.
  Unlike a Hoeffding (sub-Gaussian) boundary it adapts to the variance ``p (1 - p)``, so it stays tight for
  small shares.

* ``Sprt``: Wald's sequential probability ratio test for a Bernoulli share, ``H0: p <= p0`` against
  ``H1: p >= p1`` (``p0 < p1``), error rates ``alpha`` (reject a true H0) and ``beta`` (accept H0 when
  ``p >= p1``), updated with batches ``(n, successes)`` and checked after each batch, with an optional cap
  on the number of games. Wald's inequalities hold at whatever looks the test is checked: the realised
  error rates are at most ``alpha / (1 - beta)`` and ``beta / (1 - alpha)`` (in practice below ``alpha`` and
  ``beta``: a batch overshoots the boundary), for every ``p <= p0`` and ``p >= p1`` (the likelihood ratio
  is monotone in ``p``). A test stopped by the cap ends "undecided", which only lowers the rejection rate.

Every argument is validated: a bad one raises ``ValueError`` with one line naming it and its allowed values.
See docs/sequential.md for the width table (against a fixed-n Wilson interval) and the SPRT numbers.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from infra.stats import fewest_games, wilson, z_for

__all__ = [
    "ACCEPT_H0", "REJECT_H0", "CONTINUE", "UNDECIDED_AT_CAP",
    "ShareSequence", "Sprt", "share_interval", "stop_when_narrow", "games_for_half_width", "wilson_interval",
]

# decisions of the SPRT
ACCEPT_H0 = "accept H0"
REJECT_H0 = "reject H0"
CONTINUE = "continue"
UNDECIDED_AT_CAP = "undecided at cap"

_BISECTION_STEPS = 64            # halves [0, 1] down to 2**-64: below a double's spacing near any root
_lgamma = np.vectorize(math.lgamma, otypes=[float])


# --- validation: one line naming the argument and what it may be -------------------------------------------

def _probability_open(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not (0.0 < float(value) < 1.0):
        raise ValueError(f"{name} must be a number in the open interval (0, 1), got {value!r}")
    return float(value)


def _probability_closed(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not (0.0 <= float(value) <= 1.0):
        raise ValueError(f"{name} must be a number in [0, 1], got {value!r}")
    return float(value)


MAX_GAMES = 10**12   # beyond this the log-gamma differences lose the precision the bisection needs


def _count(name: str, value) -> int:
    if (isinstance(value, bool) or not isinstance(value, numbers.Integral)
            or not (0 <= int(value) <= MAX_GAMES)):
        raise ValueError(f"{name} must be an integer in [0, 10**12], got {value!r}")
    return int(value)


def _positive(name: str, value) -> float:
    if (isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(float(value))
            or float(value) <= 0.0):
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return float(value)


def _total(name: str, value, n: int) -> float:
    """A sum of per-game values in [0, 1] over ``n`` games: a real number in [0, n] (draws may add 1/2)."""
    if (isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(float(value))
            or not (0.0 <= float(value) <= n)):
        raise ValueError(f"{name} must be a number in [0, n] (n = {n}: the games in the batch), got {value!r}")
    return float(value)


# --- the confidence sequence --------------------------------------------------------------------------------

def _outer_end(outside, out, inside):
    """Bisect each bracket between a point ``out`` outside the set and one ``inside`` it; the outer end of the last
    bracket (so the interval is rounded outward)."""
    for _ in range(_BISECTION_STEPS):
        mid = 0.5 * (out + inside)
        o = outside(mid)
        out = np.where(o, mid, out)
        inside = np.where(o, inside, mid)
    return out


def share_interval(n, total, alpha: float = 0.05, prior: tuple[float, float] = (1.0, 1.0)):
    """The confidence-sequence interval ``(low, high)`` after ``n`` games whose values sum to ``total``.

    Vectorised: ``n`` and ``total`` may be numpy arrays of the same shape (one entry per sequence), which is
    what the coverage tests use; the arguments are trusted here (``ShareSequence`` validates them). With
    ``n == 0`` the interval is ``(0, 1)``. The interval is rounded outward: each end is the outer end of
    its bisection bracket, so it never excludes a mean that the exact set contains.
    """
    a, b = float(prior[0]), float(prior[1])
    t = np.asarray(n, dtype=float)
    s = np.asarray(total, dtype=float)
    t, s = np.broadcast_arrays(t, s)
    log_level = math.log(1.0 / alpha)
    log_post = _lgamma(a + s) + _lgamma(b + t - s) - _lgamma(a + b + t) \
        - (math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b))
    est = np.divide(s, t, out=np.full(t.shape, 0.5), where=t > 0)

    def outside(p):
        """True where p is outside the set: M_t(p) >= 1/alpha."""
        with np.errstate(divide="ignore", invalid="ignore"):
            log_lik = (np.where(s > 0, s * np.log(p), 0.0)
                       + np.where(t - s > 0, (t - s) * np.log1p(-p), 0.0))
        return log_post - log_lik >= log_level

    low = _outer_end(outside, np.zeros(t.shape), est.copy())     # M_t is decreasing on (0, est]
    high = _outer_end(outside, np.ones(t.shape), est.copy())     # and increasing on [est, 1)
    empty = t == 0
    low = np.where(empty, 0.0, low)
    high = np.where(empty, 1.0, high)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high


@dataclass(frozen=True)
class ShareSequence:
    """The running state of one cell's confidence sequence: games seen, sum of their values, the level.

    Immutable: ``update`` returns a new state, so a driver can keep the history of looks if it wants.
    ``prior`` is the Beta(a, b) mixing distribution; (1, 1), uniform, suits any share.
    """

    alpha: float = 0.05
    n: int = 0
    total: float = 0.0
    prior: tuple[float, float] = (1.0, 1.0)

    def __post_init__(self):
        object.__setattr__(self, "alpha", _probability_open("alpha", self.alpha))
        n = _count("n", self.n)
        object.__setattr__(self, "n", n)
        object.__setattr__(self, "total", _total("total", self.total, n))
        if not isinstance(self.prior, (tuple, list)) or len(self.prior) != 2:
            raise ValueError(f"prior must be a pair (a, b) of finite numbers > 0, got {self.prior!r}")
        object.__setattr__(self, "prior", (_positive("prior[0] (a)", self.prior[0]),
                                           _positive("prior[1] (b)", self.prior[1])))

    def update(self, n, total) -> "ShareSequence":
        """The state after one more batch of ``n`` games whose values sum to ``total`` (0 <= total <= n)."""
        n = _count("n", n)
        total = _total("total", total, n)
        return ShareSequence(alpha=self.alpha, n=self.n + n, total=self.total + total, prior=self.prior)

    @property
    def estimate(self) -> float:
        """The share so far (total / n); 0.5 before any game."""
        return self.total / self.n if self.n else 0.5

    def interval(self) -> tuple[float, float]:
        """``(low, high)``: P(the true mean is ever outside, over all looks) <= alpha."""
        return share_interval(self.n, self.total, self.alpha, self.prior)

    def half_width(self) -> float:
        low, high = self.interval()
        return 0.5 * (high - low)


def stop_when_narrow(state: ShareSequence, half_width: float | None = None,
                     relative: float | None = None) -> bool:
    """Whether the cell may stop: its interval's half-width is at most ``half_width`` (absolute), or at most
    ``relative`` times the estimate. Exactly one of the two targets must be given. Stopping when this says
    so keeps the confidence-sequence guarantee (that is what it is for)."""
    if not isinstance(state, ShareSequence):
        raise ValueError(f"state must be a ShareSequence, got {type(state).__name__}")
    if (half_width is None) == (relative is None):
        raise ValueError("give exactly one of half_width (absolute, in (0, 1)) or relative (in (0, 1))")
    hw = state.half_width()
    if half_width is not None:
        return hw <= _probability_open("half_width", half_width)
    return hw <= _probability_open("relative", relative) * state.estimate and state.n > 0


def games_for_half_width(half_width: float, p: float, alpha: float = 0.05,
                         prior: tuple[float, float] = (1.0, 1.0)) -> int:
    """Planning: the fewest games after which a cell whose share is exactly ``p`` has an interval at most
    ``half_width`` wide on each side (with one look per game; batched looks stop at the first look past it).
    A guide for ``max_games_per_cell``, not a promise: the observed share varies."""
    half_width = _probability_open("half_width", half_width)
    p = _probability_closed("p", p)
    alpha = _probability_open("alpha", alpha)

    def narrow(n: int) -> bool:
        low, high = share_interval(n, p * n, alpha, prior)
        return 0.5 * (high - low) <= half_width

    try:
        return fewest_games(narrow, limit=2**62)
    except ValueError:
        raise ValueError(f"half_width is too small to reach, got {half_width!r}") from None


def wilson_interval(n, total, alpha: float = 0.05):
    """The fixed-n Wilson score interval (two-sided, level 1 - alpha; ``infra.stats.wilson``): valid at ONE look
    planned in advance, not under repeated looks. Here for comparison (docs/sequential.md) and as the tests'
    control. Vectorised like ``share_interval``."""
    return wilson(total, n, z_for(alpha))


def share(k: int, n: int) -> dict:
    """k of n as a share with its Wilson 95% interval (None where there is nothing to count): the shape the
    measures' answers give every share in (kingmaking, tension)."""
    if n <= 0:
        return {"count": int(k), "of": int(n), "share": None, "ci95": [None, None]}
    low, high = wilson(k, n)
    return {"count": int(k), "of": int(n), "share": k / n, "ci95": [low, high]}


# --- Wald's SPRT --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Sprt:
    """Wald's SPRT for a Bernoulli share: H0 ``p <= p0`` against H1 ``p >= p1``.

    ``alpha``: the rate of rejecting H0 when it holds; ``beta``: the rate of accepting H0 when ``p >= p1``.
    ``cap``: the most games (``None``: no cap). Immutable: ``update`` returns the new state.
    """

    p0: float
    p1: float
    alpha: float = 0.05
    beta: float = 0.05
    cap: int | None = None
    n: int = 0
    successes: int = 0

    def __post_init__(self):
        p0 = _probability_closed("p0", self.p0)
        p1 = _probability_closed("p1", self.p1)
        if not p0 < p1:
            raise ValueError(f"p0 must be below p1 (both in [0, 1]), got p0={self.p0!r}, p1={self.p1!r}")
        object.__setattr__(self, "p0", p0)
        object.__setattr__(self, "p1", p1)
        object.__setattr__(self, "alpha", _probability_open("alpha", self.alpha))
        object.__setattr__(self, "beta", _probability_open("beta", self.beta))
        if self.cap is not None:
            cap = _count("cap", self.cap)
            if cap == 0:
                raise ValueError(f"cap must be an integer >= 1 or None, got {self.cap!r}")
            object.__setattr__(self, "cap", cap)
        n = _count("n", self.n)
        s = _count("successes", self.successes)
        if s > n:
            raise ValueError(f"successes must be an integer in [0, n] (n = {n}), got {self.successes!r}")
        object.__setattr__(self, "n", n)
        object.__setattr__(self, "successes", s)

    @property
    def upper(self) -> float:
        """log((1 - beta) / alpha): at or above it, reject H0."""
        return math.log((1.0 - self.beta) / self.alpha)

    @property
    def lower(self) -> float:
        """log(beta / (1 - alpha)): at or below it, accept H0."""
        return math.log(self.beta / (1.0 - self.alpha))

    def llr(self) -> float:
        """The log likelihood ratio of p1 against p0 for the games so far (+-inf where p0 or p1 is 0 or 1
        and an outcome rules one out)."""
        s, f = self.successes, self.n - self.successes
        return _xlog_ratio(s, self.p1, self.p0) + _xlog_ratio(f, 1.0 - self.p1, 1.0 - self.p0)

    def update(self, n, successes) -> "Sprt":
        """The state after a batch of ``n`` games with ``successes`` of them counted for the share."""
        n = _count("n", n)
        s = _count("successes", successes)
        if s > n:
            raise ValueError(f"successes must be an integer in [0, n] (n = {n}), got {successes!r}")
        return Sprt(self.p0, self.p1, self.alpha, self.beta, self.cap, self.n + n, self.successes + s)

    def decision(self) -> str:
        """ACCEPT_H0, REJECT_H0, CONTINUE, or UNDECIDED_AT_CAP once the cap is reached without a decision."""
        llr = self.llr()
        if llr >= self.upper:
            return REJECT_H0
        if llr <= self.lower:
            return ACCEPT_H0
        if self.cap is not None and self.n >= self.cap:
            return UNDECIDED_AT_CAP
        return CONTINUE

    def expected_games(self, p: float) -> float:
        """Wald's approximation to the expected number of games when the true share is ``p`` (boundary
        overshoot ignored; a cap only lowers it). For planning and the docs."""
        p = _probability_closed("p", p)
        if not (0.0 < self.p0 and self.p1 < 1.0):
            raise ValueError("expected_games needs 0 < p0 and p1 < 1")
        z1, z0 = math.log(self.p1 / self.p0), math.log((1 - self.p1) / (1 - self.p0))
        drift = p * z1 + (1 - p) * z0
        a, b = self.upper, self.lower
        if abs(drift) < 1e-12:
            return -a * b / (z1 * z1 * p + z0 * z0 * (1 - p) - drift * drift)
        # the operating characteristic via Wald's h: p (p1/p0)**h + (1-p) ((1-p1)/(1-p0))**h = 1
        h = _wald_h(p, z1, z0)
        reject = (1 - math.exp(h * b)) / (math.exp(h * a) - math.exp(h * b))
        return (reject * a + (1 - reject) * b) / drift


def _xlog_ratio(k: int, num: float, den: float) -> float:
    """k * log(num / den) with 0 * anything = 0."""
    if k == 0:
        return 0.0
    if num == 0.0:
        return -math.inf
    if den == 0.0:
        return math.inf
    return k * (math.log(num) - math.log(den))


def _wald_h(p: float, z1: float, z0: float) -> float:
    """The nonzero root h of p e^{h z1} + (1 - p) e^{h z0} = 1 (its sign is minus the drift's)."""
    f = lambda h: p * math.exp(h * z1) + (1 - p) * math.exp(h * z0) - 1.0
    drift = p * z1 + (1 - p) * z0
    sign = -1.0 if drift > 0 else 1.0
    lo, hi = 1e-9 * sign, sign
    while f(hi) < 0:
        hi *= 2
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if f(mid) < 0:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)
