"""Paws in Peril card data: the item deck and the monster deck, loaded from validated TOML files.

The rulebook names only some cards (§9, §10, the change table); the rest are stand-ins, marked
``source = "stand-in"`` in the files. A designer's real card files drop in with ``--items`` /
``--monsters`` (or :func:`load_cards`) as long as they use the fields below. Every error names the
file, the card and the field, and lists the allowed values.
"""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass
from pathlib import Path

from sim.paws.kinds import Buff, Effect, Timing

DATA = Path(__file__).parent / "data"
ITEMS_FILE = DATA / "items.toml"
MONSTERS_FILE = DATA / "monsters.toml"

DECKS = ("v3", "v4")                       # the item_deck rule parameter picks one
SOURCES = ("rulebook", "named", "stand-in")  # rulebook text / named in the book, effect ours / invented
MAX_ITEM_COPIES = 512                      # capacities of the engine core (core/paws_types.pxd)
MAX_MONSTER_COPIES = 128

# Which timings make sense for each effect: combat effects only work inside a fight, turn effects
# only outside one; heal works in both; a ward is never played, it reacts (see items.warded).
COMBAT_ONLY = {Effect.FIGHT_BONUS, Effect.ROLL_BONUS, Effect.ESCAPE, Effect.REFLECT}
TIMINGS_FOR = {e: ({Timing.IN_COMBAT} if e in COMBAT_ONLY else
                   set(Timing) if e in (Effect.HEAL, Effect.WARD) else {Timing.ON_TURN}) for e in Effect}


class CardDataError(ValueError):
    """A card file is missing, unreadable or has a bad card; the message says where and why."""


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


def _names(enum) -> list[str]:
    return [m.name.lower() for m in enum]


# field -> (type, required, default, low, high); enums are given as the enum class
ITEM_FIELDS = {
    "name": (str, True, None, None, None),
    "timing": (Timing, True, None, None, None),
    "effect": (Effect, True, None, None, None),
    "amount": (int, False, 0, 0, 20),
    "turns": (int, False, 0, 0, 20),
    "copies": (int, True, None, 1, 64),
    "decks": (list, False, list(DECKS), None, None),
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


def _read(path: Path) -> tuple[list[dict], bytes]:
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise CardDataError(f"{path}: cannot read the card file ({e.strerror})") from None
    try:
        doc = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise CardDataError(f"{path}: not valid TOML: {e}") from None
    extra = sorted(set(doc) - {"meta", "card"})
    if extra:
        raise CardDataError(f"{path}: unknown top-level table(s) {extra}; allowed: [meta], [[card]]")
    cards = doc.get("card")
    if not isinstance(cards, list) or not cards:
        raise CardDataError(f"{path}: no cards; each card is a [[card]] table")
    return cards, raw


def _field(path: Path, n: int, entry: dict, key: str, spec: tuple):
    kind, required, default, low, high = spec
    where = f"{path}: card {n} ({entry.get('name', '?')!s}): field '{key}'"
    if key not in entry:
        if required:
            raise CardDataError(f"{where} is missing")
        entry = {key: default}
    value = entry[key]
    if isinstance(kind, type) and issubclass(kind, (Timing, Effect, Buff)):
        allowed = _names(kind)
        if value not in allowed:
            raise CardDataError(f"{where} is {value!r}; allowed: {', '.join(allowed)}")
        return kind[value.upper()]
    if kind is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise CardDataError(f"{where} must be an integer, got {value!r}")
        if not low <= value <= high:
            raise CardDataError(f"{where} is {value}; allowed: {low}..{high}")
        return value
    if kind is bool:
        if not isinstance(value, bool):
            raise CardDataError(f"{where} must be true or false, got {value!r}")
        return value
    if kind is list:
        if not isinstance(value, list) or not value or any(d not in DECKS for d in value):
            raise CardDataError(f"{where} is {value!r}; allowed: a non-empty list of {', '.join(DECKS)}")
        return tuple(value)
    if not isinstance(value, str) or (required and not value.strip()):
        raise CardDataError(f"{where} must be a non-empty string, got {value!r}")
    if key == "source" and value not in SOURCES:
        raise CardDataError(f"{where} is {value!r}; allowed: {', '.join(SOURCES)}")
    return value


def _parse(path: Path, fields: dict) -> tuple[list[dict], bytes]:
    cards, raw = _read(path)
    out, seen = [], set()
    for n, entry in enumerate(cards, 1):
        if not isinstance(entry, dict):
            raise CardDataError(f"{path}: card {n} is not a table")
        unknown = sorted(set(entry) - set(fields))
        if unknown:
            raise CardDataError(f"{path}: card {n} ({entry.get('name', '?')}): unknown field(s) {unknown}; "
                                f"allowed: {', '.join(fields)}")
        values = {k: _field(path, n, entry, k, spec) for k, spec in fields.items()}
        if values["name"] in seen:
            raise CardDataError(f"{path}: card {n} ({values['name']}): field 'name' repeats an earlier card")
        seen.add(values["name"])
        out.append(values)
    return out, raw


def _items(path: Path) -> tuple[tuple[ItemCard, ...], bytes]:
    rows, raw = _parse(path, ITEM_FIELDS)
    cards = []
    for n, v in enumerate(rows):
        allowed = TIMINGS_FOR[v["effect"]]
        if v["timing"] not in allowed:
            names = ", ".join(sorted(t.name.lower() for t in allowed))
            raise CardDataError(f"{path}: card {n + 1} ({v['name']}): field 'timing' is "
                                f"{v['timing'].name.lower()!r}, which a {v['effect'].name.lower()} card "
                                f"cannot use; allowed: {names}")
        cards.append(ItemCard(id=n, **v))
    for deck in DECKS:
        total = sum(c.copies for c in cards if deck in c.decks)
        if total > MAX_ITEM_COPIES:
            raise CardDataError(f"{path}: the {deck} deck has {total} copies; at most {MAX_ITEM_COPIES}")
    return tuple(cards), raw


def _monsters(path: Path) -> tuple[tuple[MonsterCard, ...], bytes]:
    rows, raw = _parse(path, MONSTER_FIELDS)
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
    ip, mp = Path(items_path or ITEMS_FILE), Path(monsters_path or MONSTERS_FILE)
    try:
        key = tuple((str(p.resolve()), p.stat().st_mtime_ns, p.stat().st_size) for p in (ip, mp))
    except OSError:
        key = None  # let the loader report which file is missing
    if key is None or key not in _CACHE:
        items, iraw = _items(ip)
        monsters, mraw = _monsters(mp)
        digest = hashlib.sha256(iraw + b"\0" + mraw).hexdigest()[:16]
        cards = CardSet(items, monsters, str(ip), str(mp), digest)
        if key is None:
            return cards
        _CACHE[key] = cards
    return _CACHE[key]
