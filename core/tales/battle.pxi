# 3. Battle (sim/tales/battle.py): who begins (every round), turns of attacker and defender choices,
# and the four steps of each fight. The round ends when either team has no ready creature left.

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
                st.destroyed += 1
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
    g.fights += 1
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


cdef void take_turn(Game* g, int team) noexcept nogil:
    """One turn of ``team``: it sends one creature (2 vs. 2: up to ``team_attackers``) into attack mode."""
    cdef Pos mine[MAXTEAMSEATS * MAXARMY]
    cdef Pos theirs[MAXTEAMSEATS * MAXARMY]
    cdef int other = 1 - team, k, i, nm, nt, fights
    cdef Pos att, dfn
    g.turns += 1
    fights = g.r.team_attackers if g.teams else 1
    for k in range(fights):
        nm = ready_list(g, team, mine)
        nt = ready_list(g, other, theirs)
        if nm == 0 or nt == 0:
            return
        opt_clear(g)
        for i in range(nm):
            opt_add(g, mine[i].seat, mine[i].slot, 0, 0)
        att = mine[ask(g, member(g, team, k), D_ATTACKER)]
        g.attacker = att
        opt_clear(g)
        for i in range(nt):
            opt_add(g, theirs[i].seat, theirs[i].slot, 0, 0)
        if provokes(g, att):
            dfn = theirs[ask(g, att.seat, D_PROVOKE)]
        else:
            dfn = theirs[ask(g, member(g, other, k), D_DEFENDER)]
        fight(g, att, dfn)
        if g.over:
            return


cdef void battle(Game* g) noexcept nogil:
    g.active = who_begins(g)
    if g.round == 1:
        g.first_side = g.active
    while not g.over and any_ready(g, 0) and any_ready(g, 1):
        take_turn(g, g.active)
        g.active = 1 - g.active
