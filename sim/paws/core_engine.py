"""Drive the Cython engine core: validated parameters in, an Arrow table with the record schema out."""

from __future__ import annotations

import dataclasses

import numpy as np
import pyarrow as pa

from sim.bots import BOT_KINDS
from sim.games import BatchOptions, BatchRequest, EngineError
from sim.kit import trace, winprob
from sim.kit.batch import play_core
from sim.params import fields
from sim.paws.board import FAR, NO_CELL, geometry
from sim.paws.bots import ROSTER
from sim.paws.bots.heuristic import FORBIDDEN, HeuristicWeights
from sim.paws.cards import CardSet, ItemCard, MonsterCard
from sim.paws.kinds import Action, Buff, Decision, Effect, Tile, Timing
from sim.paws.record import (CARD_KINDS, CARD_SCHEMA, END_REASONS, MAX_SEATS, MONSTER_COUNTERS, RECORD_COLUMNS,
                             RECORD_DTYPE, SCHEMA)
from sim.paws.rules import DICE_STREAMS, PawsRules, PawsSetup
from sim.paws.state import NOBODY
from sim.record_schema import core_columns, record_table, seat_lists

NOT_IN_CORE = ("ruleset", "item_deck")   # strings: resolved before the core (the deck is passed as card ids)
# the card fields the core plays with, in the order of its ItemSpec / MonsterSpec structs (the others
# are resolved before the core or only describe the card)
ITEM_FIELDS = ("timing", "effect", "amount", "turns")
MONSTER_FIELDS = ("hp", "buff", "amount")
FIGHT_KINDS = ("monster", "invasion", "raid")   # sim.paws.state.Fight.kind, as the core's F_* index


def _card_fields(cls: type, names: tuple[str, ...]) -> list[dataclasses.Field]:
    by_name = {f.name: f for f in dataclasses.fields(cls)}
    return [by_name[n] for n in names]


# What the core's C declarations (core/paws_types.pxd) must be, by their Python source of truth:
# tests/test_core_declarations.py parses the .pxd and holds it to this. structs: the fields each struct
# has, in order (rule and weight parameters, card fields, record columns); enums: each C prefix's
# constants are the names of an IntEnum (value: its value) or of a sequence (value: the index);
# constants: single C constants and their Python twins; record: the module's GameRecord dtype.
DECLARATIONS = {
    "pxd": "core/paws_types.pxd",
    "module": "core.paws_engine",
    "structs": {
        "Rules": [f for f in fields(PawsRules) if f.name not in NOT_IN_CORE],
        "Weights": fields(HeuristicWeights),
        "ItemSpec": _card_fields(ItemCard, ITEM_FIELDS),
        "MonsterSpec": _card_fields(MonsterCard, MONSTER_FIELDS),
        "GameRecord": [c for c in RECORD_COLUMNS if c.core],
    },
    "enums": {"T_": Tile, "TIMING_": Timing, "E_": Effect, "B_": Buff, "A_": Action, "D_": Decision,
              "F_": FIGHT_KINDS, "R_": END_REASONS, "BOT_": BOT_KINDS, "MC_": MONSTER_COUNTERS,
              "DS_": DICE_STREAMS},
    "constants": {"MAXP": MAX_SEATS, "NOBODY": NOBODY, "NO_CELL": NO_CELL, "FAR": FAR, "FORBIDDEN": FORBIDDEN,
                  "N_MC": len(MONSTER_COUNTERS)},
    "record_dtype": RECORD_DTYPE,
}


class CoreError(EngineError):
    """The core could not play a game (an option list overflowed its fixed capacity), or lacks a parameter."""


def _known(what: str, names, core_names) -> None:
    unknown = sorted(set(names) - set(core_names))
    if unknown:
        raise CoreError(f"the Paws in Peril core does not know the {what} {', '.join(unknown)}; "
                        f"use --engine reference (engine='reference') until core/paws_types.pxd has them")


def core_inputs(setup: PawsSetup, rules: PawsRules, cards: CardSet) -> dict:
    """Everything the core needs, as plain ints and lists (after validation by the frozen objects)."""
    from core.paws_engine import RULE_FIELDS, SEARCH_FIELDS, WEIGHT_FIELDS
    bots = ROSTER.core_bots(setup.bots, WEIGHT_FIELDS, SEARCH_FIELDS, _known)
    # a number or switch as it is, a choice (dice_stream) as the index of its value
    values = {f.name: (f.metadata["choices"].index(getattr(rules, f.name)) if f.metadata["choices"]
                       else int(getattr(rules, f.name))) for f in fields(rules) if f.name not in NOT_IN_CORE}
    _known("rule parameter(s)", values, RULE_FIELDS)
    radius = 2 if setup.board == "beginner" else rules.explorer_radius
    _, nbrs = geometry(radius)
    return dict(
        rules=values, explorer=setup.board == "explorer", teams=setup.mode == "teams", players=setup.players,
        bots=bots,
        items=[tuple(int(getattr(c, f)) for f in ITEM_FIELDS) for c in cards.items],
        monsters=[tuple(int(getattr(c, f)) for f in MONSTER_FIELDS) for c in cards.monsters],
        item_deck=cards.item_deck(rules.item_deck, rules.unruled_cards), monster_deck=cards.monster_deck(),
        nbrs=[list(n) for n in nbrs], record_dtype=RECORD_DTYPE)


