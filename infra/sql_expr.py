"""One checker for the SQL expressions users write: a query's ``--where`` filter (:func:`check_filter`, used by
queries/connection.py) and a sweep's ``sql:`` metric (infra/metrics.py), both through :func:`check_expression`.
It sits below cluster and queries so that both can use it.

The text is read by DuckDB's own tokenizer (comments and ``;`` are refused outright) and parser
(``json_serialize_sql``); the statement must be its caller's bare template plus the one expression, and
:class:`ExprCheck` walks that expression's tree: every node must be a column of the given ones, a constant,
a comparison, AND/OR/NOT, IS NULL, an IN list, BETWEEN, CASE, a cast to an allowed type, or a call of an
allowed function or operator (:class:`Allowed`), and no node may be left unchecked. A problem is a
:class:`Refused` holding one phrase.
"""

from __future__ import annotations

import difflib
import json
import re
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


def one_line(e: Exception | str) -> str:
    """A DuckDB error as one readable line (without the SQL excerpt DuckDB quotes after it)."""
    return re.split(r" LINE \d+:", " ".join(str(e).split()))[0]


def check_expression(con, expr: str, template: tuple[str, str], bare: str, slot: str, allowed: Allowed,
                     columns: Sequence[str], max_chars: int, past: str, empty: str = "empty") -> str:
    """The statement ``template[0] + expr + template[1]``, after checking that it is the statement ``bare`` but
    for one expression in its node's ``slot`` (``where_clause``, or a one-item ``select_list``) and that the
    expression holds only what ``allowed`` allows over ``columns``; a problem is Refused (``past``: what a text
    that reaches past its place is told)."""
    import duckdb
    if not expr.strip():
        raise Refused(empty)
    if len(expr) > max_chars:
        raise Refused(f"longer than {max_chars} characters")
    if "\x00" in expr:
        raise Refused("a NUL character")
    sql = template[0] + expr + template[1]
    refuse_comments_and_statements(sql)
    try:
        tree = serialize(con, sql)
        reference = serialize(con, bare)
    except duckdb.Error as e:
        raise Refused(f"cannot be read ({one_line(e)})") from None
    except RecursionError:
        raise Refused("nested too deeply") from None
    if tree.get("error"):
        msg = one_line(tree.get("error_message", "not an expression"))[:200]
        raise Refused("not an expression" if "Only SELECT" in msg else msg)
    statements = tree.get("statements") or []
    if len(statements) != 1:
        raise Refused("not one expression")
    stmt = statements[0]
    node = stmt.get("node") if isinstance(stmt.get("node"), dict) else {}
    part = node.get(slot)
    if isinstance(part, list):
        part = part[0] if len(part) == 1 else None
    ref = reference["statements"][0]
    shape = strip_locations({**stmt, "node": {**node, slot: None}})
    if part is None or shape != strip_locations({**ref, "node": {**ref["node"], slot: None}}):
        raise Refused(f"not one expression ({past})")
    ExprCheck(allowed, columns).check(part)
    return sql


# --- the --where filter of a query: one boolean expression over the games' columns --------------------------

FILTER_EXAMPLE = "board = 'explorer' AND players = 4"
FILTER_RULE = f"a filter is one boolean expression over the games' columns, e.g. \"{FILTER_EXAMPLE}\""
FILTER_MAX_CHARS = 4000
FILTER_MAX_DEPTH = 64                     # nested operators: beyond any real filter, within Python's stack
# scalar functions a filter may call (no table, aggregate, window, file, setting or macro functions)
FILTER_FUNCTIONS = frozenset("""
    abs sign round floor ceil ceiling sqrt greatest least coalesce ifnull nullif
    lower upper lcase ucase length len strlen starts_with ends_with prefix suffix contains substring substr
    trim ltrim rtrim concat regexp_matches
    list_value list_contains list_has array_contains list_has_any list_has_all list_position list_indexof
    list_sum list_max list_min list_avg list_count list_distinct list_unique list_sort list_reverse
    list_extract list_element array_length
""".split())
# operators DuckDB's parser turns into function calls: arithmetic, ||, LIKE/ILIKE (~~, ~~*), NOT LIKE ...
FILTER_OPERATORS = frozenset(["+", "-", "*", "/", "//", "%", "**", "^", "||", "~~", "!~~", "~~*", "!~~*",
                              "like_escape", "not_like_escape", "ilike_escape", "not_ilike_escape"])
