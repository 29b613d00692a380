# cython: language_level=3
"""Paws in Peril engine core: plays whole batches of games in C with the GIL released.

The rules live in the ``core/paws/*.pxi`` files, one per rulebook section, each mirroring its module
in ``sim/paws/``; this module holds the batch loop and its typed column buffers. Use it through
``sim.paws.core_engine`` (which validates parameters and builds the Arrow table).
"""

from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memset

import numpy as np

from core.paws_types cimport *
from core.rng cimport pcg32_below, pcg32_die, pcg32_for_game, pcg32_t


ctypedef struct Trace:
    int8_t* data
    size_t n
    size_t cap
    int failed


cdef inline void trace_push(Trace* t, int v) noexcept nogil:
    cdef int8_t* grown
    if t.n == t.cap:
        grown = <int8_t*>realloc(t.data, t.cap * 2)
        if grown == NULL:
            t.failed = 1
            return
        t.data = grown
        t.cap *= 2
    t.data[t.n] = <int8_t>v
    t.n += 1


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


WEIGHT_FIELDS = ("aggression", "heal_threshold", "raid_appetite", "invade_min_hp", "home_min_hp",
                 "mansion_min_hp", "escape_hp", "step_cost")
END_REASONS = ("vp", "last_alive", "round_limit", "stalled")
LIMITS = {"players": MAXP, "cells": MAXC, "item_copies": MAXCARDS, "monster_copies": MAXMON}


def play_batch(dict rules, bint explorer, bint teams, int players, list bots, list items, list monsters,
               list item_deck, list monster_deck, list nbrs, uint64_t master_seed, int64_t start, int64_t count):
    """Play games start..start+count-1; returns a dict of numpy columns (see sim.paws.core_engine).

    rules: {name: int} for every Rules field; bots: [(kind, {weight: int})] per seat; items:
    [(timing, effect, amount, turns)] by id; monsters: [(hp, buff, amount)] by id; item_deck,
    monster_deck: card ids before shuffling; nbrs: neighbours[cell][6] of the board geometry.
    """
    cdef Game* g = <Game*>malloc(sizeof(Game))
    cdef ItemSpec* ispec = <ItemSpec*>malloc(sizeof(ItemSpec) * max(1, len(items)))
    cdef MonsterSpec* mspec = <MonsterSpec*>malloc(sizeof(MonsterSpec) * max(1, len(monsters)))
    cdef int16_t ideck[MAXCARDS]
    cdef int16_t mdeck[MAXMON]
    cdef int n_ideck = len(item_deck), n_mdeck = len(monster_deck)
    cdef Trace trace
    cdef int64_t i, k
    cdef int s, c, d
    if g == NULL or ispec == NULL or mspec == NULL:
        free(g); free(ispec); free(mspec)
        raise MemoryError()
    try:
        if n_ideck > MAXCARDS or n_mdeck > MAXMON or len(nbrs) > MAXC or players > MAXP:
            raise ValueError(f"beyond the core's capacity: {LIMITS}")
        g.r = rules
        g.n = players
        g.explorer = explorer
        g.teams = teams
        g.ncells = len(nbrs)
        g.dist_valid = 0
        for c in range(g.ncells):
            for d in range(6):
                g.nbrs[c][d] = nbrs[c][d]
        for s in range(players):
            kind, weights = bots[s]
            g.bots[s].kind = kind
            if weights:
                g.bots[s].w = weights
        for k, spec in enumerate(items):
            ispec[k].timing, ispec[k].effect, ispec[k].amount, ispec[k].turns = spec
        for k, spec in enumerate(monsters):
            mspec[k].hp, mspec[k].buff, mspec[k].amount = spec
        g.items = ispec
        g.mons = mspec
        for k in range(n_ideck):
            ideck[k] = item_deck[k]
        for k in range(n_mdeck):
            mdeck[k] = monster_deck[k]

        first_seat = np.empty(count, np.int8)
        winner_seat = np.empty(count, np.int8)
        winner_team = np.empty(count, np.int8)
        end_reason = np.empty(count, np.int8)
        rounds = np.empty(count, np.int16)
        turns = np.empty(count, np.int32)
        building_fights = np.empty(count, np.int32)
        invasions = np.empty(count, np.int32)
        raids = np.empty(count, np.int32)
        items_played = np.empty(count, np.int32)
        errors = np.zeros(count, np.int8)
        seat_cols = {name: np.empty(count * players, np.int8)
                     for name in ("vp", "buildings", "lives", "knockouts", "knockouts_dealt")}
        cdef_views = _Views(first_seat, winner_seat, winner_team, end_reason, rounds, turns, building_fights,
                            invasions, raids, items_played, errors, seat_cols["vp"], seat_cols["buildings"],
                            seat_cols["lives"], seat_cols["knockouts"], seat_cols["knockouts_dealt"])
        trace.cap = 1 << 16
        trace.n = 0
        trace.failed = 0
        trace.data = <int8_t*>malloc(trace.cap)
        if trace.data == NULL:
            raise MemoryError()
        try:
            _run(g, cdef_views, &trace, ideck, n_ideck, mdeck, n_mdeck, master_seed, start, count)
            if trace.failed:
                raise MemoryError("standings trace")
            vp_trace = np.frombuffer((<char*>trace.data)[:trace.n], dtype=np.int8).copy() if trace.n else \
                np.empty(0, np.int8)
        finally:
            free(trace.data)
    finally:
        free(g)
        free(ispec)
        free(mspec)
    out = dict(first_seat=first_seat, winner_seat=winner_seat, winner_team=winner_team, end_reason=end_reason,
               rounds=rounds, turns=turns, building_fights=building_fights, invasions=invasions, raids=raids,
               items_played=items_played, errors=errors, vp_trace=vp_trace)
    out.update(seat_cols)
    return out


