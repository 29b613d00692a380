"""What each card is worth: paired ablations on common random numbers (``playtest card-worth``;
docs/card-worth.md).

The per-card tables (``tales_cards``' impact, Paws' cards table) say how often a card's holder won:
association, not cause. Here each card is changed and the same games played again (the same seed and game
index; every other card and every draw as before, so a game is the same game until the card matters):

- **blank**: the card's main number at its weakest (a heal of 0, a weapon of 0 damage, a shield that never
  blocks), the card still in the deck and held as before. Its **worth** is the holder's score in the real
  games less in the blank ones. (Taking the card out of the deck would move every later draw and compare
  different games: the blank card keeps the pairing.)
- **up** and **down**: the main number one step better and one step worse: how sensitive the card is.

The holders are the seats that used the card in the real game (Paws: played the item; Tales: carried the
equipment or fielded the creature); each holder's score (1 a win of its side, the fair share a game nobody
won, 0 a loss) is compared game by game, the holders of one game averaged, the games the card was used in
averaged: a paired mean with a normal 95% interval, and a Bonferroni interval over all the cards measured
(the family's 95%); the worth's p-values are Holm-adjusted. A card is **too strong** when its family
interval lies above the median worth of the cards, **too weak** when below it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from statistics import NormalDist
from typing import Any, Sequence

import numpy as np

from cluster.restrict import points
from sim.games import GAMES, Match
from sim.params import RuleError

Z95 = 1.959964


@dataclasses.dataclass(frozen=True)
class Knob:
    """A card's main number: the deck it is in (the card data's tuple), the field, what is better, its weakest
    value and the values it may take."""
    deck: str          # attribute of the game's card data holding the cards (items, equipment, creatures)
    kind: str          # the cards table's kind of the card (item, equipment, creature)
    field: str
    better: int        # +1: more is better; -1: less is better (a shield's block roll)
    weakest: int
    low: int
    high: int


def knob(game: str, card) -> Knob | None:
    """The main number of a card (None: the card has none to change)."""
    if game == "paws":
        if hasattr(card, "effect") and hasattr(card, "timing"):
            return Knob("items", "item", "amount", +1, 0, 0, 99) if card.amount > 0 else None
        return None
    from sim.tales.kinds import Kind
    if hasattr(card, "hand"):                                  # equipment
        if card.kind == Kind.SHIELD:
            return Knob("equipment", "equipment", "block", -1, 7, 1, 7) if card.block > 0 else None
        if card.kind == Kind.POTION:       # used from the hand: the cards table does not say who used one
            return None
        return Knob("equipment", "equipment", "damage", +1, 0, 0, 99)
    return Knob("creatures", "creature", "damage", +1, 0, 0, 99)


DECKS = {"paws": ("items",), "tales": ("equipment", "creatures")}


def cards_of(match: Match, decks: Sequence[str] | None = None) -> list[tuple[str, str]]:
    """(deck, card name) of every card with a main number, in file order."""
    out = []
    for deck in decks or DECKS[match.game]:
        for c in getattr(match.data, deck):
            if knob(match.game, c) is not None:
                out.append((deck, c.name))
    return out


def variant(match: Match, deck: str, name: str, how: str) -> Match | None:
    """The match with card ``name`` made ``how`` (blank, up, down); None when the change is not possible (a
    number already at its bound)."""
    cards = getattr(match.data, deck)
    card = next(c for c in cards if c.name == name)
    k = knob(match.game, card)
    value = getattr(card, k.field)
    new = {"blank": k.weakest, "up": value + k.better, "down": value - k.better}[how]
    if not k.low <= new <= k.high or new == value:
        return None
    changed = tuple(dataclasses.replace(c, **{k.field: new}) if c.name == name else c for c in cards)
    digest = hashlib.sha256(f"{match.data.digest}|{deck}|{name}|{k.field}={new}".encode()).hexdigest()[:16]
    return dataclasses.replace(match, data=dataclasses.replace(match.data, **{deck: changed}, digest=digest))


def _scores(match: Match, seed: int, games: int) -> tuple[dict, Any]:
    """{(game_index, seat): score} for every seat of every game, and the cards table."""
    tables = dataclasses.replace(match, tables=("games", "cards")).play_batch(seed, 0, games)
    g = GAMES[match.game]
    side_of = g.paused_game(match).side_of
    out = {}
    for rec in tables["games"].to_pylist():
        winner = g.winner(rec)
        seats = len(rec["bots"])
        sides = len({side_of(s) for s in range(seats)})
        for s in range(seats):
            out[(rec["game_index"], s)] = 1.0 / sides if winner < 0 else float(side_of(s) == winner)
    return out, tables["cards"]


def holders(cards_table, kind: str, name: str) -> dict[int, list[int]]:
    """{game_index: the seats that used the card} from a cards table (Paws items: played at least once)."""
    out: dict[int, list[int]] = {}
    for r in cards_table.to_pylist():
        if r["kind"] == kind and r["card"] == name and r.get("plays", 1) > 0:
            out.setdefault(r["game_index"], []).append(r["seat"])
    return out


def paired(base: dict, other: dict, users: dict[int, list[int]]) -> dict:
    """The holders' mean score change (other less base), per game averaged, with a normal 95% interval."""
    d = np.array([np.mean([other[(gi, s)] - base[(gi, s)] for s in seats]) for gi, seats in sorted(users.items())])
    if len(d) < 2:
        return {"games": int(len(d)), "diff": float(d.mean()) if len(d) else None, "se": None}
    return {"games": int(len(d)), "diff": float(d.mean()), "se": float(d.std(ddof=1) / math.sqrt(len(d)))}


