"""The heuristic bot: scores every option with integer rules of thumb and takes the best (first on ties).

Its weights are a frozen parameter object, so a sweep can vary them like rule parameters. All
arithmetic is integer and no die is rolled, so the core's C version makes exactly the same choices.
"Hit" below means the damage a strike would do before any die: attack less gear armor and a
no-roll Armor ability.
"""

from __future__ import annotations

from dataclasses import dataclass

from sim.kit.bots import best
from sim.params import param
from sim.tales.equipment import can_carry
from sim.tales.kinds import Ability, Act, Decision, Effect, Kind
from sim.tales.state import EMPTY, Game


# restricted play (docs/restricted-play.md): what a heuristic bot can be forbidden; the equipment actions at
# the index of their Act value (Pass, 0, is never forbidden: "none" takes its place), then potions
FORBID = ("none", "swap", "equip", "take_off", "potion")
assert all(FORBID[a.value] == ("take_off" if a == Act.UNEQUIP else a.name.lower()) for a in Act if a != Act.PASS)
FORBID_POTION = FORBID.index("potion")
FORBIDDEN = -1_000_000       # the score of a forbidden option: below every other


def forbidden(forbid: str, kind, option) -> bool:
    """Restricted play: ``option`` of a ``kind`` decision is of the kind ``forbid`` (a weights' forbid) names:
    an equipment action of that kind (Pass never), or any potion (a hand index; -1 is no potion). The
    heuristic and the learned bot's replay both ask here (the core's: core/tales/heuristic.pxi ``forbidden``)."""
    if kind == Decision.EQUIP:
        return option[0] != Act.PASS and FORBID[option[0]] == forbid
    if kind == Decision.POTION:
        return forbid == "potion" and option >= 0
    return False


@dataclass(frozen=True)
class HeuristicWeights:
    """Tunable weights of the heuristic bot."""
    aggression: int = param(2, "how much damage counts against life when valuing creatures and attackers",
                            min=0, max=10)
    caution: int = param(2, "how much losing a creature weighs when choosing a defender or attacker", min=0,
                         max=10)
    kill_bonus: int = param(10, "worth of a pairing in which our creature destroys theirs", min=0, max=100)
    champion_guard: int = param(30, "penalty for sending the Champion where it can be destroyed", min=0,
                                max=200)
    swap_min_useless: int = param(3, "swap only with at least this many hand cards no creature can carry",
                                  min=0, max=20)
    potion_eagerness: int = param(1, "0: never use potions; higher: use them more readily", min=0, max=10)
    forbid: str = param("none", "restricted play: an option the bot never takes while it has another (2. "
                        "Equipment: swap, equip, take_off; 3. Battle: potion); none: every option",
                        choices=FORBID, option=True)


def creature_value(g: Game, creature_id: int, w: HeuristicWeights) -> int:
    c = g.cards.creatures[creature_id]
    return w.aggression * c.damage + c.life + 2 * c.tier + (3 if c.ability != Ability.NONE else 0)


def gear_value(g: Game, equipment_id: int, w: HeuristicWeights) -> int:
    e = g.cards.equipment[equipment_id]
    v = w.aggression * e.damage + e.life + 3 * e.armor
    if e.kind == Kind.SHIELD:
        v += 2 * (7 - e.block)
    if e.kind == Kind.RANGED:
        v += 3
    if e.kind == Kind.POTION:
        v += 2 + e.amount
    return v


def hit(g: Game, by: tuple[int, int], target: tuple[int, int]) -> int:
    c = g.card(target)
    armor = g.gear_armor(target) + (c.ability_amount if c.ability == Ability.ARMOR and c.ability_chance == 0 else 0)
    return max(0, g.attack(by) - armor)


def kills(g: Game, by: tuple[int, int], target: tuple[int, int]) -> bool:
    return hit(g, by, target) >= g.life_left(target)