cdef class _Views:
    """Typed views of the output columns, so the game loop writes them without the GIL."""
    cdef int8_t[::1] first_seat, winner_seat, winner_team, end_reason, errors
    cdef int16_t[::1] rounds
    cdef int32_t[::1] turns, building_fights, invasions, raids, items_played
    cdef int8_t[::1] vp, buildings, lives, knockouts, knockouts_dealt

    def __init__(self, first_seat, winner_seat, winner_team, end_reason, rounds, turns, building_fights,
                 invasions, raids, items_played, errors, vp, buildings, lives, knockouts, knockouts_dealt):
        self.first_seat, self.winner_seat, self.winner_team = first_seat, winner_seat, winner_team
        self.end_reason, self.rounds, self.turns = end_reason, rounds, turns
        self.building_fights, self.invasions, self.raids = building_fights, invasions, raids
        self.items_played, self.errors = items_played, errors
        self.vp, self.buildings, self.lives = vp, buildings, lives
        self.knockouts, self.knockouts_dealt = knockouts, knockouts_dealt


cdef void _run(Game* g, _Views v, Trace* trace, const int16_t* ideck, int n_ideck, const int16_t* mdeck,
               int n_mdeck, uint64_t master_seed, int64_t start, int64_t count):
    cdef int64_t i
    cdef int s, n = g.n
    cdef int8_t[::1] first_seat = v.first_seat, winner_seat = v.winner_seat, winner_team = v.winner_team
    cdef int8_t[::1] end_reason = v.end_reason, errors = v.errors
    cdef int16_t[::1] rounds = v.rounds
    cdef int32_t[::1] turns = v.turns, building_fights = v.building_fights, invasions = v.invasions
    cdef int32_t[::1] raids = v.raids, items_played = v.items_played
    cdef int8_t[::1] vps = v.vp, buildings = v.buildings, lives = v.lives
    cdef int8_t[::1] knockouts = v.knockouts, knockouts_dealt = v.knockouts_dealt
    with nogil:
        for i in range(count):
            pcg32_for_game(&g.rng, master_seed, <uint64_t>(start + i))
            setup_game(g, mdeck, n_mdeck, ideck, n_ideck)
            while not g.over and not g.error:
                play_round(g, trace)
            first_seat[i] = g.first_seat
            winner_seat[i] = g.winner_seat
            winner_team[i] = g.winner_team
            end_reason[i] = g.end_reason
            rounds[i] = g.round
            turns[i] = g.turns
            building_fights[i] = g.building_fights
            invasions[i] = g.invasions
            raids[i] = g.raids
            items_played[i] = g.items_played
            errors[i] = g.error
            for s in range(n):
                vps[i * n + s] = vp(g, s)
                buildings[i * n + s] = owned(g, s)
                lives[i * n + s] = g.players[s].lives
                knockouts[i * n + s] = g.players[s].knockouts
                knockouts_dealt[i * n + s] = g.players[s].knockouts_dealt
