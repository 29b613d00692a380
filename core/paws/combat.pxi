# §12 Combat: every fight works the same way (sim/paws/combat.py).

cdef enum:
    NO_KNOCKOUT = -1


# the "table" dice stream (DS_TABLE): four dice are one draw x below 6**4, its base-6 digits (lowest
# first) plus 1; TOP_TWO[x] is (highest << 4) | second highest of those four dice
cdef uint8_t TOP_TWO[1296]
cdef int POW6[5]


cdef void dice_tables_init() noexcept nogil:
    cdef int x, y, j, v, top, second
    POW6[0] = 1
    for j in range(1, 5):
        POW6[j] = 6 * POW6[j - 1]
    for x in range(1296):
        top = second = 0
        y = x
        for j in range(4):
            v = y % 6 + 1
            y //= 6
            second = max(second, min(top, v))
            top = max(top, v)
        TOP_TWO[x] = <uint8_t>((top << 4) | second)


dice_tables_init()


cdef inline int roll_score(Game* g, int dice) noexcept nogil:
    """§12.2: roll ``dice`` dice and add the highest ``scored_dice`` of them (the dice by the rules'
    dice_stream: one draw per die, or in groups of four, one draw per group, as the reference's
    table_dice). The usual roll, four dice and at most two scored, is worked out here without a loop;
    any other roll (and every roll of scripted draws, a test-only module: core/paws/script.pxi) in
    roll_score_any."""
    cdef int a, b, c, d, hi, lo, x, top, second
    cdef pcg32_t rng
    if dice != 4 or g.r.scored_dice > 2 or SCRIPTED_DRAWS:
        return roll_score_any(g, dice)
    rng = g.rng  # (a local copy stays in registers)
    if g.r.dice_stream == DS_TABLE:
        x = TOP_TWO[pcg32_below(&rng, 1296)]
        top = x >> 4
        second = x & 15
    else:               # four dice less 1 (0..5), their top two by a sorting network
        a = <int>pcg32_below(&rng, 6)
        b = <int>pcg32_below(&rng, 6)
        c = <int>pcg32_below(&rng, 6)
        d = <int>pcg32_below(&rng, 6)
        hi = max(a, b)
        lo = max(c, d)
        top = max(hi, lo) + 1
        second = max(min(hi, lo), max(min(a, b), min(c, d))) + 1
    g.rng = rng
    return top + second if g.r.scored_dice == 2 else top


cdef int roll_score_any(Game* g, int dice) noexcept nogil:
    """roll_score of any number of dice."""
    cdef int rolls[16]
    cdef int i, j, k, m, n, v, x, hi, lo, top = 0, second = 0, total = 0
    cdef pcg32_t rng
    # keep the two highest as they come (no branches)
    if g.r.scored_dice <= 2 and not SCRIPTED_DRAWS:
        rng = g.rng
        if g.r.dice_stream == DS_TABLE:
            n = dice
            while n >= 4:       # a whole group: its top two from the table, merged with the top two so far
                x = TOP_TWO[pcg32_below(&rng, 1296)]
                hi = x >> 4
                lo = x & 15
                second = max(max(second, lo), min(top, hi))
                top = max(top, hi)
                n -= 4
            if n > 0:           # the last group of 1 to 3 dice
                x = <int>pcg32_below(&rng, <uint32_t>POW6[n])
                for i in range(n):
                    v = x % 6 + 1
                    x //= 6
                    second = max(second, min(top, v))
                    top = max(top, v)
        else:
            for i in range(dice):
                v = pcg32_die(&rng)
                hi = max(top, v)
                lo = min(top, v)
                second = max(second, lo)
                top = hi
        g.rng = rng
        return top + second if g.r.scored_dice == 2 else top
    i = 0
    while i < dice:
        if g.r.dice_stream == DS_TABLE:
            k = min(4, dice - i)
            x = below(g, POW6[k])
            for j in range(k):
                rolls[i + j] = x % 6 + 1
                x //= 6
        else:
            k = 1
            rolls[i] = die(g)
        for j in range(i, i + k):       # insertion sort, descending
            v = rolls[j]
            m = j
            while m > 0 and rolls[m - 1] < v:
                rolls[m] = rolls[m - 1]
                m -= 1
            rolls[m] = v
        i += k
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
    cdef bint bare[2]            # a side that holds no card it could play (combat_window): no window
    dice[0], dice[1], edge[0], edge[1] = dice0, dice1, edge0, edge1
    bare[0] = bare[1] = 0
    g.fight = f
    for roll in range(max_rolls):
        f.roll = roll
        f.attacker = f.seats[att]
        for k in range(2):
            side = att if k == 0 else 1 - att
            if f.seats[side] != NOBODY and not bare[side]:
                bare[side] = combat_window(g, f, side)
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
            bare[0] = bare[1] = 0            # a grab changes both hands
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
