"""A batch request as the compiled cores take it: the options their BatchOptions struct is filled from."""

from __future__ import annotations

from sim.games import BatchOptions, BatchRequest
from sim.kit import trace, winprob


def core_options(request: BatchRequest) -> BatchOptions:
    """The core's options of ``request``: its games, and what its match's tables ask the core to record beside
    them (the cards table's rows, the decision traces, the oracle's ratings for the win_prob table)."""
    oracle = winprob.oracle_of(request.match)
    tables = request.match.tables
    return BatchOptions(request.seed, request.start, request.count, cards="cards" in tables,
                        trace=trace.TABLE in tables, samples=request.samples,
                        oracle_weights=oracle.core() if oracle is not None else None)
