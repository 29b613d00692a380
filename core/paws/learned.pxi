# Paws in Peril's features for the learned bots (core/kit/learned.pxi): one list per option of an ACTION
# decision and one per seat, in the order and with the meaning sim/paws/bots/features.py declares (the
# declarations test holds the counts together). Only what the deciding seat can see: the board, every
# player's position, HP, lives, VP, monster cards, hand sizes and barricades, its own item cards, the size
# of the monster deck.

cdef enum:
    N_POLICY = 38                 # option features (sim/paws/bots/features.py POLICY_FEATURES)
    N_VALUE = 12                  # seat features (VALUE_FEATURES)


cdef inline int learned_teams(Game* g) noexcept nogil:
    return g.teams


cdef inline double side_progress(Game* g, int seat) noexcept nogil:
    """VP toward the target: the seat's (Teams: its team's), 1 at the target."""
    if g.teams:
        return <double>team_vp(g, seat % 2) / g.r.team_vp_target if g.r.team_vp_target > 0 else 0
    return <double>vp(g, seat) / vp_goal(g) if vp_goal(g) > 0 else 0


cdef double side_lead(Game* g, int seat) noexcept nogil:
    """Progress ahead of the best other side (negative: behind)."""
    cdef double best = -1e9, x
    cdef int t
    for t in range(g.n):
        if (g.teams and t % 2 == seat % 2) or t == seat:
            continue
        x = side_progress(g, t)
        if x > best:
            best = x
    return side_progress(g, seat) - best if best > -1e9 else 0


cdef void learned_option_features(Game* g, int seat, int k, double* f) noexcept nogil:
    cdef Player* p = &g.players[seat]
    cdef Weights* w = &g.bots[seat].w
    cdef int kind = g.opt_a[k], a = g.opt_b[k], s, e, i
    cdef double hp = <double>p.hp / g.r.max_hp if g.r.max_hp > 0 else 0
    cdef Look* lk
    for i in range(N_POLICY):
        f[i] = 0
    if not g.look_ok:
        look_around(g, w, &g.look, seat)
        g.look_ok = 1
    lk = &g.look
    f[kind] = 1                                   # 0-8: the action (A_END_TURN .. A_PLAY_ITEM)
    s = action_score(g, w, lk, seat, k)
    f[9] = s / 100.0                              # the heuristic's score of it
    f[10] = s > 0
    f[11] = k == g.learned_best                   # the heuristic's pick
    if kind == A_MOVE:
        f[12] = cell_value(lk, a) / 100.0
        f[13] = g.tile[a] == T_DESERT
        f[15] = hp
        f[22] = side_progress(g, seat)
    elif kind == A_END_TURN:
        f[14] = hp
        f[19] = <double>g.ap / g.r.ap_per_turn if g.r.ap_per_turn > 0 else 0
        f[20] = side_progress(g, seat)
    elif kind == A_INVADE:
        f[16] = hp
        f[21] = side_progress(g, seat)
        f[23] = side_lead(g, seat)
    elif kind == A_RAID:
        f[17] = hp
        f[24] = side_lead(g, seat)
        f[27] = sole_leader(g) == a
        f[28] = (p.hp - g.players[a].hp) / 10.0
        f[29] = (g.players[a].n_items - p.n_items) / 5.0
    elif kind == A_LOOT:
        f[18] = hp
        f[26] = <double>p.n_items / lk.hand_limit if lk.hand_limit > 0 else 0
    elif kind == A_BUY:
        f[25] = <double>p.n_items / lk.hand_limit if lk.hand_limit > 0 else 0
    elif kind == A_PLAY_ITEM:
        e = g.items[p.items[a]].effect
        if e == E_HEAL:
            f[30] = 1
        elif e == E_EXTRA_AP:
            f[31] = 1
        elif e == E_GAIN_BARRICADE:
            f[32] = 1
        elif e == E_DRAW:
            f[33] = 1
        elif e == E_TELEPORT:
            f[34] = 1
        elif e == E_GRENADE:
            f[35] = 1
        elif e == E_SNARE:
            f[36] = 1
        elif e == E_POISON:
            f[37] = 1


