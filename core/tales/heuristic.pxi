# The heuristic bot (sim/tales/bots/heuristic.py): integer scores, the first best option wins. "Hit" is
# the damage a strike would do before any die: attack less gear armor and a no-roll Armor ability.

cdef inline int creature_value(Game* g, int creature_id, Weights* w) noexcept nogil:
    cdef const CreatureSpec* c = &g.cre[creature_id]
    return w.aggression * c.damage + c.life + 2 * c.tier + (3 if c.ability != AB_NONE else 0)


cdef int gear_value(Game* g, int equipment_id, Weights* w) noexcept nogil:
    cdef const EquipSpec* e = &g.eq[equipment_id]
    cdef int v = w.aggression * e.damage + e.life + 3 * e.armor
    if e.kind == K_SHIELD:
        v += 2 * (7 - e.block)
    if e.kind == K_RANGED:
        v += 3
    if e.kind == K_POTION:
        v += 2 + e.amount
    return v


cdef inline int hit(Game* g, Pos by, Pos target) noexcept nogil:
    cdef const CreatureSpec* c = card(g, target)
    cdef int armor = gear_armor(g, target) + (c.ability_amount if c.ability == AB_ARMOR and c.ability_chance == 0
                                              else 0)
    return max(0, attack(g, by) - armor)


cdef inline bint kills(Game* g, Pos by, Pos target) noexcept nogil:
    return hit(g, by, target) >= life_left(g, target)


cdef bint usable(Game* g, int s, int equipment_id) noexcept nogil:
    """Some creature of the team could carry it now (a potion: some creature has its points)."""
    cdef const EquipSpec* e = &g.eq[equipment_id]
    cdef int i, t, k
    for i in range(g.n_team_seats[s % 2]):
        t = g.team_seats[s % 2][i]
        for k in range(g.army):
            if g.seats[t].slot[k] == EMPTY:
                continue
            if e.kind == K_POTION:
                if g.cre[g.seats[t].slot[k]].points >= e.points:
                    return 1
            elif can_carry(g, pos(t, k), equipment_id):
                return 1
    return 0


cdef inline bint forbidden(int forbid, int kind, int a) noexcept nogil:
    """Restricted play (docs/restricted-play.md): an option of a ``kind`` decision whose first value is ``a``
    is of the kind ``forbid`` (a Weights.forbid) names: an equipment action of that Act value (Pass, 0, never:
    0 is forbid's "none"), or with FORBID_POTION any potion (a hand index, not the -1 of no potion). The
    heuristic and the learned bot (learned.pxi) both ask here."""
    if kind == D_EQUIP:
        return a == forbid and a != ACT_PASS
    if kind == D_POTION:
        return forbid == FORBID_POTION and a >= 0
    return 0


cdef int equip_score(Game* g, int s, Weights* w, int act, int a, int b, int c) noexcept nogil:
    cdef Seat* st = &g.seats[s]
    cdef int h, useless
    if act == ACT_PASS:
        return 0
    if forbidden(w.forbid, D_EQUIP, act):   # restricted play: below every other action
        return FORBIDDEN
    if act == ACT_UNEQUIP:
        return -1
    if act == ACT_SWAP:
        useless = 0
        for h in range(st.n_hand):
            if not usable(g, s, st.hand[h]):
                useless += 1
        return 5 if useless >= max(w.swap_min_useless, g.r.swap_cost) else -1
    return (10 * gear_value(g, st.hand[a], w) + card(g, pos(b, c)).tier
            + (5 if g.seats[b].slot[c] == g.seats[b].champion else 0))


ctypedef struct Sight:
    # the heuristic's view of every creature on the field during one battle decision (nothing it
    # reads changes while the options are scored, so each number is worked out once)
    int attack[MAXSEATS][MAXARMY]     # attack()
    int armor[MAXSEATS][MAXARMY]      # gear armor and a no-roll Armor ability (hit() subtracts it)
    int life[MAXSEATS][MAXARMY]       # life_left()


cdef void look(Game* g, Sight* v) noexcept nogil:
    """attack(), gear_armor() (plus a no-roll Armor ability) and life_left() of every creature on the
    field, its gear read in one pass."""
    cdef int s, k, i, attack_v, armor_v, life_v
    cdef const CreatureSpec* c
    cdef const EquipSpec* e
    cdef Seat* st
    for s in range(g.n):
        st = &g.seats[s]
        for k in range(g.army):
            if st.slot[k] != EMPTY:
                c = &g.cre[st.slot[k]]
                attack_v, armor_v, life_v = c.damage, 0, c.life
                for i in range(st.n_gear[k]):
                    e = &g.eq[st.gear[k][i]]
                    attack_v += e.damage
                    armor_v += e.armor
                    life_v += e.life
                if st.potion_left[k] > 0:
                    if st.potion_effect[k] == E_STRENGTH:
                        attack_v += st.potion_amount[k]
                    elif st.potion_effect[k] == E_ARMOR:
                        armor_v += st.potion_amount[k]
                v.attack[s][k] = attack_v
                v.armor[s][k] = armor_v + (c.ability_amount if c.ability == AB_ARMOR and c.ability_chance == 0
                                           else 0)
                v.life[s][k] = life_v - st.damage[k]


cdef inline bint sees_kill(Sight* v, Pos by, Pos target) noexcept nogil:
    """kills(by, target) from the sight."""
    return max(0, v.attack[by.seat][by.slot] - v.armor[target.seat][target.slot]) >= v.life[target.seat][target.slot]


