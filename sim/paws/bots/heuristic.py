"""The heuristic bot: scores every option with integer rules of thumb and takes the best (first on ties).

Its weights are a frozen parameter object, so a sweep can vary them like rule parameters. All
arithmetic is integer so the core's C version makes exactly the same choices.
"""

from __future__ import annotations

from dataclasses import dataclass

from sim.kit.bots import best
from sim.params import param
from sim.paws.board import FAR, NO_CELL
from sim.paws.items import attackable
from sim.paws.kinds import Action, Buff, Decision, Effect, Tile
from sim.paws.loot import barred, monsters_needed
from sim.paws.state import NOBODY, Game


# restricted play (docs/restricted-play.md): the action kinds a heuristic bot can be forbidden, each at the
# index of its Action value (End turn, 0, is never forbidden: "none" takes its place)
FORBID = ("none", "move", "loot", "buy", "raid", "invade", "barricade", "place_tile", "play_item")
assert all(FORBID[a.value] == a.name.lower() for a in Action if a != Action.END_TURN)
FORBIDDEN = -1_000_000       # the score of a forbidden action: below every other


def forbidden(forbid: str, kind, option) -> bool:
    """Restricted play: ``option`` of a ``kind`` decision is of the kind ``forbid`` (a weights' forbid) names: a
    turn action of that kind (End turn never). The heuristic and the learned bot's replay both ask here (the
    core's: core/paws/heuristic.pxi ``forbidden``)."""
    return kind == Decision.ACTION and option[0] != Action.END_TURN and FORBID[option[0]] == forbid


@dataclass(frozen=True)
class HeuristicWeights:
    """Tunable weights of the heuristic bot."""
    aggression: int = param(2, "keenness on invasions, raids and attack cards (0 = never)", min=0, max=10)
    heal_threshold: int = param(5, "at or below this HP: heal, rest on the Desert, avoid fights", min=0, max=30)
    raid_appetite: int = param(2, "raid when the target holds at least this many more item cards", min=-10, max=10)
    invade_min_hp: int = param(8, "invade (when to invade) only with at least this HP", min=0, max=30)
    home_min_hp: int = param(6, "loot a home only with at least this HP", min=0, max=30)
    mansion_min_hp: int = param(9, "loot a mansion only with at least this HP", min=0, max=30)
    escape_hp: int = param(2, "in a fight, run (Escape Rope, Smoke Bomb) at or below this HP", min=0, max=30)
    step_cost: int = param(8, "how much a target's worth drops per step away", min=1, max=50)
    forbid: str = param("none", "restricted play: a kind of turn action (§3) the bot never takes while it has "
                        "another (End turn always stays); none: every action", choices=FORBID, option=True)


EFFECT_VALUE = {Effect.HEAL: (2, 1), Effect.FIGHT_BONUS: (3, 2), Effect.ROLL_BONUS: (2, 1), Effect.ESCAPE: (5, 0),
                Effect.GRENADE: (7, 0), Effect.SNARE: (4, 0), Effect.POISON: (5, 0), Effect.EXTRA_AP: (3, 2),
                Effect.GAIN_BARRICADE: (6, 0), Effect.TELEPORT: (4, 0), Effect.WARD: (4, 0),
                Effect.REFLECT: (4, 0), Effect.DRAW: (2, 1)}  # value = base + per_amount * amount


def item_value(g: Game, card_id: int) -> int:
    card = g.cards.items[card_id]
    base, per = EFFECT_VALUE[card.effect]
    return base + per * card.amount


def monster_value(g: Game, monster_id: int) -> int:
    card = g.cards.monsters[monster_id]
    return card.hp + (4 * card.amount if card.buff != Buff.NONE else 0)


