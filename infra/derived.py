"""Per-game values worked out once, when a sweep writes a part: plain columns the canned queries aggregate
instead of walking lists on every query.

They are added to the Parquet part after the engine's record (the record, its schema, the regression's
record digests and the core == reference tests do not see them), and only by a sweep whose manifest says
so (``"derived": VERSION``, set when a sweep starts): a sweep started before keeps writing parts without
them, so all parts of one sweep share one schema. Queries read old results without these columns by the
slower way (the list walk), with the same answers.

Nothing here names a game: who won and the per-round standings come from the game's own ``sql/seats.sql``
(the ``seat_outcomes`` view: ``seat_sides``, ``sides``, ``winning_side``, ``standings``), as for the
queries. The columns (NULL where a game gives no value; queries then walk that game's lists):

=======================  ==================================================================================
``bots_key``             the ``bots`` list as JSON text (``["heuristic","random"]``): group by one string,
                         then read the list back (``bots_key::JSON::VARCHAR[]``)
``sides_key``            ``seat_sides`` as JSON text (``[0,1,0,1]``)
``lead_rounds``          rounds of the standings trace (NULL: no trace, or one the fast path does not take)
``lead_changes``         how often the leader changed (queries/lead_changes.sql: a side leads after a round
                         when its standing, the sum of its seats', is strictly the highest; ties skipped)
``lead_decided_round``   the first round from which the same side leads to the end (NULL: a tie at the end
                         or an empty trace)
``lead_behind_mask``     the rounds 1 .. 63 after which the winning side was strictly behind the leader: bit
                         r - 1 set for round r (0 when nobody won); a flat number, so a comeback after any
                         round is ``(lead_behind_mask >> (r - 1)) & 1 = 1``
``lead_behind_late``     the same rounds after round 63, as a list (almost always empty)
``lead_leaders``         the side that leads after each round of the trace, as text: character r is
                         ``chr(48 + side)`` after round r, ``/`` (``chr(47)``) for a tie, so
                         ``ascii(lead_leaders[r]) - 48`` is the leader after round r, -1 for a tie (NULL
                         with ``lead_rounds``, or for more than 78 sides); version 2
=======================  ==================================================================================

A game may add its own per-game columns: ``sql/derived.sql`` beside its ``seats.sql`` is one
``SELECT <expressions> FROM games`` over the part's games (with the columns above); each column it names is
appended (version 2).
A game's queries tell parts with these columns from older ones by a column that is never NULL when present.

Version 1 parts (sweeps and upgrades before version 2) have the key and ``lead_*`` columns but not
``lead_leaders`` or the game's own columns; ``playtest upgrade`` adds the missing ones and keeps the rest.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

if TYPE_CHECKING:
    from sim.games import Game

VERSION = "2"
KEY_COLUMNS = ("bots_key", "sides_key")
LEAD_COLUMNS = ("lead_rounds", "lead_changes", "lead_decided_round", "lead_behind_mask", "lead_behind_late",
                "lead_leaders")
MASK_ROUNDS = 63                     # lead_behind_mask holds rounds 1 .. 63 (bits 0 .. 62); later ones a list
LEADER_BASE = 48                     # lead_leaders: chr(48 + side) per round, chr(47) '/' for a tie
MAX_LEADER_SIDES = 126 - LEADER_BASE  # sides 0 .. 78 stay printable ASCII
GAME_SQL = "derived.sql"             # a game's own per-game columns (optional), beside its seats.sql
COLUMNS = KEY_COLUMNS + LEAD_COLUMNS


def derive(game: "Game", table: pa.Table) -> pa.Table:
    """``table`` (one part's games, in memory) with the derived columns appended (those the game's seat view
    and its ``sql/derived.sql`` can give); a column the table already has (a record column, or one an older
    version added) is kept as it is."""
    from infra.metrics import SEAT_VIEW, _seat_view
    with _games(table) as con:
        con.execute(f"CREATE OR REPLACE TEMP VIEW {SEAT_VIEW} AS {_seat_view(game)}")
        present = {d[0] for d in con.execute(f"SELECT * FROM {SEAT_VIEW} LIMIT 0").description}
        wanted = ["to_json(seat_sides)::VARCHAR AS sides_key", "sides", "winning_side"]
        if "bots" in present:          # both keys or neither: the queries test bots_key alone
            wanted.insert(0, "to_json(bots)::VARCHAR AS bots_key")
        if "standings" in present:
            wanted.append("standings")
        seats = con.sql(f"SELECT {', '.join(wanted)} FROM {SEAT_VIEW}").to_arrow_table()
    if seats.num_rows != table.num_rows:        # the seat view must keep every row, in order
        return table
    new: dict[str, pa.Array] = {}
    for name in KEY_COLUMNS if "bots_key" in seats.column_names else ():
        if name in seats.column_names:
            new[name] = seats.column(name).combine_chunks().cast(pa.string())
    if "standings" in seats.column_names:
        new.update(lead_story(seats.column("standings").combine_chunks(),
                              seats.column("sides_key").combine_chunks(),
                              seats.column("sides").combine_chunks(),
                              seats.column("winning_side").combine_chunks()))
    out = table
    for name, arr in new.items():
        if name not in out.column_names:
            out = out.append_column(name, arr)
    own = game_columns(game, _with(table, new))
    if own is not None and own.num_rows == out.num_rows:
        for name in own.column_names:
            if name not in out.column_names:
                out = out.append_column(name, own.column(name).combine_chunks())
    return out


def _with(table: pa.Table, new: dict[str, pa.Array]) -> pa.Table:
    """``table`` with the generic derived columns as this version works them out (an older part's own kept)."""
    for name, arr in new.items():
        table = table.set_column(table.schema.get_field_index(name), name, arr) if name in table.column_names \
            else table.append_column(name, arr)
    return table


def game_columns(game: "Game", table: pa.Table) -> pa.Table | None:
    """The game's own per-game columns (its ``sql/derived.sql`` over ``games``: the part's games with the
    generic derived columns), or None for a game without one."""
    path = game.sql_dir / GAME_SQL
    if not path.is_file():
        return None
    body = "\n".join(line for line in path.read_text().splitlines() if not line.lstrip().startswith("--"))
    with _games(table) as con:
        return con.sql(body.strip().rstrip(";")).to_arrow_table()


_kept: dict = {"con": None, "pid": None}
_lock = threading.Lock()


def _drop() -> None:
    """Close the kept connection (before a fork: a child must not inherit a live DuckDB)."""
    con, _kept["con"], _kept["pid"] = _kept["con"], None, None
    if con is not None:
        con.close()


os.register_at_fork(before=_drop)


@contextlib.contextmanager
def _games(table: pa.Table):
    """A DuckDB connection holding only ``table`` as ``games`` while in use (infra.metrics._connection: no file,
    no extension, one thread). One per process, kept between parts (opening one costs about a fifth of a
    part's derived columns), used by one part at a time, and closed before a fork (a child opens its own)."""
    from infra.metrics import _connection
    with _lock:
        if _kept["pid"] != os.getpid():
            _kept["con"], _kept["pid"] = _connection(None), os.getpid()
        con = _kept["con"]
        con.register("games", table)
        try:
            yield con
        finally:
            con.unregister("games")


def _ints(arr: pa.Array) -> np.ndarray:
    return np.asarray(arr.cast(pa.int64()).fill_null(0).to_numpy(zero_copy_only=False), dtype=np.int64)


def lead_story(standings: pa.Array, sides_key: pa.Array, sides: pa.Array, winning: pa.Array) -> dict[str, pa.Array]:
    """The lead columns of each game, as queries/lead_changes.sql works them out from the trace.

    A game takes the fast path when its trace and every round of it are there, each round has one
    standing per seat, none is NULL, and its seats cover sides 0 .. sides-1 exactly; any other game gets
    NULL (``lead_rounds`` NULL) and the queries walk its trace instead."""
    n = len(standings)
    rounds = np.full(n, -1, dtype=np.int64)
    changes = np.zeros(n, dtype=np.int64)
    decided = np.zeros(n, dtype=np.int64)           # 0: none
    behind_rows: list[np.ndarray] = []              # per group: (game, round) pairs where the winner is behind
    leaders_ok = np.zeros(n, dtype=bool)            # games whose lead_leaders text is written
    ok = np.asarray(standings.is_valid(), dtype=bool) & np.asarray(sides_key.is_valid(), dtype=bool) \
        & np.asarray(sides.is_valid(), dtype=bool)
    outer = np.asarray(standings.offsets, dtype=np.int64)
    inner_arr = standings.flatten()                  # rounds of every game (offsets already applied)
    base = int(standings.offsets[0].as_py())
    outer = outer - base
    n_rounds = np.diff(outer)
    row_ok = np.asarray(inner_arr.is_valid(), dtype=bool)
    row_len = np.asarray(pc.list_value_length(inner_arr).fill_null(-1), dtype=np.int64)
    values = inner_arr.flatten()
    inner_off = np.asarray(inner_arr.offsets, dtype=np.int64) - int(inner_arr.offsets[0].as_py())
    val_ok = np.asarray(values.is_valid(), dtype=bool)
    vals = _ints(values)
    win = np.asarray(winning.cast(pa.int64()).fill_null(-2).to_numpy(zero_copy_only=False), dtype=np.int64)
    side_count = _ints(sides)
    game_of_row = np.repeat(np.arange(n), n_rounds)
    leader_of_row = np.full(len(row_len), -1, dtype=np.int64)
    # per game: every round present, no NULL standing
    bad_vals_row = np.zeros(len(row_len), dtype=bool)
    if len(vals):
        val_row = np.repeat(np.arange(len(row_len)), np.maximum(np.diff(inner_off), 0))
        np.logical_or.at(bad_vals_row, val_row[~val_ok], True)
    # games of one seat line-up (seat_sides and sides) are worked out together
    enc = pc.dictionary_encode(sides_key)
    codes = np.asarray(enc.indices.fill_null(-1), dtype=np.int64)
    line_ups = [json.loads(k) if k is not None else None for k in enc.dictionary.to_pylist()]
    key = codes * (int(side_count.max(initial=0)) + 1) + side_count
    for k in np.unique(key[ok & (codes >= 0)]):
        members = np.flatnonzero((key == k) & ok & (codes >= 0))
        seat_side, s_count = line_ups[codes[members[0]]], int(side_count[members[0]])
        p = len(seat_side)
        if s_count < 1 or sorted(set(seat_side)) != list(range(s_count)):
            continue
        g_idx = members
        r_sel = np.isin(game_of_row, g_idx)
        rows = np.flatnonzero(r_sel)
        # games with a bad round (missing, wrong length, a NULL standing) leave the fast path
        bad = (~row_ok[rows]) | (row_len[rows] != p) | bad_vals_row[rows]
        bad_games = np.unique(game_of_row[rows[bad]])
        if len(bad_games):
            keep = ~np.isin(game_of_row[rows], bad_games)
            rows = rows[keep]
            g_idx = g_idx[~np.isin(g_idx, bad_games)]
        if not len(g_idx):
            continue
        rounds[g_idx] = n_rounds[g_idx]
        if not len(rows):
            leaders_ok[g_idx] = s_count <= MAX_LEADER_SIDES
            continue
        start = inner_off[rows]
        mat = vals[start[:, None] + np.arange(p)[None, :]]                # (rounds, seats)
        onehot = np.zeros((p, s_count), dtype=np.int64)
        onehot[np.arange(p), np.asarray(seat_side, dtype=np.int64)] = 1
        totals = mat @ onehot                                              # (rounds, sides)
        top = totals.max(axis=1)
        at_top = totals == top[:, None]
        leader = np.where(at_top.sum(axis=1) == 1, at_top.argmax(axis=1), -1)
        gr = game_of_row[rows]
        if s_count <= MAX_LEADER_SIDES:
            leader_of_row[rows] = leader
            leaders_ok[g_idx] = True
        # lead changes: consecutive leaders (ties skipped) of one game that differ
        led = leader >= 0
        lg, ll = gr[led], leader[led]
        if len(ll) > 1:
            diff = (lg[1:] == lg[:-1]) & (ll[1:] != ll[:-1])
            np.add.at(changes, lg[1:][diff], 1)
        # decided round: 1 + the last round whose leader differs from the last round's (a tie included)
        r_in_game = rows - outer[gr]                                       # 0-based round of each row
        last_row = outer[gr + 1] - 1                                       # each game's last round
        final_leader = np.full(n, -1, dtype=np.int64)
        idx_last = np.flatnonzero(rows == last_row)
        final_leader[gr[idx_last]] = leader[idx_last]
        differs = leader != final_leader[gr]
        np.maximum.at(decided, gr[differs], r_in_game[differs] + 1)
        decided[g_idx] += 1
        decided[g_idx[final_leader[g_idx] < 0]] = 0
        # rounds after which the winning side was strictly behind the leader
        w = win[gr]
        has = (w >= 0) & (w < s_count)
        hr = np.flatnonzero(has)
        behind = np.zeros(len(rows), dtype=bool)
        behind[hr] = totals[hr, w[hr]] < top[hr]
        behind_rows.append(np.stack([gr[behind], r_in_game[behind] + 1], axis=1))
    fast = rounds >= 0
    pairs = np.concatenate(behind_rows) if behind_rows else np.zeros((0, 2), dtype=np.int64)
    early = pairs[:, 1] <= MASK_ROUNDS
    mask_bits = np.zeros(n, dtype=np.int64)
    np.bitwise_or.at(mask_bits, pairs[early, 0], np.left_shift(np.int64(1), pairs[early, 1] - 1))
    late = pairs[~early]
    late = late[np.lexsort((late[:, 1], late[:, 0]))] if len(late) else late
    counts = np.bincount(late[:, 0], minlength=n) if len(late) else np.zeros(n, dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    leaders_ok &= fast
    text_rows = leaders_ok[game_of_row] if len(game_of_row) else np.zeros(0, dtype=bool)
    text = (leader_of_row[text_rows] + LEADER_BASE).astype(np.uint8)
    text_len = np.where(leaders_ok, n_rounds, 0)
    text_off = np.concatenate([[0], np.cumsum(text_len)]).astype(np.int32)
    leaders = pa.StringArray.from_buffers(n, pa.py_buffer(text_off.tobytes()), pa.py_buffer(text.tobytes()),
                                          pa.array(leaders_ok).buffers()[1] if not leaders_ok.all() else None,
                                          null_count=int(n - leaders_ok.sum()))
    return {
        "lead_rounds": pa.array(np.where(fast, rounds, 0).astype(np.int32), mask=~fast),
        "lead_changes": pa.array(changes.astype(np.int32), mask=~fast),
        "lead_decided_round": pa.array(decided.astype(np.int32), mask=~fast | (decided == 0)),
        "lead_behind_mask": pa.array(mask_bits, mask=~fast),
        "lead_behind_late": pa.ListArray.from_arrays(pa.array(offsets), pa.array(late[:, 1].astype(np.int32)),
                                                     mask=pa.array(~fast)),
        "lead_leaders": leaders,
    }
