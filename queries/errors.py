"""The two errors of the query layer, each one line: a bad question (QueryError) and results that cannot be
read (ResultsError); ``one_line`` makes a DuckDB error one line."""

from __future__ import annotations

from infra.sql_expr import one_line

__all__ = ["QueryError", "ResultsError", "one_line"]


class QueryError(ValueError):
    """A bad query name, parameter, filter or SQL; the message says which and what is allowed."""


class ResultsError(ValueError):
    """A results path that is missing, empty, corrupt or unreadable; the message names it (and the repair)."""
