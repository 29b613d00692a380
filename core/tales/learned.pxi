# Tales are Real has no learned bot yet: the engine kit's learned hooks (core/kit/learned.pxi) over no
# features. A model is never loaded into this core (sim.tales.plugin refuses learned bots and model=), so
# none of these is called; they keep the kit's search (its model-guided paths) compiling here.

cdef enum:
    N_POLICY = 0
    N_VALUE = 0


cdef inline int learned_teams(Game* g) noexcept nogil:
    return g.teams


cdef inline void learned_prepare(Game* g, int seat) noexcept nogil:
    pass


cdef inline void learned_option_features(Game* g, int seat, int k, double* f) noexcept nogil:
    pass


cdef inline void learned_seat_features(Game* g, int seat, double* f) noexcept nogil:
    pass