FILTER_OPERATOR_TYPES = frozenset(["OPERATOR_NOT", "OPERATOR_IS_NULL", "OPERATOR_IS_NOT_NULL", "COMPARE_IN",
                                   "COMPARE_NOT_IN", "ARRAY_EXTRACT", "ARRAY_SLICE", "OPERATOR_COALESCE"])
FILTER_CAST_TYPES = frozenset("""
    boolean bool tinyint smallint integer int int2 int4 int8 bigint hugeint utinyint usmallint uinteger ubigint
    float real float4 double float8 decimal numeric varchar text string date list
""".split())
FILTER_ALLOWED = Allowed(functions=FILTER_FUNCTIONS, operators=FILTER_OPERATORS,
                         operator_types=FILTER_OPERATOR_TYPES, cast_types=FILTER_CAST_TYPES,
                         max_depth=FILTER_MAX_DEPTH, where=" in a filter", comparisons=COMPARISONS)


def check_filter(con, where: str, columns: Sequence[str], source: str = "games_all") -> str:
    """The SELECT over ``source`` that ``where`` filters, after checking that ``where`` is one boolean
    expression over ``columns``; anything else is Refused (one phrase).

    DuckDB's own parser reads the text exactly as it will run (``SELECT * FROM source WHERE (<where>)``,
    serialized by ``json_serialize_sql``); it must be one SELECT statement identical to the bare
    ``SELECT * FROM source`` but for its WHERE clause, and that clause may hold only column references
    (of ``columns``), constants, comparisons, AND/OR/NOT, IS NULL, IN lists, BETWEEN, CASE, casts to
    plain types, list indexing and the allow-listed functions and operators. Comments and ``;`` are
    refused outright (DuckDB's tokenizer). So the checked text, pasted, is the one expression and nothing more.
    Its type must be BOOLEAN (DuckDB would read a number or text as true or false: ``--where round_limit``).
    """
    import duckdb
    sql = check_expression(con, where, (f"SELECT * FROM {source} WHERE (", ")"), f"SELECT * FROM {source}",
                           "where_clause", FILTER_ALLOWED, columns, FILTER_MAX_CHARS,
                           "it reaches past the filter: a closing parenthesis, UNION, GROUP BY, ORDER BY ...")
    try:     # bound, not run: the checked expression's type (the same text, between the same parentheses)
        kind = str(con.execute(f"DESCRIBE SELECT ({where}) AS keep FROM {source}").fetchall()[0][1])
    except duckdb.Error as e:
        raise Refused(f"cannot be read ({one_line(e)})") from None
    if kind.upper() != "BOOLEAN":
        raise Refused(f"not a boolean expression (it gives {kind}: a value, not true or false for each game)")
    return sql


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


# ---------------------------------------------------------------------------------------------------
# Whole SELECT statements: the read-only console and question files
# ---------------------------------------------------------------------------------------------------

# the table references and query nodes a SELECT may hold (DuckDB's TableReferenceType and QueryNodeType)
TABLE_REF_TYPES = frozenset(["BASE_TABLE", "TABLE_FUNCTION", "JOIN", "SUBQUERY", "EXPRESSION_LIST", "EMPTY",
                             "SHOW_REF", "PIVOT"])
QUERY_NODE_TYPES = frozenset(["SELECT_NODE", "SET_OPERATION_NODE", "RECURSIVE_CTE_NODE", "CTE_NODE"])


