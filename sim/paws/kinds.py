"""Paws in Peril enumerations shared by the data files, the reference engine and the core.

The integer values are part of the contract with ``core/paws_types.pxd``: change them in both places.
"""

from enum import IntEnum


class Tile(IntEnum):
    """What lies on a board cell (§2, §4)."""
    EMPTY = 0
    DESERT = 1
    HOME = 2
    MANSION = 3
    CHEST = 4
    FOREST = 5


class Timing(IntEnum):
    """When an item card may be played (§10)."""
    ON_TURN = 0     # own turn, outside a fight, with AP left
    IN_COMBAT = 1   # during a fight you are in
    ANYTIME = 2     # own turn outside fights, or during a fight you are in (our decision windows)


class Effect(IntEnum):
    """What an item card does; ``amount`` (and ``turns``) in the card data say how much."""
    NONE = 0            # not a card's effect (a card file may not name it): 0 is "no effect" in every game
    HEAL = 1            # heal `amount` HP (never above max_hp)
    FIGHT_BONUS = 2     # +`amount` to your score for every remaining roll of this fight
    ROLL_BONUS = 3      # +`amount` to your score for the next roll only
    ESCAPE = 4          # end the fight, move to an adjacent tile; `amount` 1 = cannot be attacked until your next turn
    GRENADE = 5         # every other player on your tile or an adjacent one takes `amount` damage
    SNARE = 6           # a player on your tile or an adjacent one loses `amount` AP on their next turn
    POISON = 7          # `amount` damage now and 1 at the start of each of their next `turns` turns
    EXTRA_AP = 8        # +`amount` AP this turn
    GAIN_BARRICADE = 9  # take `amount` barricades
    TELEPORT = 10       # move to any tile on the board
    WARD = 11           # kept in hand: cancels the next Grenade/Snare/Poison aimed at you, then is discarded
    REFLECT = 12        # this fight: the next damage you take is also dealt to your opponent
    DRAW = 13           # draw `amount` item cards


class Buff(IntEnum):
    """A monster card's buff (§5), active from the start of its owner's next turn."""
    NONE = 0
    FIGHT_SCORE = 1     # +`amount` to your score in every fight
    REGEN = 2           # heal `amount` HP at the start of your turn
    EXTRA_AP = 3        # +`amount` AP each turn
    GUARD = 4           # +`amount` to this monster's score when it defends your home in an invasion
    RAID_SCORE = 5      # +`amount` to your score in raids
    HAND = 6            # hold `amount` more item cards


class Action(IntEnum):
    """Turn actions (§3), in the canonical order in which legal actions are listed."""
    END_TURN = 0
    MOVE = 1
    LOOT = 2
    BUY = 3
    RAID = 4
    INVADE = 5
    BARRICADE = 6
    PLACE_TILE = 7
    PLAY_ITEM = 8


class Decision(IntEnum):
    """Every choice a bot makes goes through one interface, keyed by this kind."""
    ACTION = 0          # options: legal turn actions
    COMBAT_CARD = 1     # options: pass, or an In Combat / Anytime card (with its target)
    DEFENDER = 2        # owner picks the monster card that defends an invaded home
    KEEP_MONSTER = 3    # knocked-out player keeps one monster card
    TAKE_CARD = 4       # the player who knocked you out takes one of your cards
    DISCARD = 5         # over the hand limit: discard one item card
    PLACE_FREE = 6      # Explorer: after a knockout, place a held tile for free