def _strings(index: np.ndarray, names: list[str]) -> pa.Array:
    """``names[index]`` as a plain string column (through a dictionary, no per-row Python)."""
    return pa.DictionaryArray.from_arrays(pa.array(index.astype(np.int32)), pa.array(names)).cast(pa.string())


def cards_table(setup: PawsSetup, cards: CardSet, master_seed: int, start: int, records: np.ndarray,
                rows: np.ndarray) -> pa.Table:
    """The cards table from the core's rows (CARD_ROW_DTYPE: game offset, seat, kind, card id, counters)."""
    m = len(rows)
    game, seat, kind = rows["game"], rows["seat"].astype(np.int8), rows["kind"]
    card = rows["card"].astype(np.int64)
    teams = setup.mode == "teams"
    won = (records["winner_team"][game] == seat % 2) if teams else (records["winner_seat"][game] == seat)
    # item ids and monster ids index one name list: monster ids after the items
    names = [c.name for c in cards.items] + [c.name for c in cards.monsters]
    cols = {
        "seed": pa.repeat(pa.scalar(master_seed, pa.uint64()), m),
        "game_index": start + game.astype(np.int64),
        "mode": pa.repeat(setup.mode, m),
        "seat": seat,
        "team": seat % 2 if teams else np.full(m, -1, np.int8),
        "won": won,
        "kind": _strings(kind, list(CARD_KINDS)),
        "card": _strings(np.where(kind == 0, card, card + len(cards.items)), names),
        "plays": rows["plays"],
    }
    for k, name in enumerate(MONSTER_COUNTERS):
        cols[name] = np.ascontiguousarray(rows["counts"][:, k])
    arrays = [cols[f.name] if isinstance(cols[f.name], pa.Array) else pa.array(cols[f.name], f.type)
              for f in CARD_SCHEMA]
    return pa.Table.from_arrays(arrays, schema=CARD_SCHEMA)


def _play(request: BatchRequest, cannot: str) -> tuple[BatchOptions, dict]:
    """The core's options and output for ``request`` (sim.kit.batch.play_core)."""
    from core.paws_engine import play_batch
    inputs = core_inputs(request.setup, request.rules, request.data)
    return play_core(play_batch, inputs, request, CoreError, "Paws in Peril", cannot)


def play_batch_core(request: BatchRequest, counts: dict | None = None) -> pa.Table | dict[str, pa.Table]:
    """Play the games of ``request`` in the core and return their records; with the cards or decisions table or
    an oracle (the win_prob table) among its match's tables, {"games": records, "cards": the cards table,
    "decisions": the decision traces, "win_prob": each seat's chance by the oracle's value head as every turn
    begins and at the end} (the tables asked for) instead. ``counts``, if given, gains the batch's
    top-level ``decisions``, the ``searches`` (those a search bot took), their ``rollouts``
    (simulations) and ``engine_s``, the processor seconds spent playing the games (the rest of the call
    builds the Arrow table)."""
    o, out = _play(request, "; use --engine reference")
    if counts is not None:
        for key in ("decisions", "searches", "rollouts", "engine_s"):
            counts[key] = counts.get(key, 0) + out[key]
    setup, rules, seed, start, count = request.setup, request.rules, request.seed, request.start, request.count
    records, p = out["records"], setup.players
    cols = core_columns(records, RECORD_COLUMNS, p, {"end_reason": END_REASONS})
    trace_offsets = np.concatenate([[0], np.cumsum(records["rounds"], dtype=np.int64)]).astype(np.int32)
    cols["vp_trace"] = pa.ListArray.from_arrays(pa.array(trace_offsets),
                                                seat_lists(out["vp_trace"][:, :p], pa.int8()))
    cols["game_index"] = pa.array(np.arange(start, start + count, dtype=np.int64))
    constants = dict(game="paws", ruleset=rules.ruleset, board=setup.board, mode=setup.mode, players=p,
                     bots=list(setup.bots), seed=seed)
    games = record_table(SCHEMA, count, cols, constants, rules)
    if not (o.cards or o.trace or o.oracle_weights is not None):
        return games
    tables = {"games": games}
    if o.cards:
        tables["cards"] = cards_table(setup, request.data, seed, start, records, out["cards"])
    if o.trace:
        tables[trace.TABLE] = trace.core_table(seed, start, out["trace"], out["trace_starts"])
    if o.oracle_weights is not None:
        tables[winprob.TABLE] = winprob.core_table(seed, start, out["win_prob"], p)
    return tables


def play_samples(request: BatchRequest) -> dict[str, np.ndarray]:
    """The games of ``request`` (its ``samples`` set) in the core, their search bots' decisions as the learned bots'
    training samples: {"options": a row per option of each searched decision (its features, its share of the
    search, whether it was chosen), "seats": a row per seat at each such decision (its features), "outcome": per
    game and seat, its share of the win (1 for the winner, each Teams winner 1/2, 1/n each when nobody won)}."""
    _, out = _play(request, "")
    setup, count = request.setup, request.count
    recs, n = out["records"], setup.players
    outcome = np.full((count, n), 1.0 / n)
    for i in range(count):
        if setup.mode == "teams" and recs["winner_team"][i] >= 0:
            outcome[i] = [0.5 if s % 2 == recs["winner_team"][i] else 0.0 for s in range(n)]
        elif setup.mode != "teams" and recs["winner_seat"][i] >= 0:
            outcome[i] = [1.0 if s == recs["winner_seat"][i] else 0.0 for s in range(n)]
    return {"options": out["option_samples"], "seats": out["seat_samples"], "outcome": outcome}
