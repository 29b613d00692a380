# The engine core's random generator: PCG32 (XSH-RR, 64-bit state, 32-bit output), seeded per game by
# SplitMix64 from (master seed, game index). Bit for bit the same as the reference twin sim/rng.py.
#
# The bodies live here, not in rng.pyx, so that every module that cimports them gets them inlined
# and can call them from nogil code without a call into another extension module.
cimport cython
from libc.stdint cimport int32_t, uint32_t, uint64_t

ctypedef struct pcg32_t:
    uint64_t state      # advanced by the LCG on every draw
    uint64_t inc        # stream increment, always odd


cdef inline uint64_t splitmix64(uint64_t x) noexcept nogil:
    """One SplitMix64 output for input x (a 64-bit mixing function)."""
    cdef uint64_t z = x + 0x9E3779B97F4A7C15ULL
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline uint64_t game_seed(uint64_t master, uint64_t index) noexcept nogil:
    """The 64-bit seed of game `index` of a batch with master seed `master`."""
    return splitmix64(splitmix64(master) + index)


cdef inline uint32_t pcg32_next(pcg32_t* rng) noexcept nogil:
    """The next 32-bit output."""
    cdef uint64_t old = rng.state
    rng.state = old * 6364136223846793005ULL + rng.inc
    cdef uint32_t xorshifted = <uint32_t>(((old >> 18) ^ old) >> 27)
    cdef uint32_t rot = <uint32_t>(old >> 59)
    # (32 - rot) & 31 is (-rot) & 31 of the twin, and never shifts by 32 (undefined in C)
    return (xorshifted >> rot) | (xorshifted << ((32 - rot) & 31))


cdef inline void pcg32_seed(pcg32_t* rng, uint64_t seed, uint64_t stream) noexcept nogil:
    """Seed like the twin's Rng(seed, stream): the reference PCG32 srandom."""
    rng.inc = (stream << 1) | 1
    rng.state = 0
    pcg32_next(rng)
    rng.state += seed
    pcg32_next(rng)


cdef inline void pcg32_for_game(pcg32_t* rng, uint64_t master, uint64_t index) noexcept nogil:
    """Seed `rng` with the stream of game `index` of the batch with master seed `master`."""
    cdef uint64_t s = game_seed(master, index)
    pcg32_seed(rng, s, splitmix64(s) >> 1)


@cython.cdivision(True)
cdef inline uint32_t pcg32_below(pcg32_t* rng, uint32_t n) noexcept nogil:
    """Uniform integer in [0, n) for n >= 1, by rejection (no modulo bias); n == 0 is undefined."""
    # outputs below (2**32 - n) % n would make the low residues more likely; that threshold is
    # below n, so an output r >= n is always kept and the division for the threshold is only done
    # for the rare r < n (the draws and results are exactly the twin's)
    cdef uint32_t r
    while True:
        r = pcg32_next(rng)
        if r >= n or r >= (<uint32_t>0 - n) % n:
            return r % n


cdef inline int pcg32_die(pcg32_t* rng) noexcept nogil:
    """One six-sided die, 1..6."""
    return <int>pcg32_below(rng, 6) + 1


cdef inline void shuffle_int32(pcg32_t* rng, int32_t* a, int n) noexcept nogil:
    """Fisher-Yates in place from the last position down, as the twin's Rng.shuffle."""
    cdef int i, j
    cdef int32_t t
    for i in range(n - 1, 0, -1):
        j = <int>pcg32_below(rng, <uint32_t>(i + 1))
        t = a[i]
        a[i] = a[j]
        a[j] = t
