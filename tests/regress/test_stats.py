"""The statistical tests on hand-worked cases (values checked by hand and against published tables)."""

import math

import numpy as np
import pytest

from infra import stats


def test_two_proportion_z_hand_worked():
    # 50/100 vs 70/100: pooled 0.6, sd = sqrt(0.6 * 0.4 * (1/100 + 1/100)) = 0.069282, z = 0.2 / sd
    z, p, diff = stats.two_proportion_z(50, 100, 70, 100)
    assert z == pytest.approx(2.886751, abs=1e-6)
    assert p == pytest.approx(0.0038924, abs=1e-7)
    assert diff == pytest.approx(0.2)


def test_two_proportion_z_degenerate_rates_are_no_evidence():
    assert stats.two_proportion_z(0, 500, 0, 700)[1] == 1.0
    assert stats.two_proportion_z(500, 500, 700, 700)[1] == 1.0
    assert stats.two_proportion_z(0, 0, 3, 10)[1] == 1.0


@pytest.mark.parametrize("x, df, sf", [(3.841458820694124, 1, 0.05), (5.991464547107979, 2, 0.05),
                                       (1.0, 5, 0.9625657732), (30.0, 3, 1.3800570313e-06),
                                       (0.0, 4, 1.0)])
def test_chi2_survival_matches_tables(x, df, sf):
    assert stats.chi2_sf(x, df) == pytest.approx(sf, rel=1e-8)


def test_chi2_homogeneity_on_two_categories_is_the_z_test_squared():
    stat, p, tv = stats.chi2_homogeneity({"vp": 30, "stalled": 70}, {"vp": 50, "stalled": 50})
    assert stat == pytest.approx(2.886751 ** 2, rel=1e-6)
    assert p == pytest.approx(stats.two_proportion_z(30, 100, 50, 100)[1], rel=1e-9)
    assert tv == pytest.approx(0.2)


def test_chi2_homogeneity_ignores_categories_neither_side_has():
    a = stats.chi2_homogeneity({"vp": 30, "stalled": 70, "round_limit": 0}, {"vp": 50, "stalled": 50})
    b = stats.chi2_homogeneity({"vp": 30, "stalled": 70}, {"vp": 50, "stalled": 50})
    assert a == b


def test_mann_whitney_without_ties():
    # baseline 1,2,3 all below current 4,5,6: U = 0, mean 4.5, var = 3*3*7/12 = 5.25, continuity 0.5
    z, p, shift = stats.mann_whitney({1: 1, 2: 1, 3: 1}, {4: 1, 5: 1, 6: 1})
    assert z == pytest.approx(4.0 / math.sqrt(5.25))
    assert p == pytest.approx(0.0808556, abs=1e-6)
    assert shift == 3.0


def test_mann_whitney_with_ties():
    # baseline 1,1,2 / current 2,3,3: midranks 1.5, 3.5, 5.5; U = 6.5 - 6 = 0.5;
    # var = 9/12 * (7 - (6+6+6)/30) = 4.8; z = (4.0 - 0.5) / sqrt(4.8)
    z, p, shift = stats.mann_whitney({1: 2, 2: 1}, {2: 1, 3: 2})
    assert z == pytest.approx(3.5 / math.sqrt(4.8))
    assert shift == pytest.approx(4 / 3)
    z2, _, _ = stats.mann_whitney({2: 1, 3: 2}, {1: 2, 2: 1})
    assert z2 == pytest.approx(-z)  # shorter current games: negative


def test_mann_whitney_same_histogram_is_no_evidence():
    h = {4: 10, 5: 20, 9: 3}
    assert stats.mann_whitney(h, h)[1] == 1.0
    assert stats.mann_whitney({7: 5}, {7: 9})[1] == 1.0


def test_benjamini_hochberg_and_holm_hand_worked():
    p = [0.01, 0.04, 0.03, 0.005]
    # BH: sorted 0.005, 0.01, 0.03, 0.04 -> 0.02, 0.02, 0.04, 0.04 (monotone from the top)
    assert stats.adjust(p, "bh") == pytest.approx([0.02, 0.04, 0.04, 0.02])
    # Holm: 4*0.005, 3*0.01, 2*0.03, max(1*0.04, 0.06)
    assert stats.adjust(p, "holm") == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert stats.adjust([], "bh") == []
    assert stats.adjust([0.9, 0.8], "bh") == pytest.approx([0.9, 0.9])
    with pytest.raises(ValueError, match="bh or holm"):
        stats.adjust([0.1], "bonferroni")


def test_holm_is_statsmodels_holm_on_any_p_values(monkeypatch):
    """The step-down is written out (statsmodels' costs a garbage collection a call): the same numbers, ties and
    ones included, over random lists of every length up to 30."""
    import gc

    from statsmodels.stats.multitest import multipletests
    monkeypatch.setattr(gc, "collect", lambda *a: 0)      # the reference's own cost, not its numbers
    rng = np.random.default_rng(20261207)
    for size in range(1, 31):
        for _ in range(20):
            p = rng.choice([rng.uniform(0, 1), 0.01, 0.05, 1.0], size=size) if size % 3 == 0 else rng.uniform(0, 1, size)
            assert stats.adjust(list(p), "holm") == pytest.approx(list(multipletests(p, method="holm")[1]), abs=1e-15)


def test_wilson_interval():
    lo, hi = stats.wilson(5, 10)
    assert (lo, hi) == pytest.approx((0.236593, 0.763407), abs=1e-6)
    assert stats.wilson(0, 10)[0] == 0.0


@pytest.mark.parametrize("n", [1, 7, 10, 300, 12_345])
def test_wilson_holds_the_share_it_was_measured_at_even_at_the_ends(n):
    """0 of n and n of n: the interval reaches 0 and 1 exactly (statsmodels alone stopped 300/300 at 1 - 2e-16,
    which left the measured share outside it); every share in between lies inside, scalar and vectorised."""
    assert stats.wilson(0, n)[0] == 0.0 and stats.wilson(n, n)[1] == 1.0
    ks = np.arange(n + 1) if n < 400 else np.array([0, 1, n // 2, n - 1, n])
    low, high = stats.wilson(ks, np.full(len(ks), n))
    assert np.all(low <= ks / n) and np.all(ks / n <= high) and low[0] == 0.0 and high[-1] == 1.0
    for k in ks[:: max(1, len(ks) // 20)]:
        lo, hi = stats.wilson(int(k), n)
        assert lo <= k / n <= hi
