# A batch's fixed inputs into the Game struct (sim.paws.core_engine.core_inputs builds them), shared by
# the engine module and the test-only scenario module.

cdef Rules _no_rules
cdef Weights _no_weights
cdef Search _no_search
memset(&_no_rules, 0, sizeof(Rules))
memset(&_no_weights, 0, sizeof(Weights))
memset(&_no_search, 0, sizeof(Search))
# the fields of the Rules and Weights structs (core/paws_types.pxd), read off the structs themselves:
# _configure refuses any other key, which the dict-to-struct conversion would silently drop
RULE_FIELDS = tuple(<dict>_no_rules)
WEIGHT_FIELDS = tuple(<dict>_no_weights)
SEARCH_FIELDS = tuple(<dict>_no_search)
LIMITS = {"players": MAXP, "cells": MAXC, "item_copies": MAXCARDS, "monster_copies": MAXMON,
          "item_cards": MAXITEMIDS, "monster_cards": MAXMONIDS}


cdef _configure(Game* g, ItemSpec* ispec, MonsterSpec* mspec, dict inputs):
    """Fill the parts of ``g`` that stay fixed over a batch: rules, board geometry, bots, card data (``inputs``:
    sim.paws.core_engine.core_inputs, read here once)."""
    cdef int s, c, d, k
    rules, players, bots, nbrs = inputs["rules"], inputs["players"], inputs["bots"], inputs["nbrs"]
    items, monsters = inputs["items"], inputs["monsters"]
    if len(nbrs) > MAXC or players > MAXP or len(items) > MAXITEMIDS or len(monsters) > MAXMONIDS:
        raise ValueError(f"beyond the core's capacity: {LIMITS}")
    refuse_unknown("rule parameter(s)", rules, RULE_FIELDS)
    memset(g, 0, sizeof(Game))
    g.r = rules
    g.n = players
    g.explorer = inputs["explorer"]
    g.teams = inputs["teams"]
    g.ncells = len(nbrs)
    g.dist_valid = 0
    g.stop_at = -1
    for c in range(g.ncells):
        for d in range(6):
            g.nbrs[c][d] = nbrs[c][d]
    for s in range(players):
        configure_bot(&g.bots[s], bots[s], WEIGHT_FIELDS, SEARCH_FIELDS, N_POLICY, N_VALUE)
    for k, spec in enumerate(items):
        ispec[k].timing, ispec[k].effect, ispec[k].amount, ispec[k].turns = spec
    for k, spec in enumerate(monsters):
        mspec[k].hp, mspec[k].buff, mspec[k].amount = spec
    g.items = ispec
    for k in range(len(items)):
        g.turn_kind[k] = turn_kind(&ispec[k])
    g.mons = mspec


cdef load_decks(Decks* d, dict inputs):
    """The item and monster decks before shuffling (card ids), as every game of the batch starts them."""
    cdef int k
    d.n_ideck, d.n_mdeck = len(inputs["item_deck"]), len(inputs["monster_deck"])
    if d.n_ideck > MAXCARDS or d.n_mdeck > MAXMON:
        raise ValueError(f"beyond the core's capacity: {LIMITS}")
    for k in range(d.n_ideck):
        d.ideck[k] = inputs["item_deck"][k]
    for k in range(d.n_mdeck):
        d.mdeck[k] = inputs["monster_deck"][k]
