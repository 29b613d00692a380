"""A Paws in Peril game in the core can be copied at a top-level decision and played on.

The groundwork for search bots that simulate ahead with the real rules: the whole state of a game is
its Game struct (copy_game, core/kit/state.pxi), and play_from (core/paws/game.pxi) finishes the turn in
progress, its round and the game from that state alone. ``core.paws_scenario.PausedGame`` (test-only)
plays a game of a batch up to decision ``stop_at`` (the next action of a turn). A paused game, its copy
and the game played through must end with the same record and standings trace, bit for bit the
production batch loop's.
"""

from __future__ import annotations

import pytest

from core.paws_scenario import PausedGame
from sim.paws.core_engine import core_inputs
from sim.games import BatchOptions
from sim.paws.rules import PawsSetup, preset

CONFIGS = [  # (id, rules preset, board, mode, players, bots)
    ("v4-beginner-4p", "v4", "beginner", "ffa", 4, ("heuristic",) * 4),
    ("v4-explorer-3p-mixed", "v4", "explorer", "ffa", 3, ("heuristic", "random", "heuristic:aggression=6")),
    ("v3-teams-random", "v3", "beginner", "teams", 4, ("random", "heuristic") * 2),
]
SEED = 20261204


def inputs_of(cfg):
    _, rs, board, mode, players, bots = cfg
    from sim.paws.cards import load_cards
    setup, rules = PawsSetup(board=board, mode=mode, players=players, bots=bots), preset(rs)
    return setup, core_inputs(setup, rules, load_cards())


def production(inputs, index: int) -> dict:
    """The production batch loop's record of game ``index``, in PausedGame.record()'s form."""
    from core.paws_engine import play_batch
    out = play_batch(inputs, BatchOptions(SEED, index, 1))
    rec = out["records"][0]
    whole = {name: rec[name].tolist() for name in rec.dtype.names}
    whole["vp_trace"] = out["vp_trace"].tolist()
    return whole


@pytest.mark.parametrize("cfg", CONFIGS, ids=[c[0] for c in CONFIGS])
@pytest.mark.parametrize("index", [0, 7])
def test_paused_copied_and_continued_games_end_as_the_uninterrupted_game(cfg, index):
    _, inputs = inputs_of(cfg)
    whole = production(inputs, index)
    through = PausedGame(inputs, SEED, index)            # never stops
    assert not through.paused and through.record() == whole
    n = through.decisions
    assert n > 20, "a game long enough to stop inside"
    for stop_at in (0, 1, n // 3, n // 2, n - 1):
        g = PausedGame(inputs, SEED, index, stop_at)
        assert g.paused and g.decisions == stop_at
        copy = g.copy()
        assert g.play_on() is False                      # the original first: the copy must not share state
        assert copy.play_on() is False
        assert g.record() == copy.record() == whole, f"stopped at decision {stop_at} of {n}"


def test_a_copy_can_be_paused_and_copied_again():
    _, inputs = inputs_of(CONFIGS[1])
    whole = production(inputs, 3)
    n = PausedGame(inputs, SEED, 3).decisions
    g = PausedGame(inputs, SEED, 3, n // 4)
    a = g.copy()
    assert a.play_on(n // 2) is True and a.decisions == n // 2
    b = a.copy()
    assert b.play_on(3 * n // 4) is True
    c = b.copy()
    for game in (c, b, a, g):
        game.play_on()
    assert g.record() == a.record() == b.record() == c.record() == whole


def test_a_paused_game_is_at_a_decision_of_a_turn_and_not_over():
    _, inputs = inputs_of(CONFIGS[0])
    n = PausedGame(inputs, SEED, 0).decisions
    g = PausedGame(inputs, SEED, 0, n // 2)
    rec = g.record()
    assert g.paused and rec["end_reason"] == -1      # the game is not over yet
    assert rec["turns"] >= 1 and len(rec["vp_trace"]) == rec["rounds"] - 1   # inside a round
    assert PausedGame(inputs, SEED, 0, n + 5).paused is False                 # past the end: played through


def test_a_search_can_take_each_option_on_its_own_copy():
    """At a heuristic seat's decision (the heuristic draws nothing), taking each legal option on a copy
    and playing on: the option the bot takes gives the game as played; the options are the core's."""
    _, inputs = inputs_of(CONFIGS[0])
    whole = production(inputs, 5)
    n = PausedGame(inputs, SEED, 5).decisions
    g = PausedGame(inputs, SEED, 5, n // 3)
    options = g.options()
    assert len(options) > 1 and options[0] == (0, -1, -1)          # End turn is always first
    ends = []
    for k in range(len(options)):
        c = g.copy()
        c.take(k)
        assert c.decisions == n // 3 + 1
        c.play_on()
        ends.append(c.record())
    assert ends.count(whole) >= 1
    assert len({repr(e) for e in ends}) > 1, "different moves lead to different games"
    with pytest.raises(ValueError, match="option 99 of"):
        g.copy().take(99)
