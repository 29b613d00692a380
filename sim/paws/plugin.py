"""Paws in Peril as a playtest game: the :class:`sim.games.Game` its package registers
(``pyproject.toml``, entry point ``playtest.games: paws``)."""

from __future__ import annotations

from typing import Any, Mapping

import pyarrow as pa

from sim.bots import bot_specs
from sim.kit import kingmaking, trace, winprob
from sim.games import BatchRequest, BenchPreset, CompareColumns, Game, Match, PausedGames
from sim.params import RuleError
from sim.paws.bots import MODELS_DIR, ROSTER, WEIGHT_PRESETS_PATH
from sim.paws.bots.features import FEATURES
from sim.paws.bots.heuristic import HeuristicWeights
from sim.paws.cards import CardSet, load_cards
from sim.paws.kinds import Action
from sim.paws.record import CARD_SCHEMA, COLUMN_DOCS, SCHEMA, cards_table, to_table
from sim.paws.rules import BOARDS, MODES, PRESETS, PawsRules, PawsSetup, preset
from sim.record_schema import with_data_columns


def _players(value: Any, where: str) -> int:
    try:
        if isinstance(value, bool) or isinstance(value, float) and not value.is_integer():
            raise ValueError
        n = int(value)
    except (TypeError, ValueError, OverflowError):
        n = None
    if n not in (2, 3, 4):      # checked before anything is sized by it (one bot spec per seat)
        raise RuleError(f"{where}: players = {value!r} is not allowed; expected 2, 3 or 4") from None
    return n


# the turn actions (§3) as the rulebook says them, for measures that name a decision
ACTION_WORDS = {Action.END_TURN: "end the turn", Action.MOVE: "move", Action.LOOT: "loot", Action.BUY: "buy",
                Action.RAID: "raid", Action.INVADE: "invade", Action.BARRICADE: "barricade",
                Action.PLACE_TILE: "place a tile", Action.PLAY_ITEM: "play an item card"}


