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


def gain_items(g: Game, seat: int, count: int) -> None:
    """Draw ``count`` item cards into a hand, then discard down to the hand limit."""
    p = g.players[seat]
    for _ in range(count):
        card = draw_item(g)
        if card == NOBODY:
            break
        p.items.append(card)
    enforce_hand_limit(g, seat)


def enforce_hand_limit(g: Game, seat: int) -> None:
    """§10: holding more than the hand limit, discard down to it straight away (the holder chooses)."""
    p = g.players[seat]
    while len(p.items) > g.hand_limit(seat):
        k = g.ask(seat, Decision.DISCARD, list(p.items))
        g.item_discard.append(p.items.pop(k))


def take_random_item(g: Game, taker: int, victim: int) -> None:
    """§7: take a random item card from another player's hand."""
    hand = g.players[victim].items
    if not hand:
        return
    card = hand.pop(g.rng.below(len(hand)))
    g.players[taker].items.append(card)
    g.say(f"    P{taker} grabs {g.cards.items[card].name} from P{victim}")
    enforce_hand_limit(g, taker)


def discard_card(g: Game, seat: int, hand_index: int) -> int:
    p = g.players[seat]
    card = p.items.pop(hand_index)
    g.item_discard.append(card)
    g.items_played += 1
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
        g.say(f"    P{seat} plays {card.name}")
        if card.effect == Effect.HEAL:
            heal(g, seat, card.amount)
        elif card.effect == Effect.FIGHT_BONUS:
            f.bonus[side] += card.amount
        elif card.effect == Effect.ROLL_BONUS:
            f.roll_bonus[side] += card.amount
        elif card.effect == Effect.REFLECT:
            f.reflect[side] = 1
        elif card.effect == Effect.ESCAPE:  # §10: end the fight and move to an adjacent tile
            p = g.players[seat]
            p.pos = dest
            p.protected = p.protected or card.amount > 0
            f.escaped = seat
            return


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
            g.say(f"    P{target}'s {g.cards.items[cid].name} cancels it")
            return True
    return False


def card_damage(g: Game, by: int, target: int, amount: int) -> None:
    """Damage from a card never scores; a knockout by it gives its player a card (§10, §8)."""
    p = g.players[target]
    p.hp = max(0, p.hp - amount)
    g.say(f"    P{target} takes {amount} damage (HP {p.hp})")
    if p.hp == 0:
        knockout.knock_out(g, target, by, scores=False)


def play_turn_card(g: Game, seat: int, hand_index: int, target: int) -> None:
    """Play one item card on your own turn (free)."""
    card = g.cards.items[discard_card(g, seat, hand_index)]
    p = g.players[seat]
    g.say(f"  P{seat} plays {card.name}" + (f" at {target}" if target != NOBODY else ""))
    e = card.effect
    if e == Effect.HEAL:
        heal(g, seat, card.amount)
    elif e == Effect.EXTRA_AP:
        g.ap += card.amount
    elif e == Effect.GAIN_BARRICADE:
        p.barricades += card.amount
    elif e == Effect.DRAW:
        gain_items(g, seat, card.amount)
    elif e == Effect.TELEPORT:
        p.pos = target
    elif e == Effect.GRENADE:  # every other player on the tile, teammates too, in seat order after the thrower
        for k in range(1, g.n):
            t = (seat + k) % g.n
            if attackable(g, seat, t) and g.players[t].pos == target and not warded(g, t):
                card_damage(g, seat, t, card.amount)
    elif e == Effect.SNARE:
        if not warded(g, target):
            g.players[target].snared[seat] += card.amount
    elif e == Effect.POISON:
        if not warded(g, target):
            t = g.players[target]
            t.poison_ticks += card.turns
            t.poisoner = seat
            card_damage(g, seat, target, card.amount)
