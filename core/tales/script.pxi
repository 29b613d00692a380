# The scenario tests' draws and decisions (core/tales_scenario.pyx, tests/tales/tales_core_scenario.py): the
# functions of core/tales/draws.pxi, but every die, random pick and bot decision is the next entry of the
# module-level script that the bridge fills before it runs a section function (tests/script_queue.py
# is the Python harness's version). The first draw or decision that is not the next entry fails the
# script, like the harness's ScriptError; the engine then runs on with dummy draws and g.error set, so
# that the section function ends soon, and the bridge reports the failure. Where cards go to the
# graveyard, which the engine does not keep, is logged for the bridge to hand to the reference's lists.
# With no script loaded (script_loaded = 0) they draw from g.rng and ask the bots like the engine's, so
# the module plays whole games the same way too (PausedGame).

cdef enum:
    S_DIE = 0           # ScriptEntry.kind: die()
    S_PICK = 1          # below(n)
    S_ASK = 2           # ask(seat, kind)
    MAXSCRIPT = 1024    # entries of one script
    MAXSEEN = 16384     # options recorded over one script
    MAXBURIED = 1024    # cards gone to the graveyard during one section function

ctypedef struct ScriptEntry:
    int kind            # S_*
    int x               # S_DIE: the value; S_PICK: n; S_ASK: the seat
    int y               # S_PICK: the value returned; S_ASK: the decision kind (D_*)
    int opt[4]          # S_ASK: the option chosen, as its (opt_a, opt_b, opt_c, opt_d)

ctypedef struct Script:
    ScriptEntry entries[MAXSCRIPT]
    int n               # entries queued
    int used            # entries consumed
    int failed          # 0, or 1 + the S_* kind of the first draw or decision that was not the next entry
    int failed_x        # what it was: as ScriptEntry.x and .y (S_PICK: n; S_ASK: seat, kind)
    int failed_y
    int failed_seen     # a failed ask: where its options start in seen, how many (-1: too many to record)
    int failed_n_seen
    int junk            # dummy dice drawn since the failure
    int seen[MAXSEEN][4]            # the options of each decision asked, one after the other
    int n_seen
    int seen_at[MAXSCRIPT]          # per consumed S_ASK entry: where its options start in seen
    int seen_n[MAXSCRIPT]           # and how many
    int buried[MAXBURIED][3]        # (seat, 0 creature or 1 equipment, card id), in the order they went
    int n_buried
    int buried_lost                 # cards that did not fit in buried


cdef Script script
cdef bint script_loaded = 0     # the bridge is running a section function on the script
cdef bint probing = 0           # decision_probe (core/tales_scenario.pyx) logs every potion and Champion decision


cdef bint script_record_options(Game* g) noexcept nogil:
    """Append the decision's options to script.seen; False when they do not fit."""
    cdef int k
    if script.n_seen + g.n_opt > MAXSEEN:
        return False
    for k in range(g.n_opt):
        script.seen[script.n_seen + k][0] = g.opt_a[k]
        script.seen[script.n_seen + k][1] = g.opt_b[k]
        script.seen[script.n_seen + k][2] = g.opt_c[k]
        script.seen[script.n_seen + k][3] = g.opt_d[k]
    script.n_seen += g.n_opt
    return True


cdef void script_fail(Game* g, int kind, int x, int y) noexcept nogil:
    if script.failed:
        return
    script.failed = 1 + kind
    script.failed_x = x
    script.failed_y = y
    script.failed_seen = script.n_seen
    script.failed_n_seen = 0
    if kind == S_ASK:
        script.failed_n_seen = g.n_opt if script_record_options(g) else -1
    g.error = 1


cdef inline ScriptEntry* script_next(int kind) noexcept nogil:
    """The next entry if it is of this kind and the script has not failed, else NULL."""
    if script.failed or script.used >= script.n or script.entries[script.used].kind != kind:
        return NULL
    return &script.entries[script.used]


cdef int die(Game* g) noexcept nogil:
    cdef ScriptEntry* e
    if not script_loaded:
        return pcg32_die(&g.rng)
    e = script_next(S_DIE)
    if e != NULL:
        script.used += 1
        return e.x
    script_fail(g, S_DIE, 0, 0)
    script.junk += 1
    return 1 + script.junk % 6      # never the same twice running: who_begins() ends


cdef int below(Game* g, int n) noexcept nogil:
    cdef ScriptEntry* e
    if not script_loaded:
        return <int>pcg32_below(&g.rng, <uint32_t>n)
    e = script_next(S_PICK)
    if e != NULL and e.x == n:
        script.used += 1
        return e.y
    script_fail(g, S_PICK, n, 0)
    return 0


cdef int ask(Game* g, int seat, int kind) noexcept nogil:
    """The option equal to the scripted one, for the scripted seat and decision kind; a choice of one is
    not asked (nor scripted), as in the engine."""
    cdef ScriptEntry* e
    cdef int k, at = script.n_seen
    if g.n_opt <= 1:
        return 0
    if probing and not script_loaded and (kind == D_POTION or kind == D_CHAMPION):
        probe_decision(g, seat, kind)
    if not script_loaded:       # as core/tales/draws.pxi
        if g.bots[seat].kind == BOT_RANDOM:
            return below(g, g.n_opt)
        if g.bots[seat].kind == BOT_LEARNED and searched(kind):
            return learned_decide(g, seat)
        if learned_takes(g, seat, kind):
            return learned_block_decide(g, seat, kind)
        if (g.bots[seat].kind == BOT_MCTS or g.bots[seat].kind == BOT_FLAT) and searched(kind):
            return search_decide(g, seat)
        return heuristic_decide(g, seat, kind)
    e = script_next(S_ASK)
    if e != NULL and e.x == seat and e.y == kind:
        for k in range(g.n_opt):
            if (g.opt_a[k] == e.opt[0] and g.opt_b[k] == e.opt[1] and g.opt_c[k] == e.opt[2]
                    and g.opt_d[k] == e.opt[3]):
                if not script_record_options(g):
                    break
                script.seen_at[script.used] = at
                script.seen_n[script.used] = g.n_opt
                script.used += 1
                return k
    script_fail(g, S_ASK, seat, kind)
    return 0


# -- the graveyards (core/tales/draws.pxi keeps none) ---------------------------------------------------
cdef void bury(int seat, int what, int card_id) noexcept nogil:
    if not script_loaded:
        return
    if script.n_buried >= MAXBURIED:
        script.buried_lost += 1
        return
    script.buried[script.n_buried][0] = seat
    script.buried[script.n_buried][1] = what
    script.buried[script.n_buried][2] = card_id
    script.n_buried += 1


cdef void to_graveyard(Game* g, int seat, int slot) noexcept nogil:
    """A destroyed creature leaves the field for its people's graveyard, with its equipment."""
    cdef Seat* st = &g.seats[seat]
    cdef int i
    bury(seat, 0, st.slot[slot])
    for i in range(st.n_gear[slot]):
        bury(seat, 1, st.gear[slot][i])


cdef void card_to_graveyard(Game* g, int seat, int equipment_id) noexcept nogil:
    """An equipment card from the hand goes to the graveyard: a potion used, a card swapped away."""
    bury(seat, 1, equipment_id)
