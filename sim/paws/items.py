"""§10 Item cards: the deck, the hand limit, and what each card effect does when played.

Decision windows (our reading of "Anytime"): on your own turn as a free action, and before each roll
of a fight you are in. Card Block (ward) is never played: it cancels the next hostile card on its own.
"""

from __future__ import annotations

from sim.kit.decks import reshuffle
from sim.paws import knockout
from sim.paws.kinds import Decision, Effect, Timing
from sim.paws.state import NOBODY, Fight, Game

PASS = (-1, -1)
COMBAT_EFFECTS = (Effect.HEAL, Effect.FIGHT_BONUS, Effect.ROLL_BONUS, Effect.ESCAPE, Effect.REFLECT)
HOSTILE_EFFECTS = (Effect.GRENADE, Effect.SNARE, Effect.POISON)


def draw_item(g: Game) -> int:
    """Top card of the item deck; an empty deck is made anew from the shuffled discard pile (§10)."""
    if not g.item_deck:
        if not g.item_discard:
            return NOBODY
        reshuffle(g.rng, g.item_deck, g.item_discard)
    return g.item_deck.pop()


def can_draw(g: Game) -> bool:
    return bool(g.item_deck or g.item_discard)


def draw_items(g: Game, seat: int, count: int) -> list[int]:
    """Draw ``count`` item cards into a hand (fewer if both the deck and the discard pile run out)."""
    p = g.players[seat]
    drawn = []
    for _ in range(count):
        card = draw_item(g)
        if card == NOBODY:
            break
        p.items.append(card)
        drawn.append(card)
    return drawn


def card_names(g: Game, cards: list[int]) -> str:
    return ", ".join(g.cards.items[c].name for c in cards) if cards else "none left"


def gain_items(g: Game, seat: int, count: int) -> list[int]:
    """Draw ``count`` item cards into a hand, then discard down to the hand limit; the cards drawn."""
    drawn = draw_items(g, seat, count)
    enforce_hand_limit(g, seat)
    return drawn


def enforce_hand_limit(g: Game, seat: int) -> None:
    """§10: holding more than the hand limit, discard down to it straight away (the holder chooses)."""
    p = g.players[seat]
    while len(p.items) > g.hand_limit(seat):
        k = g.ask(seat, Decision.DISCARD, list(p.items))
        g.item_discard.append(p.items.pop(k))
        g.emit("discard", f"{g.seat_name(seat)} discards {g.cards.items[g.item_discard[-1]].name} "
                          f"(hand limit {g.hand_limit(seat)})", seat, 2)


def take_random_item(g: Game, taker: int, victim: int) -> None:
    """§7: take a random item card from another player's hand."""
    hand = g.players[victim].items
    if not hand:
        return
    card = hand.pop(g.rng.below(len(hand)))
    g.players[taker].items.append(card)
    g.emit("grab", f"{g.seat_name(taker)} grabs {g.cards.items[card].name} from {g.seat_name(victim)}", taker, 2)
    enforce_hand_limit(g, taker)


def discard_card(g: Game, seat: int, hand_index: int) -> int:
    p = g.players[seat]
    card = p.items.pop(hand_index)
    g.item_discard.append(card)
    g.items_played += 1
    p.item_plays[card] = p.item_plays.get(card, 0) + 1
    return card


def heal(g: Game, seat: int, amount: int) -> None:
    """§9: heal, never above max HP."""
    p = g.players[seat]
    p.hp = min(g.rules.max_hp, p.hp + amount)


# -- in a fight -------------------------------------------------------------------------------------
def combat_options(g: Game, seat: int) -> list[tuple[int, int]]:
    """Pass, then each In Combat / Anytime card in hand order (an escape once per destination)."""
    opts = [PASS]
    for i, cid in enumerate(g.players[seat].items):
        card = g.cards.items[cid]
        if card.effect not in COMBAT_EFFECTS or card.timing == Timing.ON_TURN:
            continue
        if card.effect == Effect.ESCAPE:
            opts.extend((i, dest) for dest in g.neighbours(g.players[seat].pos))
        else:
            opts.append((i, NOBODY))
    return opts


def combat_window(g: Game, f: Fight, side: int) -> None:
    """Before a roll, a fighter may play cards until they pass (one card per ask)."""
    seat = f.seats[side]
    for _ in range(len(g.players[seat].items)):
        opts = combat_options(g, seat)
        if len(opts) == 1:
            return
        k = g.ask(seat, Decision.COMBAT_CARD, opts)
        if k == 0:
            return
        hand_index, dest = opts[k]
        card = g.cards.items[discard_card(g, seat, hand_index)]
        who = g.seat_name(seat)
        p = g.players[seat]
        if card.effect == Effect.HEAL:
            before = p.hp
            heal(g, seat, card.amount)
            what = f"heals {p.hp - before} (HP {p.hp})"
        elif card.effect == Effect.FIGHT_BONUS:
            f.bonus[side] += card.amount
            what = f"+{card.amount} for the rest of the fight"
        elif card.effect == Effect.ROLL_BONUS:
            f.roll_bonus[side] += card.amount
            what = f"+{card.amount} on the next roll"
        elif card.effect == Effect.REFLECT:
            f.reflect[side] = 1
            what = "the next damage taken is dealt back"
        else:  # Effect.ESCAPE, §10: end the fight and move to an adjacent tile
            p.pos = dest
            p.protected = p.protected or card.amount > 0
            f.escaped = seat
            g.emit("card", f"{who} plays {card.name}: escapes to {g.at(dest)}"
                           + (", protected until their next turn" if card.amount > 0 else ""), seat, 2)
            return
        g.emit("card", f"{who} plays {card.name}: {what}", seat, 2)


