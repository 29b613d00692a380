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
    cdef int c, k = 0
    for c in range(g.ncells):
        if g.owner[c] == seat:
            k += 1
    return k


cdef inline int vp(Game* g, int seat) noexcept nogil:
    """§1: one VP per home or mansion owned (plus V3's VP per knockout)."""
    return owned(g, seat) + g.players[seat].knockout_vp * g.r.vp_per_knockout


cdef inline bint teammates(Game* g, int a, int b) noexcept nogil:
    return g.teams and a != b and a % 2 == b % 2


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
    cdef int d, m, k = 0
    for d in range(6):
        m = g.nbrs[cell][d]
        if m != NO_CELL and g.tile[m] != T_EMPTY:
            out[k] = m
            k += 1
    return k


cdef void board_changed(Game* g) noexcept nogil:
    """All-pairs walking distances over cells with tiles (BFS from each)."""
    cdef int src, c, m, d, head, tail
    cdef int queue[MAXC]
    for src in range(g.ncells):
        for c in range(g.ncells):
            g.dist[src][c] = FAR
        if g.tile[src] == T_EMPTY:
            continue
        g.dist[src][src] = 0
        queue[0] = src
        head, tail = 0, 1
        while head < tail:
            c = queue[head]
            head += 1
            for d in range(6):
                m = g.nbrs[c][d]
                if m != NO_CELL and g.tile[m] != T_EMPTY and g.dist[src][m] == FAR:
                    g.dist[src][m] = g.dist[src][c] + 1
                    queue[tail] = m
                    tail += 1


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
