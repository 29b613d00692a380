"""A record digest: one sha256 over every column of a cell's games, in game order.

Two runs played the same games exactly when their digests match. The digest reads values, not bytes
on disk, so it does not depend on how the games were split into parts, on Parquet encoding or on
Arrow chunking; it covers every column of the game's record schema (outcome, per-seat lists, rule
parameters, setup), each with its name and type, so a renamed or retyped column changes it too.

A versioned engine option's column (:func:`sim.params.option_defaults`) is left out while every game holds
the option's default: those games are played as before the option existed, so digests and baselines
written before it still match; a game played with the option set away from its default counts the column.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Iterable, Mapping

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq


def _feed(h, arr: pa.Array) -> None:
    """Hash one column's values canonically: validity, then values (lists: lengths, then flattened values)."""
    t = arr.type
    h.update(np.asarray(arr.is_null(), dtype=np.uint8).tobytes())
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        lengths = pc.list_value_length(arr).fill_null(0)
        h.update(np.asarray(lengths, dtype="<i8").tobytes())
        _feed(h, arr.flatten())
    elif pa.types.is_string(t) or pa.types.is_large_string(t):
        # dictionary in first-seen order + indices: one-to-one with the values, and fast (few distinct strings)
        enc = arr.dictionary_encode()
        for v in enc.dictionary.to_pylist():
            b = v.encode()
            h.update(len(b).to_bytes(8, "little") + b)
        h.update(np.asarray(enc.indices.fill_null(-1), dtype="<i8").tobytes())
    elif pa.types.is_boolean(t):
        h.update(np.asarray(arr.fill_null(False), dtype=np.uint8).tobytes())
    elif pa.types.is_integer(t) or pa.types.is_floating(t):
        dtype = np.dtype(t.to_pandas_dtype()).newbyteorder("<")
        h.update(np.asarray(arr.fill_null(0).to_numpy(zero_copy_only=False), dtype=dtype).tobytes())
    else:
        raise TypeError(f"record digest: no canonical form for column type {t}")


def _at_default(column: pa.ChunkedArray, default: Any) -> bool:
    return column.null_count == 0 and all(v == default for v in pc.unique(column).to_pylist())


def table_digest(table: pa.Table, schema: pa.Schema, options: Mapping[str, Any] | None = None) -> str:
    """sha256 of the games in ``table`` sorted by game_index, over the columns of ``schema``, less the
    engine-option columns of ``options`` (``{column: default}``) that hold their default in every game."""
    missing = [f.name for f in schema if f.name not in table.column_names]
    if missing:
        raise ValueError(f"record digest: the games lack columns {', '.join(missing)}")
    quiet = {n for n, d in (options or {}).items() if n in schema.names and _at_default(table.column(n), d)}
    schema = pa.schema([f for f in schema if f.name not in quiet])
    table = table.select(schema.names).cast(schema.remove_metadata()).sort_by("game_index")
    h = hashlib.sha256()
    h.update(f"rows={table.num_rows}\n".encode())
    for f in schema:
        h.update(f"{f.name}:{f.type}\n".encode())
        _feed(h, table.column(f.name).combine_chunks())
    return h.hexdigest()


def record_columns(schema: pa.Schema, options: Mapping[str, Any] | None = None) -> dict[str, str]:
    """The record's columns as the digest sees them, ``{name: type}``: kept beside the digests so a
    changed digest can be told apart from a changed record layout (a retyped or renamed column). The
    engine options' columns are left out (a new option's column is not a layout change)."""
    return {f.name: str(f.type) for f in schema if f.name not in (options or {})}


def parts_digest(parts: Iterable[Path], schema: pa.Schema,
                 options: Mapping[str, Any] | None = None) -> tuple[str, int]:
    """(digest, games) of a cell's Parquet parts, read with the record schema's columns only."""
    tables = [pq.read_table(p, columns=schema.names) for p in sorted(parts)]
    if not tables:
        return table_digest(schema.empty_table(), schema, options), 0
    table = pa.concat_tables(tables)
    return table_digest(table, schema, options), table.num_rows
