# The engine kit's draws from the game's generator: every die and every pick of a batch game goes
# through die() and below(), over g.rng, so that game k of a batch depends only on (master seed, k).
#
# Contract: the including module cimports pcg32_die and pcg32_below (core/rng.pxd) and defines a
# ``Game`` struct with a ``pcg32_t rng`` field. A test-only module includes a scripted twin instead
# (core/paws/script.pxi), with the same function names, and SCRIPTED_DRAWS = 1.

cdef enum:
    SCRIPTED_DRAWS = 0            # die() and below() are the generator's: a rule may draw from g.rng directly


cdef inline int die(Game* g) noexcept nogil:
    """One six-sided die, 1..6."""
    return pcg32_die(&g.rng)


cdef inline int below(Game* g, int n) noexcept nogil:
    """Uniform in [0, n) for n >= 1."""
    return <int>pcg32_below(&g.rng, <uint32_t>n)
