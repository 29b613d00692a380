# Shared helpers of the Paws in Peril core: card lists, derived facts, the board, the decision hook.
# Mirrors sim/paws/state.py and sim/paws/board.py.

cdef inline void push16(int16_t* arr, int* n, int v) noexcept nogil:
    arr[n[0]] = <int16_t>v
    n[0] += 1


cdef inline int pop16(int16_t* arr, int* n, int i) noexcept nogil:
    """Remove and return arr[i], keeping the order of the rest (Python's list.pop(i))."""
    cdef int v = arr[i], j
    for j in range(i, n[0] - 1):
        arr[j] = arr[j + 1]
    n[0] -= 1
    return v


cdef inline int index16(const int16_t* arr, int n, int v) noexcept nogil:
    cdef int i
    for i in range(n):
        if arr[i] == v:
            return i
    return -1


cdef inline void insert_bottom16(int16_t* arr, int* n, int v) noexcept nogil:
    """Put a card at the bottom (index 0) of a deck whose top is the end."""
    cdef int j
    for j in range(n[0], 0, -1):
        arr[j] = arr[j - 1]
    arr[0] = <int16_t>v
    n[0] += 1


cdef inline void shuffle16(Game* g, int16_t* arr, int n) noexcept nogil:
    """Fisher-Yates from the last position down, as sim.rng.Rng.shuffle."""
    cdef int i, j, t
    for i in range(n - 1, 0, -1):
        j = pcg32_below(&g.rng, i + 1)
        t = arr[i]
        arr[i] = arr[j]
        arr[j] = <int16_t>t


cdef inline int die(Game* g) noexcept nogil:
    return pcg32_die(&g.rng)


cdef inline int owned(Game* g, int seat) noexcept nogil:
    """Homes and mansions ``seat`` owns (kept by set_owner, so no scan of the board)."""
    return g.n_owned[seat]


cdef inline void set_owner(Game* g, int cell, int seat) noexcept nogil:
    """Every change of g.owner goes through here, so that g.n_owned stays the count of owner[]."""
    if g.owner[cell] != NOBODY:
        g.n_owned[g.owner[cell]] -= 1
    g.owner[cell] = seat
    if seat != NOBODY:
        g.n_owned[seat] += 1


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
    and all-pairs walking distances over cells with tiles (sim.paws.board.distances)."""
    cdef int c, d, m, k, added = NO_CELL, nadded = 0
    cdef uint64_t mask[2]
    mask[0] = 0
    mask[1] = 0
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
        if g.tile[c] != T_EMPTY:
            g.tiled[g.n_tiled] = c
            g.n_tiled += 1
            mask[c >> 6] |= (<uint64_t>1) << (c & 63)
        elif k > 0:
            g.place[g.n_place] = c
            g.n_place += 1
    # distances depend only on which cells hold tiles: reuse them when that is unchanged (every
    # Beginner game of a batch), extend them when one tile was added (an Explorer placement)
    if g.dist_valid:
        if mask[0] == g.dist_mask[0] and mask[1] == g.dist_mask[1]:
            return
        if (mask[0] & g.dist_mask[0]) == g.dist_mask[0] and (mask[1] & g.dist_mask[1]) == g.dist_mask[1]:
            for k in range(g.n_tiled):
                c = g.tiled[k]
                if not (g.dist_mask[c >> 6] >> (c & 63)) & 1:
                    nadded += 1
                    added = c
    g.dist_mask[0] = mask[0]
    g.dist_mask[1] = mask[1]
    g.dist_valid = 1
    if nadded == 1:
        dist_add_cell(g, added)
    else:
        dist_all_pairs(g)
    nearest_first(g)


cdef void nearest_first(Game* g) noexcept nogil:
    """near[a]: the tiled cells reachable from a, sorted by distance (a counting sort of dist[a]),
    and ring[a]: where each distance starts in near[a]."""
    cdef int i, j, a, b, d, maxd
    cdef int start[MAXC + 1]
    for i in range(g.n_tiled):
        a = g.tiled[i]
        for d in range(g.n_tiled + 1):
            start[d] = 0
        maxd = 0
        for j in range(g.n_tiled):
            d = g.dist[a][g.tiled[j]]
            if d != FAR:
                start[d + 1] += 1
                maxd = max(maxd, d)
        for d in range(maxd + 1):
            start[d + 1] += start[d]
        for d in range(maxd + 2):
            g.ring[a][d] = <uint8_t>start[d]
        g.n_near[a] = start[maxd + 1]
        for j in range(g.n_tiled):
            b = g.tiled[j]
            d = g.dist[a][b]
            if d != FAR:
                g.near[a][start[d]] = <uint8_t>b
                start[d] += 1


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


cdef int ask(Game* g, int seat, int kind) noexcept nogil:
    """Every bot choice goes through here; a choice of one is not asked (and draws no random number)."""
    if g.n_opt <= 1:
        return 0
    if g.bots[seat].kind == BOT_RANDOM:
        return pcg32_below(&g.rng, g.n_opt)
    return heuristic_decide(g, seat, kind)
