# cython: language_level=3
"""Tales are Real engine core: plays whole batches of games in C with the GIL released.

The rules live in the ``core/tales/*.pxi`` files, one per rulebook section, each mirroring its module
in ``sim/tales/``, on top of the engine kit (``core/kit/``, docs/engine-kit.md); this module holds the
batch loop. Use it through ``sim.tales.core_engine`` (which validates parameters, passes the record
dtype derived from ``sim.tales.record`` and builds the Arrow tables).
"""

from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint32_t, uint64_t, uintptr_t
from libc.stdlib cimport free, malloc, realloc, calloc
from libc.string cimport memcpy, memset

import numpy as np

from libc.math cimport exp, log, sqrt

from core.kit.types cimport MAXFEAT, MAXHIDDEN, MAXKINDS, BatchOptions, DecisionTrace, Model, RowBuffer, Samples, Search, SearchNote, ValueTrace
from core.tales_types cimport *
from core.rng cimport (game_seed, pcg32_below, pcg32_die, pcg32_for_game, pcg32_next, pcg32_seed, pcg32_t,
                       splitmix64)


include "kit/draws.pxi"
include "tales/draws.pxi"
include "kit/lists.pxi"
include "kit/rows.pxi"
include "kit/record.pxi"
include "kit/inputs.pxi"
include "kit/state.pxi"
include "kit/trace.pxi"
include "kit/search.pxi"
include "kit/learned.pxi"
include "tales/common.pxi"
include "tales/setup.pxi"
include "tales/recruitment.pxi"
include "tales/equipment.pxi"
include "tales/abilities.pxi"
include "tales/potions.pxi"
include "tales/damage.pxi"
include "tales/victory.pxi"
include "tales/battle.pxi"
include "tales/heuristic.pxi"
include "tales/game.pxi"
include "tales/record.pxi"
include "tales/search.pxi"
include "tales/learned.pxi"
include "kit/winprob.pxi"


cdef Rules _no_rules
cdef Weights _no_weights
cdef Search _no_search
memset(&_no_rules, 0, sizeof(Rules))
memset(&_no_weights, 0, sizeof(Weights))
memset(&_no_search, 0, sizeof(Search))
# the fields of the Rules and Weights structs (core/tales_types.pxd), read off the structs themselves:
# _configure refuses any other key, which the dict-to-struct conversion would silently drop (and
# sim.tales.core_engine refuses it before, with a hint)
RULE_FIELDS = tuple(<dict>_no_rules)
WEIGHT_FIELDS = tuple(<dict>_no_weights)
SEARCH_FIELDS = tuple(<dict>_no_search)
# choice-valued rule parameters: the core takes the index of the value in this tuple (the enums in
# core/tales_types.pxd); sim.tales.core_engine refuses a rule set whose choices differ
CHOICES = {"potion_lasts": ("turn", "card"),       # POTION_LASTS_TURN, POTION_LASTS_CARD
           "survive_end": ("player", "team")}      # SURVIVE_END_PLAYER, SURVIVE_END_TEAM
# the C enumerations (core/tales_types.pxd) by the names of their twins in sim/tales/kinds.py
KINDS = {
    "People": {"ANIMALIS": P_ANIMALIS, "SCHATTEN": P_SCHATTEN},
    "Ability": {"NONE": AB_NONE, "FIRST_STRIKE": AB_FIRST_STRIKE, "DEATH_BLOW": AB_DEATH_BLOW,
                "AREA_DAMAGE": AB_AREA_DAMAGE, "PROVOKE": AB_PROVOKE, "ARMOR": AB_ARMOR, "EVADE": AB_EVADE},
    "Kind": {"MELEE": K_MELEE, "RANGED": K_RANGED, "SHIELD": K_SHIELD, "POTION": K_POTION},
    "Hand": {"NONE": H_NONE, "MAIN": H_MAIN, "OFF": H_OFF, "BOTH": H_BOTH},
    "Effect": {"NONE": E_NONE, "HEAL": E_HEAL, "STRENGTH": E_STRENGTH, "ARMOR": E_ARMOR,
               "FIRST_STRIKE": E_FIRST_STRIKE},
    "Decision": {"CHAMPION": D_CHAMPION, "RETURN": D_RETURN, "EQUIP": D_EQUIP, "DISCARD": D_DISCARD,
                 "ATTACKER": D_ATTACKER, "DEFENDER": D_DEFENDER, "PROVOKE": D_PROVOKE, "POTION": D_POTION},
    "Act": {"PASS": ACT_PASS, "SWAP": ACT_SWAP, "EQUIP": ACT_EQUIP, "UNEQUIP": ACT_UNEQUIP},
}
END_REASONS = {R_CHAMPION_KILLED: "champion_killed", R_LOSSES: "losses", R_DRAW: "draw",
               R_LAST_STANDING: "last_standing"}
