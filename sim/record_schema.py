"""A game's record schema: its outcome columns, then one column per rule parameter.

Every rule parameter is a column so that a sweep's rows say which rules they were played under
(``ruleset`` is an outcome column already). Shared by every game's ``record.py``.

A game's record declaration (``RECORD_COLUMNS`` in ``sim/<game>/record.py``) is the single source of
the record's layout: the Arrow schema, the numpy dtype of the engine core's ``GameRecord`` struct
(``record_dtype``; tests/test_core_declarations.py holds the .pxd to it), the Arrow columns built from
the core's records (``core_columns``) and the reference engine's record (``reference_record``).
"""

from __future__ import annotations

from dataclasses import fields
from typing import NamedTuple

import numpy as np
import pyarrow as pa

from sim.params import as_dict

_ARROW_TYPE = {"int": pa.int32(), "bool": pa.bool_(), "str": pa.string()}

# Which card data a game was played with, added to every game's record by the Match that plays it (the
# engines do not see it): two decks in one sweep, or two folders, are never taken for one variant.
DATA_COLUMNS = [
    ("data_digest", pa.string(), "the card data the game was played with: 16 hex digits of sha256 over the "
                                 "data files' bytes (the same digest sweeps and baselines record)"),
    ("data_name", pa.string(), "the card data files by name, e.g. items=items.toml; monsters=monsters.toml "
                               "(the packaged stand-ins, or a designer's file given with --data or a sweep)"),
]
DATA_DOCS = {name: doc for name, _, doc in DATA_COLUMNS}


def with_data_columns(schema: pa.Schema) -> pa.Schema:
    """A game's ``games`` schema as stored: the engine's record followed by the card data columns."""
    for name, kind, _ in DATA_COLUMNS:
        schema = schema.append(pa.field(name, kind))
    return schema


def add_data_columns(table: pa.Table, digest: str, name: str) -> pa.Table:
    """The engine's ``games`` table with the card data columns appended (one value for every game)."""
    for (col, kind, _), value in zip(DATA_COLUMNS, (digest, name)):
        table = table.append_column(pa.field(col, kind), pa.repeat(pa.scalar(value, kind), table.num_rows))
    return table


class Column(NamedTuple):
    """One outcome column of a game's record."""
    name: str
    type: pa.DataType
    doc: str                # what ``playtest columns`` prints
    # None: the engine layer fills it (a batch constant, a column derived from others, a trace); else
    # the engine core fills it, in its GameRecord struct, and this is the numpy type of one value there:
    # a per-seat (list) column is a fixed array of the game's seat capacity, a bool column a byte, and
    # a string column an index into the names the engine layer decodes it with
    core: str | None = None


_ARROW_OF = {"int8": pa.int8(), "int16": pa.int16(), "int32": pa.int32(), "int64": pa.int64(),
             "uint64": pa.uint64(), "bool": pa.bool_()}


def _value_type(c: Column) -> pa.DataType:
    return c.type.value_type if pa.types.is_list(c.type) else c.type


def record_dtype(columns: list[Column], seats: int) -> np.dtype:
    """The numpy twin of the core's GameRecord struct: the columns the core fills, in declaration order,
    a per-seat column as an array of ``seats`` values, aligned as a C compiler lays the struct out."""
    out = []
    for c in columns:
        if c.core is None:
            continue
        value = _value_type(c)
        # a number or bool is stored as its Arrow type says; a string as an integer index
        if not (pa.types.is_string(value) and c.core.startswith("int")) and _ARROW_OF.get(c.core) != value:
            raise AssertionError(f"record column {c.name}: {value} cannot be stored as {c.core}")
        out.append((c.name, c.core, (seats,)) if pa.types.is_list(c.type) else (c.name, c.core))
    return np.dtype(out, align=True)


def _arrow_values(values: np.ndarray, kind: pa.DataType, names) -> pa.Array:
    if pa.types.is_string(kind):  # names[index], through a dictionary (no per-row Python)
        return pa.DictionaryArray.from_arrays(pa.array(values.astype(np.int32)), pa.array(list(names))).cast(kind)
    return pa.array(np.ascontiguousarray(values), kind)


def seat_lists(values: np.ndarray, kind: pa.DataType, names=None) -> pa.Array:
    """A list column of one row per row of ``values`` (rows x seats), items of Arrow type ``kind``."""
    n, seats = values.shape
    offsets = pa.array(np.arange(0, n * seats + 1, seats, dtype=np.int32))
    return pa.ListArray.from_arrays(offsets, _arrow_values(values.reshape(-1), kind, names))


def core_columns(records: np.ndarray, columns: list[Column], players: int, names: dict | None = None) -> dict:
    """The Arrow arrays of the columns the core filled, from its records (a numpy array of
    ``record_dtype``): per-seat columns cut to the game's ``players`` seats, string columns decoded
    through ``names[column]``."""
    names = names or {}
    out = {}
    for c in columns:
        if c.core is None:
            continue
        values = records[c.name]
        if pa.types.is_list(c.type):
            out[c.name] = seat_lists(values[:, :players], c.type.value_type, names.get(c.name))
        else:
            out[c.name] = _arrow_values(values, c.type, names.get(c.name))
    return out


def record_table(schema: pa.Schema, n: int, columns: dict, constants: dict, rules) -> pa.Table:
    """A record table of ``n`` games: ``columns`` (arrays), ``constants`` (one value for every game) and
    one column per rule parameter, in the schema's order and types."""
    cols = dict(columns)
    values = {**constants, **{k: v for k, v in as_dict(rules).items() if k != "ruleset"}}
    for name, value in values.items():
        kind = schema.field(name).type   # pa.repeat refuses a count of 0: an empty batch is an empty column
        cols[name] = pa.repeat(pa.scalar(value, kind), n) if n else pa.array([], kind)
    arrays = [cols[f.name] if isinstance(cols[f.name], (pa.Array, pa.ChunkedArray)) else pa.array(cols[f.name], f.type)
              for f in schema]
    return pa.Table.from_arrays(arrays, schema=schema)


def reference_record(columns: list[Column], values: dict, game, seats, rules) -> dict:
    """A reference engine's record: ``values`` for the columns it works out, and for each other column
    the core fills the like-named counter of ``game`` (per seat: of each of ``seats``), then the rule
    parameters. A new counter kept under the column's name needs no line here."""
    rec = {}
    for c in columns:
        if c.name in values:
            rec[c.name] = values[c.name]
        elif c.core is None:
            raise KeyError(f"the reference record has no value for column {c.name}")
        elif pa.types.is_list(c.type):
            rec[c.name] = [getattr(s, c.name) for s in seats]
        else:
            rec[c.name] = getattr(game, c.name)
    for name, value in as_dict(rules).items():
        if name != "ruleset":
            rec[name] = value
    return rec


def param_fields(rules_cls: type) -> list[pa.Field]:
    """One column per field of the game's frozen rule-parameter class, less ``ruleset``."""
    out = []
    for f in fields(rules_cls):
        if f.name != "ruleset":
            kind = f.type if isinstance(f.type, str) else f.type.__name__
            out.append(pa.field(f.name, _ARROW_TYPE[kind]))
    return out


def record_schema(record_fields: list[pa.Field], rules_cls: type) -> pa.Schema:
    """The outcome columns followed by the rule parameters; a parameter may never shadow a column."""
    params = param_fields(rules_cls)
    clash = {f.name for f in record_fields} & {f.name for f in params}
    if clash:
        raise AssertionError(f"record columns and rule parameters share names: {sorted(clash)}")
    return pa.schema(record_fields + params)
