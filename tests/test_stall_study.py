"""The stall study's pieces (bench/stall-study.py, docs/findings.md section 11): what a position is
(sim/paws/stalls.py), on hand-built states with their answers worked by hand, and the continuation of a real
stalled game: handed over to the same learned bots on the same dice it stalls again exactly as played, and
the position read from the reference engine's replay agrees with the core's paused game."""

from __future__ import annotations

import pytest

from sim.events import EventLog
from sim.games import GAMES
from sim.kit import trace
from sim.kit.handover import hand_over, played_on
from sim.paws.record import END_REASONS
from sim.paws.stalls import KINDS, at_round, play_after, position, state_at_round

SEED = 20261207
ROUND = 30
# a small board: the Desert, two homes, two mansions, a chest and a forest
TILES = ["desert", "home", "mansion", "chest", "home", "mansion", "forest"]


def view(owner, barricade, lives=(2, 2, 2, 2), vp=(0, 0, 0, 0)):
    return {"tile": TILES, "owner": list(owner), "barricade": list(barricade), "lives": list(lives), "vp": list(vp)}


@pytest.mark.parametrize("owner, barricade, kind, claimed, barricaded", [
    # every home and mansion claimed and barricaded by its owner; the chest's barricade is not a building's
    ([-1, 0, 1, -1, 2, 3, -1], [-1, 0, 1, 2, 2, 3, -1], "locked", 4, 4),
    # the mansion at cell 5 is unclaimed, even though it is barricaded (a looter's brick and barricade)
    ([-1, 0, 1, -1, 2, -1, -1], [-1, 0, 1, -1, 2, 3, -1], "unclaimed", 3, 3),
    # all claimed; cell 4 is barricaded by Player 1, not its owner Player 3: Player 1 may still invade it
    ([-1, 0, 1, -1, 2, 3, -1], [-1, 0, 1, -1, 0, 3, -1], "invadable", 4, 3),
    # all claimed, none barricaded
    ([-1, 0, 0, -1, 1, 1, -1], [-1] * 7, "invadable", 4, 0),
])
def test_position_kinds_worked_by_hand(owner, barricade, kind, claimed, barricaded):
    p = position(view(owner, barricade))
    assert (p.kind, p.buildings, p.claimed, p.barricaded) == (kind, 4, claimed, barricaded)
    assert p.kind in KINDS


def test_standings_leave_out_the_players_out_of_the_game():
    p = position(view([-1, 0, 0, -1, 2, 2, -1], [-1, 0, 0, -1, 2, 2, -1], lives=(1, 0, 2, 2), vp=(2, 0, 2, 0)))
    assert p.out == (1,) and p.vp == (2, 0, 2, 0) and p.standings == "2-2-0"


def event(round_, kind, depth=1, change=None):
    return {"round": round_, "turn": 0, "actor": None, "kind": kind, "depth": depth, "text": "", "change": change or {}}


def test_play_after_counts_from_its_round_on():
    events = [event(0, "setup", 0, {"vp": [0, 0]}), event(1, "round", 0), event(1, "buy"), event(1, "raid"),
              event(2, "round", 0, {"vp": [1, 0]}), event(2, "turn", 0), event(2, "buy"), event(2, "buy"),
              event(2, "move"), event(2, "monster"), event(2, "claim"), event(2, "card"),
              event(2, "card", 2),                      # a card played inside a fight is no action
              event(3, "round", 0), event(3, "turn", 0), event(3, "raid"), event(3, "knockout", 2),
              event(3, "out"), event(3, "invade"), event(3, "take_building"), event(3, "unclaimed"),
              event(3, "loot"), event(3, "barricade")]
    got = play_after(events, 2)
    assert got == {"rounds": 2, "turns": 2, "move": 1, "loot": 1, "building": 2, "buy": 2, "raid": 1, "invade": 1,
                   "barricade": 1, "knockouts": 1, "out": 1, "claimed": 1, "taken": 1}
    assert state_at_round(events, 2) == {"vp": [1, 0]}
    assert state_at_round(events, 4) is None


def test_at_round_is_the_first_decision_of_the_round():
    assert at_round(3)({"rounds": 3}) and at_round(3)({"rounds": 4}) and not at_round(3)({"rounds": 2})


def test_a_stalled_game_continued_by_the_same_bots_stalls_again_as_played():
    bot = "learned:model=paws-3"
    m = GAMES["paws"].resolve("v4", setup={"board": "beginner", "players": 4, "bots": bot})
    rows = m.play_batch(SEED, 0, 150)["games"].to_pylist()
    stalled = [i for i, r in enumerate(rows) if r["end_reason"] == "stalled"]
    assert stalled, "a stalled game among the first 150"
    index, row = stalled[0], rows[stalled[0]]
    search = GAMES["paws"].resolve("v4", setup={"board": "beginner", "players": 4,
                                                "bots": f"mcts:iterations=16:depth=4:model=paws-3,{bot},{bot},{bot}"})
    h = hand_over(m, search, SEED, index, at_round(ROUND))
    start = h.original.record()
    same = played_on(h.original)
    assert END_REASONS[same["end_reason"]] == "stalled" and same["rounds"] == row["rounds"] == 100
    assert (same["vp"][:4], same["vp_trace"], same["turns"]) == (row["vp"], row["vp_trace"], row["turns"])
    # the reference engine's replay of the game, read as round 30 begins, is the core's paused game there
    _, blob = trace.core_game(m, SEED, index)
    log = EventLog()
    trace.replay(m, SEED, index, blob, log)
    p = position(state_at_round(log.events, ROUND))
    assert p.vp == tuple(start["vp"][:4]) and p.claimed == sum(start["buildings"][:4])
    assert p.out == tuple(s for s in range(4) if start["lives_left"][s] == 0)
    after = play_after(log.events, ROUND)
    assert after["rounds"] == 100 - ROUND + 1
    # the search's continuation is a game of the rules: it replays, and ends stalled at the cap or with a winner
    on = played_on(h.successor)
    assert on == played_on(hand_over(m, search, SEED, index, at_round(ROUND)).successor)
    end = END_REASONS[on["end_reason"]]
    assert (end == "stalled" and on["rounds"] == 100 and on["winner_seat"] == -1) or \
        (end == "vp" and on["vp"][on["winner_seat"]] >= 4) or \
        (end == "last_alive" and sum(x > 0 for x in on["lives_left"][:4]) == 1)
