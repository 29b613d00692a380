# The heuristic bot (sim/paws/bots/heuristic.py): integer scores, the first best option wins.

cdef int item_value(Game* g, int card_id) noexcept nogil:
    cdef const ItemSpec* c = &g.items[card_id]
    cdef int e = c.effect, a = c.amount
    if e == E_HEAL:
        return 2 + a
    if e == E_FIGHT_BONUS:
        return 3 + 2 * a
    if e == E_ROLL_BONUS:
        return 2 + a
    if e == E_ESCAPE:
        return 5
    if e == E_GRENADE:
        return 7
    if e == E_SNARE:
        return 4
    if e == E_POISON:
        return 5
    if e == E_EXTRA_AP:
        return 3 + 2 * a
    if e == E_GAIN_BARRICADE:
        return 6
    if e == E_TELEPORT or e == E_WARD or e == E_REFLECT:
        return 4
    return 2 + a  # E_DRAW


cdef inline int monster_value(Game* g, int m) noexcept nogil:
    return g.mons[m].hp + (4 * g.mons[m].amount if g.mons[m].buff != B_NONE else 0)


cdef inline bint scoring_raid(Game* g, Weights* w, int seat, int target) noexcept nogil:
    return (g.r.vp_per_knockout > 0 and g.r.raid_rolls == 0 and w.aggression > 0
            and g.players[seat].hp >= g.players[target].hp + 2)


cdef inline int look_leader(Game* g, Look* lk) noexcept nogil:
    if lk.leader == UNKNOWN:
        lk.leader = sole_leader(g)
    return lk.leader


cdef bint open_building(Game* g, int seat) noexcept nogil:
    """any(owner[x] == seat and barricade[x] == NOBODY for x in cells)"""
    cdef int k, x
    if g.n_owned[seat] == 0:
        return False
    for k in range(g.n_tiled):  # only tiles are owned
        x = g.tiled[k]
        if g.owner[x] == seat and g.barricade[x] == NOBODY:
            return True
    return False


cdef void look_around(Game* g, Weights* w, Look* lk, int seat) noexcept nogil:
    """Fill ``lk``: values[c] = the reference's cell_value(c) for every tiled cell, and best_value.

    cell_value(c) reads the cell only through its tile, owner, brick and barricade, and who stands
    on it (hunt_value); everything else it reads is the same for all cells, so it is worked out once:
    worth[tile][owner + 1] is what an unbarred tile with that owner (and, for a chest or a forest,
    no brick) is worth. Then per cell: hunt_value if any, else 0 if barred, else the worth.
    """
    cdef Player* p = &g.players[seat]
    cdef int worth[6][MAXP + 1]
    cdef int t, k, c, v, kind, div, chest, forest, desert, hunt
    lk.hand_limit = hand_limit(g, seat)
    lk.leader = UNKNOWN
    lk.n_hunt = 0
    for t in range(g.n):  # hunt_value(c) > 0: some such t stands on c
        if attackable(g, seat, t) and opponents(g, seat, t) and scoring_raid(g, w, seat, t):
            lk.hunt_cells[lk.n_hunt] = g.players[t].pos
            lk.n_hunt += 1
    chest = 30 if p.n_items < lk.hand_limit else 12
    forest = 25 if open_building(g, seat) else 8
    if g.r.desert_heal <= 0 or p.hp >= g.r.max_hp:
        desert = 0
    elif p.hp <= w.heal_threshold:
        desert = 80
    else:
        desert = 50 if p.hp < max(w.invade_min_hp, w.mansion_min_hp) else 0
    div = 1 if g.building_fights_left > 0 or g.seat != seat else 2
    for t in range(MAXP + 1):
        worth[T_EMPTY][t] = 0
        worth[T_DESERT][t] = desert
        worth[T_CHEST][t] = chest
        worth[T_FOREST][t] = forest
        worth[T_HOME][t] = 0
        worth[T_MANSION][t] = 0
    # an unowned building: its monsters must be in the deck
    if g.n_monster_deck >= 1 and p.hp >= w.home_min_hp:
        worth[T_HOME][0] = 60 // div
    if g.n_monster_deck >= g.r.mansion_monsters and p.hp >= w.mansion_min_hp:
        worth[T_MANSION][0] = 70 // div
    # an opponent's building: invade it
    if w.aggression > 0 and p.hp >= w.invade_min_hp:
        for t in range(g.n):
            if opponents(g, seat, t):
                v = (20 + 8 * w.aggression + (25 if look_leader(g, lk) == t else 0)) // div
                worth[T_HOME][t + 1] = v
                worth[T_MANSION][t + 1] = v
    lk.best_value = 0
    for k in range(g.n_tiled):  # (values and moves of cells without a tile are never read)
        c = g.tiled[k]
        kind = g.tile[c]
        v = worth[kind][g.owner[c] + 1]
        # barred(g, seat, c), or a chest or forest already looted (without branches: | and &)
        if ((g.barricade[c] != NOBODY) & (g.barricade[c] != seat)) | (
                ((kind == T_CHEST) | (kind == T_FOREST)) & (g.brick[c] != NOBODY)):
            v = 0
        lk.values[c] = v
        lk.moves[c] = UNKNOWN
        lk.best_value = max(lk.best_value, v)
    hunt = 30 + 4 * w.aggression
    for k in range(lk.n_hunt):  # hunt_value comes first, barred or not
        lk.values[lk.hunt_cells[k]] = hunt
        lk.best_value = max(lk.best_value, hunt)