def card_task(game_name: str, rules: str | None, overrides: dict, setup: dict, seed: int, games: int,
              deck: str, name: str, data: dict | None = None) -> dict:
    """One Ray task: one card's blank, up and down against the real games (``data``: card files)."""
    match = GAMES[game_name].resolve(rules, overrides, setup, data)
    base, table = _scores(match, seed, games)
    k = knob(game_name, next(c for c in getattr(match.data, deck) if c.name == name))
    users = holders(table, k.kind, name)
    out = {"deck": deck, "card": name, "field": k.field, "value": getattr(next(c for c in getattr(match.data, deck)
                                                                                if c.name == name), k.field),
           "used_in": len(users), "holders": sum(len(v) for v in users.values())}
    for how in ("blank", "up", "down"):
        m = variant(match, deck, name, how)
        out[how] = None if m is None or not users else paired(base, _scores(m, seed, games)[0], users)
    return out


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values."""
    order = np.argsort(pvalues)
    n = len(pvalues)
    adjusted = np.empty(n)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (n - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted.tolist()


def summarise(rows: list[dict]) -> list[dict]:
    """Each card's worth (real less blank), up and down with 95% and family (Bonferroni) intervals, the
    worth's Holm-adjusted p-value, and the verdict against the median worth."""
    measured = [r for r in rows if r["blank"] and r["blank"]["se"] is not None]
    family = NormalDist().inv_cdf(1 - 0.025 / max(1, len(measured)))
    for r in rows:
        for how in ("blank", "up", "down"):
            x = r[how]
            if x and x["se"] is not None:       # se 0: every paired game came out the same (the number changes nothing)
                sign = -1.0 if how == "blank" else 1.0         # worth = real less blank
                m = sign * x["diff"] + 0.0
                x.update(effect=m, ci95=[m - Z95 * x["se"], m + Z95 * x["se"]],
                         family_ci95=[m - family * x["se"], m + family * x["se"]],
                         p=2 * (1 - NormalDist().cdf(abs(m) / x["se"])) if x["se"] > 0 else (0.0 if m else 1.0))
    ps = holm([r["blank"]["p"] for r in measured])
    for r, p in zip(measured, ps):
        r["blank"]["p_holm"] = p
    median = float(np.median([r["blank"]["effect"] for r in measured])) if measured else 0.0
    for r in rows:
        b = r["blank"]
        if not (b and b.get("se") is not None):
            r["verdict"] = "not measured" if r["used_in"] else "never used"
        elif b["se"] == 0 and b["diff"] == 0:
            r["verdict"] = "number changes nothing"      # every paired game the same: the rules do not read it
        elif b["family_ci95"][0] > median:
            r["verdict"] = "too strong"
        elif b["family_ci95"][1] < median:
            r["verdict"] = "too weak"
        else:
            r["verdict"] = "in line"
        r["median_worth"] = median
    return rows


def card_worth(game_name: str, rules: str | None, overrides: dict, setup: dict, seed: int, games: int,
               decks: Sequence[str] | None = None, names: Sequence[str] | None = None,
               workers: int | None = None, address: str | None = None, data: dict | None = None) -> dict:
    from cluster.sweep import ray_session
    match = GAMES[game_name].resolve(rules, overrides, setup, data)
    todo = [(d, n) for d, n in cards_of(match, decks) if not names or n in names]
    if names:
        missing = sorted(set(names) - {n for _, n in todo})
        if missing:
            raise RuleError(f"--cards: {', '.join(missing)}: no such card with a number to change in "
                            f"{game_name}'s {' and '.join(decks or DECKS[game_name])}")
    with ray_session(workers, address) as ray:
        task = ray.remote(num_cpus=1)(card_task)
        rows = ray.get([task.remote(game_name, rules, overrides, setup, seed, games, d, n, data) for d, n in todo])
    bots = [str(b) for b in GAMES[game_name].setup_values(match.setup)["bots"]]
    return {"game": game_name, "rules": rules, "overrides": overrides, "setup": setup, "data": data or {},
            "data_digest": match.data_digest, "bots": bots, "seed": seed, "games": games, "cards": summarise(rows),
            "method": "each card's main number made weakest (blank), one step better (up) and worse (down), the same "
                      "games played again; the score of the seats that used the card in the real game compared game "
                      "by game; normal 95% and Bonferroni family intervals, Holm-adjusted p-values of the worth",
            "note": "bots, not people: what each card is worth to these bots' play"}


def games_to_play(n_cards: int, games: int) -> int:
    return n_cards * games * 4          # the real games (once a card) and its three variants


def sentences(r: dict) -> list[str]:
    pts = points
    rows = [c for c in r["cards"] if c["blank"] and c["blank"].get("se") is not None]
    out = [f"median worth of a card to its holder: {pts(rows[0]['median_worth']) if rows else 'n/a'} points of "
           "win share (the holder's score in the real games less with the card blank)"]
    for c in sorted(rows, key=lambda c: -c["blank"]["effect"]):
        if c["verdict"] in ("too strong", "too weak"):
            b = c["blank"]
            out.append(f"{c['card']} ({c['deck']}, {c['field']} {c['value']}): {c['verdict']}, worth {pts(b['effect'])} "
                       f"points (family 95%: {pts(b['family_ci95'][0])} to {pts(b['family_ci95'][1])}; used in "
                       f"{c['used_in']:,} games)")
    never = [c["card"] for c in r["cards"] if c["verdict"] == "never used"]
    if never:
        out.append(f"never used by these bots: {', '.join(never)}")
    idle = [c["card"] for c in r["cards"] if c["verdict"] == "number changes nothing"]
    if idle:
        out.append(f"whose number changes no game (blank, the same games): {', '.join(idle)}")
    return out
