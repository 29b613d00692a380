"""Game state of the reference engine: plain fields and lists that mirror the core's C structs."""

from __future__ import annotations

from dataclasses import dataclass, field

from sim.kit.state import NOBODY, GameState
from sim.paws.board import NO_CELL, cell_name, distances, geometry
from sim.paws.cards import CardSet
from sim.paws.kinds import Buff, Tile
from sim.paws.record import MONSTER_COUNTERS
from sim.paws.rules import PawsRules, PawsSetup
from sim.rng import Rng


@dataclass
class Player:
    """One seat. Lists keep card ids in the order they were gained (hand order is part of the contract)."""
    seat: int
    hp: int
    lives: int
    pos: int = 0                                            # board cell; 0 = Desert
    items: list[int] = field(default_factory=list)          # item card ids in hand
    monsters: list[int] = field(default_factory=list)       # monster card ids owned
    active: list[bool] = field(default_factory=list)        # monsters[i]'s buff works (from the next turn start)
    barricades: int = 0                                     # barricades held, not yet placed
    tiles: list[int] = field(default_factory=lambda: [0, 0, 0, 0])  # Explorer tiles held: mansion, home, chest, forest
    knockout_vp: int = 0                                    # knockouts scored (V3's VP per knockout)
    knockouts: int = 0                                      # times knocked out
    knockouts_dealt: int = 0                                # players this seat knocked out
    protected: bool = False                                 # Smoke Bomb: cannot be attacked until its next turn
    poison_ticks: int = 0                                   # Poison Dart damage still to come at turn starts
    poisoner: int = NOBODY
    snared: list[int] = field(default_factory=list)         # snared[s] = AP this seat loses next turn, from seat s
    # the cards table's counters (sim/paws/record.py): item card id -> times played; monster card id ->
    # one count per MONSTER_COUNTERS entry
    item_plays: dict[int, int] = field(default_factory=dict)
    monster_stats: dict[int, list[int]] = field(default_factory=dict)

    @property
    def alive(self) -> bool:
        return self.lives > 0


EXPLORER_KINDS = (Tile.MANSION, Tile.HOME, Tile.CHEST, Tile.FOREST)  # order of Player.tiles


@dataclass
class Fight:
    """The fight in progress (bots read it in COMBAT_CARD decisions)."""
    kind: str                   # "monster", "invasion" or "raid"
    seats: list[int]            # [seat that started it, opposing seat or NOBODY for a monster]
    roll: int = 0               # rolls made so far
    attacker: int = NOBODY      # seat attacking this roll, or NOBODY when the monster attacks
    monster_hp: int = 0
    bonus: list[int] = field(default_factory=lambda: [0, 0])       # card bonus for the rest of the fight [starter, other]
    roll_bonus: list[int] = field(default_factory=lambda: [0, 0])  # card bonus for the next roll only
    reflect: list[int] = field(default_factory=lambda: [0, 0])     # Revenge Strike armed
    escaped: int = NOBODY       # seat that ran, if any
    monster: str = "monster"    # the monster card's name, as the log and the replay show it


