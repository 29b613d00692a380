# §3 Turn actions: the canonical list of legal actions, move, buy, barricade, place (sim/paws/actions.py).

cdef void placement_options(Game* g, int a, int b) noexcept nogil:
    """Append (a, b, cell) for each empty cell touching a tile (Explorer placement), ascending."""
    cdef int k
    for k in range(g.n_place):
        opt_add(g, a, b, g.place[k])


cdef void legal_actions(Game* g, int seat) noexcept nogil:
    """Every legal action as (Action, a, b) in g.opt_*, in the canonical order."""
    cdef Player* p = &g.players[seat]
    cdef int k, c, nc
    cdef Cells mine
    cdef int cells[MAXC]
    opt_clear(g)
    opt_add(g, A_END_TURN, -1, -1)
    if g.ap < 1:
        turn_card_options(g, seat)  # §10: Anytime cards need no AP
        return
    for k in range(g.n_tn[p.pos]):
        opt_add(g, A_MOVE, g.tn[p.pos][k], -1)
    if lootable(g, seat):
        opt_add(g, A_LOOT, -1, -1)
    if can_draw(g):
        opt_add(g, A_BUY, -1, -1)
    raid_targets(g, seat)
    if invadable(g, seat):
        opt_add(g, A_INVADE, -1, -1)
    if p.barricades > 0:
        # the cells owned or bricked by ``seat`` (only tiles are), less the barricaded, ascending
        for k in range(2):
            mine.w[k] = (g.owned_by[seat + 1].w[k] | g.bricked.w[k]) & ~g.barricaded.w[k]
        nc = cells_list(&mine, cells)
        for k in range(nc):
            c = cells[k]
            if g.owner[c] == seat or g.brick[c] == seat:
                opt_add(g, A_BARRICADE, c, -1)
    if g.explorer and (p.tiles[0] or p.tiles[1] or p.tiles[2] or p.tiles[3]):
        for k in range(4):
            if p.tiles[k] > 0:
                placement_options(g, A_PLACE_TILE, k)
    turn_card_options(g, seat)


cdef void place_tile(Game* g, int seat, int kind_index, int cell) noexcept nogil:
    g.players[seat].tiles[kind_index] -= 1
    g.tile[cell] = EXPLORER_KINDS[kind_index]
    board_changed(g)


cdef void apply_action(Game* g, int seat, int kind, int a, int b) noexcept nogil:
    """Carry out one legal action (its AP cost is paid first; item cards are free)."""
    if kind != A_PLAY_ITEM:
        g.ap -= 1
    if kind == A_MOVE:
        g.players[seat].pos = a
    elif kind == A_LOOT:
        loot(g, seat)
    elif kind == A_BUY:
        gain_items(g, seat, 1)
    elif kind == A_RAID:
        raid(g, seat, a)
    elif kind == A_INVADE:
        invade(g, seat)
    elif kind == A_BARRICADE:
        g.players[seat].barricades -= 1
        set_barricade(g, a, seat)
    elif kind == A_PLACE_TILE:
        place_tile(g, seat, a, b)
    elif kind == A_PLAY_ITEM:
        play_turn_card(g, seat, a, b)


cdef inline void opt_one(Game* g, int a, int b, int c) noexcept nogil:
    """The option list is this one option (random_action's pick, for take_option(g, 0))."""
    g.opt_a[0] = a
    g.opt_b[0] = b
    g.opt_c[0] = c
    g.n_opt = 1


cdef inline int cards_count(Game* g, int seat, int* targets) noexcept nogil:
    """The options turn_card_options lists for the whole hand of ``seat``: the sum of turn_card_count
    over its cards, from the hand's count by turn_kind (p.tk) instead of a pass over the cards;
    targets[0] as turn_card_count leaves it when a Snare or Poison counts."""
    cdef Player* p = &g.players[seat]
    cdef const int16_t* tk = p.tk
    cdef int n1, n2, n3, n4, n
    if g.ap >= 1:
        n1 = tk[TK_ONE] + tk[TK_ONE + TK_ANYTIME]
        n2 = tk[TK_GRENADE] + tk[TK_GRENADE + TK_ANYTIME]
        n3 = tk[TK_TARGET] + tk[TK_TARGET + TK_ANYTIME]
        n4 = tk[TK_TELEPORT] + tk[TK_TELEPORT + TK_ANYTIME]
    else:
        n1 = tk[TK_ONE + TK_ANYTIME]
        n2 = tk[TK_GRENADE + TK_ANYTIME]
        n3 = tk[TK_TARGET + TK_ANYTIME]
        n4 = tk[TK_TELEPORT + TK_ANYTIME]
    n = n1 + n2 * (1 + g.n_tn[p.pos])
    if n4:
        n += n4 * (g.n_tiled - (g.tile[p.pos] != T_EMPTY))
    if n3:
        n += n3 * turn_card_count(g, seat, TK_TARGET + TK_ANYTIME, targets)
    return n


