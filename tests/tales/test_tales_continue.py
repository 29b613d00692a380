"""A Tales are Real game in the core can be copied at any top-level decision and played on.

The groundwork for search bots that simulate ahead with the real rules: the whole state of a game is
its Game struct (copy_game, core/kit/state.pxi), and play_from (core/tales/game.pxi) finishes the phase
in progress, its round and the game from that state alone. The top-level decisions are a recruitment
return (D_RETURN), an equipment action (D_EQUIP) or a swap's discard (D_DISCARD), and a battle turn's
attacker (D_ATTACKER) and defender (D_DEFENDER; D_PROVOKE when the attacker provokes); the Champion's
choice is setup's and the potions stay inside a fight. ``core.tales_scenario.PausedGame`` (test-only)
plays a game of a batch up to decision ``stop_at``. A paused game, its copy and the game played through
must end with the same record and card table, bit for bit the production batch loop's.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from budget import examples

from core.tales_scenario import PausedGame
from sim.games import BatchOptions, get
from sim.tales.core_engine import core_inputs
from sim.tales.kinds import Decision

CONFIGS = [  # (id, setup values, rule overrides): every preset, 1v1 and 2 vs. 2, both bots
    ("standard", {"mode": "standard"}, {}),
    ("standard-random", {"mode": "standard", "bots": "random,heuristic:aggression=5"}, {}),
    ("2v2", {"mode": "2v2", "bots": "heuristic,random,random,heuristic"}, {}),
    ("survive", {"mode": "survive", "bots": "random"}, {"potions_per_fight": 2}),
    ("survive-2v2", {"mode": "survive-2v2"}, {}),
    ("survive-2v2-random", {"mode": "survive-2v2", "bots": "random"}, {"survive_end": "team"}),
]
IDS = [c[0] for c in CONFIGS]
SEED = 20261205
TOP_LEVEL = {Decision.RETURN, Decision.EQUIP, Decision.DISCARD, Decision.ATTACKER, Decision.DEFENDER,
             Decision.PROVOKE}


def inputs_of(cfg) -> dict:
    _, setup, over = cfg
    m = get("tales").resolve(overrides=over, setup=setup, tables=("games", "cards"))
    return core_inputs(m.setup, m.rules, m.data)


def production(inputs: dict, index: int) -> tuple[dict, int]:
    """The production batch loop's record of game ``index`` (with its card rows), in PausedGame.record()'s
    form, and the generator's state after the game."""
    from core.tales_engine import play_batch
    out = play_batch(inputs, BatchOptions(SEED, index, 1, cards=True))
    rec = out["records"][0]
    whole = {name: rec[name].tolist() for name in rec.dtype.names}
    whole["cards"] = out["cards"].tolist()
    return whole, int(out["rng_state"][0])


@pytest.fixture(scope="module", params=CONFIGS, ids=IDS)
def cfg_inputs(request):
    return request.param, inputs_of(request.param)


@pytest.mark.parametrize("index", [0, 3])
def test_paused_copied_and_continued_games_end_as_the_uninterrupted_game(cfg_inputs, index):
    """Pause at every top-level decision of the game: the original and its copy, each played on, end
    exactly as the uninterrupted game, generator included."""
    cfg, inputs = cfg_inputs
    whole, rng = production(inputs, index)
    through = PausedGame(inputs, SEED, index)            # never stops
    assert not through.paused and through.record() == whole and through.rng_state == rng
    n = through.decisions
    assert n > 10, "a game long enough to stop inside"
    kinds = set()
    for stop_at in range(n):
        g = PausedGame(inputs, SEED, index, stop_at)
        assert g.paused and g.decisions == stop_at
        assert g.record()["end_reason"] == -1            # not over yet
        assert 0 <= g.seat < inputs["players"] and Decision(g.asking) in TOP_LEVEL
        kinds.add(Decision(g.asking))
        copy = g.copy()
        assert g.play_on() is False                      # the original first: the copy must not share state
        assert copy.play_on() is False
        assert g.record() == copy.record() == whole, f"{cfg[0]}: stopped at decision {stop_at} of {n}"
        assert g.rng_state == copy.rng_state == rng
        assert g.decisions == copy.decisions == n
    assert {Decision.RETURN, Decision.EQUIP, Decision.ATTACKER, Decision.DEFENDER} <= kinds


INPUTS = {}


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cfg=st.sampled_from(CONFIGS), seed=st.integers(0, 2**64 - 1), index=st.integers(0, 2**40),
       where=st.floats(0, 1, exclude_max=True), then=st.floats(0, 1))
