"""Python view of the engine core's PCG32 (``core/rng.pxd``), for the differential tests against
``sim.rng``. Engines cimport the inline functions from the ``.pxd`` and never go through this class.
"""

from libc.stdint cimport int32_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc


cdef class CoreRng:
    """A pcg32_t owned by Python; same constructor and methods as ``sim.rng.Rng``."""

    cdef pcg32_t rng

    def __init__(self, uint64_t seed, uint64_t stream=0):
        pcg32_seed(&self.rng, seed, stream)

    @staticmethod
    def for_game(uint64_t master, uint64_t index):
        """The stream of game ``index`` of the batch with master seed ``master``."""
        cdef CoreRng r = CoreRng.__new__(CoreRng)
        pcg32_for_game(&r.rng, master, index)
        return r

    @property
    def state(self):
        return self.rng.state

    @property
    def inc(self):
        return self.rng.inc

    def next32(self):
        """The next 32-bit output."""
        return pcg32_next(&self.rng)

    def below(self, n):
        """Uniform integer in [0, n) for 1 <= n < 2**32."""
        if not 1 <= n < 2 ** 32:
            raise ValueError(f"below(n) needs 1 <= n < 2**32, got {n}")
        return pcg32_below(&self.rng, <uint32_t>n)

    def die(self):
        """One six-sided die, 1..6."""
        return pcg32_die(&self.rng)

    def shuffle(self, list items):
        """Fisher-Yates in place, through the core's shuffle_int32 on the positions."""
        cdef int n = len(items)
        cdef int i
        if n < 2:
            return
        cdef int32_t* order = <int32_t*>malloc(n * sizeof(int32_t))
        if order == NULL:
            raise MemoryError()
        try:
            for i in range(n):
                order[i] = i
            shuffle_int32(&self.rng, order, n)
            # the swaps depend only on positions, so permuting positions permutes the items alike
            items[:] = [items[order[i]] for i in range(n)]
        finally:
            free(order)


def stream(uint64_t master, uint64_t index, Py_ssize_t n):
    """The first ``n`` next32 outputs of game ``index`` of the batch with master seed ``master``."""
    cdef pcg32_t rng
    cdef Py_ssize_t i
    pcg32_for_game(&rng, master, index)
    return [pcg32_next(&rng) for i in range(n)]


def py_splitmix64(uint64_t x):
    """splitmix64 of the core, for tests."""
    return splitmix64(x)


def py_game_seed(uint64_t master, uint64_t index):
    """game_seed of the core, for tests."""
    return game_seed(master, index)