@dataclass(frozen=True)
class SelectAllowed:
    """What a whole SELECT statement may name: functions, table functions and tables (all lower case)."""
    functions: frozenset[str]         # scalar, aggregate and window functions and macros
    table_functions: frozenset[str]   # in FROM (range, unnest ...)
    tables: frozenset[str]            # the connection's own views and tables; a WITH name is allowed where it is seen
    max_depth: int = 400              # nested nodes of the parse tree: beyond any real query, within Python's stack


class SelectCheck:
    """Walks the parse tree of one SELECT statement (``json_serialize_sql``) and refuses every call of a
    function, table function or table that is not allowed, wherever it sits (select list, FROM, WHERE,
    subqueries, WITH, window, PIVOT, DESCRIBE/SUMMARIZE ...). The rules key on what a node names, not on
    where it sits, so a node kind a later DuckDB adds is still checked for what it names; a table reference
    or query node of a kind not known here is refused."""

    def __init__(self, allowed: SelectAllowed):
        self.allowed = allowed

    def check(self, statement: Any) -> None:
        try:
            self.walk(statement, frozenset(), 0)
        except RecursionError:
            raise Refused("nested too deeply") from None

    def walk(self, n: Any, ctes: frozenset[str], depth: int) -> None:
        if depth > self.allowed.max_depth:
            raise Refused(f"nested more than {self.allowed.max_depth} levels deep")
        if isinstance(n, list):
            for v in n:
                self.walk(v, ctes, depth + 1)
            return
        if not isinstance(n, dict):
            return
        cte_map = n.get("cte_map")
        if isinstance(cte_map, dict):         # WITH names: seen by this node and the nodes inside it
            ctes = ctes | {str(e.get("key", "")).lower() for e in cte_map.get("map") or [] if isinstance(e, dict)}
        kind = n.get("type")
        if "sample" in n and "class" not in n and kind not in TABLE_REF_TYPES | QUERY_NODE_TYPES:
            raise Refused(f"{str(kind).lower().replace('_', ' ')} is not allowed")
        if "class" not in n and kind == "TABLE_FUNCTION":
            f = n.get("function")
            if not isinstance(f, dict):
                raise Refused("an unexpected table function")
            self.named_function(f, self.allowed.table_functions, "table function")
            n = {**n, "function": {k: v for k, v in f.items() if k != "function_name"}}
        elif "function_name" in n:
            self.named_function(n, self.allowed.functions, "function")
        if "table_name" in n and "class" not in n:
            self.table(n, ctes)
        for v in n.values():
            if isinstance(v, (dict, list)):
                self.walk(v, ctes, depth + 1)

    def named_function(self, f: dict, allowed: frozenset[str], what: str) -> None:
        name = str(f.get("function_name", ""))
        if any(f.get(k) for k in ("schema", "catalog", "schema_name", "catalog_name")):
            raise Refused(f"{'.'.join(str(f.get(k)) for k in ('catalog', 'schema') if f.get(k))}.{name}(): "
                          f"a {what} named with its schema is not allowed")
        if name.lower() not in allowed:
            hint = f" (allowed: {', '.join(sorted(allowed))})" if len(allowed) <= 12 else ""
            raise Refused(f"the {what} {name}() is not allowed{hint}")

    def table(self, n: dict, ctes: frozenset[str]) -> None:
        name = str(n.get("table_name") or "")
        if n.get("type") == "SHOW_REF" and not name:
            return                            # DESCRIBE/SUMMARIZE of a query: the query is walked
        if n.get("schema_name") or n.get("catalog_name"):
            raise Refused(f"{'.'.join(str(n.get(k)) for k in ('catalog_name', 'schema_name') if n.get(k))}.{name}: "
                          f"a table named with its schema is not allowed")
        if n.get("at_clause"):
            raise Refused(f"{name} AT (...): time travel is not allowed")
        if name.lower() not in ctes and name.lower() not in self.allowed.tables:
            raise Refused(f"unknown table {name!r}; the tables here: {', '.join(sorted(self.allowed.tables))}")
