"""Drive the Tales are Real engine core: validated parameters in, Arrow tables with the record schemas out."""

from __future__ import annotations

import dataclasses

import numpy as np
import pyarrow as pa

from sim.bots import BOT_KINDS
from sim.games import BatchOptions, BatchRequest, EngineError
from sim.kit import trace, winprob
from sim.kit.batch import play_core
from sim.params import fields
from sim.record_schema import core_columns, record_table
from sim.tales.bots import ROSTER
from sim.tales.bots.heuristic import FORBID_POTION, FORBIDDEN, HeuristicWeights
from sim.tales.cards import Creature, Equipment, TalesCards
from sim.tales.kinds import END_REASONS, Ability, Act, Decision, Effect, Hand, Kind, People
from sim.tales.record import CARD_SCHEMA, MAX_SEATS, RECORD_COLUMNS, RECORD_DTYPE, SCHEMA
from sim.tales.rules import TalesRules, TalesSetup
from sim.tales.state import EMPTY, NOBODY

CARD_KINDS = ("creature", "equipment")
# the card fields the core plays with, in the order of its CreatureSpec / EquipSpec structs
# (the others, id, name, copies, source and text, are resolved before the core)
CREATURE_FIELDS = ("people", "damage", "life", "people_chance", "tier", "ability", "ability_chance", "ability_amount",
                   "points")
EQUIPMENT_FIELDS = ("kind", "hand", "damage", "life", "block", "armor", "effect", "amount", "duration", "points")


def _card_fields(cls: type, names: tuple[str, ...]) -> list[dataclasses.Field]:
    by_name = {f.name: f for f in dataclasses.fields(cls)}
    return [by_name[n] for n in names]


def _choices(name: str) -> tuple:
    return next(f.metadata["choices"] for f in fields(TalesRules) if f.name == name)


# What the core's C declarations (core/tales_types.pxd) must be, by their Python source of truth:
# tests/test_core_declarations.py parses the .pxd and holds it to this. structs: the fields each struct
# has, in order (rule and weight parameters, card fields, record columns); enums: each C prefix's
# constants are the names of an IntEnum (value: its value) or of a sequence (value: the index; a
# choice-valued rule parameter is passed as the index of its value); constants: single C constants and
# their Python twins; record_dtype: the module's GameRecord dtype.
DECLARATIONS = {
    "pxd": "core/tales_types.pxd",
    "module": "core.tales_engine",
    "structs": {
        "Rules": [f for f in fields(TalesRules) if f.name != "ruleset"],
        "Weights": fields(HeuristicWeights),
        "CreatureSpec": _card_fields(Creature, CREATURE_FIELDS),
        "EquipSpec": _card_fields(Equipment, EQUIPMENT_FIELDS),
        "GameRecord": [c for c in RECORD_COLUMNS if c.core],
    },
    "enums": {"P_": People, "AB_": Ability, "K_": Kind, "H_": Hand, "E_": Effect, "D_": Decision, "ACT_": Act,
              "R_": END_REASONS, "BOT_": BOT_KINDS, "POTION_LASTS_": _choices("potion_lasts"),
              "SURVIVE_END_": _choices("survive_end")},
    "constants": {"MAXSEATS": MAX_SEATS, "EMPTY": EMPTY, "NOBODY": NOBODY, "FORBIDDEN": FORBIDDEN,
                  "FORBID_POTION": FORBID_POTION},
    "record_dtype": RECORD_DTYPE,
}


class CoreError(EngineError):
    """The core could not play a game (an option list overflowed its fixed capacity)."""


def _known(what: str, names, core_names) -> None:
    unknown = sorted(set(names) - set(core_names))
    if unknown:
        raise CoreError(f"the Tales are Real core does not know the {what} {', '.join(unknown)}; "
                        f"use --engine reference (engine='reference') until core/tales_types.pxd has them")


def _as_int(f, value, core_choices: dict) -> int:
    """A rule value as the core takes it: a number, a bool as 0/1, a choice as its index in the core's choices."""
    if f.metadata["choices"] is None:
        return int(value)
    if tuple(f.metadata["choices"]) != core_choices.get(f.name):
        raise CoreError(f"the Tales are Real core reads {f.name} as one of {core_choices.get(f.name)}, the rules as "
                        f"one of {f.metadata['choices']}; rebuild the core or use --engine reference")
    return core_choices[f.name].index(value)


def core_inputs(setup: TalesSetup, rules: TalesRules, cards: TalesCards) -> dict:
    """Everything the core needs, as plain ints and lists (after validation by the frozen objects)."""
    from core.tales_engine import CHOICES, RULE_FIELDS, SEARCH_FIELDS, WEIGHT_FIELDS
    bots = ROSTER.core_bots(setup.bots, WEIGHT_FIELDS, SEARCH_FIELDS, _known)
    values = {f.name: _as_int(f, getattr(rules, f.name), CHOICES) for f in fields(rules) if f.name != "ruleset"}
    _known("rule parameter(s)", values, RULE_FIELDS)
    return dict(
        rules=values,
        players=setup.seats, people=[int(People[p.upper()]) for p in setup.people], bots=bots,
        creatures=[tuple(int(getattr(c, f)) for f in CREATURE_FIELDS) for c in cards.creatures],
        equipment=[tuple(int(getattr(e, f)) for f in EQUIPMENT_FIELDS) for e in cards.equipment],
        champions=[cards.champions(p) for p in People], people_decks=[cards.creature_deck(p) for p in People],
        equipment_deck=cards.equipment_deck(), record_dtype=RECORD_DTYPE)


def _strings(index: np.ndarray, names: list[str]) -> pa.Array:
    """``names[index]`` as a plain string column (through a dictionary, no per-row Python)."""
    return pa.DictionaryArray.from_arrays(pa.array(index.astype(np.int32)), pa.array(names)).cast(pa.string())


