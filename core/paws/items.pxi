# §10 Item cards: the deck, the hand limit, and what each card effect does (sim/paws/items.py).

cdef int draw_item(Game* g) noexcept nogil:
    """Top card of the item deck; an empty deck is made anew from the shuffled discard pile."""
    cdef int i
    if g.n_item_deck == 0:
        if g.n_item_discard == 0:
            return NOBODY
        for i in range(g.n_item_discard):
            g.item_deck[i] = g.item_discard[i]
        g.n_item_deck = g.n_item_discard
        g.n_item_discard = 0
        shuffle16(g, g.item_deck, g.n_item_deck)
    g.n_item_deck -= 1
    return g.item_deck[g.n_item_deck]


cdef inline bint can_draw(Game* g) noexcept nogil:
    return g.n_item_deck > 0 or g.n_item_discard > 0


cdef inline void hand_add(Game* g, Player* p, int card) noexcept nogil:
    """Add ``card`` to the hand (last), keeping p.tk, the hand's count by turn_kind, with it."""
    push16(p.items, &p.n_items, card)
    p.tk[g.turn_kind[card]] += 1


cdef inline int hand_pop(Game* g, Player* p, int k) noexcept nogil:
    """Take hand card k out (the rest keep their order), keeping p.tk with the hand; the card id."""
    cdef int card = pop16(p.items, &p.n_items, k)
    p.tk[g.turn_kind[card]] -= 1
    return card


cdef void hand_tally(Game* g, Player* p) noexcept nogil:
    """p.tk worked out afresh from the hand (after its cards were set directly)."""
    cdef int i
    for i in range(16):
        p.tk[i] = 0
    for i in range(p.n_items):
        p.tk[g.turn_kind[p.items[i]]] += 1


cdef void gain_items(Game* g, int seat, int count) noexcept nogil:
    cdef Player* p = &g.players[seat]
    cdef int k, card
    for k in range(count):
        card = draw_item(g)
        if card == NOBODY:
            break
        hand_add(g, p, card)
    enforce_hand_limit(g, seat)


cdef void enforce_hand_limit(Game* g, int seat) noexcept nogil:
    """§10: over the hand limit, discard down to it straight away (the holder chooses)."""
    cdef Player* p = &g.players[seat]
    cdef int i, k
    while p.n_items > hand_limit(g, seat):
        opt_clear(g)
        for i in range(p.n_items):
            opt_add(g, p.items[i], 0, 0)
        k = ask(g, seat, D_DISCARD)
        push16(g.item_discard, &g.n_item_discard, hand_pop(g, p, k))


cdef void take_random_item(Game* g, int taker, int victim) noexcept nogil:
    """§7: take a random item card from another player's hand."""
    cdef Player* v = &g.players[victim]
    cdef int card
    if v.n_items == 0:
        return
    card = hand_pop(g, v, below(g, v.n_items))
    hand_add(g, &g.players[taker], card)
    enforce_hand_limit(g, taker)


cdef int discard_card(Game* g, int seat, int hand_index) noexcept nogil:
    cdef Player* p = &g.players[seat]
    cdef int card = hand_pop(g, p, hand_index)
    push16(g.item_discard, &g.n_item_discard, card)
    g.rec.items_played += 1
    p.item_plays[card] += 1
    return card


cdef inline void heal(Game* g, int seat, int amount) noexcept nogil:
    cdef Player* p = &g.players[seat]
    p.hp = min(g.r.max_hp, p.hp + amount)


cdef inline bint combat_effect(int e) noexcept nogil:
    return e == E_HEAL or e == E_FIGHT_BONUS or e == E_ROLL_BONUS or e == E_ESCAPE or e == E_REFLECT


cdef void combat_options(Game* g, int seat) noexcept nogil:
    """Pass, then each In Combat / Anytime card in hand order (an escape once per destination)."""
    cdef Player* p = &g.players[seat]
    cdef int i, k, nn
    cdef int nb[6]
    cdef const ItemSpec* card
    opt_clear(g)
    opt_add(g, -1, -1, 0)
    for i in range(p.n_items):
        card = &g.items[p.items[i]]
        if not combat_effect(card.effect) or card.timing == TIMING_ON_TURN:
            continue
        if card.effect == E_ESCAPE:
            nn = neighbours(g, p.pos, nb)
            for k in range(nn):
                opt_add(g, i, nb[k], 0)
        else:
            opt_add(g, i, NOBODY, 0)


