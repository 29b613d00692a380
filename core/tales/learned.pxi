# Tales are Real's features for the learned bots (core/kit/learned.pxi): one list per option of a top-level
# decision (a recruitment return, an equipment action or discard, a battle turn's attacker, defender or
# provoked target) and one per seat, in the order and with the meaning sim/tales/bots/features.py declares;
# and for a model's decisions block, one list per option of a potion or Champion decision.
# Only what the deciding commander can see: the field, every creature's gear, damage and potions, its own
# hand, hand sizes, losses; a Champion only once the armies are set up and the Champions revealed.

cdef enum:
    N_OPTION_COMMON = 19          # option features before the battle blocks (sim/tales/bots/features.py POLICY)
    N_BATTLE = 11                 # one block each for the attacker, defender and provoke decisions
    N_POLICY = N_OPTION_COMMON + 3 * N_BATTLE
    N_VALUE = 11                  # seat features (VALUE)


# -- the fight, foreseen: each creature's chances from the book's dice (3. Battle, steps 1-3), no die rolled
ctypedef struct Fighter:
    int attack                    # damage it inflicts (gear, Strength potion)
    int armor                     # the equipment step of damage reduction (gear armor, Armor potion)
    int life                      # life left
    int armor_amount              # its Armor ability's reduction
    double armor_chance           # the chance its Armor ability works (when there is damage)
    double shadow_chance          # the Schatten's Shadow Form: the chance to halve the damage
    double first                  # the chance it strikes first (ranged weapon, potion, First Strike)
    double block                  # the chance a hit on it is warded off (shields in turn, then Evade)
    double death_blow             # the chance its strike is a Death Blow


cdef inline double roll(int chance) noexcept nogil:
    """The chance a die succeeds on ``chance`` or higher (0: no roll, sure)."""
    if chance <= 0:
        return 1.0
    return min(1.0, max(0.0, (7 - chance) / 6.0))


cdef inline void fighter_add(Game* g, Fighter* f, int equipment_id, double* unblocked, bint* sure_first) noexcept nogil:
    cdef const EquipSpec* e = &g.eq[equipment_id]
    f.attack += e.damage
    f.armor += e.armor
    f.life += e.life
    if e.kind == K_SHIELD:
        unblocked[0] *= 1.0 - roll(e.block)
    if e.kind == K_RANGED:
        sure_first[0] = 1


cdef void fighter_of(Game* g, Pos p, int skip, int extra, Fighter* f) noexcept nogil:
    """The creature at ``p`` as a fighter; without its gear card at position ``skip`` and with the card
    ``extra`` carried as well (-1: neither)."""
    cdef Seat* st = &g.seats[p.seat]
    cdef const CreatureSpec* c = card(g, p)
    cdef double unblocked = 1.0
    cdef bint sure_first = has_potion(g, p, E_FIRST_STRIKE)
    cdef int i
    f.attack, f.armor, f.life = c.damage, 0, c.life - st.damage[p.slot]
    for i in range(st.n_gear[p.slot]):
        if i != skip:
            fighter_add(g, f, st.gear[p.slot][i], &unblocked, &sure_first)
    if extra >= 0:
        fighter_add(g, f, extra, &unblocked, &sure_first)
    f.attack += potion_bonus(g, p, E_STRENGTH)
    f.armor += potion_bonus(g, p, E_ARMOR)
    f.life = max(1, f.life)
    f.first = 1.0 if sure_first else (roll(c.ability_chance) if c.ability == AB_FIRST_STRIKE else 0.0)
    f.block = 1.0 - unblocked * (1.0 - (roll(c.ability_chance) if c.ability == AB_EVADE else 0.0))
    f.death_blow = roll(c.ability_chance) if c.ability == AB_DEATH_BLOW else 0.0
    f.armor_chance = roll(c.ability_chance) if c.ability == AB_ARMOR else 0.0
    f.armor_amount = c.ability_amount if c.ability == AB_ARMOR else 0
    f.shadow_chance = roll(c.people_chance) if c.people == P_SCHATTEN else 0.0


