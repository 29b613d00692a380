"""The Paws in Peril game record as an explicit Arrow schema (one row per game).

``RECORD_COLUMNS`` is the single source of the record: its Arrow schema, and for the columns the engine
core fills (``core`` set) the numpy dtype of the core's ``GameRecord`` struct (core/paws_types.pxd).
Adding a counter is one column here (with ``core``), one field of GameRecord, and the lines that count
it in both engines (docs/engine-kit.md).
"""

from __future__ import annotations

import pyarrow as pa

from sim.record_schema import Column, record_dtype, record_schema
from sim.paws.rules import PawsRules

SEATS = pa.list_(pa.int8())
MAX_SEATS = 4       # the core's seat capacity (MAXP): the length of its per-seat record arrays
# end_reason's values; the core stores the index (its R_* constants)
END_REASONS = ("vp", "last_alive", "round_limit", "stalled")

# (column, Arrow type, meaning[, the core's storage]): the meanings are what ``playtest columns paws``
# prints; the core fills the columns with a storage type, in this order, into GameRecord
RECORD_COLUMNS = [Column(*c) for c in [
    ("game", pa.string(), "the game: paws"),
    ("ruleset", pa.string(), "the rule preset the game's rules started from: v3, v3-ap3 or v4"),
    ("board", pa.string(), "beginner or explorer (§2.1)"),
    ("mode", pa.string(), "ffa (free-for-all) or teams (§1: seats 1+3 against 2+4)"),
    ("players", pa.int8(), "number of players: 2, 3 or 4 (Teams: 4)"),
    ("bots", pa.list_(pa.string()), "the bot spec of each seat, e.g. heuristic or random (bots, not people)"),
    ("seed", pa.uint64(), "master seed of the batch"),
    ("game_index", pa.int64(), "the game's index in its batch: (seed, game_index) replays it alone"),
    ("first_seat", pa.int8(), "seat of the first player (§2.5: the highest roll), 0-based", "int8"),
    ("winner_seat", pa.int8(), "the winning seat, 0-based; -1: no winner (and always -1 in Teams)", "int8"),
    ("winner_team", pa.int8(), "the winning team (0: seats 0+2, 1: seats 1+3); -1: none (always -1 in ffa)",
     "int8"),
    ("end_reason", pa.string(), "vp (a player or team reached the VP target, §13), last_alive (the others are "
                                "out of lives), round_limit (the round_limit rule ended it) or stalled (no "
                                "winner after max_rounds)", "int8"),
    ("rounds", pa.int16(), "rounds played (the last may be partial)", "int16"),
    ("turns", pa.int32(), "turns played", "int32"),
    ("idle_turns", pa.int32(), "turns in which the player took no action (§3): ended the turn at once, had no "
                               "AP, or was knocked out by poison at its start", "int32"),
    ("vp", SEATS, "VP of each seat at the end", "int8"),
    ("buildings", SEATS, "homes + mansions each seat owns at the end", "int8"),
    ("lives_left", SEATS, "lives each seat has left at the end", "int8"),
    ("knockouts", SEATS, "times each seat was knocked out (§8)", "int8"),
    ("knockouts_dealt", SEATS, "knockouts each seat caused", "int8"),
    ("building_fights", pa.int32(), "home and mansion fights (loot or invasion) in the game", "int32"),
    ("invasions", pa.int32(), "home invasions in the game (§6)", "int32"),
    ("raids", pa.int32(), "raids in the game (§7)", "int32"),
    ("items_played", pa.int32(), "item cards played in the game (§10)", "int32"),
    ("vp_trace", pa.list_(SEATS), "VP of each seat after each round: vp_trace[r][s + 1] is seat s after round r "
                                  "(the last round may be partial)"),
]]
RECORD_FIELDS = [pa.field(c.name, c.type) for c in RECORD_COLUMNS]

# The per-card counters of the cards table, kept per seat in both engines (Player.item_plays,
# Player.monster_stats; the core's MC_* index is the position here). Each counts, for one seat and one
# monster card id, over the whole game:
MONSTER_COUNTERS = (
    "fights",     # §5 monster fights the seat fought against the card (each monster of a mansion is one)
    "beaten",     # ... of those, the fights the seat won (the monster knocked to 0 HP)
    "invaded",    # §6 invasions by the seat that the card defended
    "defended",   # §6.1 invasions of the seat's home or mansion that the card defended (the seat's own
                  # card, or the monster deck's top card when the seat owned none)
    "held",       # ... of those, the invasions in which the invader did not take the building (§6.3-6.4)
    "captured",   # times the seat took the card from another seat: by invasion (§6.3) or from the
                  # player it knocked out (§8.2)
    "kept",       # times the seat kept the card through its own knockout (§8.3, keep_one_monster)
)
CARD_KINDS = ("item", "monster")
CARD_COLUMNS = [
    ("seed", pa.uint64(), "master seed of the batch"),
    ("game_index", pa.int64(), "the game's index in its batch"),
    ("mode", pa.string(), "ffa or teams"),
    ("seat", pa.int8(), "the seat that played, fought or owned the card, 0-based"),
    ("team", pa.int8(), "the seat's team in Teams (seat % 2); -1 in ffa"),
    ("won", pa.bool_(), "the seat won (Teams: its team won); a game with no winner is no win"),
    ("kind", pa.string(), "item or monster"),
    ("card", pa.string(), "the card's name"),
    ("plays", pa.int16(), "item card: times the seat played it (§10, a Ward cancelling a card included); "
                          "0 for a monster"),
    ("fights", pa.int16(), "monster card: §5 monster fights the seat fought against it"),
    ("beaten", pa.int16(), "monster card: of those, fights the seat won (§5: the monster at 0 HP)"),
    ("invaded", pa.int16(), "monster card: §6 invasions by the seat that it defended"),
    ("defended", pa.int16(), "monster card: §6.1 invasions of the seat's home or mansion it defended (the "
                             "seat's card, or the monster deck's top card when the seat owned none)"),
    ("held", pa.int16(), "monster card: of those, invasions in which the invader did not take the building"),
    ("captured", pa.int16(), "monster card: times the seat took it from another seat (§6.3 invasion, §8.2 "
                             "knockout)"),
    ("kept", pa.int16(), "monster card: times the seat kept it through its own knockout (§8.3)"),
]
CARD_FIELDS = [pa.field(name, kind) for name, kind, _ in CARD_COLUMNS]
CARD_SCHEMA = pa.schema(CARD_FIELDS)
COLUMN_DOCS = {"games": {c.name: c.doc for c in RECORD_COLUMNS},
               "cards": {name: doc for name, _, doc in CARD_COLUMNS}}

SCHEMA = record_schema(RECORD_FIELDS, PawsRules)
RECORD_DTYPE = record_dtype(RECORD_COLUMNS, MAX_SEATS)   # the core's GameRecord


def to_table(records: list[dict]) -> pa.Table:
    """Records (dicts from the reference engine) to an Arrow table with the record schema."""
    return pa.Table.from_pylist(records, schema=SCHEMA)


def cards_table(rows: list[dict]) -> pa.Table:
    """Card rows (dicts from the reference engine's ``card_rows``) to an Arrow table with the cards schema."""
    return pa.Table.from_pylist(rows, schema=CARD_SCHEMA)
