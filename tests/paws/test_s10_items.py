"""§10 Item cards: hand limit 5 (discard down at once), the deck reshuffled from the discard pile, and
the four V4 cards (Grenade, Snare, Poison Dart, Smoke Bomb). Card damage never scores, but a card
knockout lets its player take 1 card (§8).
"""

from scenario import (NOBODY, Ask, Pick, begin_turn, item, item_deck, items_top_first, make_game, names, place,
                      script)

from sim.paws import raid
from sim.paws.actions import apply_action, legal_actions
from sim.paws.items import PASS, attackable, turn_card_options
from sim.paws.kinds import Action, Decision
from sim.paws.knockout import ITEM
from sim.paws.rules import preset

FIVE = ["Tailwind", "Shortcut", "Scavenge", "Pack Rat", "Log Pile"]


# -- hand limit and the deck ------------------------------------------------------------------------
def test_buying_a_sixth_card_discards_down_to_five_at_once():
    g = make_game()
    place(g, 0, pos=4, hand=FIVE)
    item_deck(g, "Beaver Dam")
    g.ap = 5
    with script(g, Ask(0, Decision.DISCARD, item("Shortcut"), options=[item(n) for n in FIVE + ["Beaver Dam"]])):
        apply_action(g, 0, (Action.BUY, -1, -1))
    assert names(g.players[0].items) == ["Tailwind", "Scavenge", "Pack Rat", "Log Pile", "Beaver Dam"]
    assert names(g.item_discard) == ["Shortcut"] and g.ap == 4


def test_old_owl_buff_holds_one_more_card():
    """Old Owl (active): hand limit 6, so the sixth card is kept with no discard."""
    g = make_game()
    place(g, 0, pos=4, hand=FIVE, beasts=["Old Owl"], active=[True])
    item_deck(g, "Beaver Dam")
    apply_action(g, 0, (Action.BUY, -1, -1))
    assert len(g.players[0].items) == 6 and g.item_discard == []


def test_raid_grab_over_the_limit_discards_at_once():
    """P0 (5 cards) raids P1 (1 card). roll 1 P0: 6+6 = 12 vs 1+1 +1 = 3 -> 9 damage to P1 (10 -> 1),
    P0 grabs Beaver Dam -> 6 cards -> discards Tailwind at once. rolls 2 and 3: ties (1+1 +1 = 3 vs
    2+1 = 3, 2+1 = 3 vs 1+1 +1 = 3), no damage, no grab."""
    g = make_game()
    place(g, 0, pos=4, hand=FIVE)
    place(g, 1, pos=4, hand=["Beaver Dam"])
    g.raids_left = 1
    with script(g, [6, 6, 1, 1], [1, 1, 1, 1], Pick(1, 0), Ask(0, Decision.DISCARD, item("Tailwind")),
                [1, 1, 1, 1], [2, 1, 1, 1], [2, 1, 1, 1], [1, 1, 1, 1]):
        raid.raid(g, 0, 1)
    assert names(g.players[0].items) == ["Shortcut", "Scavenge", "Pack Rat", "Log Pile", "Beaver Dam"]
    assert names(g.item_discard) == ["Tailwind"] and g.players[1].hp == 1


def test_empty_deck_is_reshuffled_from_the_discard_pile():
    """Deck empty, discard pile [Tailwind, Shortcut, Scavenge] (bottom to top). Buying shuffles it:
    Fisher-Yates from the top position: swap 2 with 1 -> [Tailwind, Scavenge, Shortcut], swap 1 with 0
    -> [Scavenge, Tailwind, Shortcut]; the top card, Shortcut, is bought."""
    g = make_game()
    place(g, 0, pos=4)
    g.item_discard = [item("Tailwind"), item("Shortcut"), item("Scavenge")]
    g.ap = 5
    with script(g, Pick(3, 1), Pick(2, 0)):
        apply_action(g, 0, (Action.BUY, -1, -1))
    assert names(g.players[0].items) == ["Shortcut"]
    assert items_top_first(g) == ["Tailwind", "Scavenge"]
    assert g.item_discard == []


def test_nothing_to_buy_when_deck_and_discard_are_empty():
    g = make_game()
    place(g, 0, pos=4)
    g.ap = 5
    assert (Action.BUY, -1, -1) not in legal_actions(g, 0)


