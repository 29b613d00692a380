"""Tales are Real as a playtest game: the :class:`sim.games.Game` its package registers
(``pyproject.toml``, entry point ``playtest.games: tales``).

Setup values: ``mode`` (standard, 2v2, survive, survive-2v2; it picks the rule preset when no
``rules`` is given and the seats: 2, or 4 in 2 vs. 2), ``people`` (team 0's people, or one per seat)
and ``bots``. Data files: ``creatures`` and ``equipment``. Tables: ``games`` and the optional ``cards``.
"""

from __future__ import annotations

from typing import Any, Mapping

import pyarrow as pa

from sim.bots import bot_specs
from sim.kit import trace, winprob
from sim.games import BatchRequest, BenchPreset, CompareColumns, Game, Match, PausedGames
from sim.params import RuleError
from sim.record_schema import with_data_columns
from sim.tales.bots import MODELS_DIR, ROSTER, WEIGHT_PRESETS_PATH
from sim.tales.bots.features import FEATURES
from sim.tales.bots.heuristic import HeuristicWeights
from sim.tales.cards import CardDataError, TalesCards, load_cards
from sim.tales.kinds import Act, Decision, People
from sim.tales.record import CARD_SCHEMA, COLUMN_DOCS, SCHEMA, cards_table, to_table
from sim.tales.rules import MODES, PEOPLES, PRESETS, TalesRules, TalesSetup, people_of, preset


# a top-level decision's options as the rulebook says them, for measures that name a decision
EQUIP_WORDS = {Act.PASS: "end the equipping", Act.SWAP: "exchange three cards for one", Act.EQUIP: "equip a creature",
               Act.UNEQUIP: "take a card back into the hand"}
DECISION_WORDS = {Decision.RETURN: "put a creature back under the deck", Decision.DISCARD: "discard a card",
                  Decision.ATTACKER: "send a creature into attack mode", Decision.DEFENDER: "defend with a creature",
                  Decision.PROVOKE: "provoke a creature"}


def option_words(pg, option) -> str:
    kind = Decision(pg.asking)
    return EQUIP_WORDS[Act(option[0])] if kind == Decision.EQUIP else DECISION_WORDS[kind]


