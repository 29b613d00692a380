"""3. Battle: who begins, turns of attacker and defender choices, and the four steps of each fight.

Random draws, in this order:
1. Who begins (every round): team 0 rolls a die, then team 1; equal rolls are rolled again.
2. Each turn, for each of the turn's fights (1; 2 vs. 2: ``team_attackers``), while both teams
   have a ready creature: the ATTACKER decision (the active team's k-th member, from all the team's
   ready creatures); the attacker's Provoke roll (if it has Provoke with a chance); then either the
   PROVOKE decision (attacking seat picks the opposing creature) or the DEFENDER decision (the
   defending team's k-th member).
3. The fight: POTION decisions (attacker's commander, then defender's); First Strike rolls
   (attacker, then defender; only for a creature ability with a chance and no ranged weapon or
   potion); the strikes (damage.strike): simultaneous when both or neither have First Strike
   (attacker's strike first, then the defender's, whatever the first did), else the first striker's,
   then the other's if it was not destroyed.
4. End of the fight: potions wear off, both creatures are exhausted, the destroyed leave the field
   (seat then slot order) with their gear, and victory is checked.

The round ends when either team has no ready creature left: a turn needs one creature of each side.
"""

from __future__ import annotations

from sim.tales import abilities, potions
from sim.tales.damage import strike
from sim.tales.kinds import Decision
from sim.tales.state import EMPTY, Game
from sim.tales.victory import after_fight


def who_begins(g: Game) -> int:
    """The higher die begins; ties roll again."""
    while True:
        a, b = g.rng.die(), g.rng.die()
        if a != b:
            team = 0 if a > b else 1
            g.emit("begins", f"Battle: {g.team_name(0)} rolls {a}, {g.team_name(1)} rolls {b}; "
                             f"{g.team_name(team)} begins", depth=1)
            return team


def remove_destroyed(g: Game) -> None:
    """The doomed go to the graveyard with their gear; losses are counted; a fallen Champion noted."""
    for st in g.seats:
        for k in range(g.army):
            if st.doomed[k]:
                c = st.slot[k]
                st.graveyard.append(c)
                st.equipment_graveyard.extend(st.gear[k])
                st.losses += g.loss_weight(c)
                st.destroyed += 1
                if c == st.champion:
                    g.champion_fell[st.team] = 1
                gone = [g.cards.equipment[e].name for e in st.gear[k]]
                st.slot[k] = EMPTY
                st.gear[k] = []
                st.potion[k] = [0, 0, 0]
                st.damage[k] = 0
                st.exhausted[k] = 0
                st.doomed[k] = 0
                g.emit("graveyard", f"{g.seat_name(st.seat)}'s {g.cards.creatures[c].name} goes to the graveyard"
                                    + (f" with {', '.join(gone)}" if gone else "")
                                    + f" (losses {st.losses})", st.seat, 2)


def fight(g: Game, att: tuple[int, int], dfn: tuple[int, int]) -> None:
    """Potions, hits, damage, end of the turn for one attacker and its opponent."""
    g.fights += 1
    g.fight = (att, dfn)
    g.emit("fight", f"Fight {g.fights}: {g.name(att)} ({g.life_left(att)} life) attacks {g.name(dfn)} "
                    f"({g.life_left(dfn)} life)", att[0], 1)
    potions.use_potions(g, att)
    potions.use_potions(g, dfn)
    fa = abilities.first_strike(g, att)
    fd = abilities.first_strike(g, dfn)
    if fa == fd:
        strike(g, att, dfn)
        strike(g, dfn, att)
    else:
        first, second = (att, dfn) if fa else (dfn, att)
        g.emit("first_strike", f"{g.name(first)} strikes first", first[0], 2)
        strike(g, first, second)
        if not g.seats[second[0]].doomed[second[1]]:
            strike(g, second, first)
    for pos in (att, dfn):
        potions.wear_off(g, pos)
        g.seats[pos[0]].exhausted[pos[1]] = 1
    g.fight = None
    g.emit("exhausted", f"{g.name(att)} and {g.name(dfn)} are exhausted", att[0], 2)
    remove_destroyed(g)
    after_fight(g)
    g.champion_fell = [0, 0]


def take_turn(g: Game, team: int) -> None:
    """One turn of ``team``: it sends one creature (2 vs. 2: up to ``team_attackers``) into attack mode."""
    g.turns += 1
    g.emit("turn", f"- Round {g.round}, turn {g.turns}: {g.team_name(team)} attacks", g.member(team, 0))
    other = 1 - team
    fights = g.rules.team_attackers if g.setup.teams else 1
    for k in range(fights):
        mine, theirs = g.ready(team), g.ready(other)
        if not mine or not theirs:
            return
        att = g.choose(g.member(team, k), Decision.ATTACKER, mine)
        g.attacker = att
        if abilities.provokes(g, att):
            dfn = g.choose(att[0], Decision.PROVOKE, theirs)
            g.emit("provoke", f"{g.name(att)} provokes {g.name(dfn)}", att[0], 1)
        else:
            dfn = g.choose(g.member(other, k), Decision.DEFENDER, theirs)
        g.attacker = None
        fight(g, att, dfn)
        if g.over:
            return


def battle(g: Game) -> None:
    g.active = who_begins(g)
    if g.round == 1:
        g.first_side = g.active
    while not g.over and g.ready(0) and g.ready(1):
        take_turn(g, g.active)
        g.active = 1 - g.active
