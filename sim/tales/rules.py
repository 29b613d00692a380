"""Tales are Real rule parameters: every number in the rulebook, with the four mode presets.

Sections refer to ``shared/rules/tales-are-real.txt`` (Game Setup, Game Flow 1-3, Victory and Defeat,
Game Mode: 2 vs. 2, Bonus Game Mode: Survive!). The mode's seat count (2 or 4) and the bots are not
rules: they live in ``TalesSetup``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from sim.kit.presets import pick_preset
from sim.params import RuleError, param

MODES = ("standard", "2v2", "survive", "survive-2v2")
TEAM_MODES = ("2v2", "survive-2v2")
PEOPLES = ("animalis", "schatten")
MAX_ARMY = 8             # capacities of the engine core's fixed arrays
MAX_HANDS = 4


@dataclass(frozen=True)
class TalesRules:
    """One Tales are Real rule set. Build with :func:`preset` and :func:`sim.params.with_overrides`."""

    ruleset: str = param("standard", "name of the preset this rule set started from", choices=MODES)
    # Game Flow
    game_rounds: int = param(5, "rounds in a game (not Survive!)", min=1, max=50, cite="Game Flow",
                             relevant={"survive": (False,)})
    survive: bool = param(False, "Survive!: play until a player has no creature left (survive_end); recruit "
                                 "and equip in round 1 only", cite="Bonus Game Mode: Survive!")
    max_rounds: int = param(40, "safety cap on Survive! rounds; then the fewest weighted losses win",
                            min=1, max=500, cite="interpretation", relevant={"survive": (True,)})
    # 1. Recruitment
    army_size: int = param(5, "creatures on the field after recruitment, the Champion included", min=2,
                           max=MAX_ARMY, cite="1. Recruitment")
    first_draw: int = param(5, "creature cards drawn in round 1", min=1, max=20, cite="1. Recruitment")
    first_place: int = param(4, "of those, placed on the field (the rest go under the deck)", min=1,
                             max=MAX_ARMY - 1, cite="1. Recruitment")
    # 2. Equipment
    equipment_draw: int = param(3, "equipment cards each commander draws per equipment phase (Survive!: 7)",
                                min=0, max=20, cite="2. Equipment, Survive!")
    swap_cost: int = param(3, "hand cards put on the graveyard for one swap", min=1, max=10, cite="2. Equipment")
    swap_gain: int = param(1, "equipment cards drawn for one swap", min=0, max=10, cite="2. Equipment")
    hands: int = param(2, "hands per creature (one main hand; off-hand items at most hands - 1)", min=1,
                       max=MAX_HANDS, cite="Equipment Cards")
    points_budget: bool = param(True, "carried equipment's points must sum to at most the creature's "
                                      "equipment points (false: each card's points at most the creature's)",
                                cite="2. Equipment")
    max_equip_actions: int = param(24, "safety cap on equipment actions per commander per phase", min=1,
                                   max=200, cite="interpretation")
    potions_per_fight: int = param(1, "potions a commander may use on one creature in one fight", min=0,
                                   max=5, cite="3. Battle, 1. Use potions")
    potion_lasts: str = param("turn", "how long a Strength, Armor or First Strike potion works: turn (until the "
                                      "creature's turn is finished, as printed) or card (the card's duration in "
                                      "fights of the creature; the old reading)", choices=("turn", "card"),
                              cite="3. Battle, 1. Use potions")
    # 3. Battle, 2 vs. 2
    team_attackers: int = param(2, "creatures per team in one turn of a 2 vs. 2 game", min=1, max=4,
                                cite="Game Mode: 2 vs. 2", relevant={"mode": TEAM_MODES})
    # Victory and Defeat
    loss_normal: int = param(1, "weighted loss of a destroyed normal creature", min=0, max=10,
                             cite="Victory and Defeat")
    loss_elite: int = param(2, "weighted loss of a destroyed elite creature", min=0, max=10,
                            cite="Victory and Defeat")
    elite_min_tier: int = param(2, "creatures of this tier or higher are elite and count double (2: every tier "
                                   "above the bottom one, labelled Normal creature; 5: the Champions only, the "
                                   "old reading, under which the rule never changes a result)", min=1, max=6,
                                cite="Creature Cards, Victory and Defeat")
    champion_death_ends: bool = param(True, "a destroyed Champion ends the game at once, Survive! too (false: "
                                            "Survive! goes on to the last creature, the old reading)",
                                      cite="Victory and Defeat, Bonus Game Mode: Survive!")
    survive_end: str = param("player", "Survive!: the game ends when one player (as printed) or a whole team "
                                       "(team, the old 2 vs. 2 reading) has no creature left on the field; the "
                                       "same in a 2-player game", choices=("player", "team"),
                             cite="Bonus Game Mode: Survive!",
                             # with champion_death_ends on, a field empties only after its Champion fell: game over
                             relevant={"survive": (True,), "mode": TEAM_MODES, "champion_death_ends": (False,)})

    def check(self, where: str = "rules") -> None:
        """Cross-field checks that a single field's range cannot express."""
        if self.first_place > self.first_draw:
            raise RuleError(f"{where}: first_place ({self.first_place}) must not exceed first_draw "
                            f"({self.first_draw})")
        if self.first_place > self.army_size - 1:
            raise RuleError(f"{where}: first_place ({self.first_place}) must leave room for the Champion in "
                            f"army_size ({self.army_size})")

    def last_round(self) -> int:
        """The round after which the game is decided by losses."""
        return self.max_rounds if self.survive else self.game_rounds