def _team_people(setup: TalesSetup, team: int) -> str:
    names = {setup.people[s] for s in range(setup.seats) if s % 2 == team}
    return names.pop() if len(names) == 1 else "mixed"


def games_table(setup: TalesSetup, rules: TalesRules, cards: TalesCards, master_seed: int, start: int,
                records: np.ndarray) -> pa.Table:
    """The games table from the core's records (a numpy array of RECORD_DTYPE)."""
    n, p = len(records), setup.seats
    winner = records["winner_team"]
    cols = core_columns(records, RECORD_COLUMNS, p, {"champion": [c.name for c in cards.creatures],
                                                      "end_reason": END_REASONS})
    cols["game_index"] = pa.array(np.arange(start, start + n, dtype=np.int64))
    cols["winner_side"] = pa.array(np.ascontiguousarray(winner) if p == 2 else np.full(n, -1, np.int8), pa.int8())
    # index 2 is "" (a draw): winner -1 maps there
    cols["winner_people"] = _strings(np.where(winner < 0, 2, winner), [_team_people(setup, 0),
                                                                       _team_people(setup, 1), ""])
    constants = dict(game="tales", ruleset=rules.ruleset, mode=setup.mode, players=p, people=list(setup.people),
                     bots=list(setup.bots), seed=master_seed)
    return record_table(SCHEMA, n, cols, constants, rules)


def cards_table(setup: TalesSetup, cards: TalesCards, master_seed: int, start: int, winner: np.ndarray,
                rows: np.ndarray, mode: str) -> pa.Table:
    """The card table from the core's rows (game offset, seat, kind, card id, champion, survived, kills)."""
    m = len(rows)
    game, seat, kind, card = rows["game"], rows["seat"], rows["kind"], rows["card"].astype(np.int64)
    won_team = winner[game]
    creature = kind == 0
    # creature ids and equipment ids index one name list: equipment ids after the creatures
    n_cre = len(cards.creatures)
    names = [c.name for c in cards.creatures] + [e.name for e in cards.equipment]
    tiers = np.array([c.tier for c in cards.creatures] + [0] * len(cards.equipment), np.int16)
    flat = np.where(creature, card, card + n_cre)
    seat_people = np.array([int(People[p.upper()]) for p in setup.people], np.int8)
    cols = {
        "seed": pa.repeat(pa.scalar(master_seed, pa.uint64()), m),
        "game_index": start + game.astype(np.int64),
        "mode": pa.repeat(mode, m),
        "seat": seat,
        "team": seat % 2,
        "people": _strings(seat_people[seat], [p.name.lower() for p in People]),
        "won": won_team == seat % 2,
        "draw": won_team < 0,
        "kind": _strings(kind, list(CARD_KINDS)),
        "card": _strings(flat, names),
        "tier": tiers[flat],
        "champion": rows["champion"].astype(bool),
        "survived": rows["survived"].astype(bool),
        "kills": rows["kills"],
    }
    arrays = [cols[f.name] if isinstance(cols[f.name], pa.Array) else pa.array(cols[f.name], f.type)
              for f in CARD_SCHEMA]
    return pa.Table.from_arrays(arrays, schema=CARD_SCHEMA)


def _play(request: BatchRequest, cannot: str) -> tuple[dict, BatchOptions, dict]:
    """The core's inputs, options and output for ``request`` (sim.kit.batch.play_core)."""
    from core.tales_engine import play_batch
    inputs = core_inputs(request.setup, request.rules, request.data)
    return (inputs, *play_core(play_batch, inputs, request, CoreError, "Tales are Real", cannot))


def play_batch_core(request: BatchRequest, counts: dict | None = None) -> dict[str, pa.Table]:
    """Play the games of ``request`` in the core: {"games": table} (and "cards", "decisions": the decision traces,
    if its match's tables ask for them, and with an oracle, a learned Model, "win_prob": each seat's chance by its
    value head as every battle turn begins and at the end); ``counts``, if given, gains the batch's top-level
    ``decisions``, the ``searches`` (those a search bot took) and their ``rollouts`` (simulations)."""
    inputs, o, out = _play(request, "; use --engine reference")
    if counts is not None:
        for key in ("decisions", "searches", "rollouts"):
            counts[key] = counts.get(key, 0) + out[key]
    setup, cards, seed, start = request.setup, request.data, request.seed, request.start
    records = out["records"]
    tables = {"games": games_table(setup, request.rules, cards, seed, start, records)}
    if o.cards:
        tables["cards"] = cards_table(setup, cards, seed, start, records["winner_team"], out["cards"], setup.mode)
    if o.trace:
        tables[trace.TABLE] = trace.core_table(seed, start, out["trace"], out["trace_starts"])
    if o.oracle_weights is not None:
        tables[winprob.TABLE] = winprob.core_table(seed, start, out["win_prob"], inputs["players"])
    return tables


def play_samples(request: BatchRequest) -> dict[str, np.ndarray]:
    """The games of ``request`` (its ``samples`` set) in the core, their search bots' decisions as the learned bots'
    training samples (as sim.paws.core_engine.play_samples): each winning team's commanders share the win, a draw
    is 1/n for each commander."""
    _, _, out = _play(request, "")
    n, winner = request.setup.seats, out["records"]["winner_team"]
    outcome = np.full((request.count, n), 1.0 / n)
    team = np.arange(n) % 2
    for i in range(request.count):
        if winner[i] >= 0:
            outcome[i] = (team == winner[i]) / (team == winner[i]).sum()
    return {"options": out["option_samples"], "seats": out["seat_samples"], "outcome": outcome}
