# Scripted draws and decisions for the rulebook scenario tests (tests/paws/scenario.py,
# tests/paws/core_scenario.py). Only the test-only module core/paws_scenario.pyx includes this file, in
# place of the production draws (core/kit/draws.pxi and draws.pxi): die(), below() and ask() of the
# same names take the next entry of the loaded script instead of drawing or asking a bot. The first
# draw or decision that is not the next entry fails the script (like the Python harness's
# ScriptError); the engine then runs on with dummy draws and g.error set, so that the section function
# ends soon, and the bridge reports the failure. With no script loaded they draw from g.rng and ask the
# bots like the production ones, so the module plays whole games the same way too.

cdef enum:
    SCRIPTED_DRAWS = 1            # every die goes through die() (combat.pxi's fast path is off)
    S_DIE = 0                     # ScriptEntry.kind
    S_PICK = 1
    S_ASK = 2
    MAXSCRIPT = 2048              # entries of one script
    MAXSEEN = 16384               # option triples recorded over one script's decisions

# the dice, below(n) picks and bot decisions a hand-worked test expects, in order
ctypedef struct ScriptEntry:
    int kind                      # S_DIE, S_PICK or S_ASK
    int x                         # die: the value; pick: n; ask: the seat
    int y                         # pick: the result; ask: the decision kind
    int opt[3]                    # ask: the option (a, b, c) to choose

ctypedef struct Script:
    ScriptEntry entries[MAXSCRIPT]
    int n                         # entries
    int used                      # entries consumed, in order
    int failed                    # 0, or 1 + the kind (S_*) of the first draw or decision that did not match
    int failed_x                  # ... its n (pick) or seat (ask)
    int failed_y                  # ... its decision kind (ask)
    int failed_seen               # ... its options: seen[failed_seen : failed_seen + failed_n_seen] (ask)
    int failed_n_seen
    int junk                      # draws after a failure: dice cycle 1..6 so that no loop waits on a tie
    int seen_at[MAXSCRIPT]        # entry i is an ask: its options are seen[seen_at[i] : seen_at[i] + seen_n[i]]
    int seen_n[MAXSCRIPT]
    int n_seen
    int seen[MAXSEEN][3]          # the options of every decision asked, as (a, b, c)

cdef Script* loaded_script = NULL     # the script of the section function being run, or NULL
cdef bint probing = 0                 # decision_probe (core/paws_scenario.pyx) logs every other decision asked


cdef void script_fail(Game* g, int kind, int x, int y) noexcept nogil:
    cdef Script* s = loaded_script
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


cdef int die(Game* g) noexcept nogil:
    """One six-sided die, 1..6: the script's next die."""
    cdef Script* s = loaded_script
    cdef ScriptEntry* e
    if s == NULL:
        return pcg32_die(&g.rng)
    e = script_next(s, S_DIE)
    if e != NULL:
        s.used += 1
        return e.x
    script_fail(g, S_DIE, 0, 0)
    s.junk += 1
    return 1 + s.junk % 6


cdef int below(Game* g, int n) noexcept nogil:
    """Uniform in [0, n) for n >= 1: the script's next pick, which must be of the same n."""
    cdef Script* s = loaded_script
    cdef ScriptEntry* e
    if s == NULL:
        return <int>pcg32_below(&g.rng, <uint32_t>n)
    e = script_next(s, S_PICK)
    if e != NULL and e.x == n:
        s.used += 1
        return e.y
    script_fail(g, S_PICK, n, 0)
    return 0


cdef int ask(Game* g, int seat, int kind) noexcept nogil:
    """Every bot choice: the option equal to the scripted one, for the scripted seat and decision kind
    (a choice of one is not asked, as in production)."""
    cdef Script* s = loaded_script
    cdef ScriptEntry* e
    cdef int k, at
    if g.n_opt <= 1:
        return 0
    if probing and kind != D_ACTION and kind != D_PLACE_FREE:
        probe_decision(g, seat, kind)
    if s == NULL:
        if g.bots[seat].kind == BOT_RANDOM:
            return pcg32_below(&g.rng, g.n_opt)
        if kind == D_ACTION and g.bots[seat].kind == BOT_LEARNED:
            return learned_decide(g, seat)
        if learned_takes(g, seat, kind):
            return learned_choose_decision(g, &g.bots[seat].model, seat, kind)
        if kind == D_ACTION and (g.bots[seat].kind == BOT_MCTS or g.bots[seat].kind == BOT_FLAT):
            return search_decide(g, seat)
        return heuristic_decide(g, seat, kind)
    e = script_next(s, S_ASK)
    at = s.n_seen
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