cdef int move_score(Game* g, Weights* w, Look* lk, int dest) noexcept nogil:
    """Best worth reachable from ``dest``, less the steps to it (the move itself included).

    The cells are looked at ring by ring, nearest first, and the scan stops once even the best worth
    on the board, that far away, could not beat the best found (the maximum over all cells is the same).
    """
    cdef int k = 0, d = 0, v, cost, best = -1
    cdef const uint8_t* order = g.near[dest]
    cdef const uint8_t* ring = g.ring[dest]
    cdef int n = g.n_near[dest]
    if lk.moves[dest] != UNKNOWN:
        return lk.moves[dest]
    while k < n:
        cost = w.step_cost * (d + 1)
        if lk.best_value - cost <= best:
            break
        for k in range(k, ring[d + 1]):  # the cells d steps from dest
            v = lk.values[order[k]]
            if v > 0 and v - cost > best:
                best = v - cost
        k = ring[d + 1]
        d += 1
    lk.moves[dest] = best
    return best


cdef int place_score(Game* g, Weights* w, int seat, int kind_index, int cell) noexcept nogil:
    cdef Player* p = &g.players[seat]
    cdef int base, d = FAR, k, m
    if kind_index == 0:
        base = 75 if p.hp >= w.mansion_min_hp else 30
    elif kind_index == 1:
        base = 72 if p.hp >= w.home_min_hp else 30
    else:
        base = 45 if kind_index == 2 else 40
    for k in range(6):
        m = g.nbrs[cell][k]
        if m != NO_CELL and g.tile[m] != T_EMPTY:
            d = min(d, g.dist[p.pos][m] + 1)
    return base - w.step_cost * (d - 1)


cdef int card_score(Game* g, Weights* w, Look* lk, int seat, int hand_index, int target,
                    const int* values) noexcept nogil:
    cdef Player* p = &g.players[seat]
    cdef const ItemSpec* card = &g.items[p.items[hand_index]]
    cdef int e = card.effect, v, t, hits = 0, kos = 0, friends = 0
    if e == E_HEAL:
        return 85 + card.amount if p.hp <= w.heal_threshold else -1
    if e == E_EXTRA_AP:
        return 95
    if e == E_GAIN_BARRICADE:
        return 88
    if e == E_DRAW:
        return 50 if p.n_items - 1 + card.amount <= lk.hand_limit else 20
    if e == E_TELEPORT:
        v = values[target]
        return v - 10 if v > 0 and g.dist[p.pos][target] >= 3 else -1
    if w.aggression == 0:
        return -1
    if e == E_GRENADE:
        for t in range(g.n):
            if attackable(g, seat, t) and g.players[t].pos == target:
                if opponents(g, seat, t):
                    hits += 1
                    if g.players[t].hp <= card.amount:
                        kos += 1
                else:
                    friends += 1
        return 40 + 10 * hits + 20 * kos if hits and not friends else -1
    if not opponents(g, seat, target):
        return -1
    if e == E_SNARE:
        return 30 + (20 if look_leader(g, lk) == target else 0)
    if e == E_POISON:
        return 32 + (30 if g.players[target].hp <= card.amount else 0)
    return -1


