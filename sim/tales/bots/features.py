"""Tales are Real's features for the learned bots, in the rulebook's words (docs/learned-bots.md).

The core computes them in this order (core/tales/learned.pxi); tests/test_learned_bots.py holds the counts
together. Only what the deciding commander can see: the field (every creature, its gear, damage, potions),
its own hand, hand sizes, losses, and a Champion only once the armies are set up and the Champions
revealed. Changing a feature's meaning or order is a new VERSION: models of the old one are refused.

Beside the top-level decisions, a model may carry a decisions block (DECISIONS): weights for the potions (3.
Battle, step 1) and the Champion's choice (Game Setup), which the policy leaves to the heuristic, each kind over
its own features. Each kind's last feature is the heuristic's pick, so the weights HEURISTIC (1 on it, 0
elsewhere) choose as the heuristic does at every decision.
"""

from __future__ import annotations

from sim.kit.learned import DecisionFeatures, Features

VERSION = 2

# one list per option of a top-level decision: recruitment (return a creature under the deck), equipment
# (an action, or a card to discard in a swap), battle (the attacker, the defender, the creature provoked)
COMMON = (
    ("return", "Recruitment: the option returns this creature under the deck"),
    ("equip_phase", "Equipment: the option is an equipment action"),
    ("discard", "Equipment, a swap: the option discards this card"),
    ("attacker", "Battle: the option sends this creature into attack mode"),
    ("defender", "Battle: the option makes this creature the defender"),
    ("provoke", "Battle: the option provokes this creature of the other side"),
    ("heuristic_score", "the heuristic bot's score of the option, over 20"),
    ("heuristic_pick", "1 if it is the option the heuristic bot would take"),
    ("pass", "Equipment: pass (done equipping)"),
    ("swap", "Equipment: swap hand cards for a new one"),
    ("equip", "Equipment: equip a creature with a hand card"),
    ("take_off", "Equipment: take a card back off a creature"),
    ("equip_value", "Equipment: the card's worth to the heuristic, over 10"),
    ("equip_champion", "Equipment: the creature equipped is its commander's Champion (once revealed)"),
    ("gear_kills", "Equipment, equip or take off: the change in the creature's mean chance to destroy an "
                   "enemy creature on the field in one strike"),
    ("gear_safety", "Equipment, equip or take off: the change in the mean chance an enemy creature on the "
                    "field does not destroy it in one strike"),
    ("return_value", "Recruitment: the creature's worth to the heuristic, over 20"),
    ("discard_usable", "Swap: some creature of the team could carry the card"),
    ("discard_value", "Swap: the card's worth to the heuristic, over 10"),
)

# the battle features, one block for each of the three battle decisions (each weighs them its own way).
# The fight an option leads to is foreseen from the dice of 3. Battle, no die rolled: the attacker's
# against the defender the other team would best choose (a Provoke that works: the target you would).
BATTLE = (
    ("attack", "the creature's attack with gear and potions, over 10"),
    ("life", "the creature's life left, over 10"),
    ("destroys", "in one strike it destroys its foe (attacker: some ready foe; provoke: the attacker "
                 "destroys it)"),
    ("destroyed", "in one strike its foe destroys it (attacker: some ready foe; provoke: it destroys the "
                  "attacker)"),
    ("champion", "the creature is a Champion (once revealed; provoke: the other team's)"),
    ("tier", "the creature's tier, over 3"),
    ("my_loss", "your team's expected weighted losses in the fight the option leads to, over 3"),
    ("their_loss", "the other team's expected weighted losses in that fight, over 3"),
    ("my_champion_falls", "the chance your Champion is destroyed in that fight (once revealed)"),
    ("their_champion_falls", "the chance the other team's Champion is destroyed in it (once revealed)"),
    ("fight_worth", "the other team's losses less yours, a Champion 10, over 10 (attacker: the mean over "
                    "the other team's ready creatures)"),
)
POLICY = COMMON + tuple((f"{decision}_{name}", f"Battle, {decision} decision: {meaning}")
                        for decision in ("attacker", "defender", "provoke") for name, meaning in BATTLE)

# one list per commander, for the value head's chance that its team wins
VALUE = (
    ("on_field", "its creatures on the field, over the army size"),
    ("losses", "its team's weighted losses, over 10"),
    ("other_losses", "the other team's weighted losses, over 10"),
    ("attack", "the attack of its creatures on the field, over 20"),
    ("life", "the life left of its creatures on the field, over 40"),
    ("hand", "equipment cards in hand, over 5"),
    ("round", "the round over the last round"),
    ("champion_on_field", "its Champion is on the field (once revealed)"),
    ("champion_damage", "its Champion's damage over its life (once revealed)"),
    ("ready", "its creatures on the field not exhausted, over the army size"),
    ("champion_exposed", "the highest chance an enemy creature on the field destroys its Champion in one "
                         "strike (once revealed)"),
)


# a model's decisions block: the decisions the policy leaves to the heuristic, each over features of its own.
# A potion's option "none" is the baseline the potions are weighed against; the fight is foreseen as the battle
# features foresee it (the book's dice, no die rolled), with the potion drunk and without: the other commander's
# potion still to come is not foreseen (its hand is hidden).
POTION = (
    ("none", "the option is to use no potion (3. Battle, step 1: Use potions)"),
    ("heal", "a Healing potion: takes damage off the creature"),
    ("strength", "a Strength potion: adds to the creature's damage"),
    ("armor", "an Armor potion: the equipment step of damage reduction"),
    ("first_strike", "a First Strike potion: the creature strikes first"),
    ("amount", "a potion: the amount on it, over 5"),
    ("heals", "a Healing potion: the damage it takes off (at most the creature's damage), over 5"),
    ("my_falls", "a potion: the foreseen chance the creature is destroyed in this fight with it, less without"),
    ("foe_falls", "a potion: the foreseen chance its foe is destroyed in this fight with it, less without"),
    ("champion", "a potion: the creature is its commander's Champion"),
    ("heuristic_score", "the heuristic bot's score of the option, over 10"),
    ("heuristic_pick", "1 if it is the option the heuristic bot would take"),
)
CHAMPION = (
    ("damage", "the creature's damage, over 10 (Game Setup: its commander picks it face down)"),
    ("life", "its life points, over 10"),
    ("tier", "its tier, over 3"),
    ("ability", "it has a special ability"),
    ("ability_chance", "the chance its special ability works (1 with no roll, 0 with none)"),
    ("points", "its equipment points (what it can carry and the potions it can use), over 5"),
    ("heuristic_worth", "the heuristic bot's worth of the creature, over 20"),
    ("heuristic_pick", "1 if it is the Champion the heuristic bot would pick"),
)
HEURISTIC = (("heuristic_pick", 1.0),)
DECISIONS = tuple(DecisionFeatures(kind, features, HEURISTIC) for kind, features in (
    ("potion", POTION), ("champion", CHAMPION)))

FEATURES = Features("tales", VERSION, POLICY, VALUE, prior_policy=(("heuristic_pick", 3.0),),
                    prior_value=(("other_losses", 3.0), ("losses", -3.0)), decisions=DECISIONS)
