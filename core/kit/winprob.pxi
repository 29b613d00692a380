# The engine kit's win-probability trace (docs/tension.md "The stored trace"; sim/kit/winprob.py builds the
# win_prob table from it): on request, at the start of every turn (the rulebook's turn: Paws' §3 turn of a
# player, Tales' battle turn of a team) and once when the game ends, the oracle (a learned model's value
# head, learned.pxi learned_values) rates every seat's chance to win from what every player can see, and a
# ValueRow is appended to g.vtrace. Games with no trace (g.vtrace NULL) pay one test a turn; a search's
# copies of a game never write (core/<game>/search.pxi).
#
# Contract: the including module defines ``Game`` (with ``vtrace``, ``round``, ``rec.turns``), ``MAXP``,
# cimports ValueTrace (core/kit/types.pxd), the kit's rows.pxi and learned.pxi (learned_values,
# learned_seat_features, search_seats), and includes this file after the game's learned.pxi.

# one row of the trace; VALUE_ROW_DTYPE is its numpy twin (rows_array checks the size)
cdef struct ValueRow:
    int32_t game                  # the game's offset in the batch
    int32_t turn                  # turns begun in the game before this one (0-based); at the end: all turns
    int16_t round                 # the round the turn is in (the last round at the end)
    int8_t seat                   # the seat whose turn begins; -1 for the row after the game ended
    float chances[MAXP]           # each seat's chance to win (Teams: its team's), the first search_seats()

VALUE_ROW_DTYPE = np.dtype([("game", np.int32), ("turn", np.int32), ("round", np.int16), ("seat", np.int8),
                            ("chances", np.float32, (MAXP,))], align=True)


cdef void value_row(Game* g, int turn, int seat) noexcept nogil:
    """Append g.vtrace's row for the state now: turn ``turn`` of the game begins with ``seat`` (-1: the
    game is over). A row that cannot be pushed is lost and the buffer says so (rows_array raises)."""
    cdef ValueTrace* t = g.vtrace
    cdef double p[MAXP]
    cdef double f[MAXFEAT]
    cdef double* keep
    cdef ValueRow* r = <ValueRow*>rows_push(&t.rows)
    cdef int s, i, n = search_seats(g), nv = t.model.n_value
    if r == NULL:
        return
    learned_values(g, &t.model, p)
    r.game = t.game
    r.turn = turn
    r.round = <int16_t>g.round
    r.seat = <int8_t>seat
    for s in range(n):
        r.chances[s] = <float>p[s]
    if t.features != NULL:
        keep = <double*>rows_push(t.features)
        if keep != NULL:
            for s in range(n):
                learned_seat_features(g, s, f)
                for i in range(nv):
                    keep[s * nv + i] = f[i]


cdef int value_trace_init(ValueTrace* t, object model, int n_policy, int n_value) except -1:
    """An empty trace rating seats by ``model`` ((policy weights, value weights), the game's feature counts
    long: learned.pxi load_model); t.features stays NULL."""
    memset(t, 0, sizeof(ValueTrace))
    load_model(&t.model, model, n_policy, n_value)
    rows_init(&t.rows, sizeof(ValueRow), 1 << 12)
    return 0
