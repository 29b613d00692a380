# Shared helpers of the Paws in Peril core: derived facts, the board, a decision's options.
# Mirrors sim/paws/state.py and sim/paws/board.py. Card lists, draws and cell sets are the engine kit's
# (core/kit/); the decision hook ask() is in draws.pxi (script.pxi in the test-only module).

cdef inline int owned(Game* g, int seat) noexcept nogil:
    """Homes and mansions ``seat`` owns (kept by set_owner, so no scan of the board)."""
    return g.n_owned[seat]


# -- owner, brick, barricade: every change goes through these, which keep the counts and sets --------
cdef inline void set_owner(Game* g, int cell, int seat) noexcept nogil:
    if g.owner[cell] != NOBODY:
        g.n_owned[g.owner[cell]] -= 1
    cells_remove(&g.owned_by[g.owner[cell] + 1], cell)
    g.owner[cell] = seat
    if seat != NOBODY:
        g.n_owned[seat] += 1
    cells_add(&g.owned_by[seat + 1], cell)


cdef inline void set_brick(Game* g, int cell, int seat) noexcept nogil:
    g.brick[cell] = seat
    if seat == NOBODY:
        cells_remove(&g.bricked, cell)
    else:
        cells_add(&g.bricked, cell)


cdef inline void set_barricade(Game* g, int cell, int seat) noexcept nogil:
    if g.barricade[cell] != NOBODY:
        cells_remove(&g.barricaded_by[g.barricade[cell]], cell)
    g.barricade[cell] = seat
    if seat == NOBODY:
        cells_remove(&g.barricaded, cell)
    else:
        cells_add(&g.barricaded, cell)
        cells_add(&g.barricaded_by[seat], cell)


cdef void clear_board(Game* g) noexcept nogil:
    """No tiles, owners, bricks or barricades."""
    cdef int c, s
    for c in range(g.ncells):
        g.tile[c] = T_EMPTY
        g.owner[c] = NOBODY
        g.brick[c] = NOBODY
        g.barricade[c] = NOBODY
    cells_clear(&g.owned_by[0])
    for c in range(g.ncells):
        cells_add(&g.owned_by[0], c)
    for s in range(MAXP):
        g.n_owned[s] = 0
        cells_clear(&g.owned_by[s + 1])
        cells_clear(&g.barricaded_by[s])
    cells_clear(&g.bricked)
    cells_clear(&g.barricaded)


cdef inline int vp(Game* g, int seat) noexcept nogil:
    """§1: one VP per home or mansion owned (plus V3's VP per knockout)."""
    return owned(g, seat) + g.players[seat].knockout_vp * g.r.vp_per_knockout


cdef inline bint teammates(Game* g, int a, int b) noexcept nogil:
    return g.teams and a != b and ((a ^ b) & 1) == 0  # same parity (as Python's a % 2 == b % 2)


cdef inline bint opponents(Game* g, int a, int b) noexcept nogil:
    return a != b and not teammates(g, a, b)


cdef int sole_leader(Game* g) noexcept nogil:
    """§6.2: the one player with the most VP, or NOBODY on a tie."""
    cdef int s, v, best = -1, who = NOBODY, count = 0
    for s in range(g.n):
        v = vp(g, s)
        if v > best:
            best, who, count = v, s, 1
        elif v == best:
            count += 1
    return who if count == 1 else NOBODY


cdef int buff(Game* g, int seat, int kind) noexcept nogil:
    """Sum of the active buffs of ``kind`` among a seat's monster cards."""
    cdef Player* p = &g.players[seat]
    cdef int i, total = 0
    for i in range(p.n_monsters):
        if p.active[i] and g.mons[p.monsters[i]].buff == kind:
            total += g.mons[p.monsters[i]].amount
    return total


cdef inline int hand_limit(Game* g, int seat) noexcept nogil:
    return g.r.hand_limit + buff(g, seat, B_HAND)


cdef inline int neighbours(Game* g, int cell, int* out) noexcept nogil:
    """Cells next to ``cell`` that hold a tile, in direction order; returns how many."""
    cdef int k, nn = g.n_tn[cell]
    for k in range(nn):
        out[k] = g.tn[cell][k]
    return nn