def test_any_game_paused_anywhere_continues_as_played(cfg, seed, index, where, then):
    """Any seed, game index and decision: the paused game and its copy (paused again further on, then
    finished) end as the production game; the pause is at a top-level decision of a seat."""
    from core.tales_engine import play_batch
    inputs = INPUTS.setdefault(cfg[0], inputs_of(cfg))
    out = play_batch(inputs, BatchOptions(seed, index, 1, cards=True))
    rec = out["records"][0]
    whole = {name: rec[name].tolist() for name in rec.dtype.names}
    whole["cards"] = out["cards"].tolist()
    n = PausedGame(inputs, seed, index).decisions
    stop = int(where * n)
    g = PausedGame(inputs, seed, index, stop)
    assert g.paused and g.decisions == stop and Decision(g.asking) in TOP_LEVEL
    c = g.copy()
    later = stop + int(then * (n - stop))
    assert c.play_on(later) is (later < n)
    assert c.play_on() is False and g.play_on() is False
    assert g.record() == c.record() == whole
    assert g.rng_state == c.rng_state == int(out["rng_state"][0])


def test_every_kind_of_top_level_decision_is_a_stop():
    """Over a few games of two configurations, the games stop at each of the six kinds."""
    kinds = set()
    for cfg in (CONFIGS[1], CONFIGS[2]):
        inputs = inputs_of(cfg)
        for index in range(12):
            n = PausedGame(inputs, SEED, index).decisions
            for stop_at in range(n):
                kinds.add(Decision(PausedGame(inputs, SEED, index, stop_at).asking))
    assert kinds == TOP_LEVEL


def test_the_bots_choice_taken_by_hand_is_the_uninterrupted_game(cfg_inputs):
    """At every decision, asking the seat's bot (a random bot draws as in play) and taking its option
    with take() plays the same game as play_on: take_option is the decision the bot's choice makes."""
    cfg, inputs = cfg_inputs
    whole, rng = production(inputs, 1)
    g = PausedGame(inputs, SEED, 1, 0)
    taken = 0
    while g.paused:
        options = g.options()
        assert len(options) >= 1
        k = g.bot_choice()
        assert 0 <= k < len(options)
        g.take(k)
        taken += 1
        assert g.decisions == taken
        g.play_on(taken)                                 # the rest of the phase up to the next decision
    assert g.record() == whole and g.rng_state == rng


def test_a_copy_can_be_paused_and_copied_again():
    inputs = inputs_of(CONFIGS[2])
    whole, _ = production(inputs, 2)
    n = PausedGame(inputs, SEED, 2).decisions
    g = PausedGame(inputs, SEED, 2, n // 4)
    a = g.copy()
    assert a.play_on(n // 2) is True and a.decisions == n // 2
    b = a.copy()
    assert b.play_on(3 * n // 4) is True
    c = b.copy()
    for game in (c, b, a, g):
        assert game.play_on() is False
    assert g.record() == a.record() == b.record() == c.record() == whole
    assert PausedGame(inputs, SEED, 2, n + 5).paused is False                 # past the end: played through


def test_a_search_can_take_each_option_on_its_own_copy():
    """At heuristic seats' decisions (the heuristic draws nothing), taking each option on a copy and
    playing on: the bot's option gives the game as played; other options lead to other games."""
    inputs = inputs_of(CONFIGS[0])
    whole, _ = production(inputs, 5)
    n = PausedGame(inputs, SEED, 5).decisions
    differ = 0
    for stop_at in range(0, n, max(1, n // 12)):
        g = PausedGame(inputs, SEED, 5, stop_at)
        options = g.options()
        if len(options) < 2:
            continue
        if g.asking == Decision.EQUIP:
            assert options[0] == (0, -1, -1, -1)         # Pass is always first
        bot = g.copy().bot_choice()
        ends = []
        for k in range(len(options)):
            c = g.copy()
            c.take(k)
            assert c.decisions == stop_at + 1
            c.play_on()
            ends.append(c.record())
        assert ends[bot] == whole
        differ += len({repr(e) for e in ends}) > 1
    assert differ >= 2, "different choices lead to different games"


def test_options_and_take_refuse_what_is_not_a_decision():
    inputs = inputs_of(CONFIGS[0])
    g = PausedGame(inputs, SEED, 0, 3)
    with pytest.raises(ValueError, match="option 9999 of"):
        g.copy().take(9999)
    done = PausedGame(inputs, SEED, 0)
    assert done.seat == -1 and done.asking == -1
    with pytest.raises(ValueError, match="not paused"):
        done.options()


def test_the_card_table_of_a_paused_game_is_read_off_its_state():
    """The card rows are read off the state: none before the first creature is placed (decision 0 is
    round 1's first return), some of the end's halfway (a card fielded or carried stays in the table)."""
    inputs = inputs_of(CONFIGS[0])
    whole, _ = production(inputs, 0)
    n = PausedGame(inputs, SEED, 0).decisions
    first = PausedGame(inputs, SEED, 0, 0)
    assert first.asking == Decision.RETURN and first.record()["cards"] == []
    mid = PausedGame(inputs, SEED, 0, n // 2).record()["cards"]
    end_keys = {(r[1], r[3], r[4]) for r in whole["cards"]}          # (card, seat, kind)
    assert mid and {(r[1], r[3], r[4]) for r in mid} <= end_keys
