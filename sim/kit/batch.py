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


def play_core(play_batch, inputs: dict, request: BatchRequest, error: type[Exception], title: str,
              cannot: str) -> tuple[BatchOptions, dict]:
    """A game core's ``play_batch`` on ``inputs`` with the request's BatchOptions struct (filled once from them,
    core/kit/types.pxd): (options, output); a capacity the core lacks, or a void game, as ``error``."""
    options = core_options(request)
    try:
        out = play_batch(inputs, options)
    except ValueError as e:            # beyond a fixed capacity of the core (a card file too big, ...)
        raise error(f"the {title} core cannot play this: {e}{cannot}") from None
    if out["void"] >= 0:
        raise error(f"game {request.start + out['void']}: a decision had more options than the core's capacity")
    return options, out