class Game(GameState):
    """All state of one game of Paws in Peril, plus its counters (bots decide through ``ask``/``choose``)."""

    def __init__(self, setup: PawsSetup, rules: PawsRules, cards: CardSet, bots, rng: Rng, log: list | None):
        super().__init__(setup, rules, cards, bots, rng, log)
        self.n = setup.players
        self.radius = 2 if setup.board == "beginner" else rules.explorer_radius
        self.coords, self.nbrs = geometry(self.radius)
        ncells = len(self.coords)
        self.tile = [Tile.EMPTY] * ncells
        self.owner = [NOBODY] * ncells        # home/mansion owner
        self.brick = [NOBODY] * ncells        # looter of a chest/forest, or owner of a claimed building
        self.barricade = [NOBODY] * ncells    # who barricaded the tile
        self.dist: list[list[int]] = []
        self.players = [Player(s, rules.start_hp, rules.lives, snared=[0] * self.n) for s in range(self.n)]
        self.monster_deck: list[int] = []     # top = end of list
        self.item_deck: list[int] = []        # top = end of list
        self.item_discard: list[int] = []
        self.first_seat = 0
        self.round = 0
        self.turns = 0
        self.idle_turns = 0           # turns that ended with no action taken (§3)
        self.seat = NOBODY                    # whose turn it is
        self.ap = 0
        self.building_fights_left = 0         # this turn; large when unlimited
        self.raids_left = 0
        self.fight: Fight | None = None
        self.over = False
        self.winner_seat = NOBODY
        self.winner_team = NOBODY
        self.end_reason = ""
        self.trace: list[list[int]] = []      # VP per seat after each round
        self.building_fights = 0
        self.invasions = 0
        self.raids = 0
        self.items_played = 0

    # -- derived facts -------------------------------------------------------------------------
    def vp(self, seat: int) -> int:
        """§1: one VP per home or mansion owned (plus V3's VP per knockout)."""
        return self.owner.count(seat) + self.players[seat].knockout_vp * self.rules.vp_per_knockout

    def team(self, seat: int) -> int:
        return self.setup.team_of(seat)

    def teammates(self, a: int, b: int) -> bool:
        return self.setup.mode == "teams" and a != b and a % 2 == b % 2

    def opponents(self, a: int, b: int) -> bool:
        return a != b and not self.teammates(a, b)

    def sole_leader(self) -> int:
        """§6.2: the one player with the most VP, or NOBODY on a tie."""
        vps = [self.vp(s) for s in range(self.n)]
        best = max(vps)
        return vps.index(best) if vps.count(best) == 1 else NOBODY

    def buff(self, seat: int, kind: Buff) -> int:
        """Sum of the active buffs of ``kind`` among a seat's monster cards."""
        p = self.players[seat]
        total = 0
        for m, on in zip(p.monsters, p.active):
            card = self.cards.monsters[m]
            if on and card.buff == kind:
                total += card.amount
        return total

    def count_monster(self, seat: int, card: int, counter: int) -> None:
        """One more of MONSTER_COUNTERS[counter] for ``seat`` and monster card ``card`` (the cards table)."""
        stats = self.players[seat].monster_stats.setdefault(card, [0] * len(MONSTER_COUNTERS))
        stats[counter] += 1

    def hand_limit(self, seat: int) -> int:
        return self.rules.hand_limit + self.buff(seat, Buff.HAND)

    def tile_cells(self) -> list[int]:
        return [c for c, t in enumerate(self.tile) if t != Tile.EMPTY]

    def neighbours(self, cell: int) -> list[int]:
        """Cells next to ``cell`` that hold a tile, in direction order."""
        return [m for m in self.nbrs[cell] if m != NO_CELL and self.tile[m] != Tile.EMPTY]

    def board_changed(self) -> None:
        self.dist = distances(self.tile, self.nbrs)

    # -- the event stream (sim/events.py): names in the rulebook's words, and the drawn state ----------
    def at(self, cell: int) -> str:
        """A tile by kind and the cell label the replay shows: "the chest at A3", "the Desert"."""
        if cell == 0:
            return "the Desert"
        return f"the {Tile(self.tile[cell]).name.lower()} at {cell_name(cell)}"

    def team_name(self, team: int) -> str:
        return f"Team {team + 1}"

    def board(self) -> dict:
        n = self.n
        return {"game": "paws", "title": "Paws in Peril", "board": self.setup.board, "mode": self.setup.mode,
                "ruleset": self.rules.ruleset, "radius": self.radius, "coords": [list(c) for c in self.coords],
                "cells": [cell_name(c) for c in range(len(self.coords))],
                "players": [self.seat_name(s) for s in range(n)], "bots": list(self.setup.bots),
                "teams": ([[self.seat_name(s) for s in range(n) if s % 2 == t] for t in (0, 1)]
                          if self.setup.mode == "teams" else []),
                "max_hp": self.rules.max_hp, "lives": self.rules.lives}

    def view(self) -> dict:
        ps = self.players
        f = self.fight
        return {
            "round": self.round, "turn": self.turns, "seat": self.seat, "ap": self.ap if self.seat >= 0 else 0,
            "tile": [Tile(t).name.lower() for t in self.tile], "owner": list(self.owner), "brick": list(self.brick),
            "barricade": list(self.barricade),
            "pos": [p.pos for p in ps], "hp": [p.hp for p in ps], "lives": [p.lives for p in ps],
            "hand": [len(p.items) for p in ps], "barricades": [p.barricades for p in ps],
            "monsters": [[self.cards.monsters[m].name + ("" if on else " (from next turn)")
                          for m, on in zip(p.monsters, p.active)] for p in ps],
            "tiles_held": [list(p.tiles) for p in ps] if self.setup.board == "explorer" else [],
            "vp": [self.vp(s) for s in range(self.n)],
            "team_vp": ([sum(self.vp(s) for s in range(self.n) if s % 2 == t) for t in (0, 1)]
                        if self.setup.mode == "teams" else []),
            "poison": [p.poison_ticks for p in ps], "protected": [p.protected for p in ps],
            "monster_deck": len(self.monster_deck), "item_deck": len(self.item_deck),
            "fight": ({"kind": f.kind, "seats": list(f.seats), "monster": f.monster, "monster_hp": f.monster_hp}
                      if f is not None else None),
            "over": self.over, "winner_seat": self.winner_seat, "winner_team": self.winner_team,
            "end_reason": self.end_reason,
        }
