"""One checker for the SQL expressions users write: a query's ``--where`` filter (queries/library.py) and a
sweep's ``sql:`` metric (sim/metrics.py). It sits at the bottom layer so that both can use it.

The text is read by DuckDB's own tokenizer (comments and ``;`` are refused outright) and parser
(``json_serialize_sql``); each caller checks that the statement is its bare template plus the one
expression, and :class:`ExprCheck` walks that expression's tree: every node must be a column of the
given ones, a constant, a comparison, AND/OR/NOT, IS NULL, an IN list, BETWEEN, CASE, a cast to an
allowed type, or a call of an allowed function or operator (:class:`Allowed`), and no node may be left
unchecked. A problem is a :class:`Refused` holding one phrase.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from typing import Any, Sequence

REFUSED = {"SUBQUERY": "subqueries are not allowed", "WINDOW": "window functions are not allowed",
           "STAR": "* and COLUMNS(...) are not allowed", "PARAMETER": "parameters ($name) are not allowed",
           "LAMBDA": "lambdas are not allowed", "COLLATE": "COLLATE is not allowed",
           "POSITIONAL_REFERENCE": "positional references (#n) are not allowed"}
COMPARISONS = frozenset(["COMPARE_EQUAL", "COMPARE_NOTEQUAL", "COMPARE_LESSTHAN", "COMPARE_GREATERTHAN",
                         "COMPARE_LESSTHANOREQUALTO", "COMPARE_GREATERTHANOREQUALTO",
                         "COMPARE_DISTINCT_FROM", "COMPARE_NOT_DISTINCT_FROM"])


class Refused(Exception):
    """The expression was refused; the message is one phrase saying why."""


@dataclass(frozen=True)
class Allowed:
    """What an expression may hold besides columns and constants."""
    functions: frozenset[str]         # scalar functions, lower case
    operators: frozenset[str]         # operators the parser turns into calls (+, ||, ~~ for LIKE, ...)
    operator_types: frozenset[str]    # OPERATOR nodes (NOT, IS NULL, IN, list indexing, ...)
    cast_types: frozenset[str]        # type names a CAST may name, lower case
    max_depth: int = 64               # nested operators: beyond any real expression, within Python's stack
    where: str = ""                   # said after "is not allowed" for a function (" in a filter")
    comparisons: frozenset[str] = COMPARISONS


def strip_locations(node: Any) -> Any:
    """A parse tree without its text positions (two trees of the same statement compare equal)."""
    if isinstance(node, dict):
        return {k: strip_locations(v) for k, v in node.items() if k not in ("query_location", "query_location_length")}
    if isinstance(node, list):
        return [strip_locations(v) for v in node]
    return node


def serialize(con, sql: str) -> dict[str, Any]:
    """DuckDB's parse tree of ``sql`` (the text is a bound parameter, never pasted)."""
    return json.loads(con.execute("SELECT json_serialize_sql($sql)", {"sql": sql}).fetchone()[0])


def refuse_comments_and_statements(sql: str) -> None:
    """Refused if DuckDB's tokenizer finds a comment or a ``;`` in ``sql``."""
    import duckdb
    try:
        tokens = duckdb.tokenize(sql)
    except Exception as e:          # noqa: BLE001 - the tokenizer's errors are not all duckdb.Error
        raise Refused(f"cannot be read ({str(e).splitlines()[0][:120] if str(e) else type(e).__name__})") from None
    raw = sql.encode()                  # the tokenizer's positions are UTF-8 byte offsets
    for i, (pos, kind) in enumerate(tokens):
        end = tokens[i + 1][0] if i + 1 < len(tokens) else len(raw)
        text = raw[pos:end].decode(errors="replace")
        if kind == duckdb.token_type.comment:
            raise Refused("comments are not allowed")
        if kind == duckdb.token_type.operator and ";" in text:
            raise Refused("';' is not allowed (one expression, not statements)")


