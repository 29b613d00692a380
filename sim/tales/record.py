"""The Tales are Real records as explicit Arrow schemas: ``games`` (one row per game) and the optional
``cards`` table (one row per creature fielded and per equipment card carried, per seat and game).

Per-seat lists are indexed by seat; team = seat % 2 (2 vs. 2: seats 0+2 against 1+3). In a 2-player
game ``first_side``, ``winner_side`` and ``winner_team`` are the same seat numbers.
"""

from __future__ import annotations

import pyarrow as pa

from sim.record_schema import record_schema
from sim.tales.rules import TalesRules

SEATS = pa.list_(pa.int16())             # per-seat counts (weighted losses can pass 127)

RECORD_FIELDS = [
    pa.field("game", pa.string()),
    pa.field("ruleset", pa.string()),
    pa.field("mode", pa.string()),                    # standard, 2v2, survive, survive-2v2
    pa.field("players", pa.int8()),                   # seats: 2, or 4 in 2 vs. 2
    pa.field("people", pa.list_(pa.string())),        # people per seat: animalis / schatten
    pa.field("bots", pa.list_(pa.string())),          # bot spec per seat
    pa.field("seed", pa.uint64()),                    # master seed of the batch
    pa.field("game_index", pa.int64()),
    pa.field("champion", pa.list_(pa.string())),      # Champion card per seat
    pa.field("first_side", pa.int8()),                # team that began the first battle
    pa.field("winner_side", pa.int8()),               # winning seat in a 2-player game; -1 draw / 2 vs. 2
    pa.field("winner_team", pa.int8()),               # -1: draw
    pa.field("winner_people", pa.string()),           # animalis, schatten, mixed; "" on a draw
    pa.field("end_reason", pa.string()),              # champion_killed, losses, draw, last_standing
    pa.field("rounds", pa.int16()),
    pa.field("turns", pa.int32()),
    pa.field("fights", pa.int32()),                   # attacker-defender fights (2 vs. 2: up to 2 a turn)
    pa.field("weighted_losses", SEATS),               # per seat (normal loss_normal, elite loss_elite)
    pa.field("destroyed", SEATS),                     # creatures destroyed per seat
    pa.field("survivors", SEATS),                     # creatures on the field per seat at the end
    pa.field("champion_alive", pa.list_(pa.bool_())),  # per seat
]

CARD_FIELDS = [
    pa.field("seed", pa.uint64()),
    pa.field("game_index", pa.int64()),
    pa.field("mode", pa.string()),
    pa.field("seat", pa.int8()),
    pa.field("team", pa.int8()),
    pa.field("people", pa.string()),
    pa.field("won", pa.bool_()),                      # the seat's team won
    pa.field("draw", pa.bool_()),
    pa.field("kind", pa.string()),                    # creature or equipment
    pa.field("card", pa.string()),
    pa.field("tier", pa.int8()),                      # creatures; 0 for equipment
    pa.field("champion", pa.bool_()),
    pa.field("survived", pa.bool_()),                 # on the field (equipment: carried) at the end
    pa.field("kills", pa.int16()),                    # creatures destroyed by it (equipment: by its carriers)
]

SCHEMA = record_schema(RECORD_FIELDS, TalesRules)
CARD_SCHEMA = pa.schema(CARD_FIELDS)


def to_table(records: list[dict]) -> pa.Table:
    """Game records (dicts from the reference engine) to an Arrow table with the record schema."""
    return pa.Table.from_pylist(records, schema=SCHEMA)


def cards_table(rows: list[dict]) -> pa.Table:
    return pa.Table.from_pylist(rows, schema=CARD_SCHEMA)
