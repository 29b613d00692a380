"""Paws in Peril's features for the learned bots, in the rulebook's words (docs/learned-bots.md).

The core computes them in this order (core/paws/learned.pxi); tests/test_learned_bots.py holds the counts
and the order's version together. Only what the deciding player can see: the board, every player's space,
HP, lives, VP, monster cards, hand size and barricades, its own item cards, and how many monster cards are
left in the deck (and, when it takes a card from a player it knocked out, that player's cards, §8.2).
Changing a feature's meaning or order is a new VERSION: models of the old one are refused.

Beside the turn's actions, a model may carry a decisions block (DECISIONS): weights for every other decision
a seat makes, each kind over its own features. Each kind's last feature is the heuristic's pick, so the
weights HEURISTIC (1 on it, 0 elsewhere) choose as the heuristic does at every decision.
"""

from __future__ import annotations

from sim.kit.learned import DecisionFeatures, Features

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



# a model's decisions block: every decision a seat makes besides its turn's actions, each over features of its
# own (card options only where a decision has a "pass": pass is the baseline the others are weighed against)
COMBAT_CARD = (
    ("pass", "the option is to play no card now (§12: before each roll of a fight)"),
    ("escape", "the card ends the fight and moves you to an adjacent tile (Smoke Bomb, Escape Rope; §10)"),
    ("heal", "the card heals (§9)"),
    ("fight_bonus", "the card adds to your score every roll of this fight"),
    ("roll_bonus", "the card adds to your score for the next roll"),
    ("reflect", "the card deals the next damage you take to your opponent too"),
    ("amount", "a card: the amount on it, over 5"),
    ("hp", "a card: your HP over the maximum"),
    ("heal_missing", "a healing card: the HP you are missing, over the maximum (§9: never above 12)"),
    ("attacking", "a card: you attack in the coming roll (§12.3)"),
    ("first_roll", "a card: the fight has not rolled yet"),
    ("monster", "a card: the other side is a monster (a monster fight or an invasion, §5, §6)"),
    ("hp_edge", "a card: your HP minus the other side's, over 10"),
    ("heuristic_worth", "the heuristic bot's worth of the card now, over 100 (0 for passing)"),
    ("heuristic_pick", "1 if it is the option the heuristic bot would take"),
)
DEFENDER = (
    ("monster_hp", "the monster card's HP, over 10 (§6.1: the one you choose defends)"),
    ("guard", "its Guard buff, if it works yet (added to its score every roll, §5), over 3"),
    ("worth", "what the heuristic thinks the card is worth (HP, and 4 a buff point), over 10: the invader takes "
              "it if it loses (§6.3)"),
    ("active", "its buff works already (§5: from the start of your turn after you won it)"),
    ("hp_margin", "its HP here (a mansion adds 1, §5) minus the invader's HP, over 10"),
    ("heuristic_score", "the heuristic bot's score of it (10 an HP, and its Guard), over 100"),
    ("heuristic_pick", "1 if it is the card the heuristic bot would choose"),
)
KEEP_MONSTER = (
    ("monster_hp", "the monster card's HP, over 10 (§8.3: you keep one when knocked out)"),
    ("worth", "what the heuristic thinks the card is worth (its score), over 10"),
    ("active", "its buff works already"),
    ("buff_fight_score", "its buff adds to your score in every fight: the amount over 3"),
    ("buff_regen", "its buff heals you each turn: the amount over 3"),
    ("buff_extra_ap", "its buff gives AP each turn: the amount over 3"),
    ("buff_guard", "its buff adds to its score when it defends your home: the amount over 3"),
    ("buff_raid_score", "its buff adds to your score in raids: the amount over 3"),
    ("buff_hand", "its buff lets you hold more item cards: the amount over 3"),
    ("heuristic_pick", "1 if it is the card the heuristic bot would keep"),
)
TAKE_CARD = (
    ("item", "the card is an item card (§8.2: you look at their cards and take one)"),
    ("monster", "the card is a monster card"),
    ("item_worth", "an item card: what the heuristic thinks it is worth, over 10"),
    ("monster_worth", "a monster card: what the heuristic thinks it is worth, over 10"),
    ("hand_full", "an item card while your hand is at the limit (§10: you would discard one at once)"),
    ("item_combat", "an item card you can play in a fight (In Combat or Anytime)"),
    ("monster_hp", "a monster card: its HP, over 10"),
    ("heuristic_score", "the heuristic bot's score of it, over 20"),
    ("heuristic_pick", "1 if it is the card the heuristic bot would take"),
)
DISCARD = (
    ("worth", "what the heuristic thinks the card is worth, over 10 (§10: over the hand limit, discard one)"),
    ("combat", "a card you can play in a fight (In Combat or Anytime)"),
    ("turn", "a card you can play on your turn"),
    ("attack", "a Grenade, Snare or Poison Dart"),
    ("heal", "a healing card"),
    ("heal_missing", "a healing card: the HP you are missing, over the maximum"),
    ("ward", "a card that cancels the next card played on you"),
    ("escape", "a card that ends a fight and moves you away"),
    ("duplicate", "you hold another card of the same effect"),
    ("heuristic_pick", "1 if it is the card the heuristic bot would discard"),
)
HEURISTIC = (("heuristic_pick", 1.0),)
DECISIONS = tuple(DecisionFeatures(kind, features, HEURISTIC) for kind, features in (
    ("combat_card", COMBAT_CARD), ("defender", DEFENDER), ("keep_monster", KEEP_MONSTER),
    ("take_card", TAKE_CARD), ("discard", DISCARD)))

# a fit starts from, and is pulled toward, the heuristic's pick (a strong, sure move in a softmax over about
# ten options) and a value head that reads VP progress
FEATURES = Features("paws", VERSION, POLICY, VALUE, prior_policy=(("heuristic_pick", 3.0),),
                    prior_value=(("progress", 3.0),), decisions=DECISIONS)
