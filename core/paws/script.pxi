# The scripting hook of scenario tests (tests/paws/scenario.py, tests/paws/core_scenario.py): while
# g.script is set, die(), below() and ask() (common.pxi) take the next scripted entry instead of drawing
# or asking a bot. The first draw or decision that is not the next entry fails the script (like the
# Python harness's ScriptError); the engine then runs on with dummy draws and g.error set, so that the
# section function ends soon, and the bridge reports the failure.

cdef void script_fail(Game* g, int kind, int x, int y) noexcept nogil:
    cdef Script* s = g.script
    if s.failed:
        return
    s.failed = 1 + kind
    s.failed_x = x
    s.failed_y = y
    s.failed_seen = s.n_seen
    s.failed_n_seen = 0
    if kind == S_ASK:
        s.failed_n_seen = g.n_opt if script_record_options(s, g) else -1  # -1: too many to record
    g.error = 1


cdef bint script_record_options(Script* s, Game* g) noexcept nogil:
    """Append the decision's options to s.seen; False when they do not fit."""
    cdef int k
    if s.n_seen + g.n_opt > MAXSEEN:
        return False
    for k in range(g.n_opt):
        s.seen[s.n_seen + k][0] = g.opt_a[k]
        s.seen[s.n_seen + k][1] = g.opt_b[k]
        s.seen[s.n_seen + k][2] = g.opt_c[k]
    s.n_seen += g.n_opt
    return True


cdef inline ScriptEntry* script_next(Script* s, int kind) noexcept nogil:
    """The next entry if it is of this kind and the script has not failed, else NULL."""
    if s.failed or s.used >= s.n or s.entries[s.used].kind != kind:
        return NULL
    return &s.entries[s.used]


cdef int script_die(Game* g) noexcept nogil:
    cdef Script* s = g.script
    cdef ScriptEntry* e = script_next(s, S_DIE)
    if e != NULL:
        s.used += 1
        return e.x
    script_fail(g, S_DIE, 0, 0)
    s.junk += 1
    return 1 + s.junk % 6


cdef int script_below(Game* g, int n) noexcept nogil:
    cdef Script* s = g.script
    cdef ScriptEntry* e = script_next(s, S_PICK)
    if e != NULL and e.x == n:
        s.used += 1
        return e.y
    script_fail(g, S_PICK, n, 0)
    return 0


cdef int script_ask(Game* g, int seat, int kind) noexcept nogil:
    """The option equal to the scripted one, for the scripted seat and decision kind."""
    cdef Script* s = g.script
    cdef ScriptEntry* e = script_next(s, S_ASK)
    cdef int k, at = s.n_seen
    if e != NULL and e.x == seat and e.y == kind:
        for k in range(g.n_opt):
            if g.opt_a[k] == e.opt[0] and g.opt_b[k] == e.opt[1] and g.opt_c[k] == e.opt[2]:
                if not script_record_options(s, g):
                    break
                s.seen_at[s.used] = at
                s.seen_n[s.used] = g.n_opt
                s.used += 1
                return k
    script_fail(g, S_ASK, seat, kind)
    return 0


# die(), below() and ask() call these through pointers, so that the compiler never inlines a script
# function into the engine's hot paths (the scripted branch stays one compare and one call)
cdef int (*script_die_fn)(Game*) noexcept nogil
cdef int (*script_below_fn)(Game*, int) noexcept nogil
cdef int (*script_ask_fn)(Game*, int, int) noexcept nogil
script_die_fn = script_die
script_below_fn = script_below
script_ask_fn = script_ask
