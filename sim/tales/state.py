"""Game state of the Tales are Real reference engine: plain ints and int lists that mirror C structs.

A creature on the field is addressed by (seat, slot). Each seat's battle line has ``army_size`` slots;
the Champion stands in slot ``army_size // 2`` (the middle). Layouts (``A`` = army_size):

* ``slot[A]``       creature card id, -1 empty (a destroyed creature's slot stays empty until a refill)
* ``damage[A]``     damage taken (persists across rounds; life left = life + gear life - damage)
* ``exhausted[A]``  1 after fighting this round, 0 ready
* ``gear[A]``       equipment card ids carried, in the order equipped (at most ``hands``)
* ``potion[A]``     lasting potion on the creature: effect (kinds.Effect), amount, fights left
* ``doomed[A]``     1 once destroyed in the fight being resolved (removed when the fight ends)
"""

from __future__ import annotations

from sim.kit.state import NOBODY, GameState
from sim.rng import Rng
from sim.tales.cards import TalesCards
from sim.tales.kinds import Effect, Hand, Kind, People
from sim.tales.rules import TalesRules, TalesSetup

EMPTY = -1


class Seat:
    """One commander: people, Champion, creature deck, equipment hand, battle line and counters."""

    def __init__(self, seat: int, people: int, army: int, n_creatures: int, n_equipment: int):
        self.seat = seat
        self.team = seat % 2                    # 2 vs. 2: seats 0+2 against 1+3
        self.pairing = seat // 2                # seats 2k, 2k+1 share equipment deck k
        self.people = people                    # kinds.People
        self.champion = EMPTY                   # creature id chosen face down
        self.deck: list[int] = []               # creature ids, top = end of the list
        self.hand: list[int] = []               # equipment ids, in the order gained
        self.graveyard: list[int] = []          # destroyed creature ids, in order
        self.equipment_graveyard: list[int] = []  # equipment ids discarded, drunk or lost with a creature
        self.slot = [EMPTY] * army
        self.damage = [0] * army
        self.exhausted = [0] * army
        self.gear: list[list[int]] = [[] for _ in range(army)]
        self.potion = [[0, 0, 0] for _ in range(army)]   # [effect, amount, fights left]
        self.doomed = [0] * army
        self.losses = 0                         # weighted losses (normal 1, elite 2)
        self.destroyed = 0                      # creatures destroyed
        # per-card counters for the optional card table
        self.fielded = [0] * n_creatures        # 1 if the creature stood on this seat's field
        self.kills = [0] * n_creatures          # creatures it destroyed
        self.gear_used = [0] * n_equipment      # 1 if this seat's creatures ever carried the card
        self.gear_kills = [0] * n_equipment     # kills made by creatures while carrying it