cdef bint combat_window(Game* g, Fight* f, int side) noexcept nogil:
    """Before a roll, a fighter may play cards until they pass (one card per ask). True when the
    fighter passed with no card in hand that could be an option, so with no draw and no decision (its
    later windows of this fight are the same while its hand does not change: fight() skips them)."""
    cdef int seat = f.seats[side]
    cdef Player* p = &g.players[seat]
    cdef int rep, k, hand_index, dest, n0 = p.n_items
    cdef const ItemSpec* card
    # a heuristic seat's pick (heuristic.pxi) needs no option list and no draw: straight from the hand
    # (scripted decisions, a test-only module, traced games and a learned seat whose model's decisions
    # block takes its combat cards always go through ask())
    cdef bint direct = (not SCRIPTED_DRAWS and g.bots[seat].kind != BOT_RANDOM and g.dtrace == NULL
                        and not learned_takes(g, seat, D_COMBAT_CARD))
    cdef bint bare = 1
    if n0 == 0:
        return True                       # an empty hand: only a grab can change it
    for rep in range(n0):
        if direct:
            hand_index = heuristic_combat_card(g, f, seat, &dest, &bare)
            if hand_index < 0:
                return bare
        else:
            combat_options(g, seat)
            if g.n_opt == 1:
                return True               # pass alone: no card in hand is an option (whatever the state)
            k = ask(g, seat, D_COMBAT_CARD)
            if k == 0:
                return False
            hand_index, dest = g.opt_a[k], g.opt_b[k]
        card = &g.items[discard_card(g, seat, hand_index)]
        if card.effect == E_HEAL:
            heal(g, seat, card.amount)
        elif card.effect == E_FIGHT_BONUS:
            f.bonus[side] += card.amount
        elif card.effect == E_ROLL_BONUS:
            f.roll_bonus[side] += card.amount
        elif card.effect == E_REFLECT:
            f.reflect[side] = 1
        elif card.effect == E_ESCAPE:
            p.pos = dest
            p.protected = p.protected or card.amount > 0
            f.escaped = seat
            return False
    return False


cdef inline bint attackable(Game* g, int seat, int target) noexcept nogil:
    cdef Player* t = &g.players[target]
    return target != seat and t.lives > 0 and not t.protected


cdef inline int near(Game* g, int cell, int* out) noexcept nogil:
    """The cell itself, then its neighbours with tiles."""
    out[0] = cell
    return 1 + neighbours(g, cell, out + 1)


cdef void turn_card_options(Game* g, int seat) noexcept nogil:
    """Append (PLAY_ITEM, hand index, target) for every card playable on your own turn (§10: Anytime needs no AP)."""
    cdef Player* p = &g.players[seat]
    cdef int i, k, t, c, nn, e, n
    cdef int cells[7]
    cdef const ItemSpec* card
    for i in range(p.n_items):
        card = &g.items[p.items[i]]
        e = card.effect
        if card.timing == TIMING_IN_COMBAT or e == E_WARD or (g.ap < 1 and card.timing != TIMING_ANYTIME):
            continue
        if e == E_GRENADE:
            nn = near(g, p.pos, cells)
            for k in range(nn):
                opt_add(g, A_PLAY_ITEM, i, cells[k])
        elif e == E_SNARE or e == E_POISON:
            nn = near(g, p.pos, cells)
            for t in range(g.n):
                if attackable(g, seat, t):
                    for k in range(nn):
                        if g.players[t].pos == cells[k]:
                            opt_add(g, A_PLAY_ITEM, i, t)
                            break
        elif e == E_TELEPORT and g.n_opt + g.n_tiled <= MAXOPT:
            n = g.n_opt                     # room for every tile: no check per option
            for k in range(g.n_tiled):
                c = g.tiled[k]
                if c != p.pos:
                    g.opt_a[n] = A_PLAY_ITEM
                    g.opt_b[n] = i
                    g.opt_c[n] = c
                    n += 1
            g.n_opt = n
        elif e == E_TELEPORT:
            for k in range(g.n_tiled):
                c = g.tiled[k]
                if c != p.pos:
                    opt_add(g, A_PLAY_ITEM, i, c)
        else:
            opt_add(g, A_PLAY_ITEM, i, NOBODY)


cdef inline bint near_cell(Game* g, int cell, int other) noexcept nogil:
    """``other`` is ``cell`` or one of its neighbours with tiles (near() holds it)."""
    cdef int k
    if other == cell:
        return True
    for k in range(g.n_tn[cell]):
        if g.tn[cell][k] == other:
            return True
    return False


