# The engine kit's decision trace (docs/decision-trace.md): on request, every choice a bot makes through
# ask() is written down as the index of the option it took among the options listed, so that the
# reference engine can replay the game with those choices (sim/kit/trace.py reads it back). A search
# bot adds what it saw (a SearchNote) before its choice. Games with no trace (g.dtrace NULL) write
# nothing and pay one test per decision.
#
# One game's trace, a byte string:
#   version byte (TRACE_VERSION), then one entry per decision asked (a choice of one is not asked):
#   0 .. 253                      the option's index, in one byte
#   TRACE_WIDE lo hi              an index of 254 or more, as two bytes, little-endian
#   TRACE_NOTE kind n budget(2) [index value(2)] x n, then the choice's entry
#                                 a search note: kind NOTE_VISITS or NOTE_REWARD, n <= 3 options
#                                 (index as above), value in 1/10000 (two bytes, little-endian),
#                                 budget: the iterations or rollouts, at most 65535
#
# Contract: the including module cimports DecisionTrace and SearchNote (core/kit/types.pxd), realloc
# (libc.stdlib), memcpy (libc.string), uintptr_t (libc.stdint), and imports numpy as np.

cdef enum:
    TRACE_VERSION = 1
    TRACE_WIDE = 254
    TRACE_NOTE = 255
    NOTE_VISITS = 1               # SearchNote.kind: mcts, the share of the root's visits
    NOTE_REWARD = 2               # ... flat, the mean reward of the option's rollouts


cdef bint trace_room(DecisionTrace* t, size_t more) noexcept nogil:
    """Room for ``more`` bytes; False (and t.failed) when memory ran out."""
    cdef size_t cap
    cdef uint8_t* grown
    if t.failed:
        return False
    if t.n + more <= t.cap:
        return True
    cap = t.cap * 2 if t.cap else 4096
    while cap < t.n + more:
        cap *= 2
    grown = <uint8_t*>realloc(t.data, cap)
    if grown == NULL:
        t.failed = 1
        return False
    t.data, t.cap = grown, cap
    return True


cdef inline void trace_put(DecisionTrace* t, int b) noexcept nogil:
    if trace_room(t, 1):
        t.data[t.n] = <uint8_t>b
        t.n += 1


cdef void trace_index(DecisionTrace* t, int k) noexcept nogil:
    """An option index: one byte below TRACE_WIDE, else TRACE_WIDE and two bytes."""
    if k < TRACE_WIDE:
        trace_put(t, k)
    else:
        trace_put(t, TRACE_WIDE)
        trace_put(t, k & 0xFF)
        trace_put(t, (k >> 8) & 0xFF)


cdef inline void trace_u16(DecisionTrace* t, int v) noexcept nogil:
    trace_put(t, v & 0xFF)
    trace_put(t, (v >> 8) & 0xFF)


cdef void trace_begin(DecisionTrace* t) noexcept nogil:
    """A game's trace starts: its version byte."""
    trace_put(t, TRACE_VERSION)


cdef void trace_note(DecisionTrace* t, const SearchNote* note) noexcept nogil:
    """What a search saw, before its choice's entry."""
    cdef int k
    trace_put(t, TRACE_NOTE)
    trace_put(t, note.kind)
    trace_put(t, note.n)
    trace_u16(t, min(note.budget, 65535))
    for k in range(note.n):
        trace_index(t, note.option[k])
        trace_u16(t, <int>(note.value[k] * 10000 + 0.5))


cdef void note_top(SearchNote* note, int k, double value) noexcept nogil:
    """Keep option ``k`` among the note's three best by value (an earlier option first on ties)."""
    cdef int i = note.n if note.n < 3 else 3
    if i == 3 and value <= note.value[2]:
        return
    if i == 3:
        i = 2
    while i > 0 and value > note.value[i - 1]:
        note.option[i] = note.option[i - 1]
        note.value[i] = note.value[i - 1]
        i -= 1
    note.option[i] = k
    note.value[i] = value
    if note.n < 3:
        note.n += 1


cdef void note_first(SearchNote* note, int k, double value) noexcept nogil:
    """Put option ``k`` (the search's choice) first in the note: out of its place if it is there, else in
    front of the others (the third is dropped)."""
    cdef int i, at = -1
    for i in range(note.n):
        if note.option[i] == k:
            at = i
    if at < 0:
        at = note.n if note.n < 3 else 2
        if note.n < 3:
            note.n += 1
    for i in range(at, 0, -1):
        note.option[i] = note.option[i - 1]
        note.value[i] = note.value[i - 1]
    note.option[0] = k
    note.value[0] = value


cdef object trace_array(DecisionTrace* t):
    """The batch's traces end to end as a new numpy uint8 array; raises MemoryError if the buffer could
    not grow (the including module imports numpy as np, cimports memcpy and uintptr_t)."""
    if t.failed:
        raise MemoryError("the decision trace could not grow")
    out = np.empty(t.n, np.uint8)
    if t.n:
        memcpy(<void*><uintptr_t>out.ctypes.data, t.data, t.n)
    return out
