"""What each card is worth: ablations on common random numbers, played as a sweep (``playtest card-worth``;
docs/card-worth.md).

The per-card tables (``tales_cards``' impact, Paws' cards table) say how often a card's holder won:
association, not cause. Here each card is changed in a copy of its card file and the same games played again
(one sweep cell per variant beside the real deck's cell, every cell the same seed and game indices):

- **blank**: the card's main number at its weakest the card file allows (a heal of 0, a weapon of 0 damage, a
  shield that blocks only on a 6, a monster of 1 HP), the card still in the deck and drawn as before: every
  draw stays where it was, so a game is the same game until the card matters. Its **worth** is the holder's
  score in the real games less in the blank ones: the ranking (too strong / too weak) is on it.
- **removed**: one copy fewer (the card gone when it had one): the deck is one card shorter, so its shuffle and
  every later draw differ and the games are paired only by their index; read it beside the worth.
- **up** and **down**: the main number one step better and one step worse: how sensitive the card is.

The holders are the seats that used the card in the real game (Paws: played the item, or won the monster
card; Tales: carried the equipment or fielded the creature); each holder's score (1 a win of its side, the
fair share a game nobody won, 0 a loss) is compared game by game, the holders of one game averaged, the games
the card was used in averaged: a paired mean with a normal 95% interval, and a Bonferroni interval over all
the cards measured (the family's 95%); the worth's p-values are Holm-adjusted.

A card already at its weakest number is measured too: its blank is the card as printed, so its worth is 0
exactly (what its number adds over the weakest is nothing), and it can be too weak. Each card is judged
against its deck's **reference**, the median worth of the deck's cards measured (the whole deck when the sweep
measured every card of it; otherwise the selected cards, and every line says so): the difference (the card's
worth less the reference, its standard error by a bootstrap over the games, which carries the reference's own
error) goes through an equivalence test (infra.stats.equivalence, two one-sided tests; measures/card_worth/answer.py
``judge``) with a stated margin, at the family's level (Bonferroni over the cards judged): **too strong** or **too weak** when it differs,
**in line** only when the interval lies inside +-margin, otherwise **not enough games to say**. A sweep that is
not finished judges nothing (measures/card_worth/answer.py says how many parts are done).
"""

from __future__ import annotations

import copy
import dataclasses
import math
import re
import tempfile
import tomllib
from pathlib import Path
from typing import Sequence

import numpy as np

from cluster.measure_sweep import CARD_FILES, card_file_text
from measures.protocol import points
from infra.stats import Z95, adjust, normal_two_sided, z_for
from sim.games import GAMES, Match
from sim.params import RuleError

STEM = "card-worth"              # DIR/card-worth.toml: the sweep spec; DIR/card-worth.json: the answer
VARIANTS = ("blank", "removed", "up", "down")


@dataclasses.dataclass(frozen=True)
class Deck:
    """One card file the engines deal from: its data key (and the card data's tuple of the same name), the
    cards table's kind, which rows of the cards table are a seat that used the card (SQL over the cards
    table: the game's own code, never user text), and each card's main number."""
    key: str           # the data key and the card data's attribute (items, monsters, equipment, creatures)
    kind: str          # the cards table's kind (item, monster, equipment, creature)
    used: str          # SQL: a cards row of a seat that used the card
    fields: dict       # the card file's field table: field -> (type, required, default, low, high)


def _decks(game: str) -> tuple[Deck, ...]:
    if game == "paws":
        from sim.paws.cards import ITEM_FIELDS, MONSTER_FIELDS
        return (Deck("items", "item", "plays > 0", ITEM_FIELDS),
                Deck("monsters", "monster", "beaten > 0 OR captured > 0", MONSTER_FIELDS))
    if game == "tales":
        from sim.tales.cards import CREATURE_FIELDS, EQUIPMENT_FIELDS
        return (Deck("equipment", "equipment", "true", EQUIPMENT_FIELDS),
                Deck("creatures", "creature", "true", CREATURE_FIELDS))
    return ()


DECKS = {g: tuple(d.key for d in _decks(g)) for g in ("paws", "tales")}