# how a card is played on a turn, by card id (Game.turn_kind): the options turn_card_options lists for it
cdef enum:
    TK_NONE = 0                   # never on a turn: an In Combat card, or a ward (played by warded())
    TK_ONE = 1                    # one option, no target
    TK_GRENADE = 2                # the player's cell and each tiled neighbour
    TK_TARGET = 3                 # Snare, Poison: each attackable player there or next to it
    TK_TELEPORT = 4               # every tiled cell but the player's
    TK_ANYTIME = 8                # added to the above: playable with no AP left


cdef int turn_kind(const ItemSpec* card) noexcept nogil:
    cdef int e = card.effect, k
    if card.timing == TIMING_IN_COMBAT or e == E_WARD:
        return TK_NONE
    if e == E_GRENADE:
        k = TK_GRENADE
    elif e == E_SNARE or e == E_POISON:
        k = TK_TARGET
    elif e == E_TELEPORT:
        k = TK_TELEPORT
    else:
        k = TK_ONE
    return k + (TK_ANYTIME if card.timing == TIMING_ANYTIME else 0)


cdef inline int turn_card_count(Game* g, int seat, int code, int* targets) noexcept nogil:
    """How many options turn_card_options lists for a card of turn_kind ``code`` (random_action counts
    them); targets[0]: the attackable players near ``seat``, worked out once (it starts at -1)."""
    cdef Player* p = &g.players[seat]
    cdef int kind = code & 7, t, n = 0
    if kind == TK_NONE or (g.ap < 1 and not (code & TK_ANYTIME)):
        return 0
    if kind == TK_ONE:
        return 1
    if kind == TK_GRENADE:
        return 1 + g.n_tn[p.pos]
    if kind == TK_TELEPORT:
        return g.n_tiled - (g.tile[p.pos] != T_EMPTY)   # every tiled cell but the one it stands on
    if targets[0] < 0:
        for t in range(g.n):
            n += attackable(g, seat, t) and near_cell(g, p.pos, g.players[t].pos)
        targets[0] = n
    return targets[0]


cdef int turn_card_target(Game* g, int seat, int i, int j) noexcept nogil:
    """The target of option j of hand card i, as turn_card_options lists them (j < turn_card_count)."""
    cdef Player* p = &g.players[seat]
    cdef int e = g.items[p.items[i]].effect, t, c
    if e == E_GRENADE:
        return p.pos if j == 0 else g.tn[p.pos][j - 1]
    if e == E_SNARE or e == E_POISON:
        for t in range(g.n):
            if attackable(g, seat, t) and near_cell(g, p.pos, g.players[t].pos):
                if j == 0:
                    return t
                j -= 1
        return NOBODY                     # unreachable (j < the count)
    if e == E_TELEPORT:
        c = g.tiled[j]                    # ascending: past the player's own cell, one further
        if g.tile[p.pos] != T_EMPTY and c >= p.pos:
            c = g.tiled[j + 1]
        return c
    return NOBODY


cdef bint warded(Game* g, int target) noexcept nogil:
    """Card Block stand-in: the first ward card in hand cancels a hostile card, and is discarded."""
    cdef Player* p = &g.players[target]
    cdef int i
    for i in range(p.n_items):
        if g.items[p.items[i]].effect == E_WARD:
            discard_card(g, target, i)
            return True
    return False


cdef void card_damage(Game* g, int by, int target, int amount) noexcept nogil:
    """Damage from a card never scores; a knockout by it gives its player a card."""
    cdef Player* p = &g.players[target]
    p.hp = max(0, p.hp - amount)
    if p.hp == 0:
        knock_out(g, target, by, False)


cdef void play_turn_card(Game* g, int seat, int hand_index, int target) noexcept nogil:
    cdef const ItemSpec* card = &g.items[discard_card(g, seat, hand_index)]
    cdef Player* p = &g.players[seat]
    cdef int e = card.effect, k, t
    if e == E_HEAL:
        heal(g, seat, card.amount)
    elif e == E_EXTRA_AP:
        g.ap += card.amount
    elif e == E_GAIN_BARRICADE:
        p.barricades += card.amount
    elif e == E_DRAW:
        gain_items(g, seat, card.amount)
    elif e == E_TELEPORT:
        p.pos = target
    elif e == E_GRENADE:
        for k in range(1, g.n):
            t = (seat + k) % g.n
            if attackable(g, seat, t) and g.players[t].pos == target and not warded(g, t):
                card_damage(g, seat, t, card.amount)
    elif e == E_SNARE:
        if not warded(g, target):
            g.players[target].snared[seat] += card.amount
    elif e == E_POISON:
        if not warded(g, target):
            g.players[target].poison_ticks += card.turns
            g.players[target].poisoner = seat
            card_damage(g, seat, target, card.amount)