class HeuristicBot:
    name = "heuristic"
    forbidden = staticmethod(forbidden)     # restricted play's rule, for the game's learned bot too

    def __init__(self, weights: HeuristicWeights | None = None):
        self.w = weights or HeuristicWeights()

    def decide(self, g: Game, seat: int, kind, options: list) -> int:
        w = self.w
        if kind == Decision.CHAMPION:
            scores = [creature_value(g, c, w) for c in options]
        elif kind == Decision.RETURN:
            scores = [-creature_value(g, c, w) for c in options]
        elif kind == Decision.EQUIP:
            scores = [self.equip_score(g, seat, act) for act in options]
        elif kind == Decision.DISCARD:
            hand = g.seats[seat].hand
            scores = [(0 if self.usable(g, seat, hand[h]) else 100) - gear_value(g, hand[h], w) for h in options]
        elif kind == Decision.ATTACKER:
            scores = [self.attacker_score(g, pos) for pos in options]
        elif kind == Decision.DEFENDER:
            scores = [self.defender_score(g, g.attacker, pos) for pos in options]
        elif kind == Decision.PROVOKE:
            scores = [self.provoke_score(g, g.attacker, pos) for pos in options]
        else:  # POTION
            scores = [self.potion_score(g, seat, h) for h in options]
        return best(scores)

    # -- equipment -------------------------------------------------------------------------------
    def usable(self, g: Game, seat: int, equipment_id: int) -> bool:
        """Some creature of the team could carry it now (a potion: some creature has its points)."""
        e = g.cards.equipment[equipment_id]
        for t in g.team_seats(seat % 2):
            for k in range(g.army):
                if g.seats[t].slot[k] == EMPTY:
                    continue
                if e.kind == Kind.POTION:
                    if g.card((t, k)).points >= e.points:
                        return True
                elif can_carry(g, (t, k), equipment_id):
                    return True
        return False

    def equip_score(self, g: Game, seat: int, act) -> int:
        kind, a, b, c = act
        if kind == Act.PASS:
            return 0
        if forbidden(self.w.forbid, Decision.EQUIP, act):
            return FORBIDDEN
        if kind == Act.UNEQUIP:
            return -1
        hand = g.seats[seat].hand
        if kind == Act.SWAP:
            useless = sum(1 for e in hand if not self.usable(g, seat, e))
            return 5 if useless >= max(self.w.swap_min_useless, g.rules.swap_cost) else -1
        target = (b, c)
        card = g.card(target)
        return 10 * gear_value(g, hand[a], self.w) + card.tier + (5 if g.seats[b].slot[c] == g.seats[b].champion else 0)

    # -- battle ----------------------------------------------------------------------------------
    def is_champion(self, g: Game, pos: tuple[int, int]) -> bool:
        return g.seats[pos[0]].slot[pos[1]] == g.seats[pos[0]].champion

    def attacker_score(self, g: Game, pos: tuple[int, int]) -> int:
        w = self.w
        foes = g.ready(1 - pos[0] % 2)
        score = w.aggression * g.attack(pos) + g.life_left(pos)
        if any(kills(g, pos, f) for f in foes):
            score += w.kill_bonus if g.card(pos).ability == Ability.PROVOKE else w.kill_bonus // 2
        if any(kills(g, f, pos) for f in foes):
            score -= w.caution * 3 * g.loss_weight(g.seats[pos[0]].slot[pos[1]])
            if self.is_champion(g, pos):
                score -= w.champion_guard
        return score

    def defender_score(self, g: Game, att: tuple[int, int], pos: tuple[int, int]) -> int:
        w = self.w
        score = g.life_left(pos)
        if kills(g, pos, att):
            score += w.kill_bonus
        if kills(g, att, pos):
            score -= w.caution * 5 * g.loss_weight(g.seats[pos[0]].slot[pos[1]]) + g.card(pos).tier
            if self.is_champion(g, pos):
                score -= w.champion_guard
        elif self.is_champion(g, pos):  # its damage stays for the rest of the game
            score -= w.champion_guard // 3
        return score

    def provoke_score(self, g: Game, att: tuple[int, int], pos: tuple[int, int]) -> int:
        w = self.w
        score = g.card(pos).tier
        if kills(g, att, pos):
            score += w.kill_bonus + 3 * g.loss_weight(g.seats[pos[0]].slot[pos[1]])
        if kills(g, pos, att):
            score -= w.caution * 3
        return score

    def potion_score(self, g: Game, seat: int, hand_index: int) -> int:
        if hand_index < 0:
            return 0
        w = self.w
        if forbidden(w.forbid, Decision.POTION, hand_index):
            return FORBIDDEN
        if w.potion_eagerness == 0:
            return -1
        att, dfn = g.fight
        me, foe = (att, dfn) if att[0] == seat else (dfn, att)
        e = g.cards.equipment[g.seats[seat].hand[hand_index]]
        good = 10 * w.potion_eagerness
        if e.effect == Effect.HEAL:
            taken = g.seats[me[0]].damage[me[1]]
            return good if taken >= e.amount or kills(g, foe, me) and taken > 0 else -1
        if e.effect == Effect.STRENGTH:
            return good if not kills(g, me, foe) and hit(g, me, foe) + e.amount >= g.life_left(foe) else -1
        if e.effect == Effect.ARMOR:
            return good if kills(g, foe, me) and hit(g, foe, me) - e.amount < g.life_left(me) else -1
        # First Strike: worth it when both would destroy each other and we do not strike first yet
        if not g.sure_first_strike(me) and kills(g, me, foe) and kills(g, foe, me):
            return good
        return -1
