"""Kingmaking's known answers (measures/kingmaking/cases.py) and the statistics under its headline
(measures/kingmaking/answer.py ``paired_excess``, ``games_excess``, ``headline``):

- every fast case passes for seed 1 (simulated null: claimed at most alpha of the time; a planted 10-point excess
  claimed with power 80%; the calibration game with no decisive choice, and with 15% of its games decided by the
  choice; rigged Paws where Player 4's first choice hands the game to another, and where its choice cannot matter);
- the paired excess, its clustered standard error and the per-game excess worked by hand;
- the headline is a rate only where the interval lies above zero ("no kingmaking shown beyond chance" otherwise);
- a simulated case gives the same answer for the same seed.
"""

from __future__ import annotations

import math

import pytest
from budget import thin
from scipy.stats import t as student

from measures.known import Context, cases
from measures.kingmaking.cases import Calibration, calibration_games, simulated
from measures.kingmaking.answer import games_excess, headline, paired_excess, verdict
from sim.kit.kingmaking import game_row

FAST = [c for c in cases() if c.measure == "kingmaking" and not c.slow]


def test_kingmaking_declares_planted_and_null_cases_simulated_and_on_games():
    mine = [c for c in cases() if c.measure == "kingmaking"]
    assert {c.kind for c in mine} == {"planted", "null"}
    assert {c.kind for c in mine if c.game == "paws"} == {"planted", "null"}
    assert {c.kind for c in mine if c.game is None} == {"planted", "null"}


@pytest.mark.parametrize("c", thin(FAST), ids=[c.name for c in FAST])
def test_each_fast_case_passes(c):
    out = c.run(Context(seed=1))
    assert out.passed, out.measured


def test_the_paired_excess_by_hand():
    """Three games: (n, dealt, chance) = (2, 2, 1), (4, 1, 1), (0, 0, 0). Excess = (1 + 0) / 6; residuals
    d - r n = 1 - 2/6 and 0 - 4/6; se = sqrt(2/1 * ((2/3)^2 + (2/3)^2)) / 6 (two games with a decision)."""
    r = paired_excess([2, 4, 0], [2, 1, 0], [1, 1, 0])
    assert r["decisions"] == 6 and r["games"] == 2
    assert r["options"]["rate"] == pytest.approx(3 / 6) and r["chance"]["rate"] == pytest.approx(2 / 6)
    ex = r["excess"]
    se = math.sqrt(2 * ((2 / 3) ** 2 + (2 / 3) ** 2)) / 6
    assert ex["rate"] == pytest.approx(1 / 6) and ex["se"] == pytest.approx(se)
    h = student.ppf(0.975, 1) * se
    assert ex["ci95"] == pytest.approx([1 / 6 - h, 1 / 6 + h])
    assert r["verdict"] == "none shown"                       # 1 degree of freedom: a wide interval


def test_the_per_game_excess_by_hand():
    r = games_excess([True, True, False, True], [False, True, False, False])
    d = [1, 0, 0, 1]
    se = math.sqrt(sum((x - 0.5) ** 2 for x in d) / 3) / 2
    assert r["excess"]["rate"] == pytest.approx(0.5) and r["excess"]["se"] == pytest.approx(se)
    assert r["options"]["count"] == 3 and r["chance"]["count"] == 1 and r["games"] == 4


def test_verdicts_and_too_little():
    assert verdict(0.01, 0.2) == "shown" and verdict(-0.01, 0.2) == "none shown" and verdict(-0.2, -0.01) == "below"
    assert paired_excess([3], [3], [0])["verdict"] == "not enough"        # one game: no interval
    assert paired_excess([], [], [])["verdict"] == "not enough"


def _answer(n, o, c, go, gc):
    return {"beyond_chance": paired_excess(n, o, c), "beyond_chance_games": games_excess(go, gc)}


def test_the_headline_is_a_rate_only_above_zero():
    shown = headline(_answer([4] * 30, [3] * 30, [1] * 29 + [2], [True] * 30, [True] * 15 + [False] * 15))
    assert shown.startswith("kingmaking beyond chance: a seat that could no longer win decides which other seat "
                            "wins at 49.2% of its decisions beyond what chance does (95%: ")
    assert "per game: in 50.0% of the games beyond chance" in shown
    none = headline(_answer([4] * 30, [2] * 30, [2] * 29 + [3], [True] * 30, [True] * 30))
    assert none.startswith("kingmaking: no kingmaking shown beyond chance") and "%" not in none.split("(")[0]
    assert "per game: none shown beyond chance" in none
    gated = headline(_answer([4] * 30, [2] * 30, [2] * 29 + [3], [True] * 30, [False] * 30))
    assert "per game: not claimed without the decisions (95%: +100.0 to +100.0 points" in gated   # no rate alone
    below = headline(_answer([4] * 30, [1] * 30, [3] * 30, [True] * 30, [True] * 30))
    assert "chance changed the winner more often than the options" in below


def test_the_calibration_game_reads_one_at_a_decisive_choice_and_the_same_stream_count_fires_on_chance():
    """A decisive game: the three options name three winners on any re-deal, the own choice always the same one;
    a game of chance: every option only shifts the dice, so the same-stream count fires while the excess cannot."""
    row = game_row(calibration_games(1.0), [1.0], 0.05, 3, 0)
    assert (row["out_decisions"], row["dealt_king_decisions"], row["chance_king_decisions"]) == (1, 1, 0)
    assert row["king_decisions"] == 1 and row["chance_playouts"] == 6
    rows = [game_row(calibration_games(0.0), [1.0], 0.05, 3, i) for i in range(40)]
    assert sum(r["king_decisions"] for r in rows) > 20          # chance, counted by the same-stream rule
    g = Calibration(False, "x")
    dealt = [g.copy() for _ in range(8)]
    for k, c in enumerate(dealt):
        c.redeal(3, k)
    assert len({tuple(c.deck) for c in dealt}) > 1                 # redeal shuffles the hidden deck ...
    assert all(c.dice.getstate() == g.dice.getstate() for c in dealt)      # ... and keeps the dice


def test_a_simulated_case_is_the_same_for_the_same_seed():
    a = [r["excess"]["rate"] for r in simulated(0.1, 100, 5, 20)]
    b = [r["excess"]["rate"] for r in simulated(0.1, 100, 5, 20)]
    assert a == b and len(set(a)) > 1