cdef void learned_seat_features(Game* g, int seat, double* f) noexcept nogil:
    cdef Player* p = &g.players[seat]
    cdef int i
    for i in range(N_VALUE):
        f[i] = 0
    f[0] = side_progress(g, seat)
    f[1] = side_lead(g, seat)
    f[2] = owned(g, seat) / 4.0
    f[3] = <double>p.lives / g.r.lives if g.r.lives > 0 else 0
    f[4] = <double>p.hp / g.r.max_hp if g.r.max_hp > 0 else 0
    f[5] = <double>p.n_items / hand_limit(g, seat) if hand_limit(g, seat) > 0 else 0
    f[6] = p.n_monsters / 4.0
    f[7] = p.barricades / 2.0
    f[8] = p.lives > 0
    f[9] = sole_leader(g) == seat
    f[10] = min(g.round / 20.0, 1.0) * f[0]
    f[11] = p.knockouts_dealt / 3.0


cdef inline bint learned_forbidden(Game* g, int forbid, int k) noexcept nogil:
    """Restricted play: listed ACTION option k is of the forbidden kind (heuristic.pxi's rule)."""
    return forbidden(forbid, g.opt_a[k])


cdef int learned_decide(Game* g, int seat) noexcept nogil:
    """A learned seat's ACTION decision (the options listed in g.opt_*). Restricted play: the options are
    scored as the unrestricted bot scores them (its weights' forbid cleared while the heuristic's pick, a
    feature, is worked out) and the forbidden kind is passed over (learned_choose)."""
    cdef int forbid = g.bots[seat].w.forbid, k
    g.bots[seat].w.forbid = 0
    learned_prepare(g, seat)
    k = learned_choose(g, &g.bots[seat].model, seat, forbid)
    g.bots[seat].w.forbid = forbid
    return k


cdef inline void learned_prepare(Game* g, int seat) noexcept nogil:
    """Before scoring a decision's options: the heuristic's pick (feature 11)."""
    g.learned_best = heuristic_action(g, seat)


# the training samples' rows (PAWS_OPTION_SAMPLE and PAWS_SEAT_SAMPLE in core/paws_engine.pyx mirror them)
ctypedef struct OptionSample:
    int32_t game
    int32_t decision
    float share                   # the search's share of visits (mcts) or mean reward (flat)
    int16_t option
    int8_t seat
    int8_t chosen
    float f[N_POLICY]

ctypedef struct SeatSample:
    int32_t game
    int32_t decision
    int32_t seat
    float f[N_VALUE]


cdef void learned_samples(Game* g, int seat, int choice, const double* shares) noexcept nogil:
    """A search bot's decision as training samples: each listed option's features and share, each seat's
    features (the search copies the game; g is the decision's state, its options listed)."""
    cdef double f[MAXFEAT]
    cdef OptionSample* o
    cdef SeatSample* r
    cdef int k, i, s
    learned_prepare(g, seat)
    for k in range(g.n_opt):
        o = <OptionSample*>rows_push(&g.samples.options)
        if o == NULL:
            return
        learned_option_features(g, seat, k, f)
        o.game, o.decision, o.share = g.samples.game, <int32_t>g.decisions, <float>shares[k]
        o.option, o.seat, o.chosen = <int16_t>k, <int8_t>seat, k == choice
        for i in range(N_POLICY):
            o.f[i] = <float>f[i]
    for s in range(g.n):
        r = <SeatSample*>rows_push(&g.samples.seats)
        if r == NULL:
            return
        learned_seat_features(g, s, f)
        r.game, r.decision, r.seat = g.samples.game, <int32_t>g.decisions, s
        for i in range(N_VALUE):
            r.f[i] = <float>f[i]
