# Game Flow (sim/tales/game.py): the round loop, Recruitment - Equipment - Battle, to the end.
#
# A game can be continued from its state alone at any top-level decision: a recruitment return, an
# equipment action or a swap's discard, a battle turn's attacker or defender (or, provoked, target). The
# Champion's choice (in setup_game) and the potion decisions inside a fight are not top-level: setup and
# take_option() take them with the bots. Where a round stands is state (g.stage and the fields after it
# in core/tales_types.pxd); a decision is pending while g.seat is set, its kind in g.asking. play_from()
# goes on from the state: the phase in progress, the rest of the round, then whole rounds. The state is
# the Game struct, whose only pointers are to the batch's immutable card specs, so copy_game()
# (core/kit/state.pxi) makes an independent copy that plays on exactly like the original
# (docs/engine-kit.md).

cdef inline void legal_actions(Game* g, int seat) noexcept nogil:
    """The options of the pending top-level decision (``seat`` is g.seat), in g.opt_*: as the bot gets
    them, in the same order. Builds them from the state alone; draws nothing."""
    if g.asking == D_RETURN:
        return_options(g)
    elif g.asking == D_EQUIP:
        equip_options(g, seat)
    elif g.asking == D_DISCARD:
        discard_options(g)
    else:
        turn_options(g)


cdef inline void take_option(Game* g, int choice) noexcept nogil:
    """Top-level decision number g.decisions: carry out option ``choice`` of the pending decision
    (g.opt_*, as legal_actions(g, g.seat) lists them), as the bot's choice would; then the seat's (the
    turn's) next decision is pending, or none (g.seat = NOBODY) when its part of the phase is over."""
    g.decisions += 1
    if g.asking == D_RETURN:
        take_return(g, choice)
    elif g.asking == D_EQUIP:
        take_equip(g, choice)
    elif g.asking == D_DISCARD:
        take_discard(g, choice)
    else:
        take_turn_option(g, choice)


cdef bint decide_all(Game* g) noexcept nogil:
    """The pending decisions of the seat (the turn) in progress, each by the bot of g.seat. True if it
    stopped at decision g.stop_at, before taking it (g.seat stays set); False when there are no more."""
    while g.seat != NOBODY:
        if g.decisions == g.stop_at:
            return True
        legal_actions(g, g.seat)
        if g.asking == D_EQUIP and g.error:     # the option list overflowed: the seat's actions end
            g.seat = NOBODY
            break
        take_option(g, ask(g, g.seat, g.asking))
    return False


cdef bint finish_round(Game* g) noexcept nogil:
    """The rest of the round in progress from the state (g.stage): the phase in progress, the phases
    after it. True if it stopped at decision g.stop_at."""
    if g.stage == ST_RECRUIT:
        if finish_recruitment(g):
            return True
        begin_equipment(g)
    if g.stage == ST_EQUIP:
        if finish_equipment(g):
            return True
        begin_battle(g)
    if g.stage == ST_BATTLE and finish_battle(g):
        return True
    g.stage = ST_NONE
    return False


cdef bint play_round(Game* g) noexcept nogil:
    """One round: Recruitment, Equipment, Battle. True if it stopped at decision g.stop_at."""
    cdef int s, k
    g.round += 1
    for s in range(g.n):
        for k in range(g.army):
            g.seats[s].exhausted[k] = 0
    begin_recruitment(g)
    return finish_round(g)


cdef inline int last_round(Game* g) noexcept nogil:
    return g.r.max_rounds if g.r.survive else g.r.game_rounds


cdef bint play_from(Game* g) noexcept nogil:
    """Play the game on from its state to the end: the rest of the round in progress (if any), whole
    rounds, and the decision by losses if nothing ended it before. True if it stopped at decision
    g.stop_at (set g.stop_at and call again to go on), False when the game is over (or void)."""
    if g.stage != ST_NONE and finish_round(g):
        return True
    while not g.over and not g.error and g.round < last_round(g):
        if play_round(g):
            return True
    if not g.over and not g.error:
        by_losses(g)
    return False
