"""A game's record schema: its outcome columns, then one column per rule parameter.

Every rule parameter is a column so that a sweep's rows say which rules they were played under
(``ruleset`` is an outcome column already). Shared by every game's ``record.py``.
"""

from __future__ import annotations

from dataclasses import fields

import pyarrow as pa

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
