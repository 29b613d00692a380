# §6 Home invasion (sim/paws/invade.py).

cdef inline bint invadable(Game* g, int seat) noexcept nogil:
    cdef int cell = g.players[seat].pos
    cdef int owner = g.owner[cell]
    return ((g.tile[cell] == T_HOME or g.tile[cell] == T_MANSION) and owner != NOBODY
            and opponents(g, seat, owner) and not barred(g, seat, cell) and g.building_fights_left > 0
            and (g.players[owner].n_monsters > 0 or g.n_monster_deck > 0))


cdef void invade(Game* g, int seat) noexcept nogil:
    """The owner picks a defender (or the deck's top card), which gets the defender's edge."""
    cdef int cell = g.players[seat].pos
    cdef int owner = g.owner[cell]
    cdef Player* q = &g.players[owner]
    cdef Player* p = &g.players[seat]
    cdef int m, guard = 0, i, hp, edge, ko
    cdef bint from_deck = q.n_monsters == 0
    cdef Fight f
    g.building_fights_left -= 1
    g.rec.building_fights += 1
    g.rec.invasions += 1
    if from_deck:
        g.n_monster_deck -= 1
        m = g.monster_deck[g.n_monster_deck]
    else:
        opt_clear(g)
        for i in range(q.n_monsters):
            opt_add(g, q.monsters[i], 0, 0)
        i = ask(g, owner, D_DEFENDER)
        m = q.monsters[i]
        if g.mons[m].buff == B_GUARD and q.active[i]:
            guard = g.mons[m].amount
    hp = g.mons[m].hp + (g.r.mansion_monster_hp_bonus if g.tile[cell] == T_MANSION else 0)
    edge = g.r.defender_edge
    if g.r.leader_rule and sole_leader(g) == owner:
        edge = 0
    fight_init(&f, F_INVASION, seat, NOBODY, hp)
    ko = fight(g, &f, g.r.player_dice, g.r.monster_dice, buff(g, seat, B_FIGHT_SCORE), edge + guard,
               g.r.max_fight_rolls, False)
    p.monster_stats[m][MC_INVADED] += 1
    q.monster_stats[m][MC_DEFENDED] += 1
    if ko != 1:
        q.monster_stats[m][MC_HELD] += 1
    if ko == 1:
        if not from_deck:
            p.monster_stats[m][MC_CAPTURED] += 1
            i = index16(q.monsters, q.n_monsters, m)
            pop16(q.monsters, &q.n_monsters, i)
            pop_active(q, i, q.n_monsters + 1)
            enforce_hand_limit(g, owner)  # §10: losing a hand-size buff means discarding at once
        set_owner(g, cell, seat)
        set_brick(g, cell, seat)
        p.active[p.n_monsters] = 0
        push16(p.monsters, &p.n_monsters, m)
        check_vp(g, seat)
    else:
        if from_deck:
            insert_bottom16(g.monster_deck, &g.n_monster_deck, m)
        if ko == 0:
            knock_out(g, seat, owner, g.r.invasion_knockout_scores)  # V3 "A knockout scores 1 VP"
