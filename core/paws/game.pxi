# §2 Setting up, the round loop and the game record (sim/paws/game.py).
#
# A game can be continued from its state alone at any top-level decision (the next action of a turn):
# play_from() finishes the turn in progress, its round and the game. The state is the Game struct,
# whose only pointers are to the batch's immutable card specs, so copy_game() (core/kit/state.pxi) makes
# an independent copy that plays on exactly like the original (docs/engine-kit.md).

cdef int EXPLORER_KINDS[4]
EXPLORER_KINDS[:] = [T_MANSION, T_HOME, T_CHEST, T_FOREST]


cdef void reset_player(Game* g, Player* p) noexcept nogil:
    cdef int i
    p.hp = g.r.start_hp
    p.lives = g.r.lives
    p.pos = 0
    p.n_items = 0
    hand_tally(g, p)
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
    memset(p.item_plays, 0, sizeof(p.item_plays))
    memset(p.monster_stats, 0, sizeof(p.monster_stats))


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
    g.seat = NOBODY
    g.ap = 0
    g.building_fights_left = 0
    g.raids_left = 0
    g.fight = NULL
    g.over = 0
    g.winner_seat = NOBODY
    g.winner_team = NOBODY
    g.end_reason = -1
    g.error = 0
    memset(&g.rec, 0, sizeof(GameRecord))
    g.turn_of = 0
    g.in_round = 0
    g.actions = 0
    g.decisions = 0
    memset(&g.look, 0, sizeof(Look))
    g.look_ok = 0
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


cdef bint play_round(Game* g, RowBuffer* trace) noexcept nogil:
    """One round: each player with lives left takes a turn, clockwise from the first player; then the
    round's row of the standings trace. True if it stopped at decision g.stop_at."""
    g.round += 1
    g.turn_of = 0
    g.seat = NOBODY
    g.in_round = 1
    return round_turns(g, trace, False)


cdef bint finish_round(Game* g, RowBuffer* trace) noexcept nogil:
    """The rest of the round in progress from the state: the turn in progress (if g.seat is set), the
    turns after it, the standings row and the round's end. True if it stopped at decision g.stop_at."""
    if g.seat != NOBODY and finish_turn(g):
        return True
    return round_turns(g, trace, g.over or g.error)


cdef bint round_turns(Game* g, RowBuffer* trace, bint stop) noexcept nogil:
    """The round's turns from g.turn_of on (none if ``stop``: the game is over or void), then its
    standings row and its end. True if it stopped at decision g.stop_at."""
    cdef int k, seat
    cdef Standings* row
    while not stop and g.turn_of < g.n:
        seat = (g.first_seat + g.turn_of) % g.n
        g.turn_of += 1
        if g.players[seat].lives > 0 and take_turn(g, seat):
            return True
        stop = g.over or g.error
    row = <Standings*>rows_push(trace)
    if row != NULL:
        for k in range(g.n):
            row.vp[k] = <int8_t>vp(g, k)
    check_round_end(g)
    g.in_round = 0
    return False


cdef bint play_from(Game* g, RowBuffer* trace) noexcept nogil:
    """Play the game on from its state to the end: the rest of the round in progress (if any), then
    whole rounds. True if it stopped at decision g.stop_at (set g.stop_at and call again to go on),
    False when the game is over (or void)."""
    if g.in_round and finish_round(g, trace):
        return True
    while not g.over and not g.error:
        if play_round(g, trace):
            return True
    return False


cdef void card_rows(Game* g, RowBuffer* rows, int game) noexcept nogil:
    """The cards table's rows of one game (sim.paws.game.card_rows): per seat, the item cards it played,
    then the monster cards it has a counter for, each by card id."""
    cdef int s, c, k, any_count
    cdef Player* p
    cdef CardRow* r
    for s in range(g.n):
        p = &g.players[s]
        for c in range(MAXITEMIDS):
            if p.item_plays[c]:
                r = <CardRow*>rows_push(rows)
                if r == NULL:
                    return
                r.game, r.seat, r.kind, r.card, r.plays = game, <int8_t>s, 0, <int16_t>c, p.item_plays[c]
        for c in range(MAXMONIDS):
            any_count = 0
            for k in range(N_MC):
                any_count |= p.monster_stats[c][k]
            if any_count:
                r = <CardRow*>rows_push(rows)
                if r == NULL:
                    return
                r.game, r.seat, r.kind, r.card = game, <int8_t>s, 1, <int16_t>c
                for k in range(N_MC):
                    r.counts[k] = p.monster_stats[c][k]


cdef void record_game(Game* g, GameRecord* rec) noexcept nogil:
    """The game's record (sim/paws/game.py record): the counters kept in g.rec, then what is read off the
    state at the end. ``rec`` may be &g.rec."""
    cdef int s
    rec[0] = g.rec
    rec.first_seat = g.first_seat
    rec.winner_seat = g.winner_seat
    rec.winner_team = g.winner_team
    rec.end_reason = g.end_reason
    rec.rounds = g.round
    for s in range(g.n):
        rec.vp[s] = vp(g, s)
        rec.buildings[s] = owned(g, s)
        rec.lives_left[s] = g.players[s].lives
        rec.knockouts[s] = g.players[s].knockouts
        rec.knockouts_dealt[s] = g.players[s].knockouts_dealt