cdef int attacker_score(Game* g, Weights* w, Sight* v, Pos p, Pos* foes, int nf) noexcept nogil:
    cdef int i
    cdef int score = w.aggression * v.attack[p.seat][p.slot] + v.life[p.seat][p.slot]
    for i in range(nf):
        if sees_kill(v, p, foes[i]):
            score += w.kill_bonus if card(g, p).ability == AB_PROVOKE else w.kill_bonus // 2
            break
    for i in range(nf):
        if sees_kill(v, foes[i], p):
            score -= w.caution * 3 * loss_weight(g, g.seats[p.seat].slot[p.slot])
            if is_champion(g, p):
                score -= w.champion_guard
            break
    return score


cdef int defender_score(Game* g, Weights* w, Sight* v, Pos att, Pos p) noexcept nogil:
    cdef int score = v.life[p.seat][p.slot]
    if sees_kill(v, p, att):
        score += w.kill_bonus
    if sees_kill(v, att, p):
        score -= w.caution * 5 * loss_weight(g, g.seats[p.seat].slot[p.slot]) + card(g, p).tier
        if is_champion(g, p):
            score -= w.champion_guard
    elif is_champion(g, p):     # its damage stays for the rest of the game
        score -= w.champion_guard // 3
    return score


cdef int provoke_score(Game* g, Weights* w, Sight* v, Pos att, Pos p) noexcept nogil:
    cdef int score = card(g, p).tier
    if sees_kill(v, att, p):
        score += w.kill_bonus + 3 * loss_weight(g, g.seats[p.seat].slot[p.slot])
    if sees_kill(v, p, att):
        score -= w.caution * 3
    return score


cdef int potion_score(Game* g, Weights* w, int s, int hand_index) noexcept nogil:
    cdef Pos me, foe
    cdef const EquipSpec* e
    cdef int good, taken
    if hand_index < 0:
        return 0
    if forbidden(w.forbid, D_POTION, hand_index):     # restricted play: never a potion
        return FORBIDDEN
    if w.potion_eagerness == 0:
        return -1
    if g.fight_att.seat == s:
        me, foe = g.fight_att, g.fight_dfn
    else:
        me, foe = g.fight_dfn, g.fight_att
    e = &g.eq[g.seats[s].hand[hand_index]]
    good = 10 * w.potion_eagerness
    if e.effect == E_HEAL:
        taken = g.seats[me.seat].damage[me.slot]
        return good if taken >= e.amount or (kills(g, foe, me) and taken > 0) else -1
    if e.effect == E_STRENGTH:
        return good if not kills(g, me, foe) and hit(g, me, foe) + e.amount >= life_left(g, foe) else -1
    if e.effect == E_ARMOR:
        return good if kills(g, foe, me) and hit(g, foe, me) - e.amount < life_left(g, me) else -1
    # First Strike: worth it when both would destroy each other and we do not strike first yet
    if not sure_first_strike(g, me) and kills(g, me, foe) and kills(g, foe, me):
        return good
    return -1


cdef inline void keep_best(int i, int v, int* best, int* best_v) noexcept nogil:
    """The first best option wins (Python's ``scores.index(max(scores))``)."""
    if i == 0 or v > best_v[0]:
        best[0] = i
        best_v[0] = v


cdef int heuristic_decide(Game* g, int s, int kind) noexcept nogil:
    """Score every option of the decision; the first best wins (Python's ``scores.index(max(scores))``).
    One loop per decision kind, so no option pays for the kind's test."""
    cdef Weights* w = &g.bots[s].w
    cdef Seat* st = &g.seats[s]
    cdef int i, h, nf = 0, best = 0, best_v = 0
    cdef Sight sight
    cdef Pos foes[MAXTEAMSEATS * MAXARMY]
    if kind == D_EQUIP:
        for i in range(g.n_opt):
            keep_best(i, equip_score(g, s, w, g.opt_a[i], g.opt_b[i], g.opt_c[i], g.opt_d[i]), &best, &best_v)
    elif kind == D_ATTACKER:
        look(g, &sight)
        nf = ready_list(g, 1 - s % 2, foes)
        for i in range(g.n_opt):
            keep_best(i, attacker_score(g, w, &sight, pos(g.opt_a[i], g.opt_b[i]), foes, nf), &best, &best_v)
    elif kind == D_DEFENDER:
        look(g, &sight)
        for i in range(g.n_opt):
            keep_best(i, defender_score(g, w, &sight, g.attacker, pos(g.opt_a[i], g.opt_b[i])), &best, &best_v)
    elif kind == D_PROVOKE:
        look(g, &sight)
        for i in range(g.n_opt):
            keep_best(i, provoke_score(g, w, &sight, g.attacker, pos(g.opt_a[i], g.opt_b[i])), &best, &best_v)
    elif kind == D_CHAMPION:
        for i in range(g.n_opt):
            keep_best(i, creature_value(g, g.opt_a[i], w), &best, &best_v)
    elif kind == D_RETURN:
        for i in range(g.n_opt):
            keep_best(i, -creature_value(g, g.opt_a[i], w), &best, &best_v)
    elif kind == D_DISCARD:
        for i in range(g.n_opt):
            h = st.hand[g.opt_a[i]]
            keep_best(i, (0 if usable(g, s, h) else 100) - gear_value(g, h, w), &best, &best_v)
    else:
        for i in range(g.n_opt):
            keep_best(i, potion_score(g, w, s, g.opt_a[i]), &best, &best_v)
    return best
