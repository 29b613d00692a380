# The engine's decisions (core/tales_engine.pyx): every decision comes from the seat's bot (an mcts or
# flat seat's top-level decisions from the search, core/tales/search.pxi); die() and
# below() are the engine kit's (core/kit/draws.pxi), from the game's own generator. core/tales/script.pxi
# has the same functions for the scenario tests' module (core/tales_scenario.pyx), fed from a script
# instead; nothing here checks for one.

cdef inline int ask(Game* g, int seat, int kind) noexcept nogil:
    """Every bot choice goes through here; a choice of one is not asked (and draws no random number).
    A traced game (g.dtrace) writes the choice down (core/kit/trace.pxi)."""
    cdef int k
    if g.n_opt <= 1:
        return 0
    if g.bots[seat].kind == BOT_RANDOM:
        k = below(g, g.n_opt)
    elif g.bots[seat].kind == BOT_LEARNED and searched(kind):
        k = learned_decide(g, seat)       # learned.pxi: the model's policy
    elif learned_takes(g, seat, kind):
        k = learned_block_decide(g, seat, kind)   # learned.pxi: its decisions block (potions, the Champion)
    elif (g.bots[seat].kind == BOT_MCTS or g.bots[seat].kind == BOT_FLAT) and searched(kind):
        k = search_decide(g, seat)        # search.pxi; its copies play by the rollout policy
    else:
        k = heuristic_decide(g, seat, kind)
    if g.dtrace != NULL:
        trace_index(g.dtrace, k)
    return k


# -- the graveyards ------------------------------------------------------------------------------------
# The engine keeps none: nothing in the records reads them (losses and destroyed count what goes there).
# The rule files still say where a card goes, so that the scenario tests' module can record it; here
# that compiles to nothing.
cdef inline void to_graveyard(Game* g, int seat, int slot) noexcept nogil:
    """A destroyed creature leaves the field for its people's graveyard, with its equipment."""
    pass


cdef inline void card_to_graveyard(Game* g, int seat, int equipment_id) noexcept nogil:
    """An equipment card from the hand goes to the graveyard: a potion used, a card swapped away."""
    pass
