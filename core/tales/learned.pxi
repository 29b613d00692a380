# Tales are Real's features for the learned bots (core/kit/learned.pxi): one list per option of a top-level
# decision (a recruitment return, an equipment action or discard, a battle turn's attacker, defender or
# provoked target) and one per seat, in the order and with the meaning sim/tales/bots/features.py declares.
# Only what the deciding commander can see: the field, every creature's gear, damage and potions, its own
# hand, hand sizes, losses; a Champion only once the armies are set up and the Champions revealed.

cdef enum:
    N_POLICY = 25                 # option features (sim/tales/bots/features.py POLICY)
    N_VALUE = 9                   # seat features (VALUE)


cdef inline int learned_teams(Game* g) noexcept nogil:
    return g.teams


cdef inline bint champions_shown(Game* g) noexcept nogil:
    """The Champions are revealed once all armies are set up (round 1's recruitment is over)."""
    return not (g.round == 1 and g.stage == ST_RECRUIT)


cdef inline void learned_prepare(Game* g, int seat) noexcept nogil:
    """Before scoring a decision's options: the heuristic's pick (feature 7)."""
    g.learned_best = heuristic_decide(g, seat, g.asking)


cdef int heuristic_option_score(Game* g, int s, int kind, int i) noexcept nogil:
    """The heuristic's score of option i of the pending decision (as heuristic_decide scores it)."""
    cdef Weights* w = &g.bots[s].w
    cdef Sight sight
    cdef Pos foes[MAXTEAMSEATS * MAXARMY]
    cdef int nf, h
    if kind == D_EQUIP:
        return equip_score(g, s, w, g.opt_a[i], g.opt_b[i], g.opt_c[i], g.opt_d[i])
    if kind == D_RETURN:
        return -creature_value(g, g.opt_a[i], w)
    if kind == D_DISCARD:
        h = g.seats[s].hand[g.opt_a[i]]
        return (0 if usable(g, s, h) else 100) - gear_value(g, h, w)
    look(g, &sight)
    if kind == D_ATTACKER:
        nf = ready_list(g, 1 - s % 2, foes)
        return attacker_score(g, w, &sight, pos(g.opt_a[i], g.opt_b[i]), foes, nf)
    if kind == D_DEFENDER:
        return defender_score(g, w, &sight, g.attacker, pos(g.opt_a[i], g.opt_b[i]))
    return provoke_score(g, w, &sight, g.attacker, pos(g.opt_a[i], g.opt_b[i]))


cdef void learned_option_features(Game* g, int seat, int k, double* f) noexcept nogil:
    cdef int kind = g.asking, i, nf, act, h
    cdef Weights* w = &g.bots[seat].w
    cdef Pos p, foes[MAXTEAMSEATS * MAXARMY]
    cdef double last = last_round(g)
    for i in range(N_POLICY):
        f[i] = 0
    if kind == D_RETURN:
        f[0] = 1
        f[20] = creature_value(g, g.opt_a[k], w) / 20.0
    elif kind == D_EQUIP:
        f[1] = 1
        act = g.opt_a[k]
        f[8 + act] = 1                            # 8-11: pass, swap, equip, take off (ACT_*)
        if act == ACT_EQUIP:
            f[12] = gear_value(g, g.seats[seat].hand[g.opt_b[k]], w) / 10.0
            f[13] = champions_shown(g) and g.seats[g.opt_c[k]].slot[g.opt_d[k]] == g.seats[g.opt_c[k]].champion
    elif kind == D_DISCARD:
        f[2] = 1
        h = g.seats[seat].hand[g.opt_a[k]]
        f[21] = usable(g, seat, h)
        f[22] = gear_value(g, h, w) / 10.0
    else:
        f[3 + kind - D_ATTACKER] = 1              # 3-5: attacker, defender, provoke
        p = pos(g.opt_a[k], g.opt_b[k])
        f[14] = attack(g, p) / 10.0
        f[15] = life_left(g, p) / 10.0
        f[19] = card(g, p).tier / 3.0
        if kind == D_ATTACKER:
            nf = ready_list(g, 1 - seat % 2, foes)
            for i in range(nf):
                if kills(g, p, foes[i]):
                    f[16] = 1
                if kills(g, foes[i], p):
                    f[17] = 1
            f[18] = champions_shown(g) and is_champion(g, p)
        elif kind == D_DEFENDER:
            f[16] = kills(g, p, g.attacker)
            f[17] = kills(g, g.attacker, p)
            f[18] = champions_shown(g) and is_champion(g, p)
        else:
            f[16] = kills(g, g.attacker, p)       # provoke: the attacker destroys the one it provokes
            f[17] = kills(g, p, g.attacker)
    f[6] = heuristic_option_score(g, seat, kind, k) / 20.0
    f[7] = k == g.learned_best
    f[23] = (team_losses(g, 1 - seat % 2) - team_losses(g, seat % 2)) / 10.0
    f[24] = g.round / last if last > 0 else 0


cdef void learned_seat_features(Game* g, int seat, double* f) noexcept nogil:
    cdef Seat* st = &g.seats[seat]
    cdef int k, team = seat % 2, on = 0
    cdef double atk = 0, life = 0, last = last_round(g)
    for k in range(N_VALUE):
        f[k] = 0
    for k in range(g.army):
        if st.slot[k] != EMPTY:
            on += 1
            atk += attack(g, pos(seat, k))
            life += life_left(g, pos(seat, k))
    f[0] = <double>on / g.army if g.army > 0 else 0
    f[1] = team_losses(g, team) / 10.0
    f[2] = team_losses(g, 1 - team) / 10.0
    f[3] = atk / 20.0
    f[4] = life / 40.0
    f[5] = st.n_hand / 5.0
    f[6] = g.round / last if last > 0 else 0
    if champions_shown(g):
        for k in range(g.army):
            if st.slot[k] != EMPTY and st.slot[k] == st.champion:
                f[7] = 1                          # its Champion is on the field
                f[8] = <double>st.damage[k] / card(g, pos(seat, k)).life if card(g, pos(seat, k)).life > 0 else 0


# the training samples' rows (OPTION_SAMPLE_DTYPE and SEAT_SAMPLE_DTYPE in core/tales_engine.pyx mirror them)
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
    features."""
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


cdef int learned_decide(Game* g, int seat) noexcept nogil:
    """A learned seat's top-level decision (the options listed in g.opt_*)."""
    learned_prepare(g, seat)
    return learned_choose(g, &g.bots[seat].model, seat)
