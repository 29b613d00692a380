"""Paws in Peril rule parameters: every number and switch in the rulebook, with the v3 and v4 presets.

Section numbers (§) refer to ``shared/rules/paws-in-peril-v4.txt``; the V3 values come from its
"Changes from V3" table. Board, mode and player count are not rules: they live in ``PawsSetup``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from sim.kit.presets import pick_preset
from sim.params import AtLeast, RuleError, param

BOARDS = ("beginner", "explorer")
# how a combat roll's dice come from the game's random stream (an engine option, not a rule: both are
# fair dice; docs/engine-kit.md): "classic" one draw per die, "table" one draw per four dice
DICE_STREAMS = ("classic", "table")
MODES = ("ffa", "teams")

# where a parameter can change a game (sim.params.param's ``relevant``): §1's targets by mode, board and player
# count, §2.2's tile counts by board and player count
FFA_TARGET = ({"mode": ("ffa",), "board": ("beginner",)}, {"mode": ("ffa",), "players": (3, 4)})
EXPLORER_2P = {"board": ("explorer",), "players": (2,)}
EXPLORER_3_4P = {"board": ("explorer",), "players": (3, 4)}
BEGINNER = {"board": ("beginner",)}


@dataclass(frozen=True)
class PawsRules:
    """One Paws in Peril rule set. Build with :func:`preset` and :func:`sim.params.with_overrides`."""

    ruleset: str = param("v4", "name of the preset this rule set started from", choices=("v3", "v3-ap3", "v4"))
    # §1, §13 Winning
    vp_target: int = param(4, "VP that win at once (free-for-all)", min=1, max=20, cite="§1, §13",
                           relevant=FFA_TARGET)
    vp_target_2p_explorer: int = param(3, "VP that win a 2-player Explorer game", min=1, max=20, cite="§1",
                                       relevant=EXPLORER_2P)
    team_vp_target: int = param(5, "team VP (both partners) that win a Teams game", min=1, max=30, cite="§1",
                                relevant={"mode": ("teams",)})
    vp_per_knockout: int = param(0, "VP scored by knocking out a player in a player fight (V3: 1)", min=0, max=5,
                                 cite="Changes from V3")
    # §2 Setting up
    lives: int = param(2, "lives each player starts with", min=1, max=9, cite="§2.4")
    start_hp: int = param(10, "HP each player starts with", min=1, max=30, cite="§2.4")
    max_hp: int = param(12, "HP can never go above this", min=1, max=30, cite="§2.4, §9")
    respawn_hp: int = param(10, "HP after coming back from a knockout", min=1, max=30, cite="§8.4")
    starting_items: int = param(3, "item cards each player starts with", min=0, max=10, cite="§2.4")
    respawn_items: int = param(3, "new item cards after a knockout", min=0, max=10, cite="§8.4")
    # §3 Your turn
    ap_per_turn: int = param(5, "action points at the start of each turn (V3 ambiguity: 5 or 3)", min=1, max=20,
                             cite="§3, Changes from V3")
    building_fights_per_turn: int = param(1, "home/mansion fights (loot or invasion) a turn; 0 = no limit (V3)",
                                          min=0, max=10, cite="§3")
    raids_per_turn: int = param(1, "raids a player may start each turn", min=0, max=10, cite="§3, §7")
    desert_heal: int = param(2, "HP healed when a turn starts on the Desert (V3: 0)", min=0, max=30, cite="§3, §9")
    # §4 Tiles and looting
    chest_cards: int = param(3, "item cards drawn when looting a chest", min=0, max=10, cite="§4")
    forest_barricades: int = param(1, "barricades taken when looting a forest", min=0, max=5, cite="§4")
    mansion_monsters: int = param(2, "monsters fought one after the other to claim a mansion", min=1, max=4,
                                  cite="§4")
    # §5 Monsters
    monster_dice: int = param(4, "dice a monster rolls (V3: 3)", min=1, max=8, cite="§5, §12")
    mansion_monster_hp_bonus: int = param(1, "extra HP of each monster in a mansion (V3: 0)", min=0, max=10,
                                          cite="§5")
    # §6 Home invasion, §7 Raids
    defender_edge: int = param(1, "added every roll by the side that did not start a player fight or invasion "
                                  "(V3: 0)", min=0, max=5, cite="§6.2, §7")
    leader_rule: bool = param(True, "a monster defending the sole VP leader's home gets no defender's edge",
                              cite="§6.2", relevant={"defender_edge": AtLeast(1)})
    raid_rolls: int = param(3, "rolls in a raid; 0 = fight to a knockout (V3)", min=0, max=20, cite="§7")
    raid_grabs_cards: bool = param(True, "after each raid roll the higher score takes a random item card (V3: off)",
                                   cite="§7")
    # §8 Knockouts
    knockout_cards_taken: int = param(1, "cards the player who knocked you out takes (V3: 3)", min=0, max=10,
                                      cite="§8.2")
    keep_one_monster: bool = param(True, "a knocked-out player with a life left keeps one monster card (V3: off)",
                                   cite="§8.3")
    invasion_knockout_scores: bool = param(True, "an owner who knocks out an invader scores vp_per_knockout too "
                                                 "(V3 \"A knockout scores 1 VP\"); off: only raids score it",
                                           cite="§6.4, §8.2, Changes from V3",
                                           relevant={"vp_per_knockout": AtLeast(1)})
    knockout_cancels_effects_on_victim: bool = param(False, "a knockout also ends the Snares and Poison Dart ticks "
                                                            "played on the victim (the book: only the Snares the "
                                                            "victim played stop)", cite="§8.5, §10")
    out_of_game_takes_card: bool = param(False, "a player already out of the game still takes a card (and any "
                                                "knockout VP) when their earlier card or reflected damage knocks "
                                                "someone out", cite="§8.2, §8.7, §10")
    # §10 Item cards
    hand_limit: int = param(5, "item cards a player may hold", min=1, max=20, cite="§10")
    item_deck: str = param("v4", "which item deck of the card data is shuffled (V3: 70 copies, V4: 78)",
                           choices=("v3", "v4"), cite="§10, Changes from V3")
    unruled_cards: bool = param(True, "include stand-in effects for the six cards with no rule yet",
                                cite="Open points")
    # §12 Combat
    player_dice: int = param(4, "dice a player rolls in a fight", min=1, max=8, cite="§12.1")
    scored_dice: int = param(2, "highest dice that make a side's score", min=1, max=8, cite="§12.2")
    dice_stream: str = param("classic", "how a combat roll draws its dice from the random stream: classic = one "
                                        "draw per die; table = one draw per four dice (the same fair dice, other "
                                        "games, a faster core)", choices=DICE_STREAMS, cite="engine option",
                             option=True)
    # §2 Building the board
    beginner_mansions: int = param(4, "mansions on the Beginner board", min=0, max=18, cite="§2.2", relevant=BEGINNER)
    beginner_homes: int = param(4, "homes on the Beginner board", min=0, max=18, cite="§2.2", relevant=BEGINNER)
    beginner_chests: int = param(6, "chests on the Beginner board", min=0, max=18, cite="§2.2", relevant=BEGINNER)
    beginner_forests: int = param(4, "forests on the Beginner board", min=0, max=18, cite="§2.2", relevant=BEGINNER)
    explorer_mansions_2p: int = param(1, "mansions each player holds, 2-player Explorer", min=0, max=6, cite="§2.2",
                                      relevant=EXPLORER_2P)
    explorer_homes_2p: int = param(1, "homes each player holds, 2-player Explorer", min=0, max=6, cite="§2.2",
                                   relevant=EXPLORER_2P)
    explorer_chests_2p: int = param(2, "chests each player holds, 2-player Explorer", min=0, max=6, cite="§2.2",
                                    relevant=EXPLORER_2P)
    explorer_forests_2p: int = param(2, "forests each player holds, 2-player Explorer", min=0, max=6, cite="§2.2",
                                     relevant=EXPLORER_2P)
    explorer_mansions: int = param(1, "mansions each player holds, 3-4 player Explorer", min=0, max=6, cite="§2.2",
                                   relevant=EXPLORER_3_4P)
    explorer_homes: int = param(1, "homes each player holds, 3-4 player Explorer", min=0, max=6, cite="§2.2",
                                relevant=EXPLORER_3_4P)
    explorer_chests: int = param(2, "chests each player holds, 3-4 player Explorer", min=0, max=6, cite="§2.2",
                                 relevant=EXPLORER_3_4P)
    explorer_forests: int = param(1, "forests each player holds, 3-4 player Explorer", min=0, max=6, cite="§2.2",
                                  relevant=EXPLORER_3_4P)
    explorer_radius: int = param(4, "Explorer tiles may be placed at most this many steps from the Desert",
                                 min=1, max=6, cite="interpretation", relevant={"board": ("explorer",)})
    # Open points: round limit, and the engine's safety caps
    round_limit: int = param(0, "after this round the most VP wins, a tie is a draw; 0 = no limit", min=0, max=500,
                             cite="Open points")
    max_rounds: int = param(100, "safety cap: with no winner by this round the game is 'stalled'", min=1, max=500,
                            cite="interpretation")
    max_actions_per_turn: int = param(64, "safety cap on actions (free ones included) in one turn", min=1, max=1000,
                                      cite="interpretation")
    max_fight_rolls: int = param(100, "safety cap on rolls in one fight; the fight then ends with no knockout",
                                 min=1, max=10000, cite="interpretation")

    def check(self, where: str = "rules") -> None:
        """Cross-field checks that a single field's range cannot express."""
        beginner = self.beginner_mansions + self.beginner_homes + self.beginner_chests + self.beginner_forests
        if beginner != 18:
            raise RuleError(f"{where}: beginner_mansions + beginner_homes + beginner_chests + beginner_forests "
                            f"must be 18 (the two rings around the Desert), got {beginner}")
        if self.start_hp > self.max_hp or self.respawn_hp > self.max_hp:
            raise RuleError(f"{where}: start_hp and respawn_hp must not exceed max_hp ({self.max_hp})")
        if self.scored_dice > min(self.player_dice, self.monster_dice):
            raise RuleError(f"{where}: scored_dice ({self.scored_dice}) must not exceed player_dice and monster_dice")
        if self.round_limit > self.max_rounds:
            raise RuleError(f"{where}: round_limit ({self.round_limit}) must not exceed max_rounds ({self.max_rounds})")

    def vp_goal(self, board: str, players: int) -> int:
        """The free-for-all VP target for this board and player count (§1)."""
        if board == "explorer" and players == 2:
            return self.vp_target_2p_explorer
        return self.vp_target

    def explorer_tiles(self, players: int) -> tuple[int, int, int, int]:
        """(mansions, homes, chests, forests) each player holds on the Explorer board (§2.2)."""
        if players == 2:
            return (self.explorer_mansions_2p, self.explorer_homes_2p, self.explorer_chests_2p,
                    self.explorer_forests_2p)
        return (self.explorer_mansions, self.explorer_homes, self.explorer_chests, self.explorer_forests)