class Paws(Game):
    """Paws in Peril: 2-4 players (or two teams of two) race for VP on the Beginner or Explorer board."""

    name = "paws"
    title = "Paws in Peril"
    default = True                    # the first game playtest had: suites that name no game play it
    rule_presets = PRESETS
    default_preset = "v4"
    preset_note = "default v4"
    setup_keys = {"board": f"one of {', '.join(BOARDS)} (default {BOARDS[0]})",
                  "mode": f"one of {', '.join(MODES)} (default {MODES[0]})",
                  "players": "2, 3 or 4 (teams: 4; default 4)",
                  "bots": "one bot spec per seat (random, heuristic, heuristic:aggression=3, "
                          "mcts:iterations=256, flat:rollouts=16), or one for all"}
    data_keys = {"items": "item deck TOML", "monsters": "monster deck TOML"}
    schemas = {"games": with_data_columns(SCHEMA), "cards": CARD_SCHEMA, trace.TABLE: trace.SCHEMA,
               kingmaking.TABLE: kingmaking.SCHEMA, winprob.TABLE: winprob.SCHEMA}
    column_docs = {**COLUMN_DOCS, trace.TABLE: trace.COLUMN_DOCS, kingmaking.TABLE: kingmaking.COLUMN_DOCS,
                   winprob.TABLE: winprob.COLUMN_DOCS}
    table_options = {kingmaking.TABLE: kingmaking.resolve_options,     # docs/kingmaking.md
                     winprob.TABLE: winprob.resolve_options}           # docs/tension.md "The stored trace"
    bot_weights = HeuristicWeights
    bot_roster = ROSTER
    reference_module = "sim.paws.game"
    search_bots = True                # core/paws/search.pxi: mcts and flat in the core
    per_seat_columns = ("bots", "vp", "buildings", "lives_left", "knockouts", "knockouts_dealt", "vp_trace")
    # §13: a VP target or the last player with lives left wins; the round_limit rule ends a game with its
    # VP leader, or a tie; a game still going after max_rounds has stalled, with no winner
    end_reasons = {"vp": "winner", "last_alive": "winner", "round_limit": "either", "stalled": "none"}
    outcome_columns = ("winner_seat", "winner_team")
    compare_columns = CompareColumns(
        first_win="CASE WHEN mode = 'teams' THEN winner_team = first_seat % 2 ELSE winner_seat = first_seat END",
        winner="CASE WHEN mode = 'teams' THEN winner_team ELSE winner_seat END",
        # a round-limit end with a tie for most VP; a stalled game is counted as stalled, not as a draw
        draw="winner_seat = -1 AND winner_team = -1 AND end_reason = 'round_limit'",
        unit="CASE WHEN mode = 'teams' THEN 'team' ELSE 'seat' END",
        units="CASE WHEN mode = 'teams' THEN 2 ELSE players END",
        own_rows=("stalled",), stall_reason="stalled", knockouts="list_sum(knockouts)")
    # v4 and v3 on both boards with 4 and 2 players, and Teams on Beginner
    bench_presets = tuple(
        [BenchPreset(f"{rules} {board} {players}p", rules, {}, {"board": board, "players": players})
         for rules in ("v4", "v3") for board in BOARDS for players in (4, 2)]
        + [BenchPreset(f"{rules} beginner teams", rules, {}, {"board": "beginner", "mode": "teams"})
           for rules in ("v4", "v3")])
    bench_profiled = "v4 beginner 4p"
    # beyond the bench's: three players on either board and Teams on the Explorer board, where §1's VP target
    # and §2.2's tile counts take other branches (the generated differential cases play these too)
    differential_setups = (BenchPreset("v4 beginner 3p", "v4", {}, {"board": "beginner", "players": 3}),
                           BenchPreset("v3 explorer 3p", "v3", {}, {"board": "explorer", "players": 3}),
                           BenchPreset("v4 explorer teams", "v4", {}, {"board": "explorer", "mode": "teams"}))
    bench_engine_options = {"dice_stream=table": {"dice_stream": "table"}}
    # the default rules on both boards, four players: a bot's skill against three others
    skill_setups = tuple(BenchPreset(f"v4 {board} 4p", "v4", {}, {"board": board, "players": 4}) for board in BOARDS)
    # v4 and v3, both boards (§2), four, three and two players and Teams (§1)
    configurations = tuple(BenchPreset(f"{rules} {board} {label}", rules, {}, {"board": board, **setup})
                           for rules in ("v4", "v3") for board in BOARDS
                           for label, setup in (("4p", {"players": 4}), ("3p", {"players": 3}),
                                                ("2p", {"players": 2}), ("teams", {"mode": "teams"})))
    bot_presets_path = WEIGHT_PRESETS_PATH
    core_module = "sim.paws.core_engine"
    features = FEATURES                 # the learned bots' (sim/paws/bots/features.py)
    models_dir = MODELS_DIR             # its shipped models (learned:model=NAME)

    def configure(self, rules: str | None, overrides: dict, setup: dict, data: dict,
                  where: str) -> tuple[PawsSetup, PawsRules, CardSet]:
        players = _players(setup.get("players", 4), where)
        s = PawsSetup(board=setup.get("board", "beginner"), mode=setup.get("mode", "ffa"), players=players,
                      bots=tuple(ROSTER.canonical(b) for b in bot_specs(setup.get("bots"), players)))
        return s, preset(rules or self.default_preset, overrides, where), load_cards(data.get("items"),
                                                                                    data.get("monsters"))

    def setup_values(self, setup: PawsSetup) -> dict:
        return {"board": setup.board, "mode": setup.mode, "players": setup.players, "bots": list(setup.bots)}

    def play_games(self, request: BatchRequest) -> dict[str, pa.Table]:
        match, seed, start, count, engine = (request.match, request.seed, request.start, request.count,
                                             request.engine)
        if engine == "core":
            from sim.paws.core_engine import play_batch_core     # the compiled core, loaded when first played
            return kingmaking.with_table(match, seed, start, count, engine, self._tables(play_batch_core(request)))
        from sim.paws.game import play_game                       # the reference engine, likewise
        winprob.refuse_reference(match)
        return kingmaking.with_table(match, seed, start, count, engine, trace.reference_tables(
            self, match, seed, start, count, play_game, to_table, cards_table))

    def play_counted(self, match: Match, seed: int, start: int, count: int) -> tuple[dict[str, pa.Table], dict]:
        from sim.paws.core_engine import play_batch_core
        counts: dict = {}
        return self._tables(play_batch_core(BatchRequest(match, seed, start, count), counts)), counts

    @staticmethod
    def _tables(out) -> dict[str, pa.Table]:
        return out if isinstance(out, dict) else {"games": out}

    def winner(self, record: Mapping[str, Any]) -> int:
        return record["winner_team"] if record["mode"] == "teams" else record["winner_seat"]

    def paused_game(self, match: Match) -> PausedGames:
        from core.paws_scenario import PausedGame                # the core's paused games (one memcpy a copy)
        from sim.paws.core_engine import core_inputs
        inputs = core_inputs(match.setup, match.rules, match.data)
        teams = match.setup.mode == "teams"
        return PausedGames(new=lambda seed, index, stop_at: PausedGame(inputs, seed, index, stop_at),
                           winner=lambda rec: rec["winner_team"] if teams else rec["winner_seat"],
                           kind=lambda pg, option: ACTION_WORDS[Action(option[0])],
                           side_of=(lambda seat: seat % 2) if teams else (lambda seat: seat),
                           sides=2 if teams else match.setup.players)

    def result_line(self, record: Mapping[str, Any]) -> str:
        return f"{super().result_line(record)}, VP {record['vp']}"

    def columns_note(self) -> str:
        return ("Lists in the record (vp, bots, buildings, ...) hold one value per seat, seat 0 first, and SQL "
                "indexes them from 1: vp[1] is seat 0's VP, the winner's VP is vp[winner_seat + 1], and "
                "vp_trace[r][s + 1] is seat s's VP after round r.")
