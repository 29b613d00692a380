"""Paws in Peril behind the common game interface (:mod:`sim.games`)."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from sim.games import GameDef, Match
from sim.params import RuleError
from sim.record_schema import with_data_columns
from sim.paws.bots import make_bots
from sim.paws.bots.heuristic import HeuristicWeights
from sim.paws.cards import load_cards
from sim.paws.record import COLUMN_DOCS, SCHEMA, to_table
from sim.paws.rules import BOARDS, MODES, PRESETS, PawsSetup, preset


def bot_specs(bots: Any, players: int) -> tuple[str, ...]:
    """Bots as one spec per seat: a comma-separated string or a list; a single spec fills every seat."""
    if bots is None:
        bots = "heuristic"
    specs = [s.strip() for s in bots.split(",")] if isinstance(bots, str) else [str(s).strip() for s in bots]
    if len(specs) == 1:
        specs = specs * players
    return tuple(specs)


def _int(value: Any, name: str, where: str) -> int:
    try:
        if isinstance(value, bool) or isinstance(value, float) and not value.is_integer():
            raise ValueError
        n = int(value)
    except (TypeError, ValueError, OverflowError):
        n = None
    if n not in (2, 3, 4):      # checked before anything is sized by it (one bot spec per seat)
        raise RuleError(f"{where}: {name} = {value!r} is not allowed; expected 2, 3 or 4") from None
    return n


def resolve(rules: str | None, overrides: dict, setup: dict, data: dict, tables: tuple, where: str) -> Match:
    players = _int(setup.get("players", 4), "players", where)
    s = PawsSetup(board=setup.get("board", "beginner"), mode=setup.get("mode", "ffa"), players=players,
                  bots=bot_specs(setup.get("bots"), players))
    make_bots(s.bots)
    r = preset(rules or "v4", overrides, where)
    cards = load_cards(data.get("items"), data.get("monsters"))
    return Match("paws", s, r, cards, tables)


def play_batch(m: Match, seed: int, start: int, count: int, engine: str) -> dict[str, pa.Table]:
    if engine == "core":
        from sim.paws.core_engine import play_batch_core
        return {"games": play_batch_core(m.setup, m.rules, m.data, seed, start, count)}
    from sim.paws.game import play_game
    return {"games": to_table([play_game(m.setup, m.rules, seed, i, m.data) for i in range(start, start + count)])}


def play_one(m: Match, seed: int, game_index: int, log: list[str] | None) -> dict:
    from sim.paws.game import play_game
    return play_game(m.setup, m.rules, seed, game_index, m.data, log=log)


def setup_values(s: PawsSetup) -> dict:
    return {"board": s.board, "mode": s.mode, "players": s.players, "bots": list(s.bots)}


PAWS = GameDef(
    name="paws", title="Paws in Peril",
    presets=tuple(PRESETS), default_preset="v4",
    setup_keys={"board": f"one of {', '.join(BOARDS)}", "mode": f"one of {', '.join(MODES)}",
                "players": "2, 3 or 4 (teams: 4)",
                "bots": "one bot spec per seat (random, heuristic, heuristic:aggression=3), or one for all"},
    data_keys={"items": "item deck TOML", "monsters": "monster deck TOML"},
    schemas={"games": with_data_columns(SCHEMA)},
    resolve_fn=resolve, play_batch_fn=play_batch, play_one_fn=play_one, setup_values_fn=setup_values,
    rule_presets=PRESETS, bot_weights=HeuristicWeights, column_docs=COLUMN_DOCS,
)