V4 = PawsRules()

# "Changes from V3": each V3 row of the table, applied to the V4 defaults.
V3 = dataclasses.replace(
    V4,
    ruleset="v3",
    monster_dice=3,                # Monsters roll 3 dice
    mansion_monster_hp_bonus=0,    # (no +1 HP in mansions)
    building_fights_per_turn=0,    # Loot as many homes as you like in a turn
    raid_rolls=0,                  # Fight another player to a knockout
    raid_grabs_cards=False,
    defender_edge=0,               # The side that is attacked has no edge
    leader_rule=False,
    desert_heal=0,                 # No way to heal but cards
    vp_per_knockout=1,             # A knockout scores 1 VP; the killer takes 3 cards
    knockout_cards_taken=3,
    keep_one_monster=False,
    vp_target=5,                   # 5 VP wins (7 in Teams)
    vp_target_2p_explorer=5,
    team_vp_target=7,
    item_deck="v3",                # 62 item cards (70 copies)
    ap_per_turn=5,                 # AP: the AP section's 5 (the Beginner board card says 3: preset v3-ap3)
)
V3_AP3 = dataclasses.replace(V3, ruleset="v3-ap3", ap_per_turn=3)

PRESETS: dict[str, PawsRules] = {"v3": V3, "v3-ap3": V3_AP3, "v4": V4}


