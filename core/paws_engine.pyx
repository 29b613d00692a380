# cython: language_level=3
"""Paws in Peril engine core: plays whole batches of games in C with the GIL released.

The rules live in the ``core/paws/*.pxi`` files, one per rulebook section, each mirroring its module
in ``sim/paws/``, on top of the engine kit (``core/kit/``, docs/engine-kit.md); this module holds the
batch loop. Use it through ``sim.paws.core_engine`` (which validates parameters, passes the record
dtype derived from ``sim.paws.record`` and builds the Arrow table).
"""

from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint32_t, uint64_t, uintptr_t
from libc.stdlib cimport free, malloc, realloc, calloc
from libc.string cimport memcpy, memset
from libc.time cimport CLOCKS_PER_SEC, clock, clock_t

import numpy as np

from libc.math cimport exp, log, sqrt

from core.kit.types cimport MAXFEAT, MAXHIDDEN, MAXKINDS, BatchOptions, Cells, DecisionTrace, Model, RowBuffer, Samples, Search, SearchNote, ValueTrace
from core.paws_types cimport *
from core.rng cimport (game_seed, pcg32_below, pcg32_pick, pcg32_die, pcg32_for_game, pcg32_next, pcg32_seed, pcg32_t,
                       splitmix64)


include "kit/draws.pxi"
include "kit/lists.pxi"
include "kit/cells.pxi"
include "kit/rows.pxi"
include "kit/record.pxi"
include "kit/inputs.pxi"
include "kit/state.pxi"
include "kit/trace.pxi"
include "kit/search.pxi"
include "kit/learned.pxi"
include "paws/draws.pxi"
include "paws/common.pxi"
include "paws/items.pxi"
include "paws/combat.pxi"
include "paws/knockout.pxi"
include "paws/winning.pxi"
include "paws/loot.pxi"
include "paws/invade.pxi"
include "paws/raid.pxi"
include "paws/actions.pxi"
include "paws/turn.pxi"
include "paws/heuristic.pxi"
include "paws/game.pxi"
include "paws/search.pxi"
include "paws/learned.pxi"
include "paws/inputs.pxi"
include "kit/winprob.pxi"


# one row of the standings trace per round: each seat's VP (the Standings struct)
STANDINGS_DTYPE = np.dtype([("vp", np.int8, (MAXP,))], align=True)
# one row of the cards table (the CardRow struct): counts are the MC_* monster counters
CARD_ROW_DTYPE = np.dtype([("game", np.int32), ("card", np.int16), ("plays", np.int16),
                           ("counts", np.int16, (N_MC,)), ("seat", np.int8), ("kind", np.int8)], align=True)
# the learned bots' features (core/paws/learned.pxi; sim/paws/bots/features.py declares them) and the
# training samples' rows (the OptionSample and SeatSample structs)
FEATURES = {"policy": N_POLICY, "value": N_VALUE}
OPTION_SAMPLE_DTYPE = np.dtype([("game", np.int32), ("decision", np.int32), ("share", np.float32),
                                ("option", np.int16), ("seat", np.int8), ("chosen", np.int8),
                                ("f", np.float32, (N_POLICY,))], align=True)
SEAT_SAMPLE_DTYPE = np.dtype([("game", np.int32), ("decision", np.int32), ("seat", np.int32),
                              ("f", np.float32, (N_VALUE,))], align=True)


