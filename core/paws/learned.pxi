# Paws in Peril's features for the learned bots (core/kit/learned.pxi): one list per option of an ACTION
# decision and one per seat, in the order and with the meaning sim/paws/bots/features.py declares (the
# declarations test holds the counts together); and for a model's decisions block, one list per option of
# each other decision a seat makes (combat cards, defenders, monsters kept, cards taken, discards). Only what the deciding seat can see: the board, every
# player's position, HP, lives, VP, monster cards, hand sizes and barricades, its own item cards, the size
# of the monster deck.

cdef enum:
    N_POLICY = 38                 # option features (sim/paws/bots/features.py POLICY_FEATURES)
    N_VALUE = 12                  # seat features (VALUE_FEATURES)
    # a decisions block's features per decision kind (sim/paws/bots/features.py DECISIONS)
    N_COMBAT_CARD = 15
    N_DEFENDER = 7
    N_KEEP_MONSTER = 10
    N_TAKE_CARD = 9
    N_DISCARD = 10


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


# -- the decisions block: every other decision a learned seat makes (core/kit/learned.pxi) -----------------
# the kinds a decisions block may hold, by the model file's names (sim/paws/bots/features.py DECISIONS)
LEARNED_DECISIONS = {"combat_card": (D_COMBAT_CARD, N_COMBAT_CARD), "defender": (D_DEFENDER, N_DEFENDER),
                     "keep_monster": (D_KEEP_MONSTER, N_KEEP_MONSTER), "take_card": (D_TAKE_CARD, N_TAKE_CARD),
                     "discard": (D_DISCARD, N_DISCARD)}


cdef inline int learned_decision_size(int kind) noexcept nogil:
    if kind == D_COMBAT_CARD:
        return N_COMBAT_CARD
    if kind == D_DEFENDER:
        return N_DEFENDER
    if kind == D_KEEP_MONSTER:
        return N_KEEP_MONSTER
    if kind == D_TAKE_CARD:
        return N_TAKE_CARD
    if kind == D_DISCARD:
        return N_DISCARD
    return 0


cdef inline void learned_decision_prepare(Game* g, int seat, int kind) noexcept nogil:
    """Before scoring a decision's options: the heuristic's pick (each kind's last feature)."""
    g.learned_best = heuristic_decide(g, seat, kind)


cdef inline double over(double x, double y) noexcept nogil:
    return x / y if y > 0 else 0


cdef void combat_card_features(Game* g, int seat, int k, double* f) noexcept nogil:
    """A fight's card (§10, §12): pass, or a card in hand (an escape once per destination)."""
    cdef Player* p = &g.players[seat]
    cdef Fight* fi = g.fight
    cdef int hand_index = g.opt_a[k], e, other, worth
    cdef const ItemSpec* card
    if hand_index < 0:
        f[0] = 1
        return
    card = &g.items[p.items[hand_index]]
    e = card.effect
    f[1] = e == E_ESCAPE
    f[2] = e == E_HEAL
    f[3] = e == E_FIGHT_BONUS
    f[4] = e == E_ROLL_BONUS
    f[5] = e == E_REFLECT
    f[6] = card.amount / 5.0
    f[7] = over(p.hp, g.r.max_hp)
    if e == E_HEAL:
        f[8] = over(max(0, g.r.max_hp - p.hp), g.r.max_hp)
    if fi != NULL:
        other = fi.seats[1] if fi.seats[0] == seat else fi.seats[0]
        f[9] = fi.attacker == seat
        f[10] = fi.roll == 0
        f[11] = other == NOBODY
        f[12] = (p.hp - (fi.monster_hp if other == NOBODY else g.players[other].hp)) / 10.0
        worth = combat_worth(g, fi, seat, e)
        f[13] = worth / 100.0


