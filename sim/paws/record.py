"""The Paws in Peril game record as an explicit Arrow schema (one row per game)."""

from __future__ import annotations

import pyarrow as pa

from sim.record_schema import record_schema
from sim.paws.rules import PawsRules

SEATS = pa.list_(pa.int8())

RECORD_FIELDS = [
    pa.field("game", pa.string()),
    pa.field("ruleset", pa.string()),
    pa.field("board", pa.string()),
    pa.field("mode", pa.string()),
    pa.field("players", pa.int8()),
    pa.field("bots", pa.list_(pa.string())),          # bot spec per seat
    pa.field("seed", pa.uint64()),                    # master seed of the batch
    pa.field("game_index", pa.int64()),
    pa.field("first_seat", pa.int8()),
    pa.field("winner_seat", pa.int8()),               # -1: none (and always -1 in Teams)
    pa.field("winner_team", pa.int8()),               # -1: none (and always -1 in free-for-all)
    pa.field("end_reason", pa.string()),              # vp, last_alive, round_limit, stalled
    pa.field("rounds", pa.int16()),
    pa.field("turns", pa.int32()),
    pa.field("vp", SEATS),                            # per seat, at the end
    pa.field("buildings", SEATS),                     # homes + mansions owned per seat
    pa.field("lives_left", SEATS),                    # lives left per seat
    pa.field("knockouts", SEATS),                     # times each seat was knocked out
    pa.field("knockouts_dealt", SEATS),               # knockouts each seat caused
    pa.field("building_fights", pa.int32()),
    pa.field("invasions", pa.int32()),
    pa.field("raids", pa.int32()),
    pa.field("items_played", pa.int32()),
    pa.field("vp_trace", pa.list_(SEATS)),            # VP per seat after each round (the last may be partial)
]

SCHEMA = record_schema(RECORD_FIELDS, PawsRules)


def to_table(records: list[dict]) -> pa.Table:
    """Records (dicts from the reference engine) to an Arrow table with the record schema."""
    return pa.Table.from_pylist(records, schema=SCHEMA)