def deck(game: str, key: str) -> Deck:
    return next(d for d in _decks(game) if d.key == key)


# Paws item effects whose ``amount`` says how much (sim/paws/kinds.py Effect)
AMOUNT_EFFECTS = frozenset({"heal", "fight_bonus", "roll_bonus", "grenade", "snare", "poison", "extra_ap",
                            "gain_barricade", "draw"})


@dataclasses.dataclass(frozen=True)
class Knob:
    """A card's main number: the field, what is better (+1 more, -1 less: a shield's block roll), its bounds
    in the card file and its weakest value."""
    field: str
    better: int
    low: int
    high: int

    @property
    def weakest(self) -> int:
        return self.low if self.better > 0 else self.high


def knob(game: str, card) -> Knob | None:
    """The main number of a card (None: the card has none to change; it may still be removed)."""
    if game == "paws":
        if hasattr(card, "effect") and hasattr(card, "timing"):          # an item: how much it does
            # by its effect: a heal of 0 is a number at its weakest; an escape, ward, teleport or reflect has
            # none (escape's amount is a yes/no: protected or not)
            return Knob("amount", +1, 0, 20) if card.effect.name.lower() in AMOUNT_EFFECTS else None
        return Knob("hp", +1, 1, 50)                                      # a monster: its HP
    from sim.tales.kinds import Kind
    if hasattr(card, "hand"):                                             # equipment
        if card.kind == Kind.SHIELD:
            return Knob("block", -1, 1, 6)             # "4 means 4+": a lower roll blocks more often
        if card.kind == Kind.POTION:
            return None
        return Knob("damage", +1, 0, 30)
    return Knob("damage", +1, 0, 30)                                      # a creature


def measured(match: Match, key: str) -> list:
    """The cards of deck ``key`` the engines deal in this match and the cards table says who used: Paws items
    of the rules' item deck; every monster, Tales creature and equipment card but potions (used from the hand:
    the cards table does not say who used one)."""
    cards = getattr(match.data, key)
    if match.game == "paws" and key == "items":
        dealt = set(match.data.item_deck(match.rules.item_deck, match.rules.unruled_cards))
        return [c for c in cards if c.id in dealt]
    if match.game == "tales" and key == "equipment":
        return [c for c in cards if knob("tales", c) is not None]
    return list(cards)


def cards_of(match: Match, decks: Sequence[str] | None = None) -> list[tuple[str, str]]:
    """(deck, card name) of every card measured, in file order."""
    return [(key, c.name) for key in decks or DECKS[match.game] for c in measured(match, key)]


def changed(game: str, card, how: str) -> tuple[str, int, int] | None:
    """(field, old value, new value) of variant ``how`` of a card; None when it is not possible (no main
    number, a number already at its bound)."""
    if how == "removed":
        copies = getattr(card, "copies", 1)
        return "copies", copies, copies - 1
    k = knob(game, card)
    if k is None:
        return None
    value = getattr(card, k.field)
    new = {"blank": k.weakest, "up": value + k.better, "down": value - k.better}[how]
    if not k.low <= new <= k.high or new == value:
        return None
    return k.field, value, new


def variant_doc(doc: dict, name: str, field: str, new: int) -> dict:
    """The card file ``doc`` (parsed TOML) with card ``name``'s ``field`` set to ``new``; copies 0: the card left out."""
    out = copy.deepcopy(doc)
    cards = out["card"]
    i = next(i for i, c in enumerate(cards) if c.get("name") == name)
    if field == "copies" and new == 0:
        cards.pop(i)
    else:
        cards[i][field] = new
    return out


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40] or "card"


