"""The project's statistics, in one module on SciPy and statsmodels: tests on rates, categories and
distributions, Wilson intervals, differences B - A with 95% intervals (unpaired, and paired on common random
numbers) and the equivalence verdict.

Every test takes the baseline's and the current run's counts and returns a two-sided p-value and an
effect size in the metric's own units, so a threshold in the suite file ("2 percentage points",
"half a round") can be set by a designer. Multiple-comparison control is Benjamini-Hochberg (false
discovery rate) or Holm (family-wise error), across every metric of a run.

There is one Wilson interval (:func:`wilson`) and one 95% z (:data:`Z95`); the anytime-valid confidence
sequences of ``infra.sequential`` are the one thing here no library has.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import numpy as np

# the standard normal's 97.5% quantile (two-sided 95%): scipy.stats.norm.ppf(0.975), written out so that importing
# this module does not import scipy.stats (0.85 s, a third of every ``playtest`` command's start);
# tests/test_stats_lazy.py checks it is scipy's value to the last bit
Z95 = 1.959963984540054


class _LazyScipyStats:
    """``scipy.stats``, imported on first use."""

    def __getattr__(self, name):
        from scipy import stats
        return getattr(stats, name)


sps = _LazyScipyStats()


def z_for(alpha: float) -> float:
    """The two-sided standard normal quantile for level 1 - alpha (Z95 at alpha = 0.05)."""
    return Z95 if alpha == 0.05 else float(sps.norm.isf(alpha / 2.0))


def _alpha(z: float) -> float:
    """The two-sided level a z stands for (statsmodels' intervals take alpha, the project's callers a z)."""
    return 0.05 if z == Z95 else float(2.0 * sps.norm.sf(z))


def normal_two_sided(z: float) -> float:
    """Two-sided p-value of a standard normal statistic."""
    return float(2.0 * sps.norm.sf(abs(z)))


def two_proportion_z(k1: int, n1: int, k2: int, n2: int) -> tuple[float, float, float]:
    """Pooled two-proportion z-test of k1/n1 against k2/n2: (z, p, difference p2 - p1)."""
    from statsmodels.stats.proportion import proportions_ztest
    if n1 <= 0 or n2 <= 0:
        return 0.0, 1.0, 0.0
    diff = k2 / n2 - k1 / n1
    if k1 + k2 in (0, n1 + n2):  # both rates 0 or both 1: no evidence of a difference
        return 0.0, 1.0, diff
    z, p = proportions_ztest([k2, k1], [n2, n1])
    return float(z), float(p), diff


def wilson(k, n, z: float = Z95):
    """Wilson score interval of a proportion k/n (95% at the default z): (low, high), clipped to [0, 1];
    n = 0 gives (0, 1). Vectorised: k and n may be numpy arrays (k may be fractional: draws count 1/2)."""
    from statsmodels.stats.proportion import proportion_confint
    alpha = _alpha(z)
    if np.ndim(k) == 0 and np.ndim(n) == 0:
        if n <= 0:
            return 0.0, 1.0
        low, high = proportion_confint(k, n, alpha=alpha, method="wilson")
        # the score interval reaches 0 at k = 0 and 1 at k = n exactly; statsmodels' rounding can stop an ulp short,
        # and an interval that leaves out the share it was measured at is wrong, not just imprecise
        return (0.0 if k <= 0 else float(low)), (1.0 if k >= n else float(high))
    k, n = np.broadcast_arrays(np.asarray(k, dtype=float), np.asarray(n, dtype=float))
    some = n > 0
    low, high = proportion_confint(np.where(some, k, 0.0), np.where(some, n, 1.0), alpha=alpha, method="wilson")
    low, high = np.where(k <= 0, 0.0, low), np.where(k >= n, 1.0, high)
    return np.where(some, low, 0.0), np.where(some, high, 1.0)


def fewest_games(enough: Callable[[int], bool], limit: int = 2**62) -> int:
    """The smallest n >= 1 for which ``enough(n)`` holds, for a condition that stays true once it holds
    (doubling, then bisection); ValueError past ``limit``."""
    hi = 1
    while not enough(hi):
        hi *= 2
        if hi > limit:
            raise ValueError(f"no number of games up to {limit} is enough")
    lo = hi // 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if enough(mid) else (mid, hi)
    return hi


def wilson_games(p: float, half_width: float, z: float = Z95) -> int:
    """The fewest games whose Wilson interval (95% at the default z) at share ``p`` is at most ``half_width``
    on each side: the fixed-n size of the same precision as a stopping sweep."""
    def narrow(n: int) -> bool:
        low, high = wilson(p * n, n, z)
        return (high - low) / 2 <= half_width

    return fewest_games(narrow)


def chi2_sf(x: float, df: int) -> float:
    """Survival function of the chi-square distribution with ``df`` degrees of freedom (1 for df <= 0)."""
    if df <= 0:
        return 1.0
    return float(sps.chi2.sf(x, df))


def chi2_homogeneity(base: Mapping[str, int], cur: Mapping[str, int]) -> tuple[float, float, float]:
    """Chi-square test that two category counts share one distribution: (statistic, p, total variation)."""
    keys = sorted(k for k in set(base) | set(cur) if base.get(k, 0) + cur.get(k, 0) > 0)
    table = np.array([[base.get(k, 0) for k in keys], [cur.get(k, 0) for k in keys]], dtype=float)
    n1, n2 = table.sum(axis=1)
    if n1 == 0 or n2 == 0 or len(keys) < 2:
        return 0.0, 1.0, 0.0 if n1 == 0 or n2 == 0 else _tv(table)
    stat, p, _, _ = sps.chi2_contingency(table, correction=False)
    return float(stat), float(p), _tv(table)


def _tv(table: np.ndarray) -> float:
    shares = table / table.sum(axis=1, keepdims=True)
    return float(0.5 * np.abs(shares[1] - shares[0]).sum())


def mann_whitney(base: Mapping[int, int], cur: Mapping[int, int]) -> tuple[float, float, float]:
    """Mann-Whitney U test on two histograms {value: count}, ties and continuity corrected (SciPy's
    asymptotic test). Returns (z, p, difference of means current - baseline); z is positive when the
    current values run larger."""
    values = sorted(set(base) | set(cur))
    a = np.array([base.get(v, 0) for v in values], dtype=np.int64)
    b = np.array([cur.get(v, 0) for v in values], dtype=np.int64)
    n1, n2 = int(a.sum()), int(b.sum())
    if n1 == 0 or n2 == 0:
        return 0.0, 1.0, 0.0
    v = np.array(values, dtype=float)
    shift = float((v * b).sum() / n2 - (v * a).sum() / n1)
    if np.count_nonzero(a + b) < 2:  # every game has the same length
        return 0.0, 1.0, shift
    res = sps.mannwhitneyu(np.repeat(v, b), np.repeat(v, a), use_continuity=True, alternative="two-sided",
                           method="asymptotic")
    p = float(min(1.0, res.pvalue))
    z = 0.0 if p >= 1.0 else float(sps.norm.isf(p / 2.0))
    return math.copysign(z, float(res.statistic) - n1 * n2 / 2.0), p, shift


def adjust(pvalues: Sequence[float], method: str = "bh") -> list[float]:
    """Multiple-comparison adjusted p-values: "bh" (Benjamini-Hochberg, statsmodels' multipletests) or "holm"
    (Holm's step-down, the same numbers as multipletests' "holm")."""
    from statsmodels.stats.multitest import multipletests
    if method not in ("bh", "holm"):
        raise ValueError(f"unknown adjustment {method!r}; expected bh or holm")
    if len(pvalues) == 0:
        return []
    p = np.asarray(pvalues, dtype=float)
    if method == "bh":
        return [float(q) for q in multipletests(p, method="fdr_bh")[1]]
    # Holm by hand: multipletests' "holm" runs gc.collect() on every call (30 ms in a test or service process,
    # thousands of calls in a measure's simulated cases); tests/regress/test_stats.py holds the two equal
    order = np.argsort(p, kind="stable")
    stepped = np.minimum(1.0, np.maximum.accumulate(p[order] * np.arange(len(p), 0, -1)))
    adjusted = np.empty_like(stepped)
    adjusted[order] = stepped
    return [float(q) for q in adjusted]


# ---------------------------------------------------------------------------------------------------
# Differences B - A with 95% intervals (playtest compare): unpaired, and paired on common random numbers
# ---------------------------------------------------------------------------------------------------

def newcombe(k1: int, n1: int, k2: int, n2: int, z: float = Z95) -> tuple[float, float, float]:
    """Difference of two independent proportions k2/n2 - k1/n1 with Newcombe's hybrid score interval
    (Newcombe 1998, "Interval estimation for the difference between independent proportions", method 10;
    statsmodels' ``confint_proportions_2indep``), built from each side's Wilson interval: (difference, low, high)."""
    from statsmodels.stats.proportion import confint_proportions_2indep
    if n1 <= 0 or n2 <= 0:
        return 0.0, -1.0, 1.0
    alpha = _alpha(z)
    low, high = confint_proportions_2indep(k2, n2, k1, n1, method="newcomb", compare="diff", alpha=alpha)
    return k2 / n2 - k1 / n1, float(low), float(high)


def mean_difference(mean1: float, var1: float, n1: int, mean2: float, var2: float, n2: int,
                    z: float = Z95) -> tuple[float, float, float, float]:
    """Difference of two independent means mean2 - mean1 (sample variances var1, var2) with the large-sample
    (Welch) normal interval and z-test: (difference, low, high, two-sided p)."""
    d = mean2 - mean1
    if n1 <= 1 or n2 <= 1:
        return d, -math.inf, math.inf, 1.0
    se = math.sqrt(var1 / n1 + var2 / n2)
    if se <= 0.0:
        return d, d, d, 1.0 if d == 0 else 0.0
    return d, d - z * se, d + z * se, normal_two_sided(d / se)


def paired_difference(diffs: np.ndarray, z: float = Z95) -> tuple[float, float, float, float]:
    """Mean of per-game differences B - A on matched games (common random numbers), with its normal
    interval and z-test (statsmodels' DescrStatsW: the paired t-interval at large n; for 0/1 metrics the interval
    for the difference of paired proportions): (difference, low, high, two-sided p)."""
    from statsmodels.stats.weightstats import DescrStatsW
    d = np.asarray(diffs, dtype=float)
    n = len(d)
    if n <= 1:
        return (float(d.mean()) if n else 0.0), -math.inf, math.inf, 1.0
    described = DescrStatsW(d)
    mean = float(described.mean)
    if float(described.std_mean) <= 0.0:     # every matched game moved by the same amount (usually: not at all)
        return mean, mean, mean, 1.0 if mean == 0 else 0.0
    low, high = described.zconfint_mean(alpha=_alpha(z))
    return mean, float(low), float(high), float(described.ztest_mean()[1])


def hist_median(values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Medians (the lower one, as in the regress report) of histograms: counts is (replicates, values)."""
    cum = np.cumsum(counts, axis=-1)
    return values[np.argmax(2 * cum >= cum[..., -1:], axis=-1)]


def _bootstrap_summary(d: float, boot: np.ndarray) -> tuple[float, float, float, float]:
    """(difference, percentile interval, p) from bootstrap replicates; p is the normal test d / sd(boot), so a
    median that did not move (d = 0) is never called a difference."""
    sd = float(boot.std(ddof=1))
    p = 1.0 if d == 0 else normal_two_sided(d / sd) if sd > 0 else 0.0
    return d, float(np.quantile(boot, 0.025)), float(np.quantile(boot, 0.975)), p


def median_difference(hist1: Mapping[float, int], hist2: Mapping[float, int], replicates: int = 2000,
                      seed: int = 0) -> tuple[float, float, float, float]:
    """Difference of the medians of two independent histograms {value: count} with a percentile bootstrap
    interval (Efron & Tibshirani 1993, ch. 13; each side resampled from its own histogram) and the
    bootstrap's normal test: (difference, low, high, p). Deterministic for a given seed."""
    rng = np.random.default_rng(seed)
    meds = []
    for h in (hist1, hist2):
        v = np.array(sorted(h), dtype=float)
        c = np.array([h[k] for k in sorted(h)], dtype=float)
        n = int(c.sum())
        if n == 0:
            return 0.0, -math.inf, math.inf, 1.0
        meds.append((hist_median(v, c[None, :])[0], hist_median(v, rng.multinomial(n, c / n, size=replicates))))
    return _bootstrap_summary(float(meds[1][0] - meds[0][0]), meds[1][1] - meds[0][1])


def paired_median_difference(pairs: Mapping[tuple[float, float], int], replicates: int = 2000,
                             seed: int = 0) -> tuple[float, float, float, float]:
    """Difference of medians B - A on matched games, {(a, b): count}, with a percentile bootstrap interval
    that resamples whole pairs (so the interval keeps the games' correlation) and the bootstrap's normal
    test: (difference, low, high, p)."""
    keys = list(pairs)
    c = np.array([pairs[k] for k in keys], dtype=float)
    n = int(c.sum())
    if n == 0:
        return 0.0, -math.inf, math.inf, 1.0
    rng = np.random.default_rng(seed)
    draws = np.vstack([c[None, :], rng.multinomial(n, c / n, size=replicates)])
    meds = []
    for side in (0, 1):
        values = np.array(sorted({k[side] for k in keys}), dtype=float)
        onto = np.zeros((len(keys), len(values)))
        onto[np.arange(len(keys)), np.searchsorted(values, [k[side] for k in keys])] = 1.0
        meds.append(hist_median(values, draws @ onto))
    diff = meds[1] - meds[0]
    return _bootstrap_summary(float(diff[0]), diff[1:])


# ---------------------------------------------------------------------------------------------------
# Same or different: equivalence by two one-sided tests (Lakens 2017), never from overlapping intervals
# ---------------------------------------------------------------------------------------------------

MARGIN = 0.02                # default equivalence margin: 2 points of win share
VERDICTS = ("same", "negligible", "differs", "not enough games")


@dataclass(frozen=True)
class Equivalence:
    """A difference judged against a margin: ``verdict`` one of :data:`VERDICTS`.

    - **same**: the 90% interval lies inside +-margin (both one-sided tests at 5% reject a difference of
      margin or more) and the 95% interval holds zero;
    - **negligible**: the 95% interval leaves out zero but the 90% lies inside +-margin: it differs, by less
      than the margin;
    - **differs**: the 95% interval leaves out zero and the 90% does not lie inside +-margin;
    - **not enough games**: neither; ``games_needed`` is the games (at the same spread) with which a true
      difference of zero would be called the same 80% of the time.
    """

    verdict: str
    diff: float
    low: float                   # 95% interval
    high: float
    margin: float
    games: int
    games_needed: int | None     # with "not enough games"

    def words(self, scale: float = 100.0, unit: str = " points") -> str:
        """The verdict in words: "the same within +-2 points (+0.3 [-0.8, +1.4])"."""
        m, d, lo, hi = self.margin * scale, self.diff * scale, self.low * scale, self.high * scale
        shown = f"{d:+.1f} [{lo:+.1f}, {hi:+.1f}]"
        if self.verdict == "same":
            return f"the same within +-{m:g}{unit} ({shown})"
        if self.verdict == "negligible":
            return f"differs by {shown}{unit}, less than the +-{m:g}{unit} margin: negligible"
        if self.verdict == "differs":
            return f"differs by {shown}{unit}"
        need = f"; about {self.games_needed:,} games would settle it" if self.games_needed else ""
        return f"not enough games to say ({shown}{unit}, margin +-{m:g}{unit}){need}"


def equivalence(diff: float, se: float, games: int, margin: float = MARGIN, alpha: float = 0.05) -> Equivalence:
    """Judge a difference ``diff`` with standard error ``se`` (from ``games`` games or pairs) against ``margin``:
    two one-sided tests at ``alpha`` for "the same" (the 1 - 2 alpha interval inside +-margin) and the
    two-sided 1 - alpha interval for "differs"."""
    if not (margin > 0 and math.isfinite(margin)):
        raise ValueError(f"margin {margin!r}: expected a positive number")
    z2, z1 = z_for(alpha), float(sps.norm.isf(alpha))
    if not math.isfinite(se):
        return Equivalence("not enough games", diff, -math.inf, math.inf, margin, games, None)
    low, high = diff - z2 * se, diff + z2 * se
    inside = -margin < diff - z1 * se and diff + z1 * se < margin
    apart = low > 0 or high < 0
    if inside:
        verdict = "negligible" if apart else "same"
    elif apart:
        verdict = "differs"
    else:
        verdict = "not enough games"
    needed = None
    if verdict == "not enough games" and se > 0 and games > 0:
        sd = se * math.sqrt(games)          # per game: the spread stays, the standard error shrinks with games
        needed = int(math.ceil(((z1 + float(sps.norm.ppf(0.9))) * sd / margin) ** 2))
    return Equivalence(verdict, diff, low, high, margin, games, needed)
