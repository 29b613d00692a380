"""Tales are Real card data: creature cards of both peoples and the equipment deck, from validated TOML.

The rulebook prints no card list, so the packaged files are stand-ins (``source = "stand-in"``). A
designer's real card files drop in with ``--data creatures=FILE`` / ``--data equipment=FILE`` (or
:func:`load_cards`) as long as they use the fields below. Every error names the file, the card and
the field, and lists the allowed values.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sim.card_files import CardDataError, load_pair, names, parse_cards
from sim.tales.kinds import Ability, Effect, Hand, Kind, People

DATA = Path(__file__).parent / "data"
CREATURES_FILE = DATA / "creatures.toml"
EQUIPMENT_FILE = DATA / "equipment.toml"

CHAMPION_TIER = 5                       # "5 ★ Champion ★"
MAX_CREATURES_PER_PEOPLE = 40           # capacities of the engine core's fixed arrays
MAX_EQUIPMENT_COPIES = 80
HANDS_FOR = {Kind.MELEE: {Hand.MAIN, Hand.BOTH}, Kind.RANGED: {Hand.MAIN, Hand.BOTH}, Kind.SHIELD: {Hand.OFF},
             Kind.POTION: {Hand.NONE}}
CHANCE_NEEDED = {Ability.DEATH_BLOW, Ability.EVADE}          # only make sense with a roll
AMOUNT_NEEDED = {Ability.AREA_DAMAGE, Ability.ARMOR}         # only make sense with an amount


@dataclass(frozen=True)
class Creature:
    id: int
    name: str
    people: People
    damage: int
    life: int
    people_chance: int
    tier: int
    ability: Ability
    ability_chance: int
    ability_amount: int
    points: int
    source: str
    text: str

    @property
    def champion(self) -> bool:
        return self.tier == CHAMPION_TIER


@dataclass(frozen=True)
class Equipment:
    id: int
    name: str
    kind: Kind
    hand: Hand
    damage: int
    life: int
    block: int
    armor: int
    effect: Effect
    amount: int
    duration: int
    points: int
    copies: int
    source: str
    text: str


# field -> (type, required, default, low, high); enums are given as the enum class
CREATURE_FIELDS = {
    "name": (str, True, None, None, None),
    "people": (People, True, None, None, None),
    "damage": (int, True, None, 0, 30),
    "life": (int, True, None, 1, 50),
    "people_chance": (int, True, None, 1, 6),
    "tier": (int, True, None, 1, 5),
    "ability": (Ability, False, "none", None, None),
    "ability_chance": (int, False, 0, 0, 6),
    "ability_amount": (int, False, 0, 0, 20),
    "points": (int, True, None, 0, 20),
    "source": (str, True, None, None, None),
    "text": (str, False, "", None, None),
}
EQUIPMENT_FIELDS = {
    "name": (str, True, None, None, None),
    "kind": (Kind, True, None, None, None),
    "hand": (Hand, True, None, None, None),
    "damage": (int, False, 0, 0, 30),
    "life": (int, False, 0, 0, 30),
    "block": (int, False, 0, 0, 6),
    "armor": (int, False, 0, 0, 20),
    "effect": (Effect, False, "none", None, None),
    "amount": (int, False, 0, 0, 30),
    "duration": (int, False, 0, 0, 10),
    "points": (int, False, 0, 0, 20),
    "copies": (int, False, 1, 1, 20),
    "source": (str, True, None, None, None),
    "text": (str, False, "", None, None),
}


def _check_creature(where: str, v: dict) -> None:
    ab = v["ability"]
    if ab == Ability.NONE and (v["ability_chance"] or v["ability_amount"]):
        raise CardDataError(f"{where}: field 'ability_chance'/'ability_amount' must be 0 for ability 'none'")
    if ab in CHANCE_NEEDED and v["ability_chance"] == 0:
        raise CardDataError(f"{where}: field 'ability_chance' is 0; allowed for {ab.name.lower()}: 1..6")
    if ab in AMOUNT_NEEDED and v["ability_amount"] == 0:
        raise CardDataError(f"{where}: field 'ability_amount' is 0; allowed for {ab.name.lower()}: 1..20")
    if ab not in AMOUNT_NEEDED and v["ability_amount"]:
        raise CardDataError(f"{where}: field 'ability_amount' is {v['ability_amount']}; allowed for "
                            f"{ab.name.lower()}: 0")


def _check_equipment(where: str, v: dict) -> None:
    kind = v["kind"]
    hands = HANDS_FOR[kind]
    if v["hand"] not in hands:
        raise CardDataError(f"{where}: field 'hand' is {v['hand'].name.lower()!r}, which a {kind.name.lower()} "
                            f"cannot use; allowed: {', '.join(sorted(h.name.lower() for h in hands))}")
    if kind == Kind.SHIELD and v["block"] == 0:
        raise CardDataError(f"{where}: field 'block' is 0; allowed for a shield: 1..6")
    if kind != Kind.SHIELD and v["block"]:
        raise CardDataError(f"{where}: field 'block' is {v['block']}; allowed for a {kind.name.lower()}: 0")
    if kind == Kind.SHIELD and v["life"]:
        raise CardDataError(f"{where}: field 'life' is {v['life']}; allowed for a shield: 0 (the block chance "
                            f"is printed there)")
    if kind == Kind.POTION:
        if v["effect"] == Effect.NONE:
            raise CardDataError(f"{where}: field 'effect' is 'none'; allowed for a potion: "
                                f"{', '.join(names(Effect)[1:])}")
        if v["duration"] == 0:
            raise CardDataError(f"{where}: field 'duration' is 0; allowed for a potion: 1..10")
        for key in ("damage", "life", "armor"):
            if v[key]:
                raise CardDataError(f"{where}: field '{key}' is {v[key]}; allowed for a potion: 0 (use "
                                    f"'effect' and 'amount')")
    elif v["effect"] != Effect.NONE or v["amount"] or v["duration"]:
        raise CardDataError(f"{where}: field 'effect'/'amount'/'duration' must be none/0 for a "
                            f"{kind.name.lower()}")


def _creatures(path: Path) -> tuple[tuple[Creature, ...], bytes]:
    rows, raw = parse_cards(path, CREATURE_FIELDS, _check_creature)
    cards = tuple(Creature(id=n, **v) for n, v in enumerate(rows))
    for people in People:
        mine = [c for c in cards if c.people == people]
        name = people.name.lower()
        if not any(c.champion for c in mine):
            raise CardDataError(f"{path}: no {name} Champion; give at least one {name} card tier = "
                                f"{CHAMPION_TIER}")
        if len(mine) > MAX_CREATURES_PER_PEOPLE:
            raise CardDataError(f"{path}: {len(mine)} {name} cards; at most {MAX_CREATURES_PER_PEOPLE}")
    return cards, raw


def _equipment(path: Path) -> tuple[tuple[Equipment, ...], bytes]:
    rows, raw = parse_cards(path, EQUIPMENT_FIELDS, _check_equipment)
    cards = tuple(Equipment(id=n, **v) for n, v in enumerate(rows))
    total = sum(c.copies for c in cards)
    if total > MAX_EQUIPMENT_COPIES:
        raise CardDataError(f"{path}: the equipment deck has {total} copies; at most {MAX_EQUIPMENT_COPIES}")
    return cards, raw


@dataclass(frozen=True)
class TalesCards:
    """Creature cards of both peoples and the equipment cards, with their files and a digest of their bytes."""
    creatures: tuple[Creature, ...]
    equipment: tuple[Equipment, ...]
    creatures_path: str
    equipment_path: str
    digest: str

    def champions(self, people: int) -> list[int]:
        """Champion card ids of a people, in file order."""
        return [c.id for c in self.creatures if c.people == people and c.champion]

    def creature_deck(self, people: int) -> list[int]:
        """The people's other creature card ids, in file order (the game shuffles them)."""
        return [c.id for c in self.creatures if c.people == people and not c.champion]

    def equipment_deck(self) -> list[int]:
        """Equipment card ids, one per copy, in file order (the game shuffles them)."""
        return [c.id for c in self.equipment for _ in range(c.copies)]


_CACHE: dict[tuple, TalesCards] = {}


def load_cards(creatures_path: str | Path | None = None, equipment_path: str | Path | None = None) -> TalesCards:
    """Load and validate both card files (the stand-ins in ``sim/tales/data`` by default)."""
    return load_pair(Path(creatures_path or CREATURES_FILE), Path(equipment_path or EQUIPMENT_FILE), _creatures,
                     _equipment, TalesCards, _CACHE)
