"""The Tales are Real records as explicit Arrow schemas: ``games`` (one row per game) and the optional
``cards`` table (one row per creature fielded and per equipment card carried, per seat and game).

Per-seat lists are indexed by seat; team = seat % 2 (2 vs. 2: seats 0+2 against 1+3). In a 2-player
game ``first_side``, ``winner_side`` and ``winner_team`` are the same seat numbers.

``RECORD_COLUMNS`` is the single source of the games record: its Arrow schema, and for the columns the
engine core fills (``core`` set) the numpy dtype of the core's ``GameRecord`` struct
(core/tales_types.pxd; docs/engine-kit.md).
"""

from __future__ import annotations

import pyarrow as pa

from sim.record_schema import Column, record_dtype, record_schema
from sim.tales.rules import TalesRules

SEATS = pa.list_(pa.int16())             # per-seat counts (weighted losses can pass 127)
MAX_SEATS = 4       # the core's seat capacity (MAXSEATS): the length of its per-seat record arrays

# (column, Arrow type, meaning[, the core's storage]): the meanings are what ``playtest columns tales``
# prints; the core fills the columns with a storage type, in this order, into GameRecord (champion: a
# creature id, end_reason: an index into sim.tales.kinds.END_REASONS)
RECORD_COLUMNS = [Column(*c) for c in [
    ("game", pa.string(), "the game: tales"),
    ("ruleset", pa.string(), "the rule preset the game's rules started from: standard, 2v2, survive or "
                             "survive-2v2"),
    ("mode", pa.string(), "standard, 2v2, survive or survive-2v2"),
    ("players", pa.int8(), "seats: 2, or 4 in 2 vs. 2"),
    ("people", pa.list_(pa.string()), "the people of each seat: animalis or schatten"),
    ("bots", pa.list_(pa.string()), "the bot spec of each seat, e.g. heuristic or random (bots, not people)"),
    ("seed", pa.uint64(), "master seed of the batch"),
    ("game_index", pa.int64(), "the game's index in its batch: (seed, game_index) replays it alone"),
    ("champion", pa.list_(pa.string()), "the Champion card of each seat", "int16"),
    ("first_side", pa.int8(), "the team that began the first battle", "int8"),
    ("winner_side", pa.int8(), "the winning seat in a 2-player game; -1: a draw, and always in 2 vs. 2"),
    ("winner_team", pa.int8(), "the winning team (seat % 2); -1: a draw", "int8"),
    ("winner_people", pa.string(), "animalis, schatten or mixed; empty on a draw"),
    ("end_reason", pa.string(), "champion_killed, losses (fewer weighted losses after the last round), draw or "
                                "last_standing (Survive!: a player of the other side, or with survive_end = team "
                                "the whole side, has no creature left)", "int8"),
    ("rounds", pa.int16(), "rounds played", "int16"),
    ("turns", pa.int32(), "turns played", "int32"),
    ("fights", pa.int32(), "attacker-defender fights (2 vs. 2: up to 2 a turn)", "int32"),
    ("weighted_losses", SEATS, "weighted losses of each seat (a normal creature loss_normal, an elite one "
                               "loss_elite)", "int16"),
    ("destroyed", SEATS, "creatures of each seat destroyed", "int16"),
    ("survivors", SEATS, "creatures of each seat on the field at the end", "int16"),
    ("champion_alive", pa.list_(pa.bool_()), "whether each seat's Champion is alive at the end", "bool"),
]]
RECORD_FIELDS = [pa.field(c.name, c.type) for c in RECORD_COLUMNS]

CARD_COLUMNS = [
    ("seed", pa.uint64(), "master seed of the batch"),
    ("game_index", pa.int64(), "the game's index in its batch"),
    ("mode", pa.string(), "standard, 2v2, survive or survive-2v2"),
    ("seat", pa.int8(), "the seat that fielded or carried the card, 0-based"),
    ("team", pa.int8(), "the seat's team (seat % 2)"),
    ("people", pa.string(), "the seat's people: animalis or schatten"),
    ("won", pa.bool_(), "the seat's team won"),
    ("draw", pa.bool_(), "the game was a draw"),
    ("kind", pa.string(), "creature or equipment"),
    ("card", pa.string(), "the card's name"),
    ("tier", pa.int8(), "the creature's tier; 0 for equipment"),
    ("champion", pa.bool_(), "the card is the seat's Champion"),
    ("survived", pa.bool_(), "on the field at the end (equipment: carried by a creature on the field)"),
    ("kills", pa.int16(), "creatures destroyed by it (equipment: by the creatures carrying it)"),
]
CARD_FIELDS = [pa.field(name, kind) for name, kind, _ in CARD_COLUMNS]
COLUMN_DOCS = {"games": {c.name: c.doc for c in RECORD_COLUMNS},
               "cards": {name: doc for name, _, doc in CARD_COLUMNS}}

SCHEMA = record_schema(RECORD_FIELDS, TalesRules)
RECORD_DTYPE = record_dtype(RECORD_COLUMNS, MAX_SEATS)   # the core's GameRecord
CARD_SCHEMA = pa.schema(CARD_FIELDS)


def to_table(records: list[dict]) -> pa.Table:
    """Game records (dicts from the reference engine) to an Arrow table with the record schema."""
    return pa.Table.from_pylist(records, schema=SCHEMA)


def cards_table(rows: list[dict]) -> pa.Table:
    return pa.Table.from_pylist(rows, schema=CARD_SCHEMA)