def variant_files(match: Match, decks: Sequence[str] | None, names: Sequence[str] | None,
                  hows: Sequence[str] = VARIANTS) -> tuple[dict[str, str], list[dict]]:
    """The card files of the sweep ({path relative to DIR: text}: the real deck's files copied as they are,
    then every variant's of ``hows``) and its variant cells ({data key: file}); a variant the game's card rules
    refuse (the last Champion of a people gone, say) is left out. A card whose number is already at its weakest
    has no blank to play (its worth is 0 exactly): its one step up is played, so the sweep names it."""
    game = GAMES[match.game]
    sources = dict(game.data_files(match.data))
    files = {f"{CARD_FILES}/{key}.toml": Path(path).read_text(encoding="utf-8") for key, path in sources.items()}
    base = {key: f"{CARD_FILES}/{key}.toml" for key in sources}
    cells, taken = [], set(files)
    with tempfile.TemporaryDirectory() as tmp:
        for key in decks or DECKS[match.game]:
            doc = tomllib.loads(files[base[key]])
            for card in measured(match, key):
                if names and card.name not in names:
                    continue
                seen = set()
                k = knob(match.game, card)
                weakest_now = k is not None and getattr(card, k.field) == k.weakest
                for how in VARIANTS:
                    if how not in hows and not (how == "up" and "blank" in hows and weakest_now):
                        continue
                    change = changed(match.game, card, how)
                    if change is None or change in seen:     # one step down may be the blank: played once
                        continue
                    seen.add(change)
                    text = card_file_text(variant_doc(doc, card.name, change[0], change[2]),
                                          f"{card.name}: {how} ({change[0]} {change[1]} -> {change[2]}); written by "
                                          "playtest card-worth")
                    rel = f"{CARD_FILES}/{key}-{slug(card.name)}-{how}.toml"
                    n = 1
                    while rel in taken:
                        n += 1
                        rel = f"{CARD_FILES}/{key}-{slug(card.name)}-{n}-{how}.toml"
                    if change[2] == 0 and how == "removed":      # the card gone: the game's rules may refuse it
                        probe = Path(tmp) / Path(rel).name
                        probe.write_text(text, encoding="utf-8")
                        try:
                            game.resolve(None, {}, {}, {**sources, key: str(probe)})
                        except (RuleError, ValueError):
                            continue
                    taken.add(rel)
                    files[rel] = text
                    cells.append({key: rel})
    return files, cells


def sweep_raw(match: Match, rules: str | None, overrides: dict, setup: dict, seed: int, games: int,
              cells: list[dict]) -> dict:
    """The card-worth sweep spec: the real deck's cell (the copied files in ``[data]``) and one cell per variant,
    the same seed; the games and cards tables (the holders come from the cards table)."""
    raw = {"name": f"card worth {match.game}", "game": match.game, **({"rules": rules} if rules else {}),
           "seed": seed, "games_per_cell": games, "tables": ["games", "cards"]}
    if setup:
        raw["setup"] = setup
    if overrides:
        raw["overrides"] = overrides
    raw["data"] = {key: f"{CARD_FILES}/{key}.toml" for key, _ in GAMES[match.game].data_files(match.data)}
    raw["cells"] = [{}] + cells
    return raw


def paired(base: dict, other: dict, users: dict[int, list[int]]) -> dict:
    """The holders' mean score change (other less base), per game averaged, with a normal 95% interval; games
    ``other`` lacks (an unfinished sweep) are left out. ``per_game`` ({game index: change}) is for the
    verdicts' bootstrap and is not kept in the answer (measures/card_worth/answer.py ``judge`` drops it)."""
    kept = [(gi, float(np.mean([other[(gi, s)] - base[(gi, s)] for s in seats]))) for gi, seats in sorted(users.items())
            if (gi, seats[0]) in other]
    d = np.array([x for _, x in kept])
    out = {"games": int(len(d)), "diff": float(d.mean()) if len(d) else None, "se": None, "per_game": dict(kept)}
    if len(d) >= 2:
        out["se"] = float(d.std(ddof=1) / math.sqrt(len(d)))
    return out