# -- Grenade ------------------------------------------------------------------------------------------
def test_grenade_hits_every_other_player_on_the_target_tile_teammates_too():
    """Teams (0+2 v 1+3). P0 on the Desert throws at adjacent cell 1 where P1 and P2 (P0's partner)
    stand: both take 3 (10 -> 7); P3 on the Desert is not on the target tile; P0 is never hit.
    Targets offered: the Desert and its six neighbours only. Free: AP unchanged."""
    g = make_game(players=4, mode="teams")
    place(g, 0, pos=0, hand=["Grenade"])
    place(g, 1, pos=1)
    place(g, 2, pos=1)
    place(g, 3, pos=0)
    g.ap = 5
    assert turn_card_options(g, 0) == [(0, c) for c in (0, 3, 4, 5, 6, 1, 2)]
    apply_action(g, 0, (Action.PLAY_ITEM, 0, 1))
    assert [p.hp for p in g.players] == [10, 7, 7, 10]
    assert names(g.item_discard) == ["Grenade"] and g.ap == 5


def test_grenade_on_your_own_tile_spares_you():
    g = make_game()
    place(g, 0, pos=4, hand=["Grenade"])
    place(g, 1, pos=4)
    g.ap = 5
    apply_action(g, 0, (Action.PLAY_ITEM, 0, 4))
    assert (g.players[0].hp, g.players[1].hp) == (10, 7)


def test_card_knockout_takes_one_card_and_never_scores():
    """Rules v4 with vp_per_knockout = 1 (to show that card damage never scores even where a player
    fight would). P0's Grenade at cell 4: P1 (3 HP) drops to 0 and is knocked out by P0, who takes
    Scavenge; then P2 (10 -> 7). P0 has 0 VP."""
    g = make_game(rules=preset("v4", {"vp_per_knockout": 1}), players=3)
    place(g, 0, pos=0, hand=["Grenade"])
    place(g, 1, pos=4, hp=3, hand=["Pack Rat", "Scavenge"])
    place(g, 2, pos=4)
    item_deck(g, "Tailwind", "Shortcut", "Log Pile")
    g.ap = 5
    with script(g, Ask(0, Decision.TAKE_CARD, (ITEM, item("Scavenge")))):
        apply_action(g, 0, (Action.PLAY_ITEM, 0, 4))
    p0, p1, p2 = g.players
    assert names(p0.items) == ["Scavenge"]
    assert (p1.lives, p1.hp, p1.pos) == (1, 10, 0)
    assert names(p1.items) == ["Tailwind", "Shortcut", "Log Pile"]
    assert p2.hp == 7
    assert (g.vp(0), p0.knockout_vp) == (0, 0)


# -- Snare ----------------------------------------------------------------------------------------------
def test_snare_costs_two_ap_on_the_targets_next_turn_only():
    """P0 on the Desert snares P1 on chest 4 (adjacent); P2 on chest 12 (two steps) is out of reach."""
    g = make_game(players=3)
    place(g, 0, pos=0, hand=["Snare"])
    place(g, 1, pos=4)
    place(g, 2, pos=12)
    g.ap = 5
    assert turn_card_options(g, 0) == [(0, 1)]
    apply_action(g, 0, (Action.PLAY_ITEM, 0, 1))
    assert g.ap == 5
    assert begin_turn(g, 1) and g.ap == 3
    assert begin_turn(g, 1) and g.ap == 5


# -- Poison Dart ----------------------------------------------------------------------------------------
def test_poison_dart_one_now_and_one_at_the_start_of_each_of_the_next_two_turns():
    g = make_game()
    place(g, 0, pos=0, hand=["Poison Dart"])
    place(g, 1, pos=1, hp=10)
    g.ap = 5
    apply_action(g, 0, (Action.PLAY_ITEM, 0, 1))
    assert g.players[1].hp == 9
    assert begin_turn(g, 1) and g.players[1].hp == 8
    assert begin_turn(g, 1) and g.players[1].hp == 7
    assert begin_turn(g, 1) and g.players[1].hp == 7
    assert g.vp(0) == 0


def test_poison_tick_knockout_ends_the_turn_and_the_poisoner_takes_a_card():
    """P1 (2 HP) is hit by the dart (1 HP); at the start of P1's turn the tick knocks P1 out (P1 is not
    on the Desert, no rest): P0 takes Pack Rat; P1 respawns; start_turn reports the turn is over. P1's
    next turn starts on the Desert with a rest (10 -> 12) and the dart's last tick (-> 11): a knockout
    does not end a Poison Dart played on you (§8.5 names only your own Snares)."""
    g = make_game()
    place(g, 0, pos=0, hand=["Poison Dart"])
    place(g, 1, pos=1, hp=2, hand=["Pack Rat", "Scavenge"])
    item_deck(g, "Tailwind", "Shortcut", "Log Pile")
    g.ap = 5
    apply_action(g, 0, (Action.PLAY_ITEM, 0, 1))
    assert g.players[1].hp == 1
    with script(g, Ask(0, Decision.TAKE_CARD, (ITEM, item("Pack Rat")))):
        assert begin_turn(g, 1) is False
    p0, p1 = g.players
    assert names(p0.items) == ["Pack Rat"]
    assert (p1.lives, p1.hp, p1.pos) == (1, 10, 0)
    assert begin_turn(g, 1) and p1.hp == 11
    assert begin_turn(g, 1) and p1.hp == 12