cdef double kill_chance(const Fighter* by, const Fighter* t) noexcept nogil:
    """The chance one strike of ``by`` destroys ``t``: it lands, then a Death Blow, or the damage after
    the equipment, Armor and Shadow Form steps reaches its life left (Area Damage not counted)."""
    cdef int d0 = max(0, by.attack - t.armor), d1, d2, a, h
    cdef double pa, ph, lethal = 0
    for a in range(2):
        pa = t.armor_chance if a else 1.0 - t.armor_chance
        d1 = max(0, d0 - t.armor_amount) if a and d0 > 0 else d0
        for h in range(2):
            ph = t.shadow_chance if h else 1.0 - t.shadow_chance
            d2 = d1 // 2 if h and d1 > 0 else d1
            if d2 >= t.life:
                lethal += pa * ph
    return (1.0 - t.block) * (by.death_blow + (1.0 - by.death_blow) * lethal)


cdef void foresee(const Fighter* att, const Fighter* dfn, double* att_falls, double* dfn_falls) noexcept nogil:
    """The chances each side of a fight is destroyed (First Strike: the one who strikes first alone
    strikes, and the other strikes back only if it still stands; both or neither: they strike together)."""
    cdef double ka = kill_chance(att, dfn), kd = kill_chance(dfn, att)
    cdef double both = att.first * dfn.first + (1 - att.first) * (1 - dfn.first)
    cdef double att_only = att.first * (1 - dfn.first), dfn_only = (1 - att.first) * dfn.first
    dfn_falls[0] = (both + att_only) * ka + dfn_only * (1 - kd) * ka
    att_falls[0] = (both + dfn_only) * kd + att_only * (1 - ka) * kd


cdef void exchange(Game* g, int seat, Pos att, Pos dfn, double* out) noexcept nogil:
    """The fight of ``att`` against ``dfn`` foreseen from ``seat``'s team: out[0] its expected weighted loss,
    out[1] the other team's, out[2] the chance its Champion falls, out[3] the other's (Champions once
    revealed)."""
    cdef Fighter fa, fd
    cdef double pa, pd, mine, theirs
    cdef Pos me = att, foe = dfn
    cdef bint shown = champions_shown(g)
    fighter_of(g, att, -1, -1, &fa)
    fighter_of(g, dfn, -1, -1, &fd)
    foresee(&fa, &fd, &pa, &pd)
    mine, theirs = pa, pd
    if att.seat % 2 != seat % 2:
        me, foe, mine, theirs = dfn, att, pd, pa
    out[0] = loss_weight(g, g.seats[me.seat].slot[me.slot]) * mine
    out[1] = loss_weight(g, g.seats[foe.seat].slot[foe.slot]) * theirs
    out[2] = mine if shown and is_champion(g, me) else 0.0
    out[3] = theirs if shown and is_champion(g, foe) else 0.0


cdef inline double exchange_worth(const double* x) noexcept nogil:
    """A fight's worth to the deciding team: the other team's weighted loss less its own, a Champion 10."""
    return x[1] - x[0] + 10.0 * (x[3] - x[2])


cdef void attack_outlook(Game* g, int seat, Pos p, double* out) noexcept nogil:
    """out[0:4] as exchange() for ``p`` sent into attack mode against the defender the other team would
    best choose (a Provoke that works: the target ``seat`` would best choose), out[4] the mean worth over
    the other team's ready creatures."""
    cdef Pos foes[MAXTEAMSEATS * MAXARMY]
    cdef double x[4]
    cdef double worst[4]
    cdef double best[4]
    cdef double w, lo = 1e300, hi = -1e300, total = 0, prov = 0
    cdef int nf = ready_list(g, 1 - seat % 2, foes), i
    for i in range(5):
        out[i] = 0
    if nf == 0:
        return
    for i in range(nf):
        exchange(g, seat, p, foes[i], x)
        w = exchange_worth(x)
        total += w
        if w < lo:
            lo, worst[0], worst[1], worst[2], worst[3] = w, x[0], x[1], x[2], x[3]
        if w > hi:
            hi, best[0], best[1], best[2], best[3] = w, x[0], x[1], x[2], x[3]
    if card(g, p).ability == AB_PROVOKE:
        prov = roll(card(g, p).ability_chance)
    for i in range(4):
        out[i] = (1 - prov) * worst[i] + prov * best[i]
    out[4] = total / nf


