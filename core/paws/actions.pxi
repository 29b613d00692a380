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