def preset(name: str, overrides: dict | None = None, where: str = "rules") -> PawsRules:
    """A named preset (``v3``, ``v3-ap3``, ``v4``) with optional validated overrides."""
    return pick_preset(PRESETS, name, overrides, where, title="Paws in Peril")


@dataclass(frozen=True)
class PawsSetup:
    """What is played besides the rules: board, mode, player count and one bot per seat."""

    board: str = "beginner"
    mode: str = "ffa"
    players: int = 4
    bots: tuple[str, ...] = ("heuristic",) * 4

    def __post_init__(self):
        if self.board not in BOARDS:
            raise RuleError(f"board {self.board!r} is not allowed; expected one of {', '.join(BOARDS)}")
        if self.mode not in MODES:
            raise RuleError(f"mode {self.mode!r} is not allowed; expected one of {', '.join(MODES)}")
        if self.players not in (2, 3, 4):
            raise RuleError(f"players = {self.players} is not allowed; expected 2, 3 or 4")
        if self.mode == "teams" and self.players != 4:
            raise RuleError("mode teams needs players = 4 (two teams of two, partners opposite)")
        if len(self.bots) != self.players:
            raise RuleError(f"bots: {len(self.bots)} given for {self.players} players; give one per seat")

    def team_of(self, seat: int) -> int:
        """Team of a seat in Teams mode (partners sit opposite: seats 0+2 and 1+3); -1 in free-for-all."""
        return seat % 2 if self.mode == "teams" else -1
