# §8 Knockouts (sim/paws/knockout.py).

cdef void place_free(Game* g, int seat) noexcept nogil:
    """§8.6 Explorer: place all the tiles you still hold, free."""
    cdef Player* p = &g.players[seat]
    cdef int k, cell
    for k in range(4):
        while p.tiles[k] > 0:
            opt_clear(g)
            placement_options(g, 0, 0)
            if g.n_opt == 0:
                return
            cell = g.opt_c[ask(g, seat, D_PLACE_FREE)]
            place_tile(g, seat, k, cell)


cdef void knock_out(Game* g, int victim, int by, bint scores) noexcept nogil:
    """Knock ``victim`` out; ``by`` is the player who did it or NOBODY (a monster)."""
    cdef Player* p = &g.players[victim]
    cdef Player* q
    cdef int kept = NOBODY, kept_active = 0, i, k, rep, kind, card, c
    cdef bint takes = by != NOBODY and (g.players[by].lives > 0 or g.r.out_of_game_takes_card)
    p.lives -= 1
    p.knockouts += 1
    if p.lives > 0 and g.r.keep_one_monster and p.n_monsters > 0:
        opt_clear(g)
        for i in range(p.n_monsters):
            opt_add(g, p.monsters[i], 0, 0)
        i = ask(g, victim, D_KEEP_MONSTER)
        kept_active = p.active[i]
        kept = pop16(p.monsters, &p.n_monsters, i)
        p.monster_stats[kept][MC_KEPT] += 1
        pop_active(p, i, p.n_monsters + 1)
    if by != NOBODY:
        g.players[by].knockouts_dealt += 1
    if takes:  # §8.7: a knocker already out of the game takes nothing
        q = &g.players[by]
        for rep in range(g.r.knockout_cards_taken):
            opt_clear(g)
            for i in range(p.n_items):
                opt_add(g, 0, p.items[i], 0)
            for i in range(p.n_monsters):
                opt_add(g, 1, p.monsters[i], 0)
            if g.n_opt == 0:
                break
            k = ask(g, by, D_TAKE_CARD)
            kind, card = g.opt_a[k], g.opt_b[k]
            if kind == 0:
                hand_pop(g, p, index16(p.items, p.n_items, card))
                hand_add(g, q, card)
            else:
                i = index16(p.monsters, p.n_monsters, card)
                pop16(p.monsters, &p.n_monsters, i)
                pop_active(p, i, p.n_monsters + 1)
                q.active[q.n_monsters] = 0
                push16(q.monsters, &q.n_monsters, card)
                q.monster_stats[card][MC_CAPTURED] += 1
        enforce_hand_limit(g, by)
    for i in range(p.n_items):
        push16(g.item_discard, &g.n_item_discard, p.items[i])
    p.n_items = 0
    hand_tally(g, p)
    for i in range(p.n_monsters):  # to the bottom of the monster deck, the last one lowest
        insert_bottom16(g.monster_deck, &g.n_monster_deck, p.monsters[i])
    p.n_monsters = 0
    if kept != NOBODY:
        p.monsters[0] = <int16_t>kept
        p.active[0] = <int8_t>kept_active
        p.n_monsters = 1
    p.protected = 0
    if g.r.knockout_cancels_effects_on_victim:  # not in the book: §8.5 names only the Snares you played
        p.poison_ticks = 0
        p.poisoner = NOBODY
        for i in range(MAXP):
            p.snared[i] = 0
    for i in range(g.n):
        g.players[i].snared[victim] = 0
    for c in range(g.ncells):
        if (g.tile[c] == T_CHEST or g.tile[c] == T_FOREST) and g.brick[c] == victim:
            set_brick(g, c, NOBODY)
    if p.lives > 0:
        p.pos = 0
        p.hp = g.r.respawn_hp
        gain_items(g, victim, g.r.respawn_items)
        if g.explorer:
            place_free(g, victim)
    else:
        for c in range(g.ncells):
            if g.owner[c] == victim:
                set_owner(g, c, NOBODY)
                set_brick(g, c, NOBODY)
            if g.barricade[c] == victim:
                set_barricade(g, c, NOBODY)
        p.barricades = 0
        for k in range(4):
            p.tiles[k] = 0
        p.n_monsters = 0
    if takes and scores and g.r.vp_per_knockout:
        g.players[by].knockout_vp += 1
        check_vp(g, by)
    if p.lives == 0:
        check_last_alive(g)


cdef inline void pop_active(Player* p, int i, int n) noexcept nogil:
    """Remove active[i] from an array of ``n`` flags, keeping the order of the rest."""
    cdef int j
    for j in range(i, n - 1):
        p.active[j] = p.active[j + 1]
