"""§8 Knockouts: lose a life, the knocker takes a card, keep one monster, come back on the Desert."""

from __future__ import annotations

from sim.paws import items, winning
from sim.paws.kinds import Decision, Tile
from sim.paws.record import MONSTER_COUNTERS
from sim.paws.state import NOBODY, Game

ITEM, MONSTER = 0, 1
CAPTURED, KEPT = MONSTER_COUNTERS.index("captured"), MONSTER_COUNTERS.index("kept")


def place_free(g: Game, seat: int) -> None:
    """§8.6 Explorer: place all the tiles you still hold, free (mansion, home, chest, forest order)."""
    from sim.paws.actions import place_tile, placement_cells
    p = g.players[seat]
    for kind_index in range(4):
        while p.tiles[kind_index] > 0:
            cells = placement_cells(g)
            if not cells:
                return
            cell = g.choose(seat, Decision.PLACE_FREE, cells)
            place_tile(g, seat, kind_index, cell)


def knock_out(g: Game, victim: int, by: int, scores: bool) -> None:
    """Knock ``victim`` out; ``by`` is the player who did it or NOBODY (a monster). ``scores``: a player fight."""
    p = g.players[victim]
    p.lives -= 1
    p.knockouts += 1
    who = g.seat_name(victim)
    g.emit("knockout", f"** {who} is knocked out" + (f" by {g.seat_name(by)}" if by != NOBODY else "")
           + f" ({p.lives} {'life' if p.lives == 1 else 'lives'} left)", victim, 1)
    # §8.3: with a life left, keep one monster card, chosen before the knocker takes theirs
    kept, kept_active = NOBODY, False
    if p.lives > 0 and g.rules.keep_one_monster and p.monsters:
        i = g.ask(victim, Decision.KEEP_MONSTER, list(p.monsters))
        kept, kept_active = p.monsters.pop(i), p.active.pop(i)
        g.count_monster(victim, kept, KEPT)
        g.emit("keep", f"{who} keeps {g.cards.monsters[kept].name}", victim, 2)
    # §8.2: the knocker looks at your cards and takes some (an item card or a monster card each).
    # §8.7: a knocker already out of the game (an earlier Poison Dart, reflected damage) takes nothing.
    takes = by != NOBODY and (g.players[by].alive or g.rules.out_of_game_takes_card)
    if by != NOBODY:
        g.players[by].knockouts_dealt += 1
    if takes:
        q = g.players[by]
        for _ in range(g.rules.knockout_cards_taken):
            opts = [(ITEM, c) for c in p.items] + [(MONSTER, m) for m in p.monsters]
            if not opts:
                break
            kind, card = g.choose(by, Decision.TAKE_CARD, opts)
            taken = g.cards.items[card].name if kind == ITEM else g.cards.monsters[card].name
            if kind == ITEM:
                p.items.remove(card)
                q.items.append(card)
                g.emit("take", f"{g.seat_name(by)} takes {taken} from {who}", by, 2)
            else:
                i = p.monsters.index(card)
                p.monsters.pop(i)
                p.active.pop(i)
                q.monsters.append(card)
                q.active.append(False)
                g.count_monster(by, card, CAPTURED)
                g.emit("take", f"{g.seat_name(by)} takes {taken} from {who}", by, 2)
        items.enforce_hand_limit(g, by)
    # the rest go to the discard pile (monsters to the bottom of the monster deck)
    if p.items or p.monsters:
        g.emit("lose_cards", f"{who} discards {len(p.items)} item card{'' if len(p.items) == 1 else 's'}"
               + (f"; {', '.join(g.cards.monsters[m].name for m in p.monsters)} to the bottom of the monster deck"
                  if p.monsters else ""), victim, 2)
    g.item_discard.extend(p.items)
    p.items = []
    g.monster_deck[0:0] = reversed(p.monsters)
    p.monsters, p.active = ([kept], [kept_active]) if kept != NOBODY else ([], [])
    p.protected = False
    if g.rules.knockout_cancels_effects_on_victim:  # not in the book: §8.5 names only the Snares you played
        p.poison_ticks, p.poisoner = 0, NOBODY
        p.snared = [0] * g.n
    for q in g.players:  # §8.5: Snares you played stop working
        q.snared[victim] = 0
    reset = [c for c, t in enumerate(g.tile) if t in (Tile.CHEST, Tile.FOREST) and g.brick[c] == victim]
    for c in reset:  # §4: the chests and forests you looted reset
        g.brick[c] = NOBODY
    if reset:
        g.emit("bricks", f"{who}'s bricks come off {', '.join(g.at(c) for c in reset)}", victim, 2)
    if p.lives > 0:  # §8.4
        p.pos = 0
        p.hp = g.rules.respawn_hp
        g.emit("respawn", f"{who} comes back on the Desert with {p.hp} HP", victim, 2)
        items.gain_items(g, victim, g.rules.respawn_items)
        if g.setup.board == "explorer":
            place_free(g, victim)
    else:  # §8.7: out of the game; homes, mansions and barricades are cleared
        for c in range(len(g.tile)):
            if g.owner[c] == victim:
                g.owner[c] = g.brick[c] = NOBODY
            if g.barricade[c] == victim:
                g.barricade[c] = NOBODY
        p.barricades = 0
        p.tiles = [0, 0, 0, 0]
        p.monsters, p.active = [], []
        g.emit("out", f"** {who} is out of the game: their homes, mansions and barricades are cleared", victim, 1)
    if takes and scores and g.rules.vp_per_knockout:
        g.players[by].knockout_vp += 1
        g.emit("knockout_vp", f"{g.seat_name(by)} scores the knockout ({g.vp(by)} VP)", by, 2)
        winning.check_vp(g, by)
    if p.lives == 0:
        winning.check_last_alive(g)