class HeuristicBot:
    name = "heuristic"
    forbidden = staticmethod(forbidden)     # restricted play's rule, for the game's learned bot too

    def __init__(self, weights: HeuristicWeights | None = None):
        self.w = weights or HeuristicWeights()

    def decide(self, g: Game, seat: int, kind, options: list) -> int:
        if kind == Decision.ACTION:
            values = [self.cell_value(g, seat, c) for c in range(len(g.tile))]
            scores = [self.action_score(g, seat, a, values) for a in options]
        elif kind == Decision.COMBAT_CARD:
            scores = [self.combat_score(g, seat, o) for o in options]
        elif kind == Decision.DEFENDER:
            scores = [10 * g.cards.monsters[m].hp + guard(g, m) for m in options]
        elif kind == Decision.KEEP_MONSTER:
            scores = [monster_value(g, m) for m in options]
        elif kind == Decision.TAKE_CARD:
            scores = [item_value(g, c) if k == 0 else 6 + monster_value(g, c) for k, c in options]
        elif kind == Decision.DISCARD:
            scores = [-item_value(g, c) for c in options]
        else:  # PLACE_FREE: the first cell (nearest the Desert in spiral order)
            return 0
        return best(scores)

    # -- where to go -----------------------------------------------------------------------------
    def cell_value(self, g: Game, seat: int, c: int) -> int:
        """What standing on cell ``c`` is worth to ``seat`` now."""
        w, p, kind = self.w, g.players[seat], g.tile[c]
        if kind == Tile.EMPTY:
            return 0
        hunt = self.hunt_value(g, seat, c)
        if hunt or barred(g, seat, c):
            return hunt
        if kind == Tile.CHEST:
            if g.brick[c] != NOBODY:
                return 0
            return 30 if len(p.items) < g.hand_limit(seat) else 12
        if kind == Tile.FOREST:
            if g.brick[c] != NOBODY:
                return 0
            open_building = any(g.owner[x] == seat and g.barricade[x] == NOBODY for x in range(len(g.tile)))
            return 25 if open_building else 8
        if kind == Tile.DESERT:  # rest: urgently when hurt, else to top up for the next fight
            if g.rules.desert_heal <= 0 or p.hp >= g.rules.max_hp:
                return 0
            if p.hp <= w.heal_threshold:
                return 80
            return 50 if p.hp < max(w.invade_min_hp, w.mansion_min_hp) else 0
        owner = g.owner[c]
        # a building fight already spent this turn: the building is only worth reaching for next turn
        div = 1 if g.building_fights_left > 0 or g.seat != seat else 2
        if owner == NOBODY:
            if len(g.monster_deck) < monsters_needed(g, c):
                return 0
            if kind == Tile.HOME:
                return 60 // div if p.hp >= w.home_min_hp else 0
            return 70 // div if p.hp >= w.mansion_min_hp else 0
        if g.opponents(seat, owner) and w.aggression > 0 and p.hp >= w.invade_min_hp:
            return (20 + 8 * w.aggression + (25 if g.sole_leader() == owner else 0)) // div
        return 0

    def scoring_raid(self, g: Game, seat: int, target: int) -> bool:
        """V3-style raids (to a knockout, VP per knockout): worth starting against a weaker opponent."""
        r = g.rules
        return (r.vp_per_knockout > 0 and r.raid_rolls == 0 and self.w.aggression > 0
                and g.players[seat].hp >= g.players[target].hp + 2)

    def hunt_value(self, g: Game, seat: int, c: int) -> int:
        """Worth of a cell for the opponents on it who could be knocked out in a scoring raid."""
        for t in range(g.n):
            if g.players[t].pos == c and attackable(g, seat, t) and g.opponents(seat, t) \
                    and self.scoring_raid(g, seat, t):
                return 30 + 4 * self.w.aggression
        return 0

    def move_score(self, g: Game, dest: int, values: list[int]) -> int:
        """Best worth reachable from ``dest``, less the steps to it (the move itself included)."""
        best = -1
        for t, v in enumerate(values):
            d = g.dist[dest][t]
            if v > 0 and d != FAR:
                best = max(best, v - self.w.step_cost * (d + 1))
        return best

    # -- turn actions ----------------------------------------------------------------------------
    def action_score(self, g: Game, seat: int, act, values: list[int]) -> int:
        kind, a, b = act
        w, p = self.w, g.players[seat]
        if forbidden(w.forbid, Decision.ACTION, act):
            return FORBIDDEN
        if kind == Action.END_TURN:  # staying put is worth what resting here is worth
            return values[p.pos] if g.tile[p.pos] == Tile.DESERT else 0
        if kind == Action.MOVE:
            return self.move_score(g, a, values)
        if kind in (Action.LOOT, Action.INVADE):  # acting here saves the step a move would cost
            v = values[p.pos]
            return v + 5 + w.step_cost if v > 0 else -1
        if kind == Action.BUY:
            return 12 if len(p.items) < g.hand_limit(seat) else -1
        if kind == Action.RAID:
            if self.scoring_raid(g, seat, a):
                return 60 + 4 * w.aggression
            diff = len(g.players[a].items) - len(p.items)
            if w.aggression > 0 and diff >= w.raid_appetite and p.hp > w.heal_threshold:
                return 20 + 4 * w.aggression + 2 * diff
            return -1
        if kind == Action.BARRICADE:
            if g.owner[a] != seat:
                return -1
            return 90 if g.tile[a] == Tile.MANSION else 85
        if kind == Action.PLACE_TILE:
            return self.place_score(g, seat, a, b)
        return self.card_score(g, seat, a, b, values)

    def place_score(self, g: Game, seat: int, kind_index: int, cell: int) -> int:
        w, p = self.w, g.players[seat]
        if kind_index == 0:
            base = 75 if p.hp >= w.mansion_min_hp else 30
        elif kind_index == 1:
            base = 72 if p.hp >= w.home_min_hp else 30
        else:
            base = 45 if kind_index == 2 else 40
        d = FAR
        for m in g.nbrs[cell]:
            if m != NO_CELL and g.tile[m] != Tile.EMPTY:
                d = min(d, g.dist[p.pos][m] + 1)
        return base - w.step_cost * (d - 1)

    def card_score(self, g: Game, seat: int, hand_index: int, target: int, values: list[int]) -> int:
        w, p = self.w, g.players[seat]
        card = g.cards.items[p.items[hand_index]]
        e = card.effect
        if e == Effect.HEAL:
            return 85 + card.amount if p.hp <= w.heal_threshold else -1
        if e == Effect.EXTRA_AP:
            return 95
        if e == Effect.GAIN_BARRICADE:
            return 88
        if e == Effect.DRAW:
            return 50 if len(p.items) - 1 + card.amount <= g.hand_limit(seat) else 20
        if e == Effect.TELEPORT:
            v = values[target]
            return v - 10 if v > 0 and g.dist[p.pos][target] >= 3 else -1
        if w.aggression == 0:
            return -1
        if e == Effect.GRENADE:
            hits = kos = friends = 0
            for t in range(g.n):
                q = g.players[t]
                if attackable(g, seat, t) and q.pos == target:
                    if g.opponents(seat, t):
                        hits += 1
                        kos += q.hp <= card.amount
                    else:
                        friends += 1
            return 40 + 10 * hits + 20 * kos if hits and not friends else -1
        if not g.opponents(seat, target):
            return -1
        if e == Effect.SNARE:
            return 30 + (20 if g.sole_leader() == target else 0)
        if e == Effect.POISON:
            return 32 + (30 if g.players[target].hp <= card.amount else 0)
        return -1

    # -- in a fight ------------------------------------------------------------------------------
    def combat_score(self, g: Game, seat: int, option) -> int:
        hand_index, dest = option
        if hand_index < 0:
            return 0
        w, p, f = self.w, g.players[seat], g.fight
        side = 0 if f.seats[0] == seat else 1
        card = g.cards.items[p.items[hand_index]]
        e = card.effect
        if e == Effect.ESCAPE:
            return 100 if p.hp <= w.escape_hp else -1
        if e == Effect.HEAL:
            return 90 if p.hp <= w.heal_threshold and p.hp < g.rules.max_hp else -1
        if e == Effect.FIGHT_BONUS:
            return 80 if f.roll == 0 else -1
        if e == Effect.ROLL_BONUS:
            return 70 if f.attacker == seat else -1
        if e == Effect.REFLECT:
            return 60 if f.attacker != seat and not f.reflect[side] else -1
        return -1


def guard(g: Game, monster_id: int) -> int:
    card = g.cards.monsters[monster_id]
    return card.amount if card.buff == Buff.GUARD else 0
