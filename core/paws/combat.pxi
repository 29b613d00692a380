# §12 Combat: every fight works the same way (sim/paws/combat.py).

cdef enum:
    NO_KNOCKOUT = -1


cdef inline int roll_score(Game* g, int dice) noexcept nogil:
    """§12.2: roll ``dice`` dice and add the highest ``scored_dice`` of them."""
    cdef int rolls[16]
    cdef int i, j, v, hi, lo, top = 0, second = 0, total = 0
    cdef pcg32_t rng
    # the usual case: keep the two highest as they come (no branches); scripted draws (a test-only
    # module, core/paws/script.pxi) take every die through die()
    if g.r.scored_dice <= 2 and not SCRIPTED_DRAWS:
        rng = g.rng  # (a local copy stays in registers)
        for i in range(dice):
            v = pcg32_die(&rng)
            hi = max(top, v)
            lo = min(top, v)
            second = max(second, lo)
            top = hi
        g.rng = rng
        return top + second if g.r.scored_dice == 2 else top
    for i in range(dice):
        v = die(g)
        j = i
        while j > 0 and rolls[j - 1] < v:  # insertion sort, descending
            rolls[j] = rolls[j - 1]
            j -= 1
        rolls[j] = v
    for i in range(min(g.r.scored_dice, dice)):
        total += rolls[i]
    return total


cdef inline int side_hp(Game* g, Fight* f, int side) noexcept nogil:
    return f.monster_hp if f.seats[side] == NOBODY else g.players[f.seats[side]].hp


cdef inline void hurt(Game* g, Fight* f, int side, int damage) noexcept nogil:
    cdef int seat = f.seats[side]
    if seat == NOBODY:
        f.monster_hp = max(0, f.monster_hp - damage)
    else:
        g.players[seat].hp = max(0, g.players[seat].hp - damage)


cdef void fight_init(Fight* f, int kind, int starter, int other, int monster_hp) noexcept nogil:
    memset(f, 0, sizeof(Fight))
    f.kind = kind
    f.seats[0] = starter
    f.seats[1] = other
    f.attacker = NOBODY
    f.monster_hp = monster_hp
    f.escaped = NOBODY


cdef int fight(Game* g, Fight* f, int dice0, int dice1, int edge0, int edge1, int max_rolls,
               bint grabs) noexcept nogil:
    """Play a fight to its end; returns the side knocked to 0 HP, else NO_KNOCKOUT."""
    cdef int att = 0, dfn, roll, side, k, a_score, d_score, damage, result = NO_KNOCKOUT
    cdef int dice[2]
    cdef int edge[2]
    dice[0], dice[1], edge[0], edge[1] = dice0, dice1, edge0, edge1
    g.fight = f
    for roll in range(max_rolls):
        f.roll = roll
        f.attacker = f.seats[att]
        for k in range(2):
            side = att if k == 0 else 1 - att
            if f.seats[side] != NOBODY:
                combat_window(g, f, side)
                if f.escaped != NOBODY:
                    g.fight = NULL
                    return NO_KNOCKOUT
        dfn = 1 - att
        a_score = roll_score(g, dice[att]) + edge[att] + f.bonus[att] + f.roll_bonus[att]
        d_score = roll_score(g, dice[dfn]) + edge[dfn] + f.bonus[dfn] + f.roll_bonus[dfn]
        f.roll_bonus[0] = 0
        f.roll_bonus[1] = 0
        damage = a_score - d_score
        if damage > 0:
            hurt(g, f, dfn, damage)
            if f.reflect[dfn]:
                f.reflect[dfn] = 0
                hurt(g, f, att, damage)
        if grabs:
            if a_score > d_score:
                take_random_item(g, f.seats[att], f.seats[dfn])
            elif d_score > a_score:
                take_random_item(g, f.seats[dfn], f.seats[att])
        if side_hp(g, f, dfn) == 0:
            result = dfn
            break
        if side_hp(g, f, att) == 0:
            result = att
            break
        att = dfn
    g.fight = NULL
    return result
