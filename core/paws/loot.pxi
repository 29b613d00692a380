# §4 Looting and §5 monster fights (sim/paws/loot.py).

cdef inline int monsters_needed(Game* g, int cell) noexcept nogil:
    return g.r.mansion_monsters if g.tile[cell] == T_MANSION else 1


cdef inline bint barred(Game* g, int seat, int cell) noexcept nogil:
    """§11: nobody but the player who placed it can loot or invade a barricaded tile."""
    return g.barricade[cell] != NOBODY and g.barricade[cell] != seat


cdef inline bint lootable(Game* g, int seat) noexcept nogil:
    cdef int cell = g.players[seat].pos
    cdef int kind = g.tile[cell]
    if kind == T_EMPTY or kind == T_DESERT or barred(g, seat, cell):
        return False
    if kind == T_CHEST or kind == T_FOREST:
        return g.brick[cell] == NOBODY
    return (g.owner[cell] == NOBODY and g.building_fights_left > 0
            and g.n_monster_deck >= monsters_needed(g, cell))


cdef void loot(Game* g, int seat) noexcept nogil:
    cdef Player* p = &g.players[seat]
    cdef int cell = p.pos
    cdef int kind = g.tile[cell]
    if kind == T_CHEST:
        set_brick(g, cell, seat)
        gain_items(g, seat, g.r.chest_cards)
    elif kind == T_FOREST:
        set_brick(g, cell, seat)
        p.barricades += g.r.forest_barricades
    else:
        claim_building(g, seat, cell)


cdef void claim_building(Game* g, int seat, int cell) noexcept nogil:
    """§5: fight the home's monster (a mansion's two, one after the other, HP carrying over)."""
    cdef Player* p = &g.players[seat]
    cdef int bonus = g.r.mansion_monster_hp_bonus if g.tile[cell] == T_MANSION else 0
    cdef int beaten[8]
    cdef int nb = 0, k, m, ko, i
    cdef Fight f
    g.building_fights_left -= 1
    g.rec.building_fights += 1
    for k in range(monsters_needed(g, cell)):
        g.n_monster_deck -= 1
        m = g.monster_deck[g.n_monster_deck]
        fight_init(&f, F_MONSTER, seat, NOBODY, g.mons[m].hp + bonus)
        ko = fight(g, &f, g.r.player_dice, g.r.monster_dice, buff(g, seat, B_FIGHT_SCORE), 0,
                   g.r.max_fight_rolls, False)
        beaten[nb] = m
        nb += 1
        p.monster_stats[m][MC_FIGHTS] += 1
        if ko == 1:
            p.monster_stats[m][MC_BEATEN] += 1
        if ko != 1:
            for i in range(nb):
                insert_bottom16(g.monster_deck, &g.n_monster_deck, beaten[i])
            if ko == 0:
                knock_out(g, seat, NOBODY, False)
            return
    set_owner(g, cell, seat)
    set_brick(g, cell, seat)
    for i in range(nb):
        p.active[p.n_monsters] = 0
        push16(p.monsters, &p.n_monsters, beaten[i])
    check_vp(g, seat)
