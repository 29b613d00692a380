# §13 Winning (sim/paws/winning.py).

cdef inline void end_game(Game* g, int reason, int seat, int team) noexcept nogil:
    g.over = 1
    g.end_reason = reason
    g.winner_seat = seat
    g.winner_team = team


cdef int team_vp(Game* g, int team) noexcept nogil:
    cdef int s, total = 0
    for s in range(g.n):
        if s % 2 == team:
            total += vp(g, s)
    return total


cdef inline int vp_goal(Game* g) noexcept nogil:
    return g.r.vp_target_2p_explorer if g.explorer and g.n == 2 else g.r.vp_target


cdef void check_vp(Game* g, int seat) noexcept nogil:
    if g.over:
        return
    if g.teams:
        if team_vp(g, seat % 2) >= g.r.team_vp_target:
            end_game(g, R_VP, NOBODY, seat % 2)
    elif vp(g, seat) >= vp_goal(g):
        end_game(g, R_VP, seat, NOBODY)


cdef void check_last_alive(Game* g) noexcept nogil:
    cdef int s, alive = 0, last = NOBODY, t0 = 0, t1 = 0
    if g.over:
        return
    for s in range(g.n):
        if g.players[s].lives > 0:
            alive += 1
            last = s
            if s % 2 == 0:
                t0 = 1
            else:
                t1 = 1
    if g.teams:
        if t0 + t1 <= 1:
            end_game(g, R_LAST_ALIVE, NOBODY, 0 if t0 else (1 if t1 else NOBODY))
    elif alive <= 1:
        end_game(g, R_LAST_ALIVE, last if alive == 1 else NOBODY, NOBODY)


cdef void check_round_end(Game* g) noexcept nogil:
    cdef int s, v, best = -1, lead = NOBODY, count = 0, nsc
    cdef int scores[MAXP]
    if g.over:
        return
    if g.r.round_limit and g.round >= g.r.round_limit:
        if g.teams:
            scores[0] = team_vp(g, 0)
            scores[1] = team_vp(g, 1)
            nsc = 2
        else:
            for s in range(g.n):
                scores[s] = vp(g, s)
            nsc = g.n
        for s in range(nsc):
            v = scores[s]
            if v > best:
                best, lead, count = v, s, 1
            elif v == best:
                count += 1
        if count != 1:
            lead = NOBODY
        if g.teams:
            end_game(g, R_ROUND_LIMIT, NOBODY, lead)
        else:
            end_game(g, R_ROUND_LIMIT, lead, NOBODY)
    elif g.round >= g.r.max_rounds:
        end_game(g, R_STALLED, NOBODY, NOBODY)
