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


cdef inline void add_level(Look* lk, int value, Cells cells) noexcept nogil:
    """Add the cells worth ``value`` to lk's levels (kept in decreasing order of worth)."""
    cdef int i
    if value <= 0 or not cells_any(&cells):
        return
    i = lk.n_levels
    while i > 0 and lk.level_value[i - 1] < value:
        lk.level_value[i] = lk.level_value[i - 1]
        lk.level_cells[i] = lk.level_cells[i - 1]
        i -= 1
    lk.level_value[i] = value
    lk.level_cells[i] = cells
    lk.n_levels += 1


cdef void look_around(Game* g, Weights* w, Look* lk, int seat) noexcept nogil:
    """Fill ``lk``: the cells by the reference's cell_value(c), for the cells worth something.

    cell_value(c) reads the cell only through its tile, owner, brick and barricade, and who stands
    on it (hunt_value); everything else it reads is the same for all cells, so each case of it is
    one worth, and the cells of that case are a set: hunted cells first (barred or not), then, of the
    cells not barred to ``seat``, each tile kind (less looted chests and forests; homes and mansions
    by owner).
    """
    cdef Player* p = &g.players[seat]
    cdef int t, k, w0, div, hunt, desert, opp
    cdef Cells hunted, open_, cells
    lk.hand_limit = hand_limit(g, seat)
    lk.leader = UNKNOWN
    lk.n_levels = 0
    cells_clear(&hunted)
    for t in range(g.n):  # hunt_value(c) > 0: some such t stands on c
        if attackable(g, seat, t) and opponents(g, seat, t) and scoring_raid(g, w, seat, t):
            cells_add(&hunted, g.players[t].pos)
    for k in range(2):
        hunted.w[k] &= ~g.of_kind[T_EMPTY].w[k]
        # not hunted, not barred (a barricade not ``seat``'s), not a looted chest or forest
        open_.w[k] = ~(hunted.w[k] | (g.barricaded.w[k] & ~g.barricaded_by[seat].w[k])
                       | (g.bricked.w[k] & (g.of_kind[T_CHEST].w[k] | g.of_kind[T_FOREST].w[k])))
    add_level(lk, 30 + 4 * w.aggression, hunted)
    for k in range(2):
        cells.w[k] = g.of_kind[T_CHEST].w[k] & open_.w[k]
    add_level(lk, 30 if p.n_items < lk.hand_limit else 12, cells)
    # a forest is worth more while one of your buildings has no barricade
    for k in range(2):
        cells.w[k] = g.owned_by[seat + 1].w[k] & ~g.barricaded.w[k]
    w0 = 25 if cells_any(&cells) else 8
    for k in range(2):
        cells.w[k] = g.of_kind[T_FOREST].w[k] & open_.w[k]
    add_level(lk, w0, cells)
    if g.r.desert_heal <= 0 or p.hp >= g.r.max_hp:
        desert = 0
    elif p.hp <= w.heal_threshold:
        desert = 80
    else:
        desert = 50 if p.hp < max(w.invade_min_hp, w.mansion_min_hp) else 0
    for k in range(2):
        cells.w[k] = g.of_kind[T_DESERT].w[k] & open_.w[k]
    add_level(lk, desert, cells)
    div = 1 if g.building_fights_left > 0 or g.seat != seat else 2
    # unowned buildings, while their monsters are in the deck
    if g.n_monster_deck >= 1 and p.hp >= w.home_min_hp:
        for k in range(2):
            cells.w[k] = g.of_kind[T_HOME].w[k] & g.owned_by[0].w[k] & open_.w[k]
        add_level(lk, 60 // div, cells)
    if g.n_monster_deck >= g.r.mansion_monsters and p.hp >= w.mansion_min_hp:
        for k in range(2):
            cells.w[k] = g.of_kind[T_MANSION].w[k] & g.owned_by[0].w[k] & open_.w[k]
        add_level(lk, 70 // div, cells)
    # opponents' buildings: invade them
    if w.aggression > 0 and p.hp >= w.invade_min_hp:
        for t in range(g.n):
            if opponents(g, seat, t) and g.n_owned[t] > 0:
                for k in range(2):
                    cells.w[k] = ((g.of_kind[T_HOME].w[k] | g.of_kind[T_MANSION].w[k])
                                  & g.owned_by[t + 1].w[k] & open_.w[k])
                add_level(lk, (20 + 8 * w.aggression + (25 if look_leader(g, lk) == t else 0)) // div, cells)
    lk.stamp += 1                 # forgets every move_score of the last look


cdef int cell_value(Look* lk, int c) noexcept nogil:
    """The reference's cell_value(c), from the look."""
    cdef int i
    for i in range(lk.n_levels):
        if cells_has(&lk.level_cells[i], c):
            return lk.level_value[i]
    return 0


cdef int move_score(Game* g, Weights* w, Look* lk, int dest) noexcept nogil:
    """Best worth reachable from ``dest``, less the steps to it (the move itself included):
    max over cells c worth v > 0 of v - step_cost * (dist[dest][c] + 1), else -1.

    Worth by worth, highest first: the nearest cell of that worth is found ring by ring around
    dest; a worth that could not beat the best found even one step away ends the search.
    """
    cdef int i, d, v, best = -1
    cdef const Cells* rings
    if lk.moves_at[dest] == lk.stamp:
        return lk.moves[dest]
    rings = &g.rings[g.ring_at[dest]]
    for i in range(lk.n_levels):
        v = lk.level_value[i]
        if v - w.step_cost <= best:
            break
        for d in range(g.n_rings[dest]):
            if v - w.step_cost * (d + 1) <= best:
                break
            if cells_meet(&rings[d], &lk.level_cells[i]):
                best = v - w.step_cost * (d + 1)
                break
    lk.moves[dest] = best
    lk.moves_at[dest] = lk.stamp
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


cdef int card_score(Game* g, Weights* w, Look* lk, int seat, int hand_index, int target) noexcept nogil:
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
        v = cell_value(lk, target)
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


cdef inline bint forbidden(int forbid, int action) noexcept nogil:
    """Restricted play (docs/restricted-play.md): an action of this kind (an Action value) is what ``forbid``
    (a Weights.forbid) names; End turn never is (0, End turn's value, is forbid's "none"). The heuristic
    and the learned bot (learned.pxi) both ask here."""
    return action == forbid and action != A_END_TURN


cdef int action_score(Game* g, Weights* w, Look* lk, int seat, int i) noexcept nogil:
    cdef Player* p = &g.players[seat]
    cdef int kind = g.opt_a[i], a = g.opt_b[i], b = g.opt_c[i], v, diff
    if forbidden(w.forbid, kind):                   # restricted play: below every other action
        return FORBIDDEN
    if kind == A_MOVE:  # the commonest
        return move_score(g, w, lk, a)
    if kind == A_END_TURN:
        return cell_value(lk, p.pos) if g.tile[p.pos] == T_DESERT else 0
    if kind == A_LOOT or kind == A_INVADE:
        v = cell_value(lk, p.pos)
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
    return card_score(g, w, lk, seat, a, b)


cdef inline int combat_worth(Game* g, Fight* f, int seat, int e) noexcept nogil:
    """combat_score of a card of effect ``e``: a COMBAT_CARD decision depends on a card only through it."""
    cdef Weights* w = &g.bots[seat].w
    cdef Player* p = &g.players[seat]
    if e == E_ESCAPE:
        return 100 if p.hp <= w.escape_hp else -1
    if e == E_HEAL:
        return 90 if p.hp <= w.heal_threshold and p.hp < g.r.max_hp else -1
    if e == E_FIGHT_BONUS:
        return 80 if f.roll == 0 else -1
    if e == E_ROLL_BONUS:
        return 70 if f.attacker == seat else -1
    if e == E_REFLECT:
        return 60 if f.attacker != seat and not f.reflect[0 if f.seats[0] == seat else 1] else -1
    return -1


cdef int heuristic_combat(Game* g, int seat) noexcept nogil:
    """A COMBAT_CARD decision: pass (a hand index below 0, worth 0) or a card, the first best wins.

    combat_score depends on the card only through its effect (combat_worth).
    """
    cdef Player* p = &g.players[seat]
    cdef int i, s, hand_index, best = 0, best_score = 0
    for i in range(g.n_opt):
        hand_index = g.opt_a[i]
        s = 0 if hand_index < 0 else combat_worth(g, g.fight, seat, g.items[p.items[hand_index]].effect)
        if i == 0 or s > best_score:
            best, best_score = i, s
    return best


cdef int heuristic_combat_card(Game* g, Fight* f, int seat, int* dest, bint* bare) noexcept nogil:
    """heuristic_combat's pick straight from the hand, without listing combat_options: the hand index
    of the card it would play (``dest``: an escape's destination, its first listed one), or -1 to pass.

    The options are pass (worth 0) then the playable cards in hand order, an escape once per
    destination (all worth the same, so the first wins); the first best wins, so a card is picked
    only if it is worth more than 0 and more than every card before it. ``bare``: set when the hand
    holds no card that is an option at all (whatever the fight's state).
    """
    cdef Player* p = &g.players[seat]
    cdef const ItemSpec* card
    cdef int i, s, best = -1, best_score = 0
    bare[0] = 1
    for i in range(p.n_items):
        card = &g.items[p.items[i]]
        if not combat_effect(card.effect) or card.timing == TIMING_ON_TURN:
            continue
        if card.effect == E_ESCAPE and g.n_tn[p.pos] == 0:
            continue                      # no destination: not an option
        bare[0] = 0
        s = combat_worth(g, f, seat, card.effect)
        if s > best_score:
            best, best_score = i, s
    if best >= 0 and g.items[p.items[best]].effect == E_ESCAPE:
        dest[0] = g.tn[p.pos][0]
    return best


cdef int heuristic_action(Game* g, int seat) noexcept nogil:
    """An ACTION decision: score every legal action, the first best wins.

    The pick is the option with the highest (score, -index). Moves are scored last, and only those
    that could still be picked: a move's score is at most the best worth less one step (the move
    itself), so a move whose bound loses to the best so far needs no move_score.
    """
    cdef Weights* w = &g.bots[seat].w
    cdef Look* lk
    cdef int i, s, bound, best = 0, best_score = 0
    # legal_actions lists End turn, then (with AP left) a move to each tiled neighbour, then the rest
    cdef int n_moves = g.n_tn[g.players[seat].pos] if g.ap >= 1 else 0
    if not g.look_ok:
        look_around(g, w, &g.look, seat)
        g.look_ok = 1
    lk = &g.look
    i = 0
    while i < g.n_opt:                  # End turn and the options after the moves
        s = action_score(g, w, lk, seat, i)
        if i == 0 or s > best_score:
            best, best_score = i, s
        i = 1 + n_moves if i == 0 else i + 1
    if n_moves > 0 and not forbidden(w.forbid, A_MOVE):    # restricted play without moves: End turn beats them all
        bound = (lk.level_value[0] if lk.n_levels else 0) - w.step_cost
        if bound < -1:
            bound = -1
        for i in range(1, 1 + n_moves):     # the moves: options 1..n_moves
            if bound > best_score or (bound == best_score and i < best):
                s = move_score(g, w, lk, g.opt_b[i])
                if s > best_score or (s == best_score and i < best):
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