cdef void gear_outlook(Game* g, Pos p, int skip, int extra, double* kills_gain, double* safety_gain) noexcept nogil:
    """Equipment: how the creature at ``p`` fares against every creature of the other team on the field
    with its gear changed (without gear position ``skip``, with card ``extra``) against as it is: the
    change in its mean chance to destroy one in one strike, and in the mean chance one does not destroy it."""
    cdef Fighter now, then, foe
    cdef int i, t, k, n = 0, team = 1 - p.seat % 2
    fighter_of(g, p, -1, -1, &now)
    fighter_of(g, p, skip, extra, &then)
    kills_gain[0] = safety_gain[0] = 0
    for i in range(g.n_team_seats[team]):
        t = g.team_seats[team][i]
        for k in range(g.army):
            if g.seats[t].slot[k] != EMPTY:
                fighter_of(g, pos(t, k), -1, -1, &foe)
                kills_gain[0] += kill_chance(&then, &foe) - kill_chance(&now, &foe)
                safety_gain[0] += kill_chance(&foe, &now) - kill_chance(&foe, &then)
                n += 1
    if n:
        kills_gain[0] /= n
        safety_gain[0] /= n


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
    cdef int kind = g.asking, i, nf, act, h, b
    cdef Weights* w = &g.bots[seat].w
    cdef Pos p
    cdef Pos foes[MAXTEAMSEATS * MAXARMY]
    cdef double x[5]
    for i in range(N_POLICY):
        f[i] = 0
    if kind == D_RETURN:
        f[0] = 1
        f[16] = creature_value(g, g.opt_a[k], w) / 20.0
    elif kind == D_EQUIP:
        f[1] = 1
        act = g.opt_a[k]
        f[8 + act] = 1                            # 8-11: pass, swap, equip, take off (ACT_*)
        if act == ACT_EQUIP:
            f[12] = gear_value(g, g.seats[seat].hand[g.opt_b[k]], w) / 10.0
            f[13] = champions_shown(g) and g.seats[g.opt_c[k]].slot[g.opt_d[k]] == g.seats[g.opt_c[k]].champion
            gear_outlook(g, pos(g.opt_c[k], g.opt_d[k]), -1, g.seats[seat].hand[g.opt_b[k]], &f[14], &f[15])
        elif act == ACT_UNEQUIP:
            gear_outlook(g, pos(g.opt_b[k], g.opt_c[k]), g.opt_d[k], -1, &f[14], &f[15])
    elif kind == D_DISCARD:
        f[2] = 1
        h = g.seats[seat].hand[g.opt_a[k]]
        f[17] = usable(g, seat, h)
        f[18] = gear_value(g, h, w) / 10.0
    else:
        f[3 + kind - D_ATTACKER] = 1              # 3-5: attacker, defender, provoke
        b = N_OPTION_COMMON + N_BATTLE * (kind - D_ATTACKER)     # this decision's block of battle features
        p = pos(g.opt_a[k], g.opt_b[k])
        f[b] = attack(g, p) / 10.0
        f[b + 1] = life_left(g, p) / 10.0
        f[b + 4] = champions_shown(g) and is_champion(g, p)
        f[b + 5] = card(g, p).tier / 3.0
        if kind == D_ATTACKER:
            nf = ready_list(g, 1 - seat % 2, foes)
            for i in range(nf):
                if kills(g, p, foes[i]):
                    f[b + 2] = 1
                if kills(g, foes[i], p):
                    f[b + 3] = 1
            attack_outlook(g, seat, p, x)
        else:
            if kind == D_DEFENDER:
                f[b + 2] = kills(g, p, g.attacker)
                f[b + 3] = kills(g, g.attacker, p)
            else:                                 # provoke: the creature provoked is the other team's
                f[b + 2] = kills(g, g.attacker, p)
                f[b + 3] = kills(g, p, g.attacker)
            exchange(g, seat, g.attacker, p, x)
            x[4] = exchange_worth(x)
        f[b + 6] = x[0] / 3.0
        f[b + 7] = x[1] / 3.0
        f[b + 8] = x[2]
        f[b + 9] = x[3]
        f[b + 10] = x[4] / 10.0
    f[6] = heuristic_option_score(g, seat, kind, k) / 20.0
    f[7] = k == g.learned_best


