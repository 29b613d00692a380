"""2. Equipment: draw, equip by free hands and equipment points, rearrange, and the 3-for-1 swap.

Each commander draws ``equipment_draw`` cards from its pairing's deck (seat order), then, seat by seat,
takes equipment actions until it passes (or ``max_equip_actions``). The options are listed in one
canonical order: PASS; SWAP (hand >= ``swap_cost`` and the deck not empty); EQUIP by hand position,
then target seat (own, then the teammate's in 2 vs. 2), then slot; UNEQUIP by seat, slot, gear
position. A SWAP asks ``swap_cost`` DISCARD decisions (hand positions), then draws ``swap_gain``.
No die is rolled here; a random bot draws ``below(options)`` per decision.

Hands: at most one main-hand or two-handed card, at most ``hands - 1`` off-hand cards, and the hands
used (two-handed = 2) at most ``hands``. Points: the carried cards' points sum to at most the
creature's (``points_budget``), or each card's points are at most the creature's. Potions are never
carried. Taking a card off must leave the creature alive (its life bonus goes with it).
"""

from __future__ import annotations

from sim.kit.decks import draw
from sim.tales.kinds import Act, Decision, Hand, Kind
from sim.tales.state import EMPTY, Game

PASS = (Act.PASS, -1, -1, -1)
SWAP = (Act.SWAP, -1, -1, -1)


def draw_equipment(g: Game, seat: int, count: int) -> int:
    """Draw up to ``count`` cards from the seat's pairing deck into its hand; returns how many."""
    drawn = draw(g.equipment_deck[g.seats[seat].pairing], count)
    g.seats[seat].hand.extend(drawn)
    return len(drawn)


def can_carry(g: Game, pos: tuple[int, int], equipment_id: int) -> bool:
    """Free hands and enough equipment points for this card (potions are never carried)."""
    e = g.cards.equipment[equipment_id]
    if e.kind == Kind.POTION:
        return False
    used, main, off = g.hands_free(pos)
    need = 2 if e.hand == Hand.BOTH else 1
    if used + need > g.rules.hands:
        return False
    if e.hand in (Hand.MAIN, Hand.BOTH) and main >= 1:
        return False
    if e.hand == Hand.OFF and off + 1 > g.rules.hands - 1:
        return False
    points = g.card(pos).points
    if g.rules.points_budget:
        return sum(c.points for c in g.gear_cards(pos)) + e.points <= points
    return e.points <= points


def can_take_off(g: Game, pos: tuple[int, int], index: int) -> bool:
    """A card may go back to the hand unless losing its life bonus would destroy the creature."""
    e = g.cards.equipment[g.seats[pos[0]].gear[pos[1]][index]]
    return g.life_left(pos) - e.life > 0


def targets(g: Game, seat: int) -> list[int]:
    """Seats whose creatures this commander may equip: its own, and in 2 vs. 2 its teammate's."""
    return [seat] + [s for s in g.team_seats(seat % 2) if s != seat]


def options(g: Game, seat: int) -> list[tuple[int, int, int, int]]:
    st, r = g.seats[seat], g.rules
    out = [PASS]
    if len(st.hand) >= r.swap_cost and g.equipment_deck[st.pairing]:
        out.append(SWAP)
    for h, e in enumerate(st.hand):
        for t in targets(g, seat):
            for k in range(g.army):
                if g.seats[t].slot[k] != EMPTY and can_carry(g, (t, k), e):
                    out.append((Act.EQUIP, h, t, k))
    for t in targets(g, seat):
        for k in range(g.army):
            for i in range(len(g.seats[t].gear[k])):
                if can_take_off(g, (t, k), i):
                    out.append((Act.UNEQUIP, t, k, i))
    return out


def swap(g: Game, seat: int) -> None:
    """Put ``swap_cost`` hand cards on the graveyard, then draw ``swap_gain``."""
    st = g.seats[seat]
    gone = []
    for _ in range(g.rules.swap_cost):
        h = g.ask(seat, Decision.DISCARD, list(range(len(st.hand))))
        gone.append(st.hand.pop(h))
        st.equipment_graveyard.append(gone[-1])
    got = draw_equipment(g, seat, g.rules.swap_gain)
    new = ", ".join(g.cards.equipment[e].name for e in st.hand[len(st.hand) - got:])
    g.emit("swap", f"{g.seat_name(seat)} swaps {', '.join(g.cards.equipment[e].name for e in gone)} for "
                   f"{new or 'nothing'}", seat, 1)


def apply(g: Game, seat: int, act: tuple[int, int, int, int]) -> None:
    st = g.seats[seat]
    kind, a, b, c = act
    if kind == Act.SWAP:
        swap(g, seat)
    elif kind == Act.EQUIP:
        e = st.hand.pop(a)
        g.seats[b].gear[c].append(e)
        g.seats[b].gear_used[e] = 1
        whose = "their " + g.card((b, c)).name if b == seat else g.name((b, c))
        g.emit("equip", f"{g.seat_name(seat)} equips {whose} with {g.cards.equipment[e].name}", seat, 1)
    elif kind == Act.UNEQUIP:
        e = g.seats[a].gear[b].pop(c)
        st.hand.append(e)
        whose = "their " + g.card((a, b)).name if a == seat else g.name((a, b))
        g.emit("unequip", f"{g.seat_name(seat)} takes {g.cards.equipment[e].name} back from {whose}",
               seat, 1)


def equip_seat(g: Game, seat: int) -> None:
    for _ in range(g.rules.max_equip_actions):
        opts = options(g, seat)
        act = g.choose(seat, Decision.EQUIP, opts)
        if act[0] == Act.PASS:
            return
        apply(g, seat, act)


def equipment(g: Game) -> None:
    if g.round > 1 and g.rules.survive:            # Survive!: one equipment phase only
        return
    for seat in range(g.n):
        got = draw_equipment(g, seat, g.rules.equipment_draw)
        drawn = ", ".join(g.cards.equipment[e].name for e in g.seats[seat].hand[len(g.seats[seat].hand) - got:])
        g.emit("draw", f"{g.seat_name(seat)} draws {got} equipment card{'' if got == 1 else 's'}: "
                       f"{drawn or 'none left'}", seat, 1)
    for seat in range(g.n):
        equip_seat(g, seat)
