"""Reading and validating a game's card files (TOML: an optional ``[meta]`` table and ``[[card]]`` tables).

Each game describes its fields as ``{name: (kind, required, default, low, high)}``: ``kind`` is ``int``
(``low..high``), ``bool``, ``str``, an enum class (its lower-case member names, or those ``low`` lists),
or ``list`` (``low`` holds the allowed items). Every error names the file, the card (number and name) and the field, and
lists what is allowed. ``load_pair`` reads a game's two files once per content and digests their bytes.
"""

from __future__ import annotations

import enum
import hashlib
from pathlib import Path
from typing import Callable

from sim.files import parse_toml, read_bounded

SOURCES = ("rulebook", "named", "stand-in")  # rulebook text / named in the book, effect ours / invented


class CardDataError(ValueError):
    """A card file is missing, unreadable or has a bad card; the message says where and why."""


def names(kind: type[enum.Enum]) -> list[str]:
    return [m.name.lower() for m in kind]


def read_cards(path: Path) -> tuple[list, bytes]:
    """The ``[[card]]`` entries of a file and its bytes."""
    raw = read_bounded(path, "card file", CardDataError)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise CardDataError(f"{path}: not valid TOML: {e}") from None
    doc = parse_toml(text, str(path), CardDataError)     # nested thousands deep: one line, not a RecursionError
    extra = sorted(set(doc) - {"meta", "card"})
    if extra:
        raise CardDataError(f"{path}: unknown top-level table(s) {extra}; allowed: [meta], [[card]]")
    cards = doc.get("card")
    if not isinstance(cards, list) or not cards:
        raise CardDataError(f"{path}: no cards; each card is a [[card]] table")
    return cards, raw


def field(where: str, entry: dict, key: str, spec: tuple):
    """One field of one card, checked and converted (enum names to members, lists to tuples)."""
    kind, required, default, low, high = spec
    where = f"{where}: field '{key}'"
    if key not in entry:
        if required:
            raise CardDataError(f"{where} is missing")
        value = default
    else:
        value = entry[key]
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        allowed = list(low) if low is not None else names(kind)    # low: the members a file may name
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
        if not isinstance(value, list) or not value or any(d not in low for d in value):
            raise CardDataError(f"{where} is {value!r}; allowed: a non-empty list of {', '.join(low)}")
        return tuple(value)
    if not isinstance(value, str) or (required and not value.strip()):
        raise CardDataError(f"{where} must be a non-empty string, got {value!r}")
    if key == "source" and value not in SOURCES:
        raise CardDataError(f"{where} is {value!r}; allowed: {', '.join(SOURCES)}")
    return value


def parse_cards(path: Path, fields: dict, check: Callable[[str, dict], None] | None = None
                ) -> tuple[list[dict], bytes]:
    """Every card of a file as a dict of checked values (``check(where, values)`` adds a game's own rules)."""
    cards, raw = read_cards(path)
    out, seen = [], set()
    for n, entry in enumerate(cards, 1):
        if not isinstance(entry, dict):
            raise CardDataError(f"{path}: card {n} is not a table")
        where = f"{path}: card {n} ({entry.get('name', '?')!s})"
        unknown = sorted(set(entry) - set(fields))
        if unknown:
            raise CardDataError(f"{where}: unknown field(s) {unknown}; allowed: {', '.join(fields)}")
        values = {k: field(where, entry, k, spec) for k, spec in fields.items()}
        if values["name"] in seen:
            raise CardDataError(f"{where}: field 'name' repeats an earlier card")
        seen.add(values["name"])
        if check:
            check(where, values)
        out.append(values)
    return out, raw


def load_pair(first: Path, second: Path, read_first: Callable, read_second: Callable, build: Callable,
              cache: dict):
    """``build(a, b, first, second, digest)`` from a game's two card files, cached by path, size and mtime.

    ``read_*(path) -> (cards, bytes)``; the digest (16 hex digits of sha256 over both files' bytes) is
    what sweeps and baselines record as the card data's identity.
    """
    try:
        key = tuple((str(p.resolve()), p.stat().st_mtime_ns, p.stat().st_size) for p in (first, second))
    except OSError:
        key = None  # let the reader say which file is missing
    if key is None or key not in cache:
        a, araw = read_first(first)
        b, braw = read_second(second)
        cards = build(a, b, str(first), str(second), hashlib.sha256(araw + b"\0" + braw).hexdigest()[:16])
        if key is None:
            return cards
        cache[key] = cards
    return cache[key]
