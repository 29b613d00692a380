# 3. Battle (sim/tales/battle.py): who begins (every round), turns of attacker and defender choices,
# and the four steps of each fight. The round ends when either team has no ready creature left.
#
# The attacker and defender choices are top-level decisions (core/tales/game.pxi): where a battle stands
# is state (g.active, g.turn_team, g.pick, g.attacker), so finish_battle() goes on from it alone. The
# potion decisions stay inside the fight that take_option() resolves.

cdef int who_begins(Game* g) noexcept nogil:
    """The higher die begins; ties roll again."""
    cdef int a, b
    while True:
        a = die(g)
        b = die(g)
        if a != b:
            return 0 if a > b else 1


cdef void remove_destroyed(Game* g) noexcept nogil:
    """The doomed go to the graveyard with their gear; losses are counted; a fallen Champion noted."""
    cdef int s, k, c
    cdef Seat* st
    for s in range(g.n):
        st = &g.seats[s]
        for k in range(g.army):
            if st.doomed[k]:
                c = st.slot[k]
                st.losses += loss_weight(g, c)
                g.rec.destroyed[s] += 1
                if c == st.champion:
                    g.champion_fell[st.team] = 1
                to_graveyard(g, s, k)
                st.slot[k] = EMPTY
                st.n_gear[k] = 0
                st.potion_effect[k] = 0
                st.potion_amount[k] = 0
                st.potion_left[k] = 0
                st.damage[k] = 0
                st.exhausted[k] = 0
                st.doomed[k] = 0


cdef void fight(Game* g, Pos att, Pos dfn) noexcept nogil:
    """Potions, hits, damage, end of the turn for one attacker and its opponent."""
    cdef bint fa, fd
    cdef Pos first, second
    g.rec.fights += 1
    g.fight_att = att
    g.fight_dfn = dfn
    use_potions(g, att)
    use_potions(g, dfn)
    fa = first_strike(g, att)
    fd = first_strike(g, dfn)
    if fa == fd:
        strike(g, att, dfn)
        strike(g, dfn, att)
    else:
        if fa:
            first, second = att, dfn
        else:
            first, second = dfn, att
        strike(g, first, second)
        if not g.seats[second.seat].doomed[second.slot]:
            strike(g, second, first)
    wear_off(g, att)
    g.seats[att.seat].exhausted[att.slot] = 1
    wear_off(g, dfn)
    g.seats[dfn.seat].exhausted[dfn.slot] = 1
    remove_destroyed(g)
    after_fight(g)
    g.champion_fell[0] = 0
    g.champion_fell[1] = 0


cdef inline void next_pick(Game* g) noexcept nogil:
    """The next decision of the turn in progress (g.turn_team): the attacker of fight g.pick, chosen by
    the team member whose pick it is; none (g.seat = NOBODY: the turn is over) after the turn's last
    fight, or when either team has no ready creature left."""
    cdef int team = g.turn_team
    cdef int fights = g.r.team_attackers if g.teams else 1
    g.seat = NOBODY
    if g.pick < fights and any_ready(g, team) and any_ready(g, 1 - team):
        g.seat = member(g, team, g.pick)
        g.asking = D_ATTACKER


cdef void begin_turn(Game* g, int team) noexcept nogil:
    """``team``'s turn begins: it sends one creature (2 vs. 2: up to ``team_attackers``) into attack
    mode. Its decisions are then pending (take_option takes them). The caller has seen a ready creature
    on each team (finish_battle), so the first pick is not checked again."""
    if g.vtrace != NULL:                  # each seat's chance as the turn begins (core/kit/winprob.pxi)
        value_row(g, g.rec.turns, member(g, team, 0))
    g.rec.turns += 1
    g.turn_team = team
    g.pick = 0
    g.seat = member(g, team, 0)
    g.asking = D_ATTACKER


cdef inline void turn_options(Game* g) noexcept nogil:
    """The options of the turn's pending decision: the attacker among the team's ready creatures, or
    its defender (or, provoked, its target) among the other team's; seats then slots ascending."""
    cdef Pos ready[MAXTEAMSEATS * MAXARMY]
    cdef int i, n
    n = ready_list(g, g.turn_team if g.asking == D_ATTACKER else 1 - g.turn_team, ready)
    opt_clear(g)
    for i in range(n):
        opt_add(g, ready[i].seat, ready[i].slot, 0, 0)


cdef void take_turn_option(Game* g, int choice) noexcept nogil:
    """The attacker: then the defender is chosen by the other team (or, if it provokes, by its own
    commander); the defender: the fight, then the turn's next pick."""
    cdef Pos chosen = pos(g.opt_a[choice], g.opt_b[choice])
    if g.asking == D_ATTACKER:
        g.attacker = chosen
        if provokes(g, chosen):
            g.seat = chosen.seat
            g.asking = D_PROVOKE
        else:
            g.seat = member(g, 1 - g.turn_team, g.pick)
            g.asking = D_DEFENDER
        return
    fight(g, g.attacker, chosen)
    g.pick += 1
    if g.over:
        g.seat = NOBODY
    else:
        next_pick(g)


cdef void take_turn(Game* g, int team) noexcept nogil:
    """One whole turn of ``team``, every decision by the bots (none when a team has no ready creature)."""
    begin_turn(g, team)
    if not (any_ready(g, team) and any_ready(g, 1 - team)):
        g.seat = NOBODY
    decide_all(g)


cdef void begin_battle(Game* g) noexcept nogil:
    g.stage = ST_BATTLE
    g.active = who_begins(g)
    if g.round == 1:
        g.first_side = g.active
    g.turn_team = NOBODY
    g.seat = NOBODY


cdef bint finish_battle(Game* g) noexcept nogil:
    """The rest of the battle from the state: the turn in progress, then turns of the teams in turn
    while both have a ready creature. True if it stopped at decision g.stop_at."""
    while True:
        if decide_all(g):
            return True
        if g.turn_team != NOBODY:          # a turn just ended
            g.turn_team = NOBODY
            g.active = 1 - g.active
        if g.over or not any_ready(g, 0) or not any_ready(g, 1):
            return False
        begin_turn(g, g.active)


cdef void battle(Game* g) noexcept nogil:
    begin_battle(g)
    finish_battle(g)
