# The engine kit's cell sets: Cells (core/kit/types.pxd), a 128-bit mask of board cells. Game-agnostic:
# any board of at most 128 cells (Paws in Peril's radius-6 hex board has 127).

cdef extern from *:
    """
    #if defined(_MSC_VER)
    #include <intrin.h>
    static __inline int kit_ctz64(unsigned long long x) { unsigned long i; _BitScanForward64(&i, x); return (int)i; }
    #else
    static inline int kit_ctz64(unsigned long long x) { return __builtin_ctzll(x); }
    #endif
    """
    int kit_ctz64(uint64_t x) nogil      # the lowest set bit of x != 0

cdef inline void cells_clear(Cells* s) noexcept nogil:
    s.w[0] = 0
    s.w[1] = 0


cdef inline void cells_add(Cells* s, int c) noexcept nogil:
    s.w[c >> 6] |= (<uint64_t>1) << (c & 63)


cdef inline void cells_remove(Cells* s, int c) noexcept nogil:
    s.w[c >> 6] &= ~((<uint64_t>1) << (c & 63))


cdef inline bint cells_has(const Cells* s, int c) noexcept nogil:
    return (s.w[c >> 6] >> (c & 63)) & 1


cdef inline bint cells_meet(const Cells* a, const Cells* b) noexcept nogil:
    """a and b have a cell in common."""
    return ((a.w[0] & b.w[0]) | (a.w[1] & b.w[1])) != 0


cdef inline bint cells_any(const Cells* s) noexcept nogil:
    return (s.w[0] | s.w[1]) != 0


cdef inline int cells_list(const Cells* s, int* out) noexcept nogil:
    """The cells of ``s`` into ``out``, ascending; returns how many."""
    cdef int k, n = 0
    cdef uint64_t x
    for k in range(2):
        x = s.w[k]
        while x:
            out[n] = (k << 6) + kit_ctz64(x)
            n += 1
            x &= x - 1
    return n
