# §7 Raids (sim/paws/raid.py).

cdef void raid_targets(Game* g, int seat) noexcept nogil:
    """Append (RAID, target, -1) for each raidable player on your tile."""
    cdef int t, pos = g.players[seat].pos
    if g.raids_left <= 0:
        return
    for t in range(g.n):
        if g.players[t].pos == pos and attackable(g, seat, t) and opponents(g, seat, t):  # (rarest first)
            opt_add(g, A_RAID, t, -1)


cdef void raid(Game* g, int seat, int target) noexcept nogil:
    """Three rolls (V3: to a knockout); the raided player adds the defender's edge."""
    cdef int rolls = g.r.raid_rolls if g.r.raid_rolls > 0 else g.r.max_fight_rolls
    cdef int e0, e1, ko, victim, by
    cdef Fight f
    g.raids_left -= 1
    g.rec.raids += 1
    e0 = buff(g, seat, B_FIGHT_SCORE) + buff(g, seat, B_RAID_SCORE)
    e1 = buff(g, target, B_FIGHT_SCORE) + buff(g, target, B_RAID_SCORE) + g.r.defender_edge
    fight_init(&f, F_RAID, seat, target, 0)
    ko = fight(g, &f, g.r.player_dice, g.r.player_dice, e0, e1, rolls, g.r.raid_grabs_cards)
    if ko != NO_KNOCKOUT:
        victim = f.seats[ko]
        by = f.seats[1 - ko]
        knock_out(g, victim, by, True)
        if g.players[by].hp == 0 and g.players[by].lives > 0 and not g.over:
            knock_out(g, by, victim, True)