class Tales(Game):
    """Tales are Real: Animalis vs. Schatten, a card battle of two players or two teams of two."""

    name = "tales"
    title = "Tales are Real: Animalis vs. Schatten"
    rule_presets = PRESETS
    default_preset = "standard"
    preset_note = "default: the --mode's"
    setup_keys = {"mode": f"one of {', '.join(MODES)} (picks the rule preset unless rules are given)",
                  "people": f"team 0's people ({' or '.join(PEOPLES)}; team 1 plays the other), or one per seat",
                  "bots": "one bot spec per seat (random, heuristic, heuristic:aggression=3, "
                          "mcts:iterations=256, flat:rollouts=16), or one for all"}
    data_keys = {"creatures": "creature cards TOML (both peoples)", "equipment": "equipment deck TOML"}
    # no kingmaking table: Tales is always played between two sides (docs/kingmaking.md)
    schemas = {"games": with_data_columns(SCHEMA), "cards": CARD_SCHEMA, trace.TABLE: trace.SCHEMA,
               winprob.TABLE: winprob.SCHEMA}
    column_docs = {**COLUMN_DOCS, trace.TABLE: trace.COLUMN_DOCS, winprob.TABLE: winprob.COLUMN_DOCS}
    table_options = {winprob.TABLE: winprob.resolve_options}           # docs/tension.md "The stored trace"
    bot_weights = HeuristicWeights
    bot_roster = ROSTER
    reference_module = "sim.tales.game"
    features = FEATURES                 # the learned bots' (sim/tales/bots/features.py)
    models_dir = MODELS_DIR             # its shipped models (learned:model=NAME)
    search_bots = True                # core/tales/search.pxi: mcts and flat in the core
    per_seat_columns = ("people", "bots", "champion", "weighted_losses", "destroyed", "survivors", "champion_alive")
    # Victory and Defeat: a destroyed Champion, fewer weighted losses or (Survive!) the last side standing
    # decide a winner; equal losses after the last round are a draw
    end_reasons = {"champion_killed": "winner", "losses": "winner", "draw": "none", "last_standing": "winner"}
    outcome_columns = ("winner_side", "winner_team")
    compare_columns = CompareColumns(
        first_win="winner_team = first_side", winner="winner_team", draw="end_reason = 'draw'",
        unit="CASE WHEN players = 2 THEN 'seat' ELSE 'team' END", units="2", own_rows=("draw",))
    bench_presets = tuple(BenchPreset(f"tales {mode}", None, {}, {"mode": mode}) for mode in MODES)
    bench_profiled = "tales standard"
    # beyond the bench's: Survive! 2 vs. 2 to the last creature, where survive_end decides when a game ends
    # (the generated differential cases play it too)
    differential_setups = (BenchPreset("tales survive-2v2 to the last creature", None, {"champion_death_ends": False},
                                       {"mode": "survive-2v2"}),)
    # one commander against another, with either people (seats alternate them) and both victory rules
    skill_setups = tuple(BenchPreset(f"tales {mode}", None, {}, {"mode": mode}) for mode in ("standard", "survive"))
    configurations = bench_presets      # every mode
    bot_presets_path = WEIGHT_PRESETS_PATH
    core_module = "sim.tales.core_engine"
    seat_word = "Commander"

    def configure(self, rules: str | None, overrides: dict, setup: dict, data: dict,
                  where: str) -> tuple[TalesSetup, TalesRules, TalesCards]:
        mode = setup.get("mode", "standard")
        if mode not in MODES:
            raise RuleError(f"{where}: mode {mode!r} is not allowed; expected one of {', '.join(MODES)}")
        seats = 4 if "2v2" in mode else 2
        s = TalesSetup(mode=mode, people=people_of(setup.get("people"), seats, where=f"{where}: people"),
                       bots=tuple(ROSTER.canonical(b) for b in bot_specs(setup.get("bots"), seats)))
        r = preset(rules or mode, overrides, where)
        cards = load_cards(data.get("creatures"), data.get("equipment"))
        for people in {People[p.upper()] for p in s.people}:
            deck = len(cards.creature_deck(people))
            if deck < r.first_draw:
                raise CardDataError(f"{cards.creatures_path}: {deck} {people.name.lower()} non-Champion cards; "
                                    f"first_draw = {r.first_draw} needs at least that many")
        return s, r, cards

    def setup_values(self, setup: TalesSetup) -> dict:
        return {"mode": setup.mode, "people": list(setup.people), "bots": list(setup.bots)}

    def play_games(self, request: BatchRequest) -> dict[str, pa.Table]:
        if request.engine == "core":
            from sim.tales.core_engine import play_batch_core     # the compiled core, loaded when first played
            return play_batch_core(request)
        from sim.tales.game import play_game                       # the reference engine, likewise
        winprob.refuse_reference(request.match)
        return trace.reference_tables(self, request.match, request.seed, request.start, request.count, play_game,
                                      to_table, cards_table)

    def play_counted(self, match: Match, seed: int, start: int, count: int) -> tuple[dict[str, pa.Table], dict]:
        from sim.tales.core_engine import play_batch_core
        counts: dict = {}
        return play_batch_core(BatchRequest(match, seed, start, count), counts), counts

    def winner(self, record: Mapping[str, Any]) -> int:
        return record["winner_team"]

    def paused_game(self, match: Match) -> PausedGames:
        from core.tales_scenario import PausedGame                # the core's paused games (one memcpy a copy)
        from sim.tales.core_engine import core_inputs
        inputs = core_inputs(match.setup, match.rules, match.data)
        return PausedGames(new=lambda seed, index, stop_at: PausedGame(inputs, seed, index, stop_at),
                           winner=lambda rec: rec["winner_team"], kind=option_words, side_of=lambda seat: seat % 2,
                           sides=2)