# -- Smoke Bomb -----------------------------------------------------------------------------------------
def test_smoke_bomb_ends_a_raid_moves_and_protects_until_your_next_turn():
    """P0 raids P1 on chest 4. Before roll 1 (P0 has no combat card, so only P1 is asked) P1 plays
    Smoke Bomb to forest 5: no dice are rolled, nobody is hurt, the raid (and its AP) is spent. Until
    P1's next turn P0 cannot target P1 with Snare or Poison Dart, and a Grenade at forest 5 does not
    hurt P1; from P1's next turn P1 can be targeted again."""
    g = make_game()
    place(g, 0, pos=4, hand=["Grenade", "Snare", "Poison Dart"])
    place(g, 1, pos=4, hand=["Smoke Bomb"])
    g.ap, g.raids_left = 5, 1
    with script(g, Ask(1, Decision.COMBAT_CARD, (0, 5),
                       options=[PASS] + [(0, c) for c in (12, 13, 14, 5, 0, 3)])):
        apply_action(g, 0, (Action.RAID, 1, -1))
    p0, p1 = g.players
    assert (p1.pos, p1.protected, p0.hp, p1.hp, g.ap, g.raids_left) == (5, True, 10, 10, 4, 0)
    assert names(g.item_discard) == ["Smoke Bomb"]
    assert not attackable(g, 0, 1)
    assert [o for o in turn_card_options(g, 0) if o[0] in (1, 2)] == []
    apply_action(g, 0, (Action.PLAY_ITEM, 0, 5))
    assert p1.hp == 10
    assert begin_turn(g, 1) and not p1.protected
    g.seat = 0
    assert (0, 1) in turn_card_options(g, 0)  # Snare (now first in hand) can aim at P1 again


# -- Anytime ----------------------------------------------------------------------------------------------
def test_anytime_card_can_be_played_on_your_own_turn_with_no_ap_left():
    """§10: "Anytime: at any moment, even on another player's turn" (only "On your turn" cards need AP
    left). P0 has spent all 5 AP and holds Bandage Kit (Anytime): playing it must still be legal.
    """
    g = make_game()
    place(g, 0, pos=4, hp=6, hand=["Bandage Kit"])
    g.ap = 0
    assert (Action.PLAY_ITEM, 0, NOBODY) in legal_actions(g, 0)


# -- the stand-in cards (§10 and the open points: the rulebook gives them no rule yet) ----------------------
def test_card_block_cancels_a_grenade_and_is_discarded():
    """P0 throws a Grenade at chest 4: P1 holds Card Block, which cancels it for P1 and is discarded;
    P2, on the same tile without one, takes 3. Discard pile: the Grenade, then the Card Block."""
    g = make_game(players=3)
    place(g, 0, pos=0, hand=["Grenade"])
    place(g, 1, pos=4, hand=["Tailwind", "Card Block"])
    place(g, 2, pos=4)
    g.ap = 5
    apply_action(g, 0, (Action.PLAY_ITEM, 0, 4))
    assert [p.hp for p in g.players] == [10, 10, 7]
    assert names(g.players[1].items) == ["Tailwind"]
    assert names(g.item_discard) == ["Grenade", "Card Block"]


def test_card_block_is_never_offered_as_a_play():
    g = make_game()
    place(g, 0, pos=0, hand=["Card Block", "Bandage Kit"])
    g.ap = 5
    assert turn_card_options(g, 0) == [(1, NOBODY)]


def test_teleport_trap_moves_to_any_other_tile_for_no_ap():
    g = make_game()
    place(g, 0, pos=0, hand=["Teleport Trap"])
    g.ap = 5
    assert turn_card_options(g, 0) == [(0, c) for c in range(1, 19)]
    apply_action(g, 0, (Action.PLAY_ITEM, 0, 17))
    assert (g.players[0].pos, g.ap) == (17, 5)


def test_a_draw_card_over_the_hand_limit_discards_at_once():
    """P0 holds Treasure Map (draw 2) and four more: playing it leaves 4, drawing 2 makes 6, so P0
    discards one straight away (Sugar Rush, the card just drawn)."""
    g = make_game()
    place(g, 0, pos=4, hand=["Treasure Map", "Tailwind", "Shortcut", "Scavenge", "Pack Rat"])
    item_deck(g, "Beaver Dam", "Sugar Rush", "Log Pile")
    g.ap = 5
    with script(g, Ask(0, Decision.DISCARD, item("Sugar Rush"))):
        apply_action(g, 0, (Action.PLAY_ITEM, 0, NOBODY))
    assert names(g.players[0].items) == ["Tailwind", "Shortcut", "Scavenge", "Pack Rat", "Beaver Dam"]
    assert names(g.item_discard) == ["Treasure Map", "Sugar Rush"] and items_top_first(g) == ["Log Pile"]


