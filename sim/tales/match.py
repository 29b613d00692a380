"""Tales are Real behind the common game interface (:mod:`sim.games`).

Setup values: ``mode`` (standard, 2v2, survive, survive-2v2; it picks the rule preset when no
``rules`` is given and the seats: 2, or 4 in 2 vs. 2), ``people`` (team 0's people, or one per seat)
and ``bots``. Data files: ``creatures`` and ``equipment``. Tables: ``games`` and the optional ``cards``.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from sim.games import GameDef, Match
from sim.params import RuleError
from sim.record_schema import with_data_columns
from sim.tales.bots import make_bots
from sim.tales.bots.heuristic import HeuristicWeights
from sim.tales.cards import CardDataError, load_cards
from sim.tales.kinds import People
from sim.tales.record import CARD_SCHEMA, COLUMN_DOCS, SCHEMA, cards_table, to_table
from sim.tales.rules import MODES, PEOPLES, PRESETS, TalesSetup, people_of, preset


def bot_specs(bots: Any, seats: int) -> tuple[str, ...]:
    """Bots as one spec per seat: a comma-separated string or a list; a single spec fills every seat."""
    if bots is None:
        bots = "heuristic"
    specs = [s.strip() for s in bots.split(",")] if isinstance(bots, str) else [str(s).strip() for s in bots]
    if len(specs) == 1:
        specs = specs * seats
    return tuple(specs)


def resolve(rules: str | None, overrides: dict, setup: dict, data: dict, tables: tuple, where: str) -> Match:
    mode = setup.get("mode", "standard")
    if mode not in MODES:
        raise RuleError(f"{where}: mode {mode!r} is not allowed; expected one of {', '.join(MODES)}")
    seats = 4 if "2v2" in mode else 2
    s = TalesSetup(mode=mode, people=people_of(setup.get("people"), seats, where=f"{where}: people"),
                   bots=bot_specs(setup.get("bots"), seats))
    make_bots(s.bots)
    r = preset(rules or mode, overrides, where)
    cards = load_cards(data.get("creatures"), data.get("equipment"))
    for people in {People[p.upper()] for p in s.people}:
        deck = len(cards.creature_deck(people))
        if deck < r.first_draw:
            raise CardDataError(f"{cards.creatures_path}: {deck} {people.name.lower()} non-Champion cards; "
                                f"first_draw = {r.first_draw} needs at least that many")
    return Match("tales", s, r, cards, tables)


def play_batch(m: Match, seed: int, start: int, count: int, engine: str) -> dict[str, pa.Table]:
    if engine == "core":
        from sim.tales.core_engine import play_batch_core
        return play_batch_core(m.setup, m.rules, m.data, seed, start, count, want_cards="cards" in m.tables)
    from sim.tales.game import play_game
    stats: list | None = [] if "cards" in m.tables else None
    games = [play_game(m.setup, m.rules, seed, i, m.data, stats=stats) for i in range(start, start + count)]
    out = {"games": to_table(games)}
    if stats is not None:
        out["cards"] = cards_table(stats)
    return out


def play_one(m: Match, seed: int, game_index: int, log: list[str] | None) -> dict:
    from sim.tales.game import play_game
    return play_game(m.setup, m.rules, seed, game_index, m.data, log=log)


def setup_values(s: TalesSetup) -> dict:
    return {"mode": s.mode, "people": list(s.people), "bots": list(s.bots)}


TALES = GameDef(
    name="tales", title="Tales are Real: Animalis vs. Schatten",
    presets=tuple(PRESETS), default_preset="standard",
    setup_keys={"mode": f"one of {', '.join(MODES)} (picks the rule preset unless rules are given)",
                "people": f"team 0's people ({' or '.join(PEOPLES)}; team 1 plays the other), or one per seat",
                "bots": "one bot spec per seat (random, heuristic, heuristic:aggression=3), or one for all"},
    data_keys={"creatures": "creature cards TOML (both peoples)", "equipment": "equipment deck TOML"},
    schemas={"games": with_data_columns(SCHEMA), "cards": CARD_SCHEMA},
    resolve_fn=resolve, play_batch_fn=play_batch, play_one_fn=play_one, setup_values_fn=setup_values,
    rule_presets=PRESETS, bot_weights=HeuristicWeights, column_docs=COLUMN_DOCS,
)