# -- on your turn -----------------------------------------------------------------------------------
def attackable(g: Game, seat: int, target: int) -> bool:
    """A card or raid may aim at ``target``: alive, someone else, not under a Smoke Bomb."""
    t = g.players[target]
    return target != seat and t.alive and not t.protected


def near(g: Game, cell: int) -> list[int]:
    """The cell itself, then its neighbours with tiles (the reach of Grenade, Snare, Poison Dart)."""
    return [cell] + g.neighbours(cell)


def turn_card_options(g: Game, seat: int) -> list[tuple[int, int]]:
    """(hand index, target) of every card playable on your own turn, in hand order.

    §10: "On your turn" cards need AP left; "Anytime" cards do not.
    """
    p = g.players[seat]
    opts: list[tuple[int, int]] = []
    for i, cid in enumerate(p.items):
        card = g.cards.items[cid]
        e = card.effect
        if card.timing == Timing.IN_COMBAT or e == Effect.WARD or (g.ap < 1 and card.timing != Timing.ANYTIME):
            continue
        if e == Effect.GRENADE:
            opts.extend((i, c) for c in near(g, p.pos))
        elif e in (Effect.SNARE, Effect.POISON):
            cells = near(g, p.pos)
            opts.extend((i, t) for t in range(g.n) if attackable(g, seat, t) and g.players[t].pos in cells)
        elif e == Effect.TELEPORT:
            opts.extend((i, c) for c in g.tile_cells() if c != p.pos)
        else:  # heal, extra AP, barricade, draw
            opts.append((i, NOBODY))
    return opts


def warded(g: Game, target: int) -> bool:
    """Card Block stand-in: the first ward card in hand cancels a hostile card, and is discarded."""
    hand = g.players[target].items
    for i, cid in enumerate(hand):
        if g.cards.items[cid].effect == Effect.WARD:
            discard_card(g, target, i)
            g.emit("ward", f"{g.seat_name(target)}'s {g.cards.items[cid].name} cancels it", target, 2)
            return True
    return False


def card_damage(g: Game, by: int, target: int, amount: int) -> None:
    """Damage from a card never scores; a knockout by it gives its player a card (§10, §8)."""
    p = g.players[target]
    p.hp = max(0, p.hp - amount)
    g.emit("damage", f"{g.seat_name(target)} takes {amount} damage (HP {p.hp})", target, 2)
    if p.hp == 0:
        knockout.knock_out(g, target, by, scores=False)


def play_turn_card(g: Game, seat: int, hand_index: int, target: int) -> None:
    """Play one item card on your own turn (free)."""
    card = g.cards.items[discard_card(g, seat, hand_index)]
    p = g.players[seat]
    who = g.seat_name(seat)
    e = card.effect
    if e == Effect.HEAL:
        before = p.hp
        heal(g, seat, card.amount)
        g.emit("card", f"{who} plays {card.name}: heals {p.hp - before} (HP {p.hp})", seat, 1)
    elif e == Effect.EXTRA_AP:
        g.ap += card.amount
        g.emit("card", f"{who} plays {card.name}: +{card.amount} AP ({g.ap} AP)", seat, 1)
    elif e == Effect.GAIN_BARRICADE:
        p.barricades += card.amount
        g.emit("card", f"{who} plays {card.name}: takes {card.amount} barricade{'' if card.amount == 1 else 's'} "
                       f"({p.barricades} held)", seat, 1)
    elif e == Effect.DRAW:
        drawn = draw_items(g, seat, card.amount)
        g.emit("card", f"{who} plays {card.name}: draws {card_names(g, drawn)}", seat, 1)
        enforce_hand_limit(g, seat)
    elif e == Effect.TELEPORT:
        p.pos = target
        g.emit("card", f"{who} plays {card.name}: moves to {g.at(target)}", seat, 1)
    else:
        aim = g.at(target) if e == Effect.GRENADE else g.seat_name(target)
        g.emit("card", f"{who} plays {card.name} at {aim}", seat, 1)
    if e == Effect.GRENADE:  # every other player on the tile, teammates too, in seat order after the thrower
        for k in range(1, g.n):
            t = (seat + k) % g.n
            if attackable(g, seat, t) and g.players[t].pos == target and not warded(g, t):
                card_damage(g, seat, t, card.amount)
    elif e == Effect.SNARE:
        if not warded(g, target):
            g.players[target].snared[seat] += card.amount
            g.emit("snare", f"{g.seat_name(target)} will lose {card.amount} AP next turn", target, 2)
    elif e == Effect.POISON:
        if not warded(g, target):
            t = g.players[target]
            t.poison_ticks += card.turns
            t.poisoner = seat
            card_damage(g, seat, target, card.amount)
