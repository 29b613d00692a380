"""Paws in Peril's features for the learned bots, in the rulebook's words (docs/learned-bots.md).

The core computes them in this order (core/paws/learned.pxi); tests/test_learned_bots.py holds the counts
and the order's version together. Only what the deciding player can see: the board, every player's space,
HP, lives, VP, monster cards, hand size and barricades, its own item cards, and how many monster cards are
left in the deck. Changing a feature's meaning or order is a new VERSION: models of the old one are refused.
"""

from __future__ import annotations

from sim.kit.learned import Features

VERSION = 1

# one list per option of a turn's action decision (§3): what the action is, how the heuristic rates it
# (its score, over 100), and the state that might change its worth
POLICY = (
    ("end_turn", "the action is End turn (§3)"),
    ("move", "the action is Move to an adjacent space (§3)"),
    ("loot", "the action is Loot this chest or forest (§4)"),
    ("buy", "the action is Buy an item card (§3)"),
    ("raid", "the action is Raid a player on this space (§7)"),
    ("invade", "the action is Invade this home or mansion (§6)"),
    ("barricade", "the action is Place a barricade (§11)"),
    ("place_tile", "the action is Place a tile (Explorer, §2.2)"),
    ("play_item", "the action is Play an item card (§10)"),
    ("heuristic_score", "the heuristic bot's score of the action, over 100"),
    ("heuristic_likes", "1 if the heuristic's score is above 0"),
    ("heuristic_pick", "1 if it is the action the heuristic bot would take"),
    ("move_worth", "Move: what the heuristic thinks the destination itself is worth, over 100"),
    ("move_to_desert", "Move: the destination is the Desert (where you rest, §3)"),
    ("end_turn_hp", "End turn: your HP over the maximum"),
    ("move_hp", "Move: your HP over the maximum"),
    ("invade_hp", "Invade: your HP over the maximum"),
    ("raid_hp", "Raid: your HP over the maximum"),
    ("loot_hp", "Loot: your HP over the maximum"),
    ("end_turn_ap", "End turn: AP left unused over AP per turn"),
    ("end_turn_progress", "End turn: your VP (Teams: your team's) over the VP target"),
    ("invade_progress", "Invade: your VP (Teams: your team's) over the VP target"),
    ("move_progress", "Move: your VP (Teams: your team's) over the VP target"),
    ("invade_lead", "Invade: your VP lead over the best other player (or team), over the target"),
    ("raid_lead", "Raid: your VP lead over the best other player (or team), over the target"),
    ("buy_hand", "Buy: item cards in your hand over the hand limit"),
    ("loot_hand", "Loot: item cards in your hand over the hand limit"),
    ("raid_leader", "Raid: the player raided is the sole VP leader"),
    ("raid_hp_edge", "Raid: your HP minus theirs, over 10"),
    ("raid_cards", "Raid: their item cards minus yours, over 5"),
    ("play_heal", "Play: a healing card"),
    ("play_extra_ap", "Play: a card that gives AP"),
    ("play_barricade", "Play: a card that gives barricades"),
    ("play_draw", "Play: a card that draws item cards"),
    ("play_teleport", "Play: a teleport card"),
    ("play_grenade", "Play: a grenade card"),
    ("play_snare", "Play: a Snare"),
    ("play_poison", "Play: a Poison Dart"),
)

# one list per player, for the value head's chance that the player (Teams: its team) wins
VALUE = (
    ("progress", "VP (Teams: the team's) over the VP target"),
    ("lead", "VP lead over the best other player (or team), over the target"),
    ("buildings", "homes and mansions owned, over 4"),
    ("lives", "lives left over the lives at the start"),
    ("hp", "HP over the maximum"),
    ("hand", "item cards over the hand limit"),
    ("monsters", "monster cards held, over 4"),
    ("barricades", "barricades held, over 2"),
    ("alive", "1 while the player has lives left"),
    ("leader", "1 if the player is the sole VP leader"),
    ("late_progress", "progress times the round over 20 (at most 1)"),
    ("knockouts_dealt", "knockouts dealt, over 3"),
)

# a fit starts from, and is pulled toward, the heuristic's pick (a strong, sure move in a softmax over about
# ten options) and a value head that reads VP progress
FEATURES = Features("paws", VERSION, POLICY, VALUE, prior_policy=(("heuristic_pick", 3.0),),
                    prior_value=(("progress", 3.0),))
