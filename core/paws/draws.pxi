# Production decisions of the Paws in Peril core: every bot choice goes through ask(), to the seat's
# bot. Dice and picks are the engine kit's die() and below() from the game's generator
# (core/kit/draws.pxi, included beside this file). The test-only module core/paws_scenario.pyx includes
# script.pxi instead of both: the same names, fed by a scenario's script.

cdef int ask(Game* g, int seat, int kind) noexcept nogil:
    """Every bot choice goes through here; a choice of one is not asked (and draws no random number)."""
    if g.n_opt <= 1:
        return 0
    if g.bots[seat].kind == BOT_RANDOM:
        return pcg32_below(&g.rng, g.n_opt)
    return heuristic_decide(g, seat, kind)