class Game(GameState):
    """All state of one game of Tales are Real, plus its counters (bots decide through ``ask``/``choose``)."""

    def __init__(self, setup: TalesSetup, rules: TalesRules, cards: TalesCards, bots, rng: Rng,
                 log: list | None):
        super().__init__(setup, rules, cards, bots, rng, log)
        self.n = setup.seats
        self.army = rules.army_size
        self.middle = rules.army_size // 2
        people = [People[p.upper()] for p in setup.people]
        self.seats = [Seat(s, people[s], self.army, len(cards.creatures), len(cards.equipment))
                      for s in range(self.n)]
        self.equipment_deck: list[list[int]] = [[] for _ in range(self.n // 2)]  # per pairing, top = end
        self.round = 0
        self.turns = 0
        self.fights = 0
        self.first_side = NOBODY                # team that began the first battle
        self.active = NOBODY                    # team whose turn it is
        self.fight: tuple | None = None         # ((seat, slot) attacker, (seat, slot) defender) being fought
        self.attacker: tuple | None = None      # chosen attacker while the defender is chosen
        self.champion_fell = [0, 0]             # per team, in the fight being resolved
        self.over = False
        self.winner_team = NOBODY
        self.end_reason = ""

    # -- seats and teams -----------------------------------------------------------------------
    def team_seats(self, team: int) -> list[int]:
        return [s for s in range(self.n) if s % 2 == team]

    def member(self, team: int, k: int) -> int:
        """The seat of ``team`` that makes the k-th pick of a turn (team members alternate)."""
        seats = self.team_seats(team)
        return seats[k % len(seats)]

    def ready(self, team: int) -> list[tuple[int, int]]:
        """(seat, slot) of the team's ready creatures, seats then slots ascending."""
        return [(s, k) for s in self.team_seats(team) for k in range(self.army)
                if self.seats[s].slot[k] != EMPTY and not self.seats[s].exhausted[k]]

    def on_field(self, team: int) -> int:
        return sum(self.seat_on_field(s) for s in self.team_seats(team))

    def seat_on_field(self, seat: int) -> int:
        return sum(1 for c in self.seats[seat].slot if c != EMPTY)

    # -- a creature on the field ---------------------------------------------------------------
    def card(self, pos: tuple[int, int]):
        s, k = pos
        return self.cards.creatures[self.seats[s].slot[k]]

    def name(self, pos: tuple[int, int]) -> str:
        """A creature on the field as the log names it: "Commander 1's Grey Wolf"."""
        return f"{self.seat_name(pos[0])}'s {self.card(pos).name}"

    # -- the event stream (sim/events.py): names in the rulebook's words, and the drawn state ----------
    def seat_name(self, seat: int) -> str:
        return f"Commander {seat + 1}"

    def team_name(self, team: int) -> str:
        """A side: one commander, or in 2 vs. 2 its team of two."""
        seats = self.team_seats(team)
        if len(seats) == 1:
            return self.seat_name(seats[0])
        return f"Team {team + 1} ({' & '.join(self.seat_name(s) for s in seats)})"

    def clock(self) -> tuple[int, int]:
        return self.round, self.turns

    def board(self) -> dict:
        return {"game": "tales", "title": "Tales are Real", "mode": self.setup.mode, "ruleset": self.rules.ruleset,
                "army": self.army, "middle": self.middle,
                "players": [self.seat_name(s) for s in range(self.n)], "bots": list(self.setup.bots),
                "people": [st.people.name.capitalize() for st in self.seats],
                "teams": [[self.seat_name(s) for s in self.team_seats(t)] for t in (0, 1)],
                "turn_kinds": ["turn"], "round_kinds": ["round"]}

    def view(self) -> dict:
        lines = []
        for st in self.seats:
            row = []
            for k, c in enumerate(st.slot):
                if c == EMPTY:
                    row.append(None)
                    continue
                pos = (st.seat, k)
                eff, amount, left = st.potion[k]
                row.append({"card": self.cards.creatures[c].name, "life": self.life_left(pos),
                            "life_max": self.life_max(pos), "exhausted": bool(st.exhausted[k]),
                            "gear": [self.cards.equipment[e].name for e in st.gear[k]],
                            "potion": f"{Effect(eff).name.replace('_', ' ').title()} +{amount}" if left > 0 else "",
                            "champion": c == st.champion, "elite": self.elite(c),
                            "attack": self.attack(pos), "destroyed": bool(st.doomed[k])})
            lines.append(row)
        fight = None
        if self.fight is not None:
            fight = [list(self.fight[0]), list(self.fight[1])]
        return {"round": self.round, "turn": self.turns, "active": self.active, "lines": lines,
                "hand": [[self.cards.equipment[e].name for e in st.hand] for st in self.seats],
                "deck": [len(st.deck) for st in self.seats],
                "equipment_deck": [len(d) for d in self.equipment_deck],
                "graveyard": [[self.cards.creatures[c].name for c in st.graveyard] for st in self.seats],
                "equipment_graveyard": [len(st.equipment_graveyard) for st in self.seats],
                "losses": [st.losses for st in self.seats], "team_losses": [self.team_losses(t) for t in (0, 1)],
                "fight": fight, "over": self.over, "winner_team": self.winner_team, "end_reason": self.end_reason}

    def gear_cards(self, pos: tuple[int, int]):
        return [self.cards.equipment[e] for e in self.seats[pos[0]].gear[pos[1]]]

    def life_max(self, pos: tuple[int, int]) -> int:
        return self.card(pos).life + sum(e.life for e in self.gear_cards(pos))

    def life_left(self, pos: tuple[int, int]) -> int:
        return self.life_max(pos) - self.seats[pos[0]].damage[pos[1]]

    def potion_bonus(self, pos: tuple[int, int], effect: Effect) -> int:
        eff, amount, left = self.seats[pos[0]].potion[pos[1]]
        return amount if eff == effect and left > 0 else 0

    def has_potion(self, pos: tuple[int, int], effect: Effect) -> bool:
        eff, _, left = self.seats[pos[0]].potion[pos[1]]
        return eff == effect and left > 0

    def attack(self, pos: tuple[int, int]) -> int:
        """Damage the creature inflicts: its own, its gear's and a Strength potion's."""
        return (self.card(pos).damage + sum(e.damage for e in self.gear_cards(pos))
                + self.potion_bonus(pos, Effect.STRENGTH))

    def gear_armor(self, pos: tuple[int, int]) -> int:
        """The equipment step of damage reduction: gear armor and an Armor potion."""
        return sum(e.armor for e in self.gear_cards(pos)) + self.potion_bonus(pos, Effect.ARMOR)

    def sure_first_strike(self, pos: tuple[int, int]) -> bool:
        """First Strike that needs no roll: a ranged weapon or a First Strike potion."""
        return (any(e.kind == Kind.RANGED for e in self.gear_cards(pos))
                or self.has_potion(pos, Effect.FIRST_STRIKE))

    def hands_free(self, pos: tuple[int, int]) -> tuple[int, int, int]:
        """(hands used, main-hand items, off-hand items) of the creature's gear."""
        used = main = off = 0
        for e in self.gear_cards(pos):
            used += 2 if e.hand == Hand.BOTH else 1
            main += e.hand in (Hand.MAIN, Hand.BOTH)
            off += e.hand == Hand.OFF
        return used, main, off

    def elite(self, creature_id: int) -> bool:
        return self.cards.creatures[creature_id].tier >= self.rules.elite_min_tier

    def loss_weight(self, creature_id: int) -> int:
        return self.rules.loss_elite if self.elite(creature_id) else self.rules.loss_normal

    def team_losses(self, team: int) -> int:
        return sum(self.seats[s].losses for s in self.team_seats(team))