STANDARD = TalesRules()
TWO_VS_TWO = dataclasses.replace(STANDARD, ruleset="2v2")
# "Only a few small changes" (Bonus Game Mode: Survive!): the fallen-Champion rule still applies
SURVIVE = dataclasses.replace(STANDARD, ruleset="survive", survive=True, equipment_draw=7)
SURVIVE_2V2 = dataclasses.replace(SURVIVE, ruleset="survive-2v2")

PRESETS: dict[str, TalesRules] = {"standard": STANDARD, "2v2": TWO_VS_TWO, "survive": SURVIVE,
                                  "survive-2v2": SURVIVE_2V2}


def preset(name: str, overrides: dict | None = None, where: str = "rules") -> TalesRules:
    """A named preset (``standard``, ``2v2``, ``survive``, ``survive-2v2``) with validated overrides."""
    return pick_preset(PRESETS, name, overrides, where, title="Tales are Real")


def people_of(value, seats: int, where: str = "people") -> tuple[str, ...]:
    """People per seat from ``animalis``/``schatten`` (team 0's people; team 1 plays the other) or a list."""
    if value is None:
        value = "animalis"
    items = [s.strip() for s in value.split(",")] if isinstance(value, str) else [str(s).strip() for s in value]
    for p in items:
        if p not in PEOPLES:
            raise RuleError(f"{where}: people {p!r} is not allowed; expected {' or '.join(PEOPLES)}")
    if len(items) == 1:
        other = PEOPLES[1 - PEOPLES.index(items[0])]
        items = [items[0] if s % 2 == 0 else other for s in range(seats)]
    if len(items) != seats:
        raise RuleError(f"{where}: {len(items)} people given for {seats} seats; give one, or one per seat")
    return tuple(items)


@dataclass(frozen=True)
class TalesSetup:
    """What is played besides the rules: the mode (2 or 4 seats), each seat's people and bot.

    Seats: team = seat % 2, so 2 vs. 2 is seats 0+2 against 1+3; seats 2k and 2k+1 are an opposing
    pairing that shares one equipment deck.
    """

    mode: str = "standard"
    people: tuple[str, ...] = ("animalis", "schatten")
    bots: tuple[str, ...] = ("heuristic", "heuristic")

    def __post_init__(self):
        if self.mode not in MODES:
            raise RuleError(f"mode {self.mode!r} is not allowed; expected one of {', '.join(MODES)}")
        if len(self.people) != self.seats or any(p not in PEOPLES for p in self.people):
            raise RuleError(f"people {list(self.people)}: give {self.seats} of {', '.join(PEOPLES)}")
        if len(self.bots) != self.seats:
            raise RuleError(f"bots: {len(self.bots)} given for {self.seats} seats; give one per seat")

    @property
    def seats(self) -> int:
        return 4 if self.mode in TEAM_MODES else 2

    @property
    def teams(self) -> bool:
        return self.mode in TEAM_MODES
