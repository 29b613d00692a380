# §3 Your turn (sim/paws/turn.py).

cdef bint start_turn(Game* g, int seat) noexcept nogil:
    """Start-of-turn effects in a fixed order; False if they knock the player out."""
    cdef Player* p = &g.players[seat]
    cdef int i, b, knocked, lost = 0, regen = 0, extra_ap = 0
    p.protected = 0
    # every monster card is active again: its Regen and Extra AP buffs count (buff(), in one pass);
    # only a knockout by the poison below changes the monsters, and that ends the turn
    for i in range(p.n_monsters):
        p.active[i] = 1
        b = g.mons[p.monsters[i]].buff
        if b == B_REGEN:
            regen += g.mons[p.monsters[i]].amount
        elif b == B_EXTRA_AP:
            extra_ap += g.mons[p.monsters[i]].amount
    if p.pos == 0 and g.r.desert_heal:
        heal(g, seat, g.r.desert_heal)
    if regen:
        heal(g, seat, regen)
    for i in range(g.n):  # §10 Snare: spent on this turn, even if the poison ends it
        lost += p.snared[i]
    for i in range(MAXP):
        p.snared[i] = 0
    if p.poison_ticks > 0:
        p.poison_ticks -= 1
        knocked = p.knockouts
        card_damage(g, p.poisoner, seat, 1)
        if p.knockouts != knocked:
            return False
    g.ap = max(0, g.r.ap_per_turn + extra_ap - lost)
    g.building_fights_left = g.r.building_fights_per_turn if g.r.building_fights_per_turn else (1 << 30)
    g.raids_left = g.r.raids_per_turn
    return True


cdef bint take_turn(Game* g, int seat) noexcept nogil:
    """A whole turn of ``seat``; True if it stopped at decision g.stop_at (finish_turn goes on from there)."""
    if g.vtrace != NULL:
        value_row(g, g.rec.turns, seat)   # each seat's chance as the turn begins (core/kit/winprob.pxi)
    g.seat = seat
    g.rec.turns += 1
    g.look_ok = 0
    g.actions = 0
    g.turn_knockouts = g.players[seat].knockouts
    if start_turn(g, seat) and g.actions < g.r.max_actions_per_turn:
        return finish_turn(g)
    g.rec.idle_turns += 1                 # knocked out at its start, or no action allowed
    g.seat = NOBODY
    return False


cdef bint finish_turn(Game* g) noexcept nogil:
    """The rest of the turn in progress (g.seat) from the state alone: the player's bot takes each
    action decision. True if it stopped at decision g.stop_at, before taking it (g.seat stays set);
    False when the turn is over (g.seat is NOBODY)."""
    cdef int r
    while g.seat != NOBODY:
        if g.decisions == g.stop_at:
            return True
        if not SCRIPTED_DRAWS and g.bots[g.seat].kind == BOT_RANDOM and g.dtrace == NULL:
            r = random_action(g, g.seat)  # the random pick, with no option list (actions.pxi)
            if r == RA_TAKE:
                take_option(g, 0)
            if r != RA_LIST:
                continue
        legal_actions(g, g.seat)
        take_option(g, ask(g, g.seat, D_ACTION))
    return False


cdef void take_option(Game* g, int choice) noexcept nogil:
    """Top-level decision number g.decisions: carry out option ``choice`` of the turn's action decision
    (g.opt_*, as legal_actions(g, g.seat) lists them). The turn ends (g.seat = NOBODY) on End turn,
    at the action limit, or when the game is over, the player knocked out or the game void."""
    cdef int seat = g.seat
    cdef int kind = g.opt_a[choice], a = g.opt_b[choice], b = g.opt_c[choice]
    g.decisions += 1
    if kind != A_END_TURN:
        g.actions += 1
        apply_action(g, seat, kind, a, b)
        # the heuristic's look at the board (heuristic.pxi) survives only a move
        g.look_ok = g.look_ok and kind == A_MOVE
        if (g.actions < g.r.max_actions_per_turn and not g.over and not g.error
                and g.players[seat].knockouts == g.turn_knockouts):
            return
    g.rec.idle_turns += g.actions == 0
    g.seat = NOBODY
