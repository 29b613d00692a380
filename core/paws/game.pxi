# §2 Setting up and the round loop (sim/paws/game.py).

cdef int EXPLORER_KINDS[4]
EXPLORER_KINDS[:] = [T_MANSION, T_HOME, T_CHEST, T_FOREST]


cdef void reset_player(Game* g, Player* p) noexcept nogil:
    cdef int i
    p.hp = g.r.start_hp
    p.lives = g.r.lives
    p.pos = 0
    p.n_items = 0
    p.n_monsters = 0
    p.barricades = 0
    for i in range(4):
        p.tiles[i] = 0
    p.knockout_vp = 0
    p.knockouts = 0
    p.knockouts_dealt = 0
    p.protected = 0
    p.poison_ticks = 0
    p.poisoner = NOBODY
    for i in range(MAXP):
        p.snared[i] = 0


cdef void build_board(Game* g) noexcept nogil:
    """§2.2: Beginner: the 18 tiles shuffled into two rings; Explorer: the Desert alone, tiles in hand."""
    cdef int16_t tiles[18]
    cdef int i, k = 0, s
    cdef int held[4]
    clear_board(g)
    g.tile[0] = T_DESERT
    if not g.explorer:
        for i in range(g.r.beginner_mansions):
            tiles[k] = T_MANSION
            k += 1
        for i in range(g.r.beginner_homes):
            tiles[k] = T_HOME
            k += 1
        for i in range(g.r.beginner_chests):
            tiles[k] = T_CHEST
            k += 1
        for i in range(g.r.beginner_forests):
            tiles[k] = T_FOREST
            k += 1
        shuffle16(g, tiles, 18)
        for i in range(18):
            g.tile[i + 1] = tiles[i]
    else:
        if g.n == 2:
            held[0], held[1], held[2], held[3] = (g.r.explorer_mansions_2p, g.r.explorer_homes_2p,
                                                  g.r.explorer_chests_2p, g.r.explorer_forests_2p)
        else:
            held[0], held[1], held[2], held[3] = (g.r.explorer_mansions, g.r.explorer_homes,
                                                  g.r.explorer_chests, g.r.explorer_forests)
        for s in range(g.n):
            for i in range(4):
                g.players[s].tiles[i] = held[i]
    board_changed(g)


cdef int first_player(Game* g) noexcept nogil:
    """§2.5: everyone rolls two dice; the highest goes first, the tied roll again."""
    cdef int contenders[MAXP]
    cdef int rolls[MAXP]
    cdef int nc = g.n, i, k, best
    for i in range(nc):
        contenders[i] = i
    while nc > 1:
        best = 0
        for i in range(nc):
            rolls[i] = die(g) + die(g)
            best = max(best, rolls[i])
        k = 0
        for i in range(nc):
            if rolls[i] == best:
                contenders[k] = contenders[i]
                k += 1
        nc = k
    return contenders[0]


cdef void setup_game(Game* g, const int16_t* monster_deck, int n_monster_deck,
                     const int16_t* item_deck, int n_item_deck) noexcept nogil:
    cdef int i, s
    g.round = 0
    g.turns = 0
    g.seat = NOBODY
    g.ap = 0
    g.building_fights_left = 0
    g.raids_left = 0
    g.fight = NULL
    g.over = 0
    g.winner_seat = NOBODY
    g.winner_team = NOBODY
    g.end_reason = -1
    g.building_fights = 0
    g.invasions = 0
    g.raids = 0
    g.items_played = 0
    g.error = 0
    for s in range(g.n):
        reset_player(g, &g.players[s])
    build_board(g)
    for i in range(n_monster_deck):
        g.monster_deck[i] = monster_deck[i]
    g.n_monster_deck = n_monster_deck
    shuffle16(g, g.monster_deck, n_monster_deck)
    for i in range(n_item_deck):
        g.item_deck[i] = item_deck[i]
    g.n_item_deck = n_item_deck
    g.n_item_discard = 0
    shuffle16(g, g.item_deck, n_item_deck)
    for s in range(g.n):
        gain_items(g, s, g.r.starting_items)
    g.first_seat = first_player(g)


cdef void play_round(Game* g, Trace* trace) noexcept nogil:
    cdef int k, seat
    g.round += 1
    for k in range(g.n):
        seat = (g.first_seat + k) % g.n
        if g.players[seat].lives > 0:
            take_turn(g, seat)
        if g.over or g.error:
            break
    for k in range(g.n):
        trace_push(trace, vp(g, k))
    check_round_end(g)
