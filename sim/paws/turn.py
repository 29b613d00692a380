"""§3 Your turn: start-of-turn effects (rest, buffs, poison, snares), then actions until AP runs out."""

from __future__ import annotations

from sim.paws.actions import apply_action, legal_actions
from sim.paws.items import card_damage, heal
from sim.paws.kinds import Action, Buff, Decision, Tile
from sim.paws.loot import monsters_needed
from sim.paws.state import NOBODY, Game

BUFF_WORDS = {Buff.FIGHT_SCORE: "+{} to your score in every fight", Buff.REGEN: "heals {} HP at the start of each turn",
              Buff.EXTRA_AP: "+{} AP each turn", Buff.GUARD: "+{} when it defends your home",
              Buff.RAID_SCORE: "+{} to your score in raids", Buff.HAND: "holds {} more item cards",
              Buff.NONE: "no buff"}
ACTION_WORDS = {Action.MOVE: "move", Action.LOOT: "loot", Action.BUY: "buy", Action.RAID: "raid",
                Action.INVADE: "invade", Action.BARRICADE: "place a barricade", Action.PLACE_TILE: "place a tile",
                Action.PLAY_ITEM: "play an item card"}


def buff_text(g: Game, monster: int) -> str:
    card = g.cards.monsters[monster]
    return BUFF_WORDS[card.buff].format(card.amount)


def end_turn_text(g: Game, seat: int, acts: list, taken: int) -> str:
    """Why a turn ends: no AP left, or the player's choice with what was still possible (the empty turn's reason)."""
    who = g.seat_name(seat)
    if g.ap < 1 and len(acts) == 1:
        return f"{who}'s turn ends: no AP left" if taken else f"{who}'s turn is empty: no AP"
    could = sorted({ACTION_WORDS[a[0]] for a in acts if a[0] != Action.END_TURN},
                   key=list(ACTION_WORDS.values()).index)
    why = [f"{g.ap} AP unused"]
    if could:
        why.append("could still " + ", ".join(could))
    unclaimed = [c for c, t in enumerate(g.tile) if t in (Tile.HOME, Tile.MANSION) and g.owner[c] == NOBODY]
    if not unclaimed:
        why.append("no home or mansion is unclaimed")
    elif all(len(g.monster_deck) < monsters_needed(g, c) for c in unclaimed):
        why.append(f"the monster deck holds {len(g.monster_deck)} cards, too few to claim what is left")
    opposing = [c for c, o in enumerate(g.owner) if o != NOBODY and g.opponents(seat, o)]
    if not unclaimed:
        barred = sum(1 for c in opposing if g.barricade[c] not in (NOBODY, seat))   # §11: no invading those
        why.append(f"{len(opposing)} opponents' buildings, {'all' if barred == len(opposing) else barred} barricaded"
                   if opposing else "no opponent's building to invade")
    head = f"{who} ends the turn" if taken else f"{who}'s turn is empty: ends it at once"
    return f"{head} ({'; '.join(why)})"

def start_turn(g: Game, seat: int) -> bool:
    """Start-of-turn effects in a fixed order; False if they knock the player out (the turn ends)."""
    p = g.players[seat]
    r = g.rules
    who = g.seat_name(seat)
    if p.protected:
        g.emit("protection", f"{who}'s Smoke Bomb protection ends", seat, 1)
    p.protected = False
    waking = [m for m, on in zip(p.monsters, p.active) if not on]
    p.active = [True] * len(p.monsters)           # §5: buffs work from the start of your next turn
    for m in waking:
        if g.cards.monsters[m].buff != Buff.NONE:
            g.emit("buff", f"{who}'s {g.cards.monsters[m].name} buff is active: {buff_text(g, m)}", seat, 1)
    if p.pos == 0 and r.desert_heal:              # §3 Rest: start on the Desert, heal first
        before = p.hp
        heal(g, seat, r.desert_heal)
        if p.hp > before:
            g.emit("rest", f"{who} rests on the Desert: heals {p.hp - before} (HP {p.hp})", seat, 1)
    regen = g.buff(seat, Buff.REGEN)
    if regen:
        before = p.hp
        heal(g, seat, regen)
        if p.hp > before:
            g.emit("regen", f"{who} regenerates {p.hp - before} (HP {p.hp})", seat, 1)
    lost = sum(p.snared)                          # §10 Snare: spent on this turn, even if the poison ends it
    if lost:
        by = ", ".join(g.seat_name(s) for s, n in enumerate(p.snared) if n)
        g.emit("snare", f"{who} loses {lost} AP to the Snare of {by}", seat, 1)
    p.snared = [0] * g.n
    if p.poison_ticks > 0:                        # §10 Poison Dart: 1 more at the start of the next turns
        p.poison_ticks -= 1
        g.emit("poison", f"{who} suffers poison ({g.seat_name(p.poisoner) if p.poisoner >= 0 else 'a player'}'s "
                         f"Poison Dart, {p.poison_ticks} more turns)", seat, 1)
        knocked = p.knockouts
        card_damage(g, p.poisoner, seat, 1)
        if p.knockouts != knocked:
            return False
    g.ap = max(0, r.ap_per_turn + g.buff(seat, Buff.EXTRA_AP) - lost)
    g.building_fights_left = r.building_fights_per_turn if r.building_fights_per_turn else 1 << 30
    g.raids_left = r.raids_per_turn
    return True


def take_turn(g: Game, seat: int) -> None:
    """One player's turn: the bot picks legal actions until it ends the turn or has no AP."""
    p = g.players[seat]
    g.seat = seat
    g.turns += 1
    team = (f", {g.team_name(seat % 2)} VP {sum(g.vp(s) for s in range(g.n) if s % 2 == seat % 2)}"
            if g.setup.mode == "teams" else "")
    g.emit("turn", f"- Round {g.round}, {g.seat_name(seat)}'s turn: HP {p.hp}, lives {p.lives}, VP {g.vp(seat)}{team}, "
                   f"{len(p.items)} item cards, on {g.at(p.pos)}", seat)
    knocked = p.knockouts
    acted = False
    if start_turn(g, seat):
        g.emit("ap", f"{g.seat_name(seat)} has {g.ap} AP", seat, 1)
        for taken in range(g.rules.max_actions_per_turn):
            acts = legal_actions(g, seat)
            act = g.choose(seat, Decision.ACTION, acts)
            if act[0] == Action.END_TURN:
                if g.log is not None:
                    g.emit("end_turn", end_turn_text(g, seat, acts, taken), seat, 1)
                break
            apply_action(g, seat, act)
            acted = True
            if g.over or p.knockouts != knocked:  # §3: knocked out on your own turn, your turn ends
                break
    g.idle_turns += not acted
    g.seat = -1