def play_batch(dict inputs, object options):
    """Play the games of ``options`` (sim.games.BatchOptions: games start..start+count-1 of master seed ``seed``, and
    what to record beside them, read once into the BatchOptions struct); returns {"records": one GameRecord per
    game, as a numpy array of ``record_dtype``, "vp_trace": each round's VP per seat (rows of MAXP), "void": the
    offset of the first void game (an option list overflowed), or -1, "decisions", "searches", "rollouts": the
    batch's top-level decisions, those a search bot took and their simulations, "engine_s": the processor time
    of playing the games alone (not the setup before nor the arrays after), "cards": the cards table's
    rows (CARD_ROW_DTYPE) if ``options.cards``, and if ``options.trace`` "trace": every game's decision trace
    (core/kit/trace.pxi) end to end as uint8, with "trace_starts", where game i's begins (count + 1
    offsets), and if ``options.samples`` "option_samples" and "seat_samples": the search bots' decisions as
    training samples (OPTION_SAMPLE_DTYPE, SEAT_SAMPLE_DTYPE), and if ``options.oracle_weights`` (a model's (policy
    weights, value weights)) "win_prob": each seat's chance by its value head as every turn begins and when each game
    ends (VALUE_ROW_DTYPE rows, core/kit/winprob.pxi)} (see sim.paws.core_engine).

    inputs: the game's fixed configuration as sim.paws.core_engine.core_inputs builds it (read by _configure):
    rules: {name: int} for every Rules field; bots: [(kind, {weight: int}[, {search parameter: value}])] per
    seat; items: [(timing, effect, amount, turns)] by id; monsters: [(hp, buff, amount)] by id; item_deck,
    monster_deck: card ids before shuffling; nbrs: neighbours[cell][6] of the board geometry.
    """
    oracle = options.oracle_weights
    cdef BatchOptions o = batch_options(options, oracle)
    cdef Game* g = <Game*>calloc(1, sizeof(Game))
    cdef ItemSpec* ispec = <ItemSpec*>malloc(sizeof(ItemSpec) * max(1, len(inputs["items"])))
    cdef MonsterSpec* mspec = <MonsterSpec*>malloc(sizeof(MonsterSpec) * max(1, len(inputs["monsters"])))
    cdef Decks decks
    cdef RowBuffer trace
    cdef RowBuffer cards
    cdef DecisionTrace dtrace
    cdef Samples samples
    cdef ValueTrace values
    cdef int64_t[::1] starts
    cdef GameRecord* recs
    cdef int64_t first_void
    cdef int64_t counts[3]
    cdef clock_t t0, t1
    trace.data = NULL
    cards.data = NULL
    memset(&dtrace, 0, sizeof(DecisionTrace))
    memset(&samples, 0, sizeof(Samples))
    memset(&values, 0, sizeof(ValueTrace))
    card_table = None
    trace_starts = np.zeros(o.count + 1, np.int64)
    starts = trace_starts
    if g == NULL or ispec == NULL or mspec == NULL:
        free(g); free(ispec); free(mspec)
        raise MemoryError()
    try:
        load_decks(&decks, inputs)
        _configure(g, ispec, mspec, inputs)
        records = new_records(inputs["record_dtype"], o.count)
        recs = record_rows(records)
        rows_init(&trace, sizeof(Standings), 1 << 14)
        if o.samples:
            rows_init(&samples.options, sizeof(OptionSample), 1 << 12)
            rows_init(&samples.seats, sizeof(SeatSample), 1 << 10)
        if o.cards:
            rows_init(&cards, sizeof(CardRow), 1 << 12)
        if o.values:
            value_trace_init(&values, oracle, N_POLICY, N_VALUE)
        with nogil:
            t0 = clock()
            first_void = _run(g, &o, recs, &trace, &cards if o.cards else NULL, &dtrace if o.trace else NULL,
                              &starts[0], &samples if o.samples else NULL, &values if o.values else NULL, &decks,
                              counts)
            t1 = clock()
        vp_trace = rows_array(&trace, STANDINGS_DTYPE)["vp"]
        if o.cards:
            card_table = rows_array(&cards, CARD_ROW_DTYPE)
        if o.trace:
            trace_bytes = trace_array(&dtrace)
        if o.samples:
            option_samples = rows_array(&samples.options, OPTION_SAMPLE_DTYPE)
            seat_samples = rows_array(&samples.seats, SEAT_SAMPLE_DTYPE)
        if o.values:
            win_prob = rows_array(&values.rows, VALUE_ROW_DTYPE)
    finally:
        free(dtrace.data)
        rows_free(&samples.options)
        rows_free(&samples.seats)
        rows_free(&trace)
        rows_free(&cards)
        rows_free(&values.rows)
        free_model(&values.model)
        free_bot_models(g)
        free(g)
        free(ispec)
        free(mspec)
    out = {"records": records, "vp_trace": vp_trace, "void": first_void,
           "decisions": counts[0], "searches": counts[1], "rollouts": counts[2],
           "engine_s": <double>(t1 - t0) / CLOCKS_PER_SEC}
    if o.cards:
        out["cards"] = card_table
    if o.trace:
        out["trace"], out["trace_starts"] = trace_bytes, trace_starts
    if o.samples:
        out["option_samples"], out["seat_samples"] = option_samples, seat_samples
    if o.values:
        out["win_prob"] = win_prob
    return out


cdef int64_t _run(Game* g, const BatchOptions* o, GameRecord* recs, RowBuffer* trace, RowBuffer* cards,
                  DecisionTrace* dtrace, int64_t* starts, Samples* samples, ValueTrace* values, const Decks* decks,
                  int64_t* counts) noexcept nogil:
    """Play the batch ``o`` into ``recs``; the offset of the first void game, or -1. ``counts``: the batch's
    top-level decisions, those a search bot took, and their simulations. ``cards``: the cards table's
    rows, or NULL when not asked for. ``dtrace``: the games' decision traces, game i's from starts[i]
    (count + 1 offsets), or NULL. ``values``: the win-probability trace (winprob.pxi), or NULL."""
    cdef int64_t i, first_void = -1
    cdef int s
    counts[0] = counts[1] = counts[2] = 0
    g.vtrace = values
    for i in range(o.count):
        begin_batch_game(g, o.seed, o.start + i, i, dtrace, starts, samples)
        setup_game(g, decks.mdeck, decks.n_mdeck, decks.ideck, decks.n_ideck)
        if values != NULL:
            values.game = <int>i
        play_from(g, trace)
        if values != NULL:
            value_row(g, g.rec.turns, -1)             # the row after the game ended
        counts[0] += g.decisions
        counts[1] += g.searches
        counts[2] += g.rollouts
        record_game(g, &recs[i])
        if g.error and first_void < 0:
            first_void = i
        if cards != NULL:
            card_rows(g, cards, <int>i)
    if dtrace != NULL:
        starts[o.count] = <int64_t>dtrace.n
    return first_void