cdef void learned_seat_features(Game* g, int seat, double* f) noexcept nogil:
    cdef Seat* st = &g.seats[seat]
    cdef int k, i, t, j, team = seat % 2, on = 0, ready = 0
    cdef double atk = 0, life = 0, last = last_round(g)
    cdef Fighter champ, foe
    for k in range(N_VALUE):
        f[k] = 0
    for k in range(g.army):
        if st.slot[k] != EMPTY:
            on += 1
            ready += not st.exhausted[k]
            atk += attack(g, pos(seat, k))
            life += life_left(g, pos(seat, k))
    f[0] = <double>on / g.army if g.army > 0 else 0
    f[1] = team_losses(g, team) / 10.0
    f[2] = team_losses(g, 1 - team) / 10.0
    f[3] = atk / 20.0
    f[4] = life / 40.0
    f[5] = st.n_hand / 5.0
    f[6] = g.round / last if last > 0 else 0
    f[9] = <double>ready / g.army if g.army > 0 else 0
    if champions_shown(g):
        for k in range(g.army):
            if st.slot[k] != EMPTY and st.slot[k] == st.champion:
                f[7] = 1                          # its Champion is on the field
                f[8] = <double>st.damage[k] / card(g, pos(seat, k)).life if card(g, pos(seat, k)).life > 0 else 0
                fighter_of(g, pos(seat, k), -1, -1, &champ)
                for i in range(g.n_team_seats[1 - team]):
                    t = g.team_seats[1 - team][i]
                    for j in range(g.army):
                        if g.seats[t].slot[j] != EMPTY:
                            fighter_of(g, pos(t, j), -1, -1, &foe)
                            f[10] = max(f[10], kill_chance(&foe, &champ))


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


cdef inline bint learned_forbidden(Game* g, int forbid, int k) noexcept nogil:
    """Restricted play: listed option k of the pending decision is of the forbidden kind (heuristic.pxi's
    rule; a learned seat's potions, its heuristic's or its block's, keep it: learned_block_decide)."""
    return forbidden(forbid, g.asking, g.opt_a[k])


cdef int learned_decide(Game* g, int seat) noexcept nogil:
    """A learned seat's top-level decision (the options listed in g.opt_*). Restricted play: the options are
    scored as the unrestricted bot scores them (its weights' forbid cleared while the features, the
    heuristic's pick and scores among them, are worked out) and the forbidden kind is passed over
    (learned_choose)."""
    cdef int forbid = g.bots[seat].w.forbid, k
    g.bots[seat].w.forbid = 0
    learned_prepare(g, seat)
    k = learned_choose(g, &g.bots[seat].model, seat, forbid)
    g.bots[seat].w.forbid = forbid
    return k


# -- the decisions block: the decisions the policy leaves to the heuristic (core/kit/learned.pxi) --------------
# the potions (3. Battle, step 1) and the Champion's choice (Game Setup), by the model file's names
# (sim/tales/bots/features.py DECISIONS)
cdef enum:
    N_POTION = 12                 # POTION's features
    N_CHAMPION = 8                # CHAMPION's features

LEARNED_DECISIONS = {"potion": (D_POTION, N_POTION), "champion": (D_CHAMPION, N_CHAMPION)}


cdef inline int learned_decision_size(int kind) noexcept nogil:
    if kind == D_POTION:
        return N_POTION
    if kind == D_CHAMPION:
        return N_CHAMPION
    return 0


cdef inline void learned_decision_prepare(Game* g, int seat, int kind) noexcept nogil:
    """Before scoring a decision's options: the heuristic's pick (each kind's last feature)."""
    g.learned_best = heuristic_decide(g, seat, kind)


