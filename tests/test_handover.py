"""A game of learned bots handed over at a decision to other bots (sim/kit/handover.py).

Up to the handover the successors' game takes the learned bots' choices, so it must be the same game: handed
over to the same learned bots it must end exactly as the uninterrupted game, and handed over to a search bot
it must stand in the same state at the handover (hand_over checks the record and the hidden cards). The
original, played on, is the game as played.
"""

from __future__ import annotations

import re

import pytest

from sim.games import GAMES
from sim.kit.handover import HandoverError, dice_seed, hand_over, learned_choice, played_on
from sim.paws.record import END_REASONS
from sim.paws.stalls import at_round

SEED = 20261207
SEARCH = "mcts:iterations=16:depth=4:model=paws-3"


def match(bots: str, board: str = "beginner"):
    return GAMES["paws"].resolve("v4", setup={"board": board, "players": 4, "bots": bots})


def batch(m, start: int, count: int) -> list[dict]:
    return m.play_batch(SEED, start, count)["games"].to_pylist()


def same_game(rec: dict, row: dict) -> bool:
    return (END_REASONS[rec["end_reason"]] == row["end_reason"] and rec["winner_seat"] == row["winner_seat"]
            and rec["rounds"] == row["rounds"] and rec["turns"] == row["turns"] and rec["vp"][:4] == row["vp"]
            and rec["vp_trace"] == row["vp_trace"] and rec["knockouts"][:4] == row["knockouts"])


@pytest.mark.parametrize("bot", ["learned:model=paws-2", "learned:model=paws-3"])
def test_a_game_handed_over_to_the_same_bots_ends_as_the_game_played(bot):
    m = match(bot)
    for index, row in enumerate(batch(m, 0, 6)):
        for r in sorted({1, 2, row["rounds"]}):
            h = hand_over(m, m, SEED, index, at_round(r))
            assert h is not None and h.decision == h.original.decisions == h.successor.decisions
            assert h.original.record()["rounds"] == r
            assert same_game(played_on(h.original), row), (index, r)
            assert same_game(played_on(h.successor), row), (index, r)   # the lockstep took every choice right


def test_a_game_handed_over_to_a_search_bot_stands_where_the_original_does():
    m, s = match("learned:model=paws-3"), match(SEARCH)
    rows = batch(m, 0, 4)
    for index, row in enumerate(rows):
        h = hand_over(m, s, SEED, index, at_round(row["rounds"]))    # checks the records and the hidden cards
        assert h.original.record() == h.successor.record()
        assert h.successor.hidden(1) == h.original.hidden(1)
        assert same_game(played_on(h.original), row)
        again = hand_over(m, s, SEED, index, at_round(row["rounds"]))
        assert played_on(h.successor) == played_on(again.successor)     # the search's continuation replays


def test_learned_choice_is_the_learned_bots_own():
    m = match("learned:model=paws-3")
    g = m.definition.paused_game(m).new(SEED, 2, 0)
    asked = 0
    while g.paused and g.decisions < 300:
        mine, own = g.copy(), g.copy()
        k = learned_choice(g)
        asked += len(g.options()) > 1
        mine.take(k)
        mine.play_on(g.decisions + 1)
        own.play_on(g.decisions + 1)
        assert mine.record() == own.record() and mine.hidden(0) == own.hidden(0), g.decisions
        g = own
    assert asked > 50


def test_other_dice_are_a_function_of_their_seed_and_change_the_game():
    m = match("learned:model=paws-3")
    row = batch(m, 1, 1)[0]
    h = hand_over(m, m, SEED, 1, at_round(1))
    ends = [played_on(h.original, dice_seed(SEED, 1, j)) for j in (1, 2, 3)]
    assert ends[0] == played_on(h.original, dice_seed(SEED, 1, 1))
    assert not all(same_game(e, row) for e in ends)
    assert len({dice_seed(SEED, 1, j) for j in range(1, 50)} | {dice_seed(SEED, 2, 1)}) == 50


def test_a_game_that_ends_before_the_handover_is_none():
    m = match("learned:model=paws-2")
    assert hand_over(m, match(SEARCH), SEED, 0, at_round(10_000)) is None


@pytest.mark.parametrize("original, successors, message", [
    ("heuristic", SEARCH, "bot 'heuristic': only an unrestricted learned seat can be handed over"),
    ("learned:model=paws-2,learned:model=paws-2,learned:model=paws-2,mcts:iterations=8:model=paws-2", SEARCH,
     "bot 'mcts:iterations=8:model=paws-2@"),
    ("learned:model=paws-2:forbid=raid", SEARCH, "forbid=raid': only an unrestricted learned seat"),
])
def test_only_learned_seats_are_handed_over(original, successors, message):
    with pytest.raises(HandoverError, match=re.escape(message)):
        hand_over(match(original), match(successors), SEED, 0, at_round(2))


def test_the_successors_play_the_same_match_but_for_their_bots():
    m = match("learned:model=paws-2")
    with pytest.raises(HandoverError, match="differs from the original in more than its bots"):
        hand_over(m, match(SEARCH, board="explorer"), SEED, 0, at_round(2))
    other = GAMES["paws"].resolve("v4", overrides={"max_rounds": 50},
                                  setup={"board": "beginner", "players": 4, "bots": SEARCH})
    with pytest.raises(HandoverError, match="differs from the original in more than its bots"):
        hand_over(m, other, SEED, 0, at_round(2))