def test_barricade_boost_gives_two_barricades():
    g = make_game()
    place(g, 0, pos=4, hand=["Barricade Boost"])
    g.ap = 5
    apply_action(g, 0, (Action.PLAY_ITEM, 0, NOBODY))
    assert (g.players[0].barricades, g.ap) == (2, 5)


def test_revenge_strike_hurts_the_attacker_too_and_both_can_be_knocked_out():
    """P0 (9 HP) raids P1 (9 HP), who plays Revenge Strike before roll 1 (P0 has no combat card: only
    P1 is asked). roll 1 P0: 6+6 = 12 vs 1+1 +1 = 3 -> 9 damage to P1 (0 HP), and the same 9 to P0
    (0 HP); P0 scored higher but P1's hand is empty: no grab. P1 at 0 ends the raid: P1 is knocked out
    by P0 first, then P0 by P1 (§7, §8): neither has a card to take; each comes back with 3 cards, P1
    first. Raids never score."""
    g = make_game()
    place(g, 0, pos=4, hp=9)
    place(g, 1, pos=4, hp=9, hand=["Revenge Strike"])
    item_deck(g, "Tailwind", "Shortcut", "Scavenge", "Pack Rat", "Log Pile", "Beaver Dam")
    g.raids_left = 1
    with script(g, Ask(1, Decision.COMBAT_CARD, (0, NOBODY), options=[PASS, (0, NOBODY)]),
                [6, 6, 1, 1], [1, 1, 1, 1]):
        raid.raid(g, 0, 1)
    p0, p1 = g.players
    assert [(p.lives, p.hp, p.pos, p.knockouts, p.knockouts_dealt) for p in g.players] == [(1, 10, 0, 1, 1)] * 2
    assert names(p1.items) == ["Tailwind", "Shortcut", "Scavenge"]
    assert names(p0.items) == ["Pack Rat", "Log Pile", "Beaver Dam"]
    assert names(g.item_discard) == ["Revenge Strike"]
    assert (g.vp(0), g.vp(1), g.over) == (0, 0, False)


def test_escape_rope_ends_a_raid_for_the_raider_without_protection():
    """P0 raids P1 on chest 4 holding Escape Rope (In Combat, escape; unlike Smoke Bomb no protection).
    roll 1: P0 passes; 3+3 = 6 vs 2+2 +1 = 5 -> P1 10 -> 9 (P1's hand is empty: no grab).
    roll 2 (P1 attacks; P1 has no card, P0 is asked): P0 runs to forest 5. The raid ends there, and
    P1 may aim at P0 at once."""
    g = make_game()
    place(g, 0, pos=4, hand=["Escape Rope"])
    place(g, 1, pos=4)
    g.raids_left = 1
    rope = [PASS] + [(0, c) for c in (12, 13, 14, 5, 0, 3)]
    with script(g, Ask(0, Decision.COMBAT_CARD, PASS, options=rope), [3, 3, 1, 1], [2, 2, 1, 1],
                Ask(0, Decision.COMBAT_CARD, (0, 5), options=rope)):
        raid.raid(g, 0, 1)
    p0, p1 = g.players
    assert (p0.pos, p0.protected, p0.hp, p1.hp) == (5, False, 10, 9)
    assert names(g.item_discard) == ["Escape Rope"] and g.raids == 1
    assert attackable(g, 1, 0)


def test_card_block_cancels_a_snare_then_a_poison_dart_hits():
    """P1 holds one Card Block: P0's Snare is cancelled (no AP lost, the block is gone), so P0's Poison
    Dart then hits (1 now, 2 ticks to come)."""
    g = make_game()
    place(g, 0, pos=0, hand=["Snare", "Poison Dart"])
    place(g, 1, pos=1, hand=["Card Block"])
    g.ap = 5
    apply_action(g, 0, (Action.PLAY_ITEM, 0, 1))
    p1 = g.players[1]
    assert (p1.snared, p1.items) == ([0, 0], [])
    apply_action(g, 0, (Action.PLAY_ITEM, 0, 1))
    assert (p1.hp, p1.poison_ticks, p1.poisoner) == (9, 2, 0)
    assert names(g.item_discard) == ["Snare", "Card Block", "Poison Dart"]
