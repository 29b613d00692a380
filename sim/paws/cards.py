"""Paws in Peril card data: the item deck and the monster deck, loaded from validated TOML files.

The rulebook names only some cards (§9, §10, the change table); the rest are stand-ins, marked
``source = "stand-in"`` in the files. A designer's real card files drop in with ``--data items=FILE`` /
``--data monsters=FILE`` (or :func:`load_cards`) as long as they use the fields below. Every error
names the file, the card and the field, and lists the allowed values (``sim/card_files.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sim.card_files import CardDataError, load_pair, parse_cards
from sim.paws.kinds import Buff, Effect, Timing

DATA = Path(__file__).parent / "data"
ITEMS_FILE = DATA / "items.toml"
MONSTERS_FILE = DATA / "monsters.toml"

DECKS = ("v3", "v4")                       # the item_deck rule parameter picks one
MAX_ITEM_COPIES = 512                      # capacities of the engine core (core/paws_types.pxd)
MAX_MONSTER_COPIES = 128

# Which timings make sense for each effect: combat effects only work inside a fight, turn effects
# only outside one; heal works in both; a ward is never played, it reacts (see items.warded).
CARD_EFFECTS = tuple(e.name.lower() for e in Effect if e != Effect.NONE)
COMBAT_ONLY = {Effect.FIGHT_BONUS, Effect.ROLL_BONUS, Effect.ESCAPE, Effect.REFLECT}
TIMINGS_FOR = {e: ({Timing.IN_COMBAT} if e in COMBAT_ONLY else
                   set(Timing) if e in (Effect.HEAL, Effect.WARD) else {Timing.ON_TURN}) for e in Effect
               if e != Effect.NONE}


@dataclass(frozen=True)
class ItemCard:
    id: int
    name: str
    timing: Timing
    effect: Effect
    amount: int
    turns: int
    copies: int
    decks: tuple[str, ...]
    source: str
    unruled: bool
    text: str


@dataclass(frozen=True)
class MonsterCard:
    id: int
    name: str
    hp: int
    buff: Buff
    amount: int
    copies: int
    source: str
    text: str


# field -> (type, required, default, low, high); enums are given as the enum class
ITEM_FIELDS = {
    "name": (str, True, None, None, None),
    "timing": (Timing, True, None, None, None),
    "effect": (Effect, True, None, CARD_EFFECTS, None),   # low: the effects a card may have (not none)
    "amount": (int, False, 0, 0, 20),
    "turns": (int, False, 0, 0, 20),
    "copies": (int, True, None, 1, 64),
    "decks": (list, False, list(DECKS), DECKS, None),   # list: low = the allowed items
    "source": (str, True, None, None, None),
    "unruled": (bool, False, False, None, None),
    "text": (str, False, "", None, None),
}
MONSTER_FIELDS = {
    "name": (str, True, None, None, None),
    "hp": (int, True, None, 1, 50),
    "buff": (Buff, False, "none", None, None),
    "amount": (int, False, 0, 0, 20),
    "copies": (int, True, None, 1, 64),
    "source": (str, True, None, None, None),
    "text": (str, False, "", None, None),
}


def _check_item(where: str, v: dict) -> None:
    allowed = TIMINGS_FOR[v["effect"]]
    if v["timing"] not in allowed:
        names = ", ".join(sorted(t.name.lower() for t in allowed))
        raise CardDataError(f"{where}: field 'timing' is {v['timing'].name.lower()!r}, which a "
                            f"{v['effect'].name.lower()} card cannot use; allowed: {names}")


def _items(path: Path) -> tuple[tuple[ItemCard, ...], bytes]:
    rows, raw = parse_cards(path, ITEM_FIELDS, _check_item)
    cards = tuple(ItemCard(id=n, **v) for n, v in enumerate(rows))
    for deck in DECKS:
        total = sum(c.copies for c in cards if deck in c.decks)
        if total > MAX_ITEM_COPIES:
            raise CardDataError(f"{path}: the {deck} deck has {total} copies; at most {MAX_ITEM_COPIES}")
    return tuple(cards), raw


def _monsters(path: Path) -> tuple[tuple[MonsterCard, ...], bytes]:
    rows, raw = parse_cards(path, MONSTER_FIELDS)
    cards = tuple(MonsterCard(id=n, **v) for n, v in enumerate(rows))
    total = sum(c.copies for c in cards)
    if total > MAX_MONSTER_COPIES:
        raise CardDataError(f"{path}: the monster deck has {total} copies; at most {MAX_MONSTER_COPIES}")
    return cards, raw


@dataclass(frozen=True)
class CardSet:
    """Both decks of one game, with the files they came from and a digest of their bytes."""
    items: tuple[ItemCard, ...]
    monsters: tuple[MonsterCard, ...]
    items_path: str
    monsters_path: str
    digest: str

    def item_deck(self, deck: str, unruled: bool) -> list[int]:
        """Card ids of the named deck, one per copy, in file order (the game shuffles them)."""
        return [c.id for c in self.items if deck in c.decks and (unruled or not c.unruled)
                for _ in range(c.copies)]

    def monster_deck(self) -> list[int]:
        return [c.id for c in self.monsters for _ in range(c.copies)]

    def deck_summary(self, deck: str, unruled: bool) -> tuple[int, int]:
        """(distinct cards, copies) of a deck."""
        ids = self.item_deck(deck, unruled)
        return len(set(ids)), len(ids)


_CACHE: dict[tuple, CardSet] = {}


def load_cards(items_path: str | Path | None = None, monsters_path: str | Path | None = None) -> CardSet:
    """Load and validate both card files (the stand-in files shipped in ``sim/paws/data`` by default)."""
    return load_pair(Path(items_path or ITEMS_FILE), Path(monsters_path or MONSTERS_FILE), _items, _monsters,
                     CardSet, _CACHE)
