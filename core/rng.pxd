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


cdef extern from *:
    """
    /* r % n for n <= 64 without a division: Lemire's fastmod, exact for every 32-bit r and n
       (Lemire, Kaser, Kurz 2019), with M = floor((2**64 - 1) / n) + 1 from a table (M = 0 for n = 1) */
    #if defined(__SIZEOF_INT128__)
    static const unsigned long long kit_fastmod_m[65] = {
        0ULL, 0ULL, 0x8000000000000000ULL, 0x5555555555555556ULL,
        0x4000000000000000ULL, 0x3333333333333334ULL, 0x2aaaaaaaaaaaaaabULL, 0x2492492492492493ULL,
        0x2000000000000000ULL, 0x1c71c71c71c71c72ULL, 0x199999999999999aULL, 0x1745d1745d1745d2ULL,
        0x1555555555555556ULL, 0x13b13b13b13b13b2ULL, 0x124924924924924aULL, 0x1111111111111112ULL,
        0x1000000000000000ULL, 0xf0f0f0f0f0f0f10ULL, 0xe38e38e38e38e39ULL, 0xd79435e50d79436ULL,
        0xccccccccccccccdULL, 0xc30c30c30c30c31ULL, 0xba2e8ba2e8ba2e9ULL, 0xb21642c8590b217ULL,
        0xaaaaaaaaaaaaaabULL, 0xa3d70a3d70a3d71ULL, 0x9d89d89d89d89d9ULL, 0x97b425ed097b426ULL,
        0x924924924924925ULL, 0x8d3dcb08d3dcb09ULL, 0x888888888888889ULL, 0x842108421084211ULL,
        0x800000000000000ULL, 0x7c1f07c1f07c1f1ULL, 0x787878787878788ULL, 0x750750750750751ULL,
        0x71c71c71c71c71dULL, 0x6eb3e45306eb3e5ULL, 0x6bca1af286bca1bULL, 0x690690690690691ULL,
        0x666666666666667ULL, 0x63e7063e7063e71ULL, 0x618618618618619ULL, 0x5f417d05f417d06ULL,
        0x5d1745d1745d175ULL, 0x5b05b05b05b05b1ULL, 0x590b21642c8590cULL, 0x572620ae4c415caULL,
        0x555555555555556ULL, 0x5397829cbc14e5fULL, 0x51eb851eb851eb9ULL, 0x505050505050506ULL,
        0x4ec4ec4ec4ec4edULL, 0x4d4873ecade304eULL, 0x4bda12f684bda13ULL, 0x4a7904a7904a791ULL,
        0x492492492492493ULL, 0x47dc11f7047dc12ULL, 0x469ee58469ee585ULL, 0x456c797dd49c342ULL,
        0x444444444444445ULL, 0x4325c53ef368eb1ULL, 0x421084210842109ULL, 0x410410410410411ULL,
        0x400000000000000ULL
    };
    static inline unsigned int kit_mod_small(unsigned int r, unsigned int n) {
        unsigned long long low = kit_fastmod_m[n] * r;
        return (unsigned int)(((unsigned __int128)low * n) >> 64);
    }
    #else
    static inline unsigned int kit_mod_small(unsigned int r, unsigned int n) { return r % n; }
    #endif
    """
    uint32_t kit_mod_small(uint32_t r, uint32_t n) nogil    # r % n, for 1 <= n <= 64


@cython.cdivision(True)
cdef inline uint32_t pcg32_pick(pcg32_t* rng, uint32_t n) noexcept nogil:
    """pcg32_below(rng, n) (the same draws, the same result) for a bound that is not a constant: a pick
    among options or cards. Up to 64 it takes the remainder without a division."""
    cdef uint32_t r
    if n > 64:
        return pcg32_below(rng, n)
    while True:
        r = pcg32_next(rng)
        if r >= n or r >= (<uint32_t>0 - n) % n:
            return kit_mod_small(r, n)


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
