"""§12 Combat: every fight (a monster, an invasion or a raid) works the same way.

Each roll: card windows (attacker, then defender), both sides roll (attacker's dice first), each scores
its two highest dice plus bonuses, the attacker deals the difference, then the roles swap. The side
that started the fight attacks first.
"""

from __future__ import annotations

from sim.paws.items import combat_window, take_random_item
from sim.paws.state import NOBODY, Fight, Game
from sim.rng import Rng

NO_KNOCKOUT = -1


def table_dice(rng: Rng, dice: int) -> list[int]:
    """``dice`` dice by the "table" dice stream: in groups of four (the last group the rest), each group
    one draw below 6**k whose base-6 digits, lowest first, plus 1, are its k dice."""
    out = []
    while dice > 0:
        k = min(4, dice)
        x = rng.below(6 ** k)
        for _ in range(k):
            out.append(x % 6 + 1)
            x //= 6
        dice -= k
    return out


def roll_score(g: Game, dice: int) -> int:
    """§12.2: roll ``dice`` dice and add the highest ``scored_dice`` of them (the dice by the rules'
    ``dice_stream``: one draw per die, or table_dice)."""
    if g.rules.dice_stream == "table":
        rolls = sorted(table_dice(g.rng, dice), reverse=True)
    else:
        rolls = sorted((g.rng.die() for _ in range(dice)), reverse=True)
    return sum(rolls[: g.rules.scored_dice])


def side_hp(g: Game, f: Fight, side: int) -> int:
    seat = f.seats[side]
    return f.monster_hp if seat == NOBODY else g.players[seat].hp


def hurt(g: Game, f: Fight, side: int, damage: int) -> None:
    """Take ``damage`` off one side of a fight (never below 0)."""
    seat = f.seats[side]
    if seat == NOBODY:
        f.monster_hp = max(0, f.monster_hp - damage)
    else:
        p = g.players[seat]
        p.hp = max(0, p.hp - damage)


def name(g: Game, f: Fight, side: int) -> str:
    seat = f.seats[side]
    return g.seat_name(seat) if seat != NOBODY else f.monster


def fight(g: Game, f: Fight, dice: tuple[int, int], edge: tuple[int, int], max_rolls: int,
          grabs: bool = False) -> int:
    """Play a fight to its end; returns the side (0 starter, 1 other) knocked to 0 HP, else NO_KNOCKOUT."""
    g.fight = f
    att = 0
    try:
        for roll in range(max_rolls):
            f.roll = roll
            f.attacker = f.seats[att]
            for side in (att, 1 - att):
                if f.seats[side] != NOBODY:
                    combat_window(g, f, side)
                    if f.escaped != NOBODY:
                        return NO_KNOCKOUT
            dfn = 1 - att
            a_score = roll_score(g, dice[att]) + edge[att] + f.bonus[att] + f.roll_bonus[att]
            d_score = roll_score(g, dice[dfn]) + edge[dfn] + f.bonus[dfn] + f.roll_bonus[dfn]
            f.roll_bonus[0] = f.roll_bonus[1] = 0
            damage = a_score - d_score
            reflected = False
            if damage > 0:
                hurt(g, f, dfn, damage)
                if f.reflect[dfn]:
                    f.reflect[dfn] = 0
                    hurt(g, f, att, damage)
                    reflected = True
            if g.log is not None:   # the hottest line of the reference engine: no text unless a log is kept
                g.emit("roll", f"roll {roll + 1}: {name(g, f, att)} scores {a_score} vs {name(g, f, dfn)} {d_score}: "
                               f"{max(damage, 0)} damage to {name(g, f, dfn)}"
                               + (f", dealt back to {name(g, f, att)}" if reflected else "")
                               + f" ({name(g, f, 0)} HP {side_hp(g, f, 0)}, {name(g, f, 1)} HP {side_hp(g, f, 1)})",
                       f.seats[att], 2)
            if grabs:  # §7: after each roll the higher score takes a random item card
                if a_score > d_score:
                    take_random_item(g, f.seats[att], f.seats[dfn])
                elif d_score > a_score:
                    take_random_item(g, f.seats[dfn], f.seats[att])
            if side_hp(g, f, dfn) == 0:
                return dfn
            if side_hp(g, f, att) == 0:
                return att
            att = dfn
        g.emit("fight_end", f"the fight ends after {max_rolls} rolls with nobody beaten", f.seats[0], 2)
        return NO_KNOCKOUT
    finally:
        g.fight = None