def at_weakest(users: dict[int, list[int]]) -> dict:
    """The blank of a card already at its weakest number: the card as printed, every game it was used in changed
    by 0 exactly."""
    return {"games": len(users), "diff": 0.0, "se": 0.0 if len(users) >= 2 else None, "at_weakest": True,
            "per_game": {gi: 0.0 for gi in users}}


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values."""
    return adjust(pvalues, "holm")


def summarise(rows: list[dict]) -> list[dict]:
    """Each card's worth (real less blank), removed, up and down with 95% and family (Bonferroni) intervals and
    the worth's Holm-adjusted p-value; the verdicts are measures/card_worth/answer.py ``judge``'s."""
    measured_rows = [r for r in rows if r.get("blank") and r["blank"]["se"] is not None]
    family = z_for(0.05 / max(1, len(measured_rows)))
    for r in rows:
        for how in VARIANTS:
            x = r.get(how)
            if x and x["se"] is not None:      # se 0: every paired game came out the same (the number changes nothing)
                sign = -1.0 if how in ("blank", "removed") else 1.0         # worth = real less blank (or removed)
                m = sign * x["diff"] + 0.0
                x.update(effect=m, ci95=[m - Z95 * x["se"], m + Z95 * x["se"]],
                         family_ci95=[m - family * x["se"], m + family * x["se"]],
                         p=normal_two_sided(m / x["se"]) if x["se"] > 0 else (0.0 if m else 1.0))
    ps = holm([r["blank"]["p"] for r in measured_rows])
    for r, p in zip(measured_rows, ps):
        r["blank"]["p_holm"] = p
    return rows


JUDGED = ("too strong", "too weak", "in line", "not enough games to say")


def _names(cards: list[dict]) -> str:
    return ", ".join(c["card"] + (" (at its weakest)" if (c.get("blank") or {}).get("at_weakest") else "")
                     for c in cards)


def sentences(r: dict) -> list[str]:
    """The answer in words: an unfinished sweep first, each deck's reference, then every verdict, each line
    saying what the card is judged against."""
    pts = points
    out = []
    if r.get("unfinished"):
        u = r["unfinished"]
        out.append(f"UNFINISHED: {u['done']:,} of {u['parts']:,} parts done; no card is judged (too strong, too "
                   "weak or in line) until the sweep is done: the numbers below are partial (finish it with "
                   "--resume)")
    margin = r.get("margin")
    for key, ref in (r.get("references") or {}).items():
        if ref["worth"] is None:
            continue
        out.append(f"{key}: reference worth {pts(ref['worth'])} points of win share, the median worth of "
                   f"{ref['against']}, {ref['cards']} of them measured (worth: the holder's score in the real games "
                   "less with the card blank)")
    judged = [c for c in r["cards"] if c.get("comparison")]
    for c in sorted(judged, key=lambda c: -c["comparison"]["diff"]):
        if c["verdict"] in ("too strong", "too weak"):
            b, cmp = c["blank"], c["comparison"]
            weakest = ", at its weakest: worth 0 exactly" if b.get("at_weakest") else ""
            out.append(f"{c['card']} ({c['deck']}, {c['field']} {c['value']}{weakest}): {c['verdict']} against "
                       f"{c['against']}: worth {pts(b['effect'])} points, {cmp['words']} from the reference "
                       f"(family 95%; used in {c['used_in']:,} games)")
    for verdict, say in (("in line", f"in line with"), ("not enough games to say", "not enough games to say against")):
        for against in dict.fromkeys(c["against"] for c in judged if c["verdict"] == verdict):
            cards = [c for c in judged if c["verdict"] == verdict and c["against"] == against]
            extra = ""
            if verdict == "in line":
                extra = f" (within +-{pts(margin).lstrip('+')} points of its reference, family 95%)"
            else:
                need = [c["comparison"]["games_needed"] for c in cards if c["comparison"].get("games_needed")]
                if need:
                    extra = f" (the closest needs about {min(need):,} games used to settle it)"
            out.append(f"{say} {against}{extra}: {_names(cards)}")
    if r.get("unfinished"):
        held = [c for c in r["cards"] if c["verdict"] == "not judged: the sweep is unfinished"]
        if held:
            out.append(f"not judged, the sweep is unfinished: {_names(held)}")
    for verdict, say in (("alone in its deck", "alone in its deck, no other card measured to compare with"),
                         ("never used", "never used by these bots"),
                         ("number changes nothing", "whose number changes no game (blank, the same games)"),
                         ("no main number", "with no number to make blank (their removal only, unpaired)"),
                         ("too few games", "used in fewer than 2 games")):
        names = [c["card"] for c in r["cards"] if c["verdict"] == verdict]
        if names:
            out.append(f"{say}: {', '.join(names)}")
    return out
