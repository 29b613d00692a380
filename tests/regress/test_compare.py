"""Flagging rules on hand-made counts: significance AND a minimum shift, adjusted across every metric."""

from pathlib import Path

import pytest

from regress.compare import compare
from regress.suite import parse_suite


def suite(level=0.01, method="bh", **min_effect):
    raw = {"seeds": [1], "sweep": {"game": "paws", "games_per_cell": 10},
           "thresholds": {"level": level, "method": method, "min_effect": min_effect}}
    return parse_suite(raw, Path("hand.toml"))


def snap(cells, seeds=(1,), records="0" * 64, code="v1"):
    return {"suite": "hand", "game": "paws", "code_version": code, "core_digest": "core", "spec_digest": "s",
            "seeds": list(seeds), "games_per_cell": 10, "sweep": {"game": "paws", "games_per_cell": 10},
            "cells": [{"id": f"c{i:03d}", "values": values, "config": "cfg", "rules": "r", "data": "d",
                       "games": {str(s): 10 for s in seeds}, "records": {str(s): records for s in seeds},
                       "metrics": metrics} for i, (values, metrics) in enumerate(cells)]}


def rate(k, n):
    return {"stall_rate": {"stalled": [k, n]}}


def test_tiny_but_significant_shift_with_a_huge_sample_does_not_alarm():
    # 25.0% vs 25.6% of 100,000 games: z = 3.1, p = 0.002 < 0.01, but 0.6 points < the 2 point minimum
    base, cur = snap([({}, rate(25000, 100000))]), snap([({}, rate(25600, 100000))])
    r = compare(suite(stall_rate=0.02), base, cur)
    (t,) = r.tests
    assert t.p < 0.01 and not t.flagged and r.verdict == "pass"
    r = compare(suite(stall_rate=0.005), base, cur)
    assert r.tests[0].flagged and r.verdict == "regression" and r.reasons == ["1 metric(s) drifted"]


def test_large_shift_with_a_small_sample_is_noise():
    # 3/20 vs 7/20: 20 points, but p = 0.14
    r = compare(suite(stall_rate=0.02), snap([({}, rate(3, 20))]), snap([({}, rate(7, 20))]))
    assert r.tests[0].effect == pytest.approx(0.2) and r.tests[0].p > 0.1 and not r.tests[0].flagged


def test_adjustment_across_all_metrics_of_the_run():
    # one p = 0.004 among 20 cells: significant alone, not after Benjamini-Hochberg (0.004 * 20 = 0.08)
    cells = [({"players": 2 + i % 3, "round_limit": i}, rate(500, 1000)) for i in range(20)]
    shifted = [(v, rate(564, 1000) if i == 7 else m) for i, (v, m) in enumerate(cells)]
    r = compare(suite(stall_rate=0.02), snap(cells), snap(shifted))
    t = next(t for t in r.tests if t.cell == "c007")
    assert 0.003 < t.p < 0.005 and t.p_adj > 0.05 and not t.flagged
    assert compare(suite(level=0.1, stall_rate=0.02), snap(cells), snap(shifted)).tests[7].flagged is True


def test_distributions_and_changed_records():
    base = snap([({}, {"end_reasons": {"vp": 900, "stalled": 100}, "game_length": {"5": 500, "6": 500}})])
    cur = snap([({}, {"end_reasons": {"vp": 800, "stalled": 200}, "game_length": {"6": 500, "7": 500}})],
               records="1" * 64, code="v2")
    r = compare(suite(), base, cur)
    by = {t.family: t for t in r.tests}
    assert by["end_reasons"].effect == pytest.approx(0.1) and by["end_reasons"].flagged
    assert by["game_length"].effect == pytest.approx(1.0) and by["game_length"].flagged
    assert r.cells[0].status == "changed" and "code v1 -> v2" in r.cells[0].detail
    assert r.reasons == ["1 cell(s) changed behaviour", "2 metric(s) drifted"]


def test_bot_spec_only_one_side_plays_is_listed_not_tested():
    base = snap([({}, {"bot_win_rate": {"random": [10, 100], "heuristic": [50, 100]}})])
    cur = snap([({}, {"bot_win_rate": {"random": [12, 100], "heuristic:aggression=3": [50, 100]}})])
    r = compare(suite(), base, cur)
    assert [t.key for t in r.tests] == ["random"]
    assert r.skipped == ["c000 ((base)) bot_win_rate heuristic: only in the baseline",
                         "c000 ((base)) bot_win_rate heuristic:aggression=3: only in this run"]
    assert r.verdict == "pass"


def test_cause_of_changed_games_is_named_from_the_digests():
    base = snap([({}, rate(1, 10))])
    for change, cause in (({"config": "c2", "data": "d2"}, "card data changed"),
                          ({"config": "c2", "rules": "r2"}, "rules changed"),
                          ({"config": "c2", "rules": "r2", "data": "d2"}, "rules and card data changed"),
                          ({"config": "c2"}, "setup changed")):
        cur = snap([({}, rate(1, 10))], records="2" * 64)
        cur["cells"][0].update(change)
        assert compare(suite(), base, cur).cells[0].detail == f"seed 1: {cause}"


def test_a_retyped_or_added_column_is_named_as_the_cause():
    base, cur = snap([({}, rate(1, 10))]), snap([({}, rate(1, 10))], records="2" * 64)
    base["record_columns"] = {"seed": "int64", "seats": "list<item: int8>", "gone": "string"}
    cur["record_columns"] = {"seed": "int64", "seats": "list<item: int16>", "new": "double"}
    detail = compare(suite(), base, cur).cells[0].detail
    assert detail.startswith("seed 1: the game record's columns changed (seats: list<item: int8> -> "
                             "list<item: int16>; - gone; + new)") and "--update-baseline" in detail
    # same columns, or a baseline written before columns were stored: the cause comes from the digests
    for cols in (dict(cur["record_columns"]), None):
        if cols is None:
            del base["record_columns"]
        else:
            base["record_columns"] = cols
        assert compare(suite(), base, cur).cells[0].detail == "seed 1: same rules, data and setup: the code " \
            "plays these games differently (code v1 -> v1, engine core unchanged)"


def test_report_gives_each_shift_its_95_interval():
    """Newcombe's published example (1998, method 10): 56/70 against 48/80, difference 0.2000 with
    95% interval 0.0524 to 0.3339; a mean shift's Welch interval worked by hand: baseline {1: 2, 3: 2}
    (mean 2, variance 4/3), current {2: 1, 4: 1} (mean 3, variance 2): se = sqrt(4/3/4 + 2/2) = 1.1547."""
    from regress.compare import Test
    from regress.report import shift_text, value_text
    rate = Test("c000", "", "seat_win_rate", "rate", "seat 0", [48, 80], [56, 70], 56 / 70 - 48 / 80, 0.01, 0.02)
    assert shift_text(rate, None) == "+20.0 pp [+5.2, +33.4]"
    assert value_text(rate, rate.current) == "80.0% [69.2, 87.7] (56/70)"
    mean = Test("c000", "", "game_length", "ordinal", "", {"1": 2, "3": 2}, {"2": 1, "4": 1}, 1.0, 0.5, 0.25)
    assert shift_text(mean, None) == "+1.00 [-1.26, +3.26]"
    assert value_text(mean, mean.baseline) == "mean 2.00 [0.87, 3.13], median 1"
