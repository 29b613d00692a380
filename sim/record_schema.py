"""A game's record schema: its outcome columns, then one column per rule parameter.

Every rule parameter is a column so that a sweep's rows say which rules they were played under
(``ruleset`` is an outcome column already). Shared by every game's ``record.py``.
"""

from __future__ import annotations

from dataclasses import fields

import pyarrow as pa

_ARROW_TYPE = {"int": pa.int32(), "bool": pa.bool_(), "str": pa.string()}


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
