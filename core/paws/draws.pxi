# Production decisions of the Paws in Peril core: every bot choice goes through ask(), to the seat's
# bot (an mcts or flat seat's ACTION decisions to the search, core/paws/search.pxi; a learned seat's to its
# policy, and its other decisions to its model's decisions block if it has one); a traced game writes
# each choice down (core/kit/trace.pxi). Dice and picks are the engine kit's die() and below() from the game's generator
# (core/kit/draws.pxi, included beside this file). The test-only module core/paws_scenario.pyx includes
# script.pxi instead of both: the same names, fed by a scenario's script.

cdef int ask(Game* g, int seat, int kind) noexcept nogil:
    """Every bot choice goes through here; a choice of one is not asked (and draws no random number).
    A traced game (g.dtrace) writes the choice down (core/kit/trace.pxi)."""
    cdef int k
    if g.n_opt <= 1:
        return 0
    if g.bots[seat].kind == BOT_RANDOM:
        k = pcg32_pick(&g.rng, g.n_opt)
    elif kind == D_ACTION and g.bots[seat].kind == BOT_LEARNED:
        k = learned_decide(g, seat)       # learned.pxi: the model's policy
    elif learned_takes(g, seat, kind):
        k = learned_choose_decision(g, &g.bots[seat].model, seat, kind)   # its decisions block
    elif kind == D_ACTION and (g.bots[seat].kind == BOT_MCTS or g.bots[seat].kind == BOT_FLAT):
        k = search_decide(g, seat)        # search.pxi; its copies play by the rollout policy
    else:
        k = heuristic_decide(g, seat, kind)
    if g.dtrace != NULL:
        trace_index(g.dtrace, k)
    return k
