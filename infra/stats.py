"""The statistics of regress and compare, on counts (no SciPy): tests on rates, categories and distributions,
and differences B - A with 95% intervals (unpaired, and paired on common random numbers).

Every test takes the baseline's and the current run's counts and returns a two-sided p-value and an
effect size in the metric's own units, so a threshold in the suite file ("2 percentage points",
"half a round") can be set by a designer. Multiple-comparison control is Benjamini-Hochberg (false
discovery rate) or Holm (family-wise error), across every metric of a run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np


def normal_two_sided(z: float) -> float:
    """Two-sided p-value of a standard normal statistic."""
    return math.erfc(abs(z) / math.sqrt(2.0))


def two_proportion_z(k1: int, n1: int, k2: int, n2: int) -> tuple[float, float, float]:
    """Pooled two-proportion z-test of k1/n1 against k2/n2: (z, p, difference p2 - p1)."""
    if n1 <= 0 or n2 <= 0:
        return 0.0, 1.0, 0.0
    p1, p2 = k1 / n1, k2 / n2
    pooled = (k1 + k2) / (n1 + n2)
    var = pooled * (1.0 - pooled) * (1.0 / n1 + 1.0 / n2)
    if var <= 0.0:  # both rates 0 or both 1: no evidence of a difference
        return 0.0, 1.0, p2 - p1
    z = (p2 - p1) / math.sqrt(var)
    return z, normal_two_sided(z), p2 - p1


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """95% Wilson score interval of a proportion k/n."""
    if n <= 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _gamma_q(a: float, x: float) -> float:
    """Regularized upper incomplete gamma Q(a, x) (series below a+1, continued fraction above)."""
    if x <= 0.0:
        return 1.0
    log_front = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1.0:
        term = total = 1.0 / a
        ap = a
        for _ in range(10000):
            ap += 1.0
            term *= x / ap
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(log_front))
    # Lentz's continued fraction for Q
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 10000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return min(1.0, math.exp(log_front) * h)


def chi2_sf(x: float, df: int) -> float:
    """Survival function of the chi-square distribution with ``df`` degrees of freedom."""
    if df <= 0:
        return 1.0
    return _gamma_q(df / 2.0, x / 2.0)


def chi2_homogeneity(base: Mapping[str, int], cur: Mapping[str, int]) -> tuple[float, float, float]:
    """Chi-square test that two category counts share one distribution: (statistic, p, total variation)."""
    keys = sorted(k for k in set(base) | set(cur) if base.get(k, 0) + cur.get(k, 0) > 0)
    table = np.array([[base.get(k, 0) for k in keys], [cur.get(k, 0) for k in keys]], dtype=float)
    n1, n2 = table.sum(axis=1)
    if n1 == 0 or n2 == 0 or len(keys) < 2:
        return 0.0, 1.0, 0.0 if n1 == 0 or n2 == 0 else _tv(table)
    expected = np.outer(table.sum(axis=1), table.sum(axis=0)) / table.sum()
    stat = float(((table - expected) ** 2 / expected).sum())
    return stat, chi2_sf(stat, len(keys) - 1), _tv(table)


def _tv(table: np.ndarray) -> float:
    shares = table / table.sum(axis=1, keepdims=True)
    return float(0.5 * np.abs(shares[1] - shares[0]).sum())


def mann_whitney(base: Mapping[int, int], cur: Mapping[int, int]) -> tuple[float, float, float]:
    """Mann-Whitney U test on two histograms {value: count}, ties and continuity corrected.

    Returns (z, p, difference of means current - baseline).
    """
    values = sorted(set(base) | set(cur))
    a = np.array([base.get(v, 0) for v in values], dtype=float)
    b = np.array([cur.get(v, 0) for v in values], dtype=float)
    n1, n2 = a.sum(), b.sum()
    if n1 == 0 or n2 == 0:
        return 0.0, 1.0, 0.0
    v = np.array(values, dtype=float)
    shift = float((v * b).sum() / n2 - (v * a).sum() / n1)
    t = a + b
    n = n1 + n2
    midrank = np.cumsum(t) - t + (t + 1) / 2.0
    u1 = float((a * midrank).sum() - n1 * (n1 + 1) / 2.0)
    mean = n1 * n2 / 2.0
    var = n1 * n2 / 12.0 * ((n + 1) - float((t ** 3 - t).sum()) / (n * (n - 1)))
    if var <= 0.0:  # every game has the same length
        return 0.0, 1.0, shift
    diff = u1 - mean
    z = (abs(diff) - 0.5) / math.sqrt(var) if abs(diff) > 0.5 else 0.0
    z = math.copysign(z, -diff)  # positive when the current games run longer
    return z, normal_two_sided(z), shift


def adjust(pvalues: Sequence[float], method: str = "bh") -> list[float]:
    """Multiple-comparison adjusted p-values: "bh" (Benjamini-Hochberg) or "holm"."""
    p = np.asarray(pvalues, dtype=float)
    m = len(p)
    if m == 0:
        return []
    order = np.argsort(p, kind="stable")
    ranked = p[order]
    if method == "bh":
        adj = ranked * m / np.arange(1, m + 1)
        adj = np.minimum.accumulate(adj[::-1])[::-1]
    elif method == "holm":
        adj = np.maximum.accumulate(ranked * (m - np.arange(m)))
    else:
        raise ValueError(f"unknown adjustment {method!r}; expected bh or holm")
    out = np.empty(m)
    out[order] = np.minimum(adj, 1.0)
    return out.tolist()


# ---------------------------------------------------------------------------------------------------
# Differences B - A with 95% intervals (playtest compare): unpaired, and paired on common random numbers
# ---------------------------------------------------------------------------------------------------

Z95 = 1.959963984540054      # the standard normal's 97.5% quantile: two-sided 95%


def newcombe(k1: int, n1: int, k2: int, n2: int, z: float = Z95) -> tuple[float, float, float]:
    """Difference of two independent proportions k2/n2 - k1/n1 with Newcombe's hybrid score interval
    (Newcombe 1998, "Interval estimation for the difference between independent proportions", method 10),
    built from each side's Wilson interval: (difference, low, high)."""
    if n1 <= 0 or n2 <= 0:
        return 0.0, -1.0, 1.0
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson(k1, n1, z)
    l2, u2 = wilson(k2, n2, z)
    d = p2 - p1
    return d, d - math.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2), d + math.sqrt((u2 - p2) ** 2 + (p1 - l1) ** 2)


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
    interval and z-test (the paired t-interval at large n; for 0/1 metrics the interval for the
    difference of paired proportions): (difference, low, high, two-sided p)."""
    d = np.asarray(diffs, dtype=float)
    n = len(d)
    if n <= 1:
        return (float(d.mean()) if n else 0.0), -math.inf, math.inf, 1.0
    mean = float(d.mean())
    se = float(d.std(ddof=1)) / math.sqrt(n)
    if se <= 0.0:                  # every matched game moved by the same amount (usually: not at all)
        return mean, mean, mean, 1.0 if mean == 0 else 0.0
    return mean, mean - z * se, mean + z * se, normal_two_sided(mean / se)


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
    from scipy.stats import norm
    if not (margin > 0 and math.isfinite(margin)):
        raise ValueError(f"margin {margin!r}: expected a positive number")
    z2, z1 = float(norm.ppf(1 - alpha / 2)), float(norm.ppf(1 - alpha))
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
        needed = int(math.ceil(((z1 + float(norm.ppf(0.9))) * sd / margin) ** 2))
    return Equivalence(verdict, diff, low, high, margin, games, needed)