cdef void defender_features(Game* g, int seat, int k, double* f) noexcept nogil:
    """§6.1: the owner's monster card that defends the invaded home (options in the owner's order)."""
    cdef Player* q = &g.players[seat]
    cdef int m = g.opt_a[k], guard = 0, hp = g.mons[m].hp, invader = g.seat
    if g.mons[m].buff == B_GUARD and q.active[k]:
        guard = g.mons[m].amount
    if invader != NOBODY and g.tile[g.players[invader].pos] == T_MANSION:
        hp += g.r.mansion_monster_hp_bonus
    f[0] = g.mons[m].hp / 10.0
    f[1] = guard / 3.0
    f[2] = monster_value(g, m) / 10.0
    f[3] = q.active[k] != 0
    f[4] = (hp - (g.players[invader].hp if invader != NOBODY else 0)) / 10.0
    f[5] = (10 * g.mons[m].hp + (g.mons[m].amount if g.mons[m].buff == B_GUARD else 0)) / 100.0


cdef void keep_monster_features(Game* g, int seat, int k, double* f) noexcept nogil:
    """§8.3: the monster card a knocked-out player keeps (options in the player's order)."""
    cdef int m = g.opt_a[k], b = g.mons[m].buff
    f[0] = g.mons[m].hp / 10.0
    f[1] = monster_value(g, m) / 10.0
    f[2] = g.players[seat].active[k] != 0
    if B_FIGHT_SCORE <= b <= B_HAND:
        f[3 + b - B_FIGHT_SCORE] = g.mons[m].amount / 3.0      # 3-8: its buff, by kind, its amount over 3


cdef void take_card_features(Game* g, int seat, int k, double* f) noexcept nogil:
    """§8.2: the card taken from the player knocked out (whose cards the taker looks at)."""
    cdef Player* p = &g.players[seat]
    cdef int card = g.opt_b[k]
    cdef const ItemSpec* it
    if g.opt_a[k] == 0:
        it = &g.items[card]
        f[0] = 1
        f[2] = item_value(g, card) / 10.0
        f[4] = p.n_items >= hand_limit(g, seat)
        f[5] = combat_effect(it.effect) and it.timing != TIMING_ON_TURN
        f[7] = item_value(g, card) / 20.0
    else:
        f[1] = 1
        f[3] = monster_value(g, card) / 10.0
        f[6] = g.mons[card].hp / 10.0
        f[7] = (6 + monster_value(g, card)) / 20.0


cdef void discard_features(Game* g, int seat, int k, double* f) noexcept nogil:
    """§10: the item card discarded down to the hand limit (options in hand order)."""
    cdef Player* p = &g.players[seat]
    cdef const ItemSpec* it = &g.items[g.opt_a[k]]
    cdef int e = it.effect, i
    f[0] = item_value(g, g.opt_a[k]) / 10.0
    f[1] = combat_effect(e) and it.timing != TIMING_ON_TURN
    f[2] = g.turn_kind[g.opt_a[k]] != TK_NONE
    f[3] = e == E_GRENADE or e == E_SNARE or e == E_POISON
    f[4] = e == E_HEAL
    if e == E_HEAL:
        f[5] = over(max(0, g.r.max_hp - p.hp), g.r.max_hp)
    f[6] = e == E_WARD
    f[7] = e == E_ESCAPE
    for i in range(p.n_items):
        if i != k and g.items[p.items[i]].effect == e:
            f[8] = 1


cdef void learned_decision_features(Game* g, int seat, int kind, int k, double* f) noexcept nogil:
    cdef int i, n = learned_decision_size(kind)
    for i in range(n):
        f[i] = 0
    if kind == D_COMBAT_CARD:
        combat_card_features(g, seat, k, f)
    elif kind == D_DEFENDER:
        defender_features(g, seat, k, f)
    elif kind == D_KEEP_MONSTER:
        keep_monster_features(g, seat, k, f)
    elif kind == D_TAKE_CARD:
        take_card_features(g, seat, k, f)
    elif kind == D_DISCARD:
        discard_features(g, seat, k, f)
    if n > 0:
        f[n - 1] = k == g.learned_best           # the heuristic's pick, each kind's last feature


cdef inline bint learned_takes(Game* g, int seat, int kind) noexcept nogil:
    """A decision of kind ``kind`` (not a turn's action) that ``seat``'s learned bot takes by its model's
    decisions block (else the heuristic takes it, with the bot's weights)."""
    return g.bots[seat].kind == BOT_LEARNED and learned_decides(&g.bots[seat].model, kind)
