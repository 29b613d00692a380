# Game Flow (sim/tales/game.py): the round loop, Recruitment - Equipment - Battle, to the end.

cdef void play_round(Game* g) noexcept nogil:
    cdef int s, k
    g.round += 1
    for s in range(g.n):
        for k in range(g.army):
            g.seats[s].exhausted[k] = 0
    recruitment(g)
    equipment(g)
    battle(g)


cdef inline int last_round(Game* g) noexcept nogil:
    return g.r.max_rounds if g.r.survive else g.r.game_rounds


cdef void play_game(Game* g) noexcept nogil:
    """Play a whole game: setup, rounds, and the decision by losses if nothing ended it before."""
    setup_game(g)
    while not g.over and not g.error and g.round < last_round(g):
        play_round(g)
    if not g.over and not g.error:
        by_losses(g)