cdef enum:
    RA_LIST = 0                           # random_action: list the options (nothing drawn)
    RA_TAKE = 1                           # ... take_option(g, 0) carries out the pick
    RA_DONE = 2                           # ... the pick is carried out (End turn, a move)


cdef int random_action(Game* g, int seat) noexcept nogil:
    """A random seat's action decision without the option list: count the options legal_actions would
    list, draw the pick as ask() does (none for a single option), and make only the option drawn, as
    the list g.opt_* of one (take_option(g, 0) carries it out). The same draw and the same option as
    listing them. RA_LIST, with nothing drawn, when they would not fit in the list (the caller lists
    them then, and the list's overflow is what it was); RA_DONE when the pick, End turn or a move, is
    carried out here already (as take_option would); RA_TAKE otherwise."""
    cdef Player* p = &g.players[seat]
    cdef int pos = p.pos
    cdef int n_move = 0, n_loot = 0, n_buy = 0, n_raid = 0, n_inv = 0, n_bar = 0, n_kinds = 0, n_place = 0
    cdef int total, k, i, t, c, nc
    cdef int raided[MAXP]
    cdef int kinds[4]
    cdef int bar[MAXC]
    cdef int cells[MAXC]
    cdef int targets = -1
    cdef Cells mine
    if g.ap >= 1:
        n_move = g.n_tn[pos]
        n_loot = lootable(g, seat)
        n_buy = can_draw(g)
        if g.raids_left > 0:
            for t in range(g.n):
                if g.players[t].pos == pos and attackable(g, seat, t) and opponents(g, seat, t):
                    raided[n_raid] = t
                    n_raid += 1
        n_inv = invadable(g, seat)
        if p.barricades > 0:
            for k in range(2):
                mine.w[k] = (g.owned_by[seat + 1].w[k] | g.bricked.w[k]) & ~g.barricaded.w[k]
            nc = cells_list(&mine, cells)
            for k in range(nc):
                c = cells[k]
                if g.owner[c] == seat or g.brick[c] == seat:
                    bar[n_bar] = c
                    n_bar += 1
        if g.explorer and (p.tiles[0] or p.tiles[1] or p.tiles[2] or p.tiles[3]):
            for k in range(4):
                if p.tiles[k] > 0:
                    kinds[n_kinds] = k
                    n_kinds += 1
            n_place = n_kinds * g.n_place
    total = 1 + n_move + n_loot + n_buy + n_raid + n_inv + n_bar + n_place
    if p.n_items:                         # the hand's options, from its count by turn_kind (p.tk)
        total += cards_count(g, seat, &targets)
    if total > MAXOPT:
        return RA_LIST
    k = <int>pcg32_pick(&g.rng, total) if total > 1 else 0
    if k == 0:                            # End turn, carried out here as take_option would
        opt_one(g, A_END_TURN, -1, -1)
        g.decisions += 1
        g.rec.idle_turns += g.actions == 0
        g.seat = NOBODY
        return RA_DONE
    k -= 1
    if k < n_move:                        # a move, carried out here as take_option would
        opt_one(g, A_MOVE, g.tn[pos][k], -1)
        g.decisions += 1
        g.actions += 1
        g.ap -= 1
        p.pos = g.tn[pos][k]
        if g.actions >= g.r.max_actions_per_turn:   # (a move changes no other condition of take_option's)
            g.seat = NOBODY
        return RA_DONE
    k -= n_move
    if k < n_loot:
        opt_one(g, A_LOOT, -1, -1)
        return RA_TAKE
    k -= n_loot
    if k < n_buy:
        opt_one(g, A_BUY, -1, -1)
        return RA_TAKE
    k -= n_buy
    if k < n_raid:
        opt_one(g, A_RAID, raided[k], -1)
        return RA_TAKE
    k -= n_raid
    if k < n_inv:
        opt_one(g, A_INVADE, -1, -1)
        return RA_TAKE
    k -= n_inv
    if k < n_bar:
        opt_one(g, A_BARRICADE, bar[k], -1)
        return RA_TAKE
    k -= n_bar
    if k < n_place:
        opt_one(g, A_PLACE_TILE, kinds[k // g.n_place], g.place[k % g.n_place])
        return RA_TAKE
    k -= n_place
    for i in range(p.n_items):
        nc = turn_card_count(g, seat, g.turn_kind[p.items[i]], &targets)
        if k < nc:
            opt_one(g, A_PLAY_ITEM, i, turn_card_target(g, seat, i, k))
            return RA_TAKE
        k -= nc
    g.error = 1                           # unreachable: the counts above add up to total
    return RA_LIST