LIMITS = {"seats": MAXSEATS, "army_size": MAXARMY, "hands": MAXHANDS, "creatures_per_people": MAXPEOPLE,
          "creatures": MAXCRE, "equipment_cards": MAXEQ, "equipment_copies": MAXEQDECK}
CARD_ROW_DTYPE = np.dtype([("game", np.int32), ("card", np.int16), ("kills", np.int16), ("seat", np.int8),
                           ("kind", np.int8), ("champion", np.int8), ("survived", np.int8)])
# the learned bots' features (core/tales/learned.pxi; sim/tales/bots/features.py declares them) and the
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
    game, as a numpy array of ``record_dtype``, "rng_state": the generator's state after each game (tests compare
    draws), "void": the offset of the first void game (an option list overflowed) or -1, "decisions", "searches",
    "rollouts": the batch's top-level decisions, those a search bot took and their simulations, and
    "cards": the card table's rows (CARD_ROW_DTYPE) if ``options.cards``, and if ``options.trace`` "trace":
    every game's decision trace (core/kit/trace.pxi) end to end as uint8, with "trace_starts", where
    game i's begins (count + 1 offsets), and if ``options.samples`` "option_samples" and "seat_samples": the
    search bots' decisions as training samples (OPTION_SAMPLE_DTYPE, SEAT_SAMPLE_DTYPE), and if
    ``options.oracle_weights`` (a model's (policy weights, value weights)) "win_prob": each seat's chance by its
    value head as every battle turn begins and when each game ends (VALUE_ROW_DTYPE rows, core/kit/winprob.pxi)}
    (see sim.tales.core_engine).

    inputs: the game's fixed configuration as sim.tales.core_engine.core_inputs builds it (read by _configure):
    rules: {name: int} for every Rules field; people: P_* per seat; bots: [(kind, {weight: int}[, {search
    parameter: value}])] per seat; creatures: [(people, damage, life, people_chance, tier, ability, ability_chance,
    ability_amount, points)] by id; equipment: [(kind, hand, damage, life, block, armor, effect, amount, duration,
    points)] by id; champions, people_decks: creature ids per people (file order); equipment_deck: ids,
    one per copy, before shuffling.
    """
    oracle = options.oracle_weights
    cdef BatchOptions o = batch_options(options, oracle)
    cdef Game* g = <Game*>calloc(1, sizeof(Game))
    cdef CreatureSpec* cspec = <CreatureSpec*>malloc(sizeof(CreatureSpec) * max(1, len(inputs["creatures"])))
    cdef EquipSpec* espec = <EquipSpec*>malloc(sizeof(EquipSpec) * max(1, len(inputs["equipment"])))
    cdef RowBuffer rows
    cdef DecisionTrace dtrace
    cdef Samples samples
    cdef ValueTrace values
    cdef int64_t[::1] starts
    cdef GameRecord* recs
    cdef uint64_t[::1] rng_states
    cdef int64_t first_void
    cdef int64_t counts[3]
    if g == NULL or cspec == NULL or espec == NULL:
        free(g); free(cspec); free(espec)
        raise MemoryError()
    rows.data = NULL
    memset(&dtrace, 0, sizeof(DecisionTrace))
    memset(&samples, 0, sizeof(Samples))
    memset(&values, 0, sizeof(ValueTrace))
    out = {}
    trace_starts = np.zeros(o.count + 1, np.int64)
    starts = trace_starts
    try:
        _configure(g, cspec, espec, inputs)
        out["records"] = new_records(inputs["record_dtype"], o.count)
        recs = record_rows(out["records"])
        out["rng_state"] = np.empty(o.count, np.uint64)
        rng_states = out["rng_state"]
        if o.cards:
            rows_init(&rows, sizeof(CardRow), 1 << 12)
        if o.samples:
            rows_init(&samples.options, sizeof(OptionSample), 1 << 12)
            rows_init(&samples.seats, sizeof(SeatSample), 1 << 10)
        if o.values:
            value_trace_init(&values, oracle, N_POLICY, N_VALUE)
        with nogil:
            first_void = _run(g, &o, recs, &rng_states[0] if o.count else NULL, &rows if o.cards else NULL,
                              &dtrace if o.trace else NULL, &starts[0], &samples if o.samples else NULL,
                              &values if o.values else NULL, counts)
        out["void"] = first_void
        out["decisions"], out["searches"], out["rollouts"] = counts[0], counts[1], counts[2]
        if o.cards:
            out["cards"] = rows_array(&rows, CARD_ROW_DTYPE)
        if o.trace:
            out["trace"], out["trace_starts"] = trace_array(&dtrace), trace_starts
        if o.samples:
            out["option_samples"] = rows_array(&samples.options, OPTION_SAMPLE_DTYPE)
            out["seat_samples"] = rows_array(&samples.seats, SEAT_SAMPLE_DTYPE)
        if o.values:
            out["win_prob"] = rows_array(&values.rows, VALUE_ROW_DTYPE)
    finally:
        free(dtrace.data)
        rows_free(&samples.options)
        rows_free(&samples.seats)
        rows_free(&rows)
        rows_free(&values.rows)
        free_model(&values.model)
        free_bot_models(g)
        free(g)
        free(cspec)
        free(espec)
    return out


cdef _configure(Game* g, CreatureSpec* cspec, EquipSpec* espec, dict inputs):
    """Fill the parts of ``g`` that stay fixed over a batch: rules, seats, bots, card data (``inputs``:
    sim.tales.core_engine.core_inputs, read here once)."""
    cdef int s, p, k
    cdef dict rules = inputs["rules"]
    cdef int players = inputs["players"]
    cdef list people = inputs["people"], bots = inputs["bots"], creatures = inputs["creatures"]
    cdef list equipment = inputs["equipment"], champions = inputs["champions"]
    cdef list people_decks = inputs["people_decks"], equipment_deck = inputs["equipment_deck"]
    if (players not in (2, 4) or rules["army_size"] > MAXARMY or rules["hands"] > MAXHANDS
            or len(creatures) > MAXCRE or len(equipment) > MAXEQ or len(equipment_deck) > MAXEQDECK
            or any(len(d) > MAXPEOPLE or len(c) > MAXPEOPLE for d, c in zip(people_decks, champions))):
        raise ValueError(f"beyond the core's capacity: {LIMITS}")
    refuse_unknown("rule parameter(s)", rules, RULE_FIELDS)
    memset(g, 0, sizeof(Game))
    g.stop_at = -1
    g.r = rules
    g.n = players
    g.teams = players == 4
    g.army = g.r.army_size
    g.middle = g.r.army_size // 2
    g.cre = cspec
    g.eq = espec
    for p in range(2):
        g.n_champions[p] = len(champions[p])
        for k, c in enumerate(champions[p]):
            g.champions[p][k] = c
        g.n_people_deck[p] = len(people_decks[p])
        for k, c in enumerate(people_decks[p]):
            g.people_deck[p][k] = c
        g.n_team_seats[p] = 0
    g.n_eq_cards = len(equipment_deck)
    for k, c in enumerate(equipment_deck):
        g.eq_cards[k] = c
    for s in range(players):
        g.seats[s].people = people[s]
        g.team_seats[s % 2][g.n_team_seats[s % 2]] = s
        g.n_team_seats[s % 2] += 1
        configure_bot(&g.bots[s], bots[s], WEIGHT_FIELDS, SEARCH_FIELDS, N_POLICY, N_VALUE)
    for k, spec in enumerate(creatures):
        (cspec[k].people, cspec[k].damage, cspec[k].life, cspec[k].people_chance, cspec[k].tier, cspec[k].ability,
         cspec[k].ability_chance, cspec[k].ability_amount, cspec[k].points) = spec
    for k, spec in enumerate(equipment):
        (espec[k].kind, espec[k].hand, espec[k].damage, espec[k].life, espec[k].block, espec[k].armor,
         espec[k].effect, espec[k].amount, espec[k].duration, espec[k].points) = spec


cdef int64_t _run(Game* g, const BatchOptions* o, GameRecord* recs, uint64_t* rng_states, RowBuffer* rows,
                  DecisionTrace* dtrace, int64_t* starts, Samples* samples, ValueTrace* values,
                  int64_t* counts) noexcept nogil:
    """Play the batch ``o`` into ``recs`` (and the card rows if ``rows``); the offset of the first void game,
    or -1. ``counts``: the batch's top-level decisions, those a search bot took, and their simulations.
    ``dtrace``: the games' decision traces, game i's from starts[i] (count + 1 offsets), or NULL.
    ``values``: the win-probability trace (winprob.pxi), or NULL."""
    cdef int64_t i, first_void = -1
    cdef int s
    counts[0] = counts[1] = counts[2] = 0
    g.vtrace = values
    for i in range(o.count):
        begin_batch_game(g, o.seed, o.start + i, i, dtrace, starts, samples)
        if values != NULL:
            values.game = <int>i
        setup_game(g)
        play_from(g)
        if values != NULL:
            value_row(g, g.rec.turns, -1)             # the row after the game ended
        counts[0] += g.decisions
        counts[1] += g.searches
        counts[2] += g.rollouts
        record_game(g, &recs[i])
        rng_states[i] = g.rng.state
        if g.error and first_void < 0:
            first_void = i
        if rows != NULL:
            card_rows(g, rows, <int>i)
    if dtrace != NULL:
        starts[o.count] = <int64_t>dtrace.n
    return first_void
