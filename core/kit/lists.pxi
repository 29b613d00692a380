# The engine kit's card lists: int16 arrays with a separate length, as the rules keep decks, hands and
# piles. A deck's top is its end. Mirrors the Python list operations of the reference engines.
#
# Contract: the including module defines a ``Game`` struct and ``below(Game*, int)`` (core/kit/draws.pxi
# or a scripted twin), which shuffle16 draws from.

cdef inline void push16(int16_t* arr, int* n, int v) noexcept nogil:
    """Append v (list.append)."""
    arr[n[0]] = <int16_t>v
    n[0] += 1


cdef inline int pop16(int16_t* arr, int* n, int i) noexcept nogil:
    """Remove and return arr[i], keeping the order of the rest (Python's list.pop(i))."""
    cdef int v = arr[i], j
    for j in range(i, n[0] - 1):
        arr[j] = arr[j + 1]
    n[0] -= 1
    return v


cdef inline int index16(const int16_t* arr, int n, int v) noexcept nogil:
    """The first position of v, or -1 (list.index without the exception)."""
    cdef int i
    for i in range(n):
        if arr[i] == v:
            return i
    return -1


cdef inline void insert_bottom16(int16_t* arr, int* n, int v) noexcept nogil:
    """Put a card at the bottom (index 0) of a deck whose top is the end."""
    cdef int j
    for j in range(n[0], 0, -1):
        arr[j] = arr[j - 1]
    arr[0] = <int16_t>v
    n[0] += 1


cdef inline void shuffle16(Game* g, int16_t* arr, int n) noexcept nogil:
    """Fisher-Yates from the last position down, as sim.rng.Rng.shuffle."""
    cdef int i, j, t
    for i in range(n - 1, 0, -1):
        j = below(g, i + 1)
        t = arr[i]
        arr[i] = arr[j]
        arr[j] = <int16_t>t