cdef void board_changed(Game* g) noexcept nogil:
    """The facts derived from the tiles: tiled cells, their tiled neighbours, Explorer placement cells,
    cells by kind, and all-pairs walking distances over cells with tiles (sim.paws.board.distances)."""
    cdef int c, d, m, k, added = NO_CELL, nadded = 0
    cdef Cells tiled
    cells_clear(&tiled)
    for k in range(6):
        cells_clear(&g.of_kind[k])
    g.n_tiled = 0
    g.n_place = 0
    for c in range(g.ncells):
        k = 0
        for d in range(6):
            m = g.nbrs[c][d]
            if m != NO_CELL and g.tile[m] != T_EMPTY:
                g.tn[c][k] = m
                k += 1
        g.n_tn[c] = k
        cells_add(&g.of_kind[g.tile[c]], c)
        if g.tile[c] != T_EMPTY:
            g.tiled[g.n_tiled] = c
            g.n_tiled += 1
            cells_add(&tiled, c)
        elif k > 0:
            g.place[g.n_place] = c
            g.n_place += 1
    # distances depend only on which cells hold tiles: reuse them when that is unchanged (every
    # Beginner game of a batch), extend them when one tile was added (an Explorer placement)
    if g.dist_valid:
        if tiled.w[0] == g.dist_cells.w[0] and tiled.w[1] == g.dist_cells.w[1]:
            return
        if ((tiled.w[0] & g.dist_cells.w[0]) == g.dist_cells.w[0]
                and (tiled.w[1] & g.dist_cells.w[1]) == g.dist_cells.w[1]):
            for k in range(g.n_tiled):
                c = g.tiled[k]
                if not cells_has(&g.dist_cells, c):
                    nadded += 1
                    added = c
    g.dist_cells = tiled
    g.dist_valid = 1
    if nadded == 1:
        dist_add_cell(g, added)
    else:
        dist_all_pairs(g)
    distance_rings(g)


cdef void distance_rings(Game* g) noexcept nogil:
    """rings: for each tiled cell a, the set of cells at each distance d from it (d < n_rings[a])."""
    cdef int i, j, a, b, d, at = 0
    for i in range(g.n_tiled):
        a = g.tiled[i]
        g.n_rings[a] = 0
        for j in range(g.n_tiled):
            d = g.dist[a][g.tiled[j]]
            if d != FAR:
                g.n_rings[a] = max(g.n_rings[a], d + 1)
        g.ring_at[a] = at
        for d in range(g.n_rings[a]):
            cells_clear(&g.rings[at + d])
        for j in range(g.n_tiled):
            b = g.tiled[j]
            d = g.dist[a][b]
            if d != FAR:
                cells_add(&g.rings[at + d], b)
        at += g.n_rings[a]


cdef void dist_all_pairs(Game* g) noexcept nogil:
    """BFS from each tiled cell over tiled cells."""
    cdef int i, src, c, k, m, head, tail
    cdef int queue[MAXC]
    memset(g.dist, FAR, sizeof(g.dist))
    for i in range(g.n_tiled):
        src = g.tiled[i]
        g.dist[src][src] = 0
        queue[0] = src
        head, tail = 0, 1
        while head < tail:
            c = queue[head]
            head += 1
            for k in range(g.n_tn[c]):
                m = g.tn[c][k]
                if g.dist[src][m] == FAR:
                    g.dist[src][m] = g.dist[src][c] + 1
                    queue[tail] = m
                    tail += 1


cdef void dist_add_cell(Game* g, int x) noexcept nogil:
    """dist[][] was right without the tile at ``x``: the shortest paths that use x, plus x's own row.

    A shortest path to x ends with a step from a tiled neighbour m of x (and does not pass x before),
    so d'(a, x) = 1 + min over m of d(a, m); any other pair is d'(a, b) = min(d(a, b), d'(a, x) + d'(x, b)).
    """
    cdef int i, j, a, b, k, v, best
    cdef int dx[MAXC]
    for i in range(g.n_tiled):
        a = g.tiled[i]
        best = FAR
        if a == x:
            best = 0
        else:
            for k in range(g.n_tn[x]):
                v = g.dist[a][g.tn[x][k]]
                if v != FAR and v + 1 < best:
                    best = v + 1
        dx[a] = best
    for i in range(g.n_tiled):
        a = g.tiled[i]
        g.dist[a][x] = <uint8_t>dx[a]
        g.dist[x][a] = <uint8_t>dx[a]
    for i in range(g.n_tiled):
        a = g.tiled[i]
        if dx[a] == FAR or a == x:
            continue
        for j in range(g.n_tiled):
            b = g.tiled[j]
            if dx[b] != FAR and dx[a] + dx[b] < g.dist[a][b]:
                g.dist[a][b] = <uint8_t>(dx[a] + dx[b])


cdef inline void opt_clear(Game* g) noexcept nogil:
    g.n_opt = 0


cdef inline void opt_add(Game* g, int a, int b, int c) noexcept nogil:
    if g.n_opt >= MAXOPT:
        g.error = 1
        return
    g.opt_a[g.n_opt] = a
    g.opt_b[g.n_opt] = b
    g.opt_c[g.n_opt] = c
    g.n_opt += 1
