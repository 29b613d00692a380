# The game record (sim/tales/game.py record, card_rows): what the batch loop writes once a game is over.
# The counters are kept in g.rec as the game goes; the rest is read off the state at the end.

cdef void card_row(RowBuffer* rows, int game, int seat, int kind, int card, int champion, int survived,
                   int kills) noexcept nogil:
    cdef CardRow* r = <CardRow*>rows_push(rows)
    if r == NULL:
        return
    r.game = game
    r.seat = <int8_t>seat
    r.kind = <int8_t>kind
    r.card = <int16_t>card
    r.champion = <int8_t>champion
    r.survived = <int8_t>survived
    r.kills = <int16_t>kills


cdef void card_rows(Game* g, RowBuffer* rows, int game) noexcept nogil:
    """The card table's rows of one game (sim.tales.game.card_rows): per seat, creatures fielded then
    equipment carried, by card id."""
    cdef int s, c, k, i, alive, carried
    cdef Seat* st
    for s in range(g.n):
        st = &g.seats[s]
        for c in range(MAXCRE):
            if st.fielded[c]:
                alive = 0
                for k in range(g.army):
                    alive |= st.slot[k] == c
                card_row(rows, game, s, 0, c, c == st.champion, alive, st.kills[c])
        for c in range(MAXEQ):
            if st.gear_used[c]:
                carried = 0
                for k in range(g.army):
                    for i in range(st.n_gear[k]):
                        carried |= st.gear[k][i] == c
                card_row(rows, game, s, 1, c, 0, carried, st.gear_kills[c])


cdef void record_game(Game* g, GameRecord* rec) noexcept nogil:
    """The game's record (sim/tales/game.py record): the counters kept in g.rec, then what is read off the
    state at the end. ``rec`` may be &g.rec."""
    cdef int s, k
    cdef Seat* st
    rec[0] = g.rec
    rec.first_side = g.first_side
    rec.winner_team = g.winner_team
    rec.end_reason = g.end_reason
    rec.rounds = g.round
    for s in range(g.n):
        st = &g.seats[s]
        rec.champion[s] = st.champion
        rec.weighted_losses[s] = st.losses
        rec.survivors[s] = 0
        rec.champion_alive[s] = 0
        for k in range(g.army):
            if st.slot[k] != EMPTY:
                rec.survivors[s] += 1
                if st.slot[k] == st.champion:
                    rec.champion_alive[s] = 1