cdef int action_score(Game* g, Weights* w, Look* lk, int seat, int i, const int* values) noexcept nogil:
    cdef Player* p = &g.players[seat]
    cdef int kind = g.opt_a[i], a = g.opt_b[i], b = g.opt_c[i], v, diff
    if kind == A_MOVE:  # the commonest
        return move_score(g, w, lk, a)
    if kind == A_END_TURN:
        return values[p.pos] if g.tile[p.pos] == T_DESERT else 0
    if kind == A_LOOT or kind == A_INVADE:
        v = values[p.pos]
        return v + 5 + w.step_cost if v > 0 else -1
    if kind == A_BUY:
        return 12 if p.n_items < lk.hand_limit else -1
    if kind == A_RAID:
        if scoring_raid(g, w, seat, a):
            return 60 + 4 * w.aggression
        diff = g.players[a].n_items - p.n_items
        if w.aggression > 0 and diff >= w.raid_appetite and p.hp > w.heal_threshold:
            return 20 + 4 * w.aggression + 2 * diff
        return -1
    if kind == A_BARRICADE:
        if g.owner[a] != seat:
            return -1
        return 90 if g.tile[a] == T_MANSION else 85
    if kind == A_PLACE_TILE:
        return place_score(g, w, seat, a, b)
    return card_score(g, w, lk, seat, a, b, values)


cdef int heuristic_combat(Game* g, int seat) noexcept nogil:
    """A COMBAT_CARD decision: pass (a hand index below 0, worth 0) or a card, the first best wins.

    combat_score depends on the card only through its effect: worth[effect] is worked out once.
    """
    cdef Weights* w = &g.bots[seat].w
    cdef Player* p = &g.players[seat]
    cdef Fight* f = g.fight
    cdef int worth[16]
    cdef int i, s, e, hand_index, side, best = 0, best_score = 0
    side = 0 if f.seats[0] == seat else 1
    for e in range(16):
        worth[e] = -1
    worth[E_ESCAPE] = 100 if p.hp <= w.escape_hp else -1
    worth[E_HEAL] = 90 if p.hp <= w.heal_threshold and p.hp < g.r.max_hp else -1
    worth[E_FIGHT_BONUS] = 80 if f.roll == 0 else -1
    worth[E_ROLL_BONUS] = 70 if f.attacker == seat else -1
    worth[E_REFLECT] = 60 if f.attacker != seat and not f.reflect[side] else -1
    for i in range(g.n_opt):
        hand_index = g.opt_a[i]
        s = 0 if hand_index < 0 else worth[g.items[p.items[hand_index]].effect]
        if i == 0 or s > best_score:
            best, best_score = i, s
    return best


cdef int heuristic_action(Game* g, int seat) noexcept nogil:
    """An ACTION decision: score every legal action, the first best wins."""
    cdef Weights* w = &g.bots[seat].w
    cdef int i, s, best = 0, best_score = 0
    if not g.look_ok:
        look_around(g, w, &g.look, seat)
        g.look_ok = 1
    for i in range(g.n_opt):
        s = action_score(g, w, &g.look, seat, i, g.look.values)
        if i == 0 or s > best_score:
            best, best_score = i, s
    return best


cdef int heuristic_decide(Game* g, int seat, int kind) noexcept nogil:
    cdef Weights* w = &g.bots[seat].w
    cdef int i, s, best = 0, best_score = 0, m
    if kind == D_PLACE_FREE:
        return 0
    if kind == D_ACTION:
        return heuristic_action(g, seat)
    if kind == D_COMBAT_CARD:
        return heuristic_combat(g, seat)
    for i in range(g.n_opt):
        if kind == D_DEFENDER:
            m = g.opt_a[i]
            s = 10 * g.mons[m].hp + (g.mons[m].amount if g.mons[m].buff == B_GUARD else 0)
        elif kind == D_KEEP_MONSTER:
            s = monster_value(g, g.opt_a[i])
        elif kind == D_TAKE_CARD:
            s = item_value(g, g.opt_b[i]) if g.opt_a[i] == 0 else 6 + monster_value(g, g.opt_b[i])
        else:  # D_DISCARD
            s = -item_value(g, g.opt_a[i])
        if i == 0 or s > best_score:
            best, best_score = i, s
    return best