class ExprCheck:
    """Walks a parsed expression; every node must be one of the allowed kinds."""

    def __init__(self, allowed: Allowed, columns: Sequence[str]):
        self.allowed = allowed
        self.columns = list(columns)
        self.known = {c.lower() for c in columns}
        self.seen: set[int] = set()

    def check(self, tree: Any) -> None:
        """Refused unless ``tree`` (an expression) holds only allowed nodes, each of them checked."""
        try:
            self.node(tree)
            left = self.unvisited(tree)
        except RecursionError:
            raise Refused("nested too deeply") from None
        if left:
            raise Refused(f"{left.lower().replace('_', ' ')} expressions are not allowed")

    def columns_hint(self, name: str) -> str:
        near = difflib.get_close_matches(name, self.columns, n=3, cutoff=0.6)
        rest = [c for c in self.columns if c not in near]          # the record's own order: setup first
        shown = near + rest[:max(0, 12 - len(near))]
        more = len(self.columns) - len(shown)
        return ", ".join(shown) + (f" and {more} more" if more > 0 else "")

    def node(self, n: Any, depth: int = 0) -> None:
        a = self.allowed
        if not isinstance(n, dict) or "class" not in n:
            raise Refused("an unexpected part of the expression")
        if depth > a.max_depth:
            raise Refused(f"nested more than {a.max_depth} levels deep")
        self.seen.add(id(n))
        cls, typ = n["class"], n.get("type")
        if cls == "COLUMN_REF":
            names = n.get("column_names") or []
            if len(names) != 1:
                raise Refused(f"{'.'.join(map(str, names))!r}: name a column of the games alone (no table or "
                              f"field); the games have {self.columns_hint(str(names[-1]) if names else '')}")
            if str(names[0]).lower() not in self.known:
                raise Refused(f"unknown column {names[0]!r}; the games have {self.columns_hint(str(names[0]))}")
        elif cls == "CONSTANT":
            pass
        elif cls == "COMPARISON":
            if typ not in a.comparisons:
                raise Refused(f"the comparison {typ} is not allowed")
            self.node(n.get("left"), depth + 1)
            self.node(n.get("right"), depth + 1)
        elif cls in ("CONJUNCTION", "OPERATOR"):
            if cls == "OPERATOR" and typ not in a.operator_types:
                raise Refused(f"the operator {typ} is not allowed")
            children = n.get("children")
            if not isinstance(children, list) or not children:
                raise Refused("an unexpected part of the expression")
            for c in children:
                self.node(c, depth + 1)
        elif cls == "BETWEEN":
            for k in ("input", "lower", "upper"):
                self.node(n.get(k), depth + 1)
        elif cls == "CASE":
            for check in n.get("case_checks") or []:
                self.node(check.get("when_expr"), depth + 1)
                self.node(check.get("then_expr"), depth + 1)
            self.node(n.get("else_expr"), depth + 1)
        elif cls == "CAST":
            self.node(n.get("child"), depth + 1)
            self.type(n.get("type_expr") or n.get("cast_type"), depth + 1)
        elif cls == "FUNCTION":
            self.function(n, depth + 1)
        else:
            raise Refused(REFUSED.get(cls, f"{str(cls).lower().replace('_', ' ')} expressions are not allowed"))

    def type(self, t: Any, depth: int) -> None:
        if not isinstance(t, dict) or depth > self.allowed.max_depth:
            raise Refused("an unexpected cast")
        self.seen.add(id(t))
        name = str(t.get("type_name") or t.get("id") or "")
        if t.get("catalog") or t.get("schema") or name.lower() not in self.allowed.cast_types:
            raise Refused(f"a cast to {name or '?'} is not allowed")
        for c in t.get("children") or []:
            if isinstance(c, dict) and c.get("class") == "CONSTANT":
                self.node(c, depth + 1)
            else:
                self.type(c, depth + 1)
        for k, v in t.items():          # a type's other parts (its modifiers' info) are data, not expressions
            if k != "children" and isinstance(v, (dict, list)):
                self._mark(v)

    def function(self, n: dict, depth: int) -> None:
        a = self.allowed
        name = str(n.get("function_name", ""))
        if name.lower() not in a.functions | a.operators:
            raise Refused(f"the function {name}() is not allowed{a.where} (allowed: "
                          f"{', '.join(sorted(a.functions))}, and the usual operators)")
        if n.get("schema") or n.get("catalog") or n.get("filter") is not None or n.get("distinct") \
                or n.get("export_state") or (n.get("order_bys") or {}).get("orders"):
            raise Refused(f"{name}(): only a plain call is allowed (no schema, FILTER, DISTINCT or ORDER BY)")
        args = n.get("children", n.get("arguments"))
        if not isinstance(args, list):
            raise Refused("an unexpected part of the expression")
        for arg in args:
            if isinstance(arg, dict) and "expression" in arg and "class" not in arg:
                if arg.get("name"):
                    raise Refused(f"{name}(): named arguments are not allowed")
                self.seen.add(id(arg))
                arg = arg.get("expression")
            self.node(arg, depth)

    def _mark(self, t: Any) -> None:
        if isinstance(t, dict):
            self.seen.add(id(t))
            for v in t.values():
                self._mark(v)
        elif isinstance(t, list):
            for v in t:
                self._mark(v)

    def unvisited(self, tree: Any) -> str | None:
        """The class of an expression node the walk did not check (a part it does not know), or None."""
        if isinstance(tree, dict):
            if ("class" in tree and id(tree) not in self.seen) or "subquery" in tree or "node" in tree:
                return str(tree.get("class", "a query"))
            for v in tree.values():
                if found := self.unvisited(v):
                    return found
        elif isinstance(tree, list):
            for v in tree:
                if found := self.unvisited(v):
                    return found
        return None