cdef void potion_fight(Game* g, Pos me, int equipment_id, double* out) noexcept nogil:
    """The fight under way foreseen (foresee) with ``me`` having drunk potion card ``equipment_id`` (-1: none):
    out[0] the chance ``me`` is destroyed, out[1] the chance its foe is. The potion is put on the creature as
    drink() would, the fighters read, and the creature left as it was."""
    cdef Seat* st = &g.seats[me.seat]
    cdef const EquipSpec* e
    cdef int damage = st.damage[me.slot], effect = st.potion_effect[me.slot]
    cdef int amount = st.potion_amount[me.slot], left = st.potion_left[me.slot]
    cdef bint attacking = g.fight_att.seat == me.seat and g.fight_att.slot == me.slot
    cdef Pos foe = g.fight_dfn if attacking else g.fight_att
    cdef Fighter fm, ff
    if equipment_id >= 0:
        e = &g.eq[equipment_id]
        if e.effect == E_HEAL:
            st.damage[me.slot] = max(0, damage - e.amount)
        else:
            st.potion_effect[me.slot], st.potion_amount[me.slot], st.potion_left[me.slot] = e.effect, e.amount, 1
    fighter_of(g, me, -1, -1, &fm)
    fighter_of(g, foe, -1, -1, &ff)
    st.damage[me.slot], st.potion_effect[me.slot] = damage, effect
    st.potion_amount[me.slot], st.potion_left[me.slot] = amount, left
    if attacking:
        foresee(&fm, &ff, &out[0], &out[1])
    else:
        foresee(&ff, &fm, &out[1], &out[0])


cdef void potion_features(Game* g, int seat, int k, double* f) noexcept nogil:
    """3. Battle, step 1: a potion from the hand for the seat's creature in the fight under way, or none."""
    cdef int h = g.opt_a[k], used
    cdef Pos me = g.fight_att if g.fight_att.seat == seat else g.fight_dfn
    cdef const EquipSpec* e
    cdef double with_it[2]
    cdef double without[2]
    if h < 0:
        f[0] = 1
    else:
        used = g.seats[seat].hand[h]
        e = &g.eq[used]
        f[1] = e.effect == E_HEAL
        f[2] = e.effect == E_STRENGTH
        f[3] = e.effect == E_ARMOR
        f[4] = e.effect == E_FIRST_STRIKE
        f[5] = e.amount / 5.0
        if e.effect == E_HEAL:
            f[6] = min(e.amount, g.seats[me.seat].damage[me.slot]) / 5.0
        potion_fight(g, me, used, with_it)
        potion_fight(g, me, -1, without)
        f[7] = with_it[0] - without[0]
        f[8] = with_it[1] - without[1]
        f[9] = is_champion(g, me)
    f[10] = potion_score(g, &g.bots[seat].w, seat, h) / 10.0


cdef void champion_features(Game* g, int seat, int k, double* f) noexcept nogil:
    """Game Setup: a Champion of the commander's people (its own cards: nothing of the others is seen yet)."""
    cdef const CreatureSpec* c = &g.cre[g.opt_a[k]]
    f[0] = c.damage / 10.0
    f[1] = c.life / 10.0
    f[2] = c.tier / 3.0
    f[3] = c.ability != AB_NONE
    f[4] = roll(c.ability_chance) if c.ability != AB_NONE else 0.0
    f[5] = c.points / 5.0
    f[6] = creature_value(g, g.opt_a[k], &g.bots[seat].w) / 20.0


cdef void learned_decision_features(Game* g, int seat, int kind, int k, double* f) noexcept nogil:
    cdef int i, n = learned_decision_size(kind)
    for i in range(n):
        f[i] = 0
    if kind == D_POTION:
        potion_features(g, seat, k, f)
    elif kind == D_CHAMPION:
        champion_features(g, seat, k, f)
    if n > 0:
        f[n - 1] = k == g.learned_best           # the heuristic's pick, each kind's last feature


cdef inline bint learned_takes(Game* g, int seat, int kind) noexcept nogil:
    """A potion or Champion decision that ``seat``'s learned bot takes by its model's decisions block (else the
    heuristic takes it, with the bot's weights)."""
    return g.bots[seat].kind == BOT_LEARNED and learned_decides(&g.bots[seat].model, kind)


cdef inline int learned_block_decide(Game* g, int seat, int kind) noexcept nogil:
    """A decision learned_takes: the block's choice. Restricted play with no potion (FORBID_POTION): no potion,
    the first option listed, as the heuristic (heuristic.pxi ``forbidden``)."""
    if kind == D_POTION and g.bots[seat].w.forbid == FORBID_POTION:
        return 0
    return learned_choose_decision(g, &g.bots[seat].model, seat, kind)
