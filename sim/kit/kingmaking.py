"""Kingmaking, one game at a time: can a seat that can no longer win decide who does? (docs/kingmaking.md).

A game of three or more sides is replayed decision by decision in the engine core (the game's
:class:`sim.games.PausedGames`). Before each decision the oracle, a learned model's value head (each seat's
chance to win from what every player can see), rates every seat; a seat whose chance falls under the
threshold is **out** from then on. At every later decision of an out seat, each of its options is taken in
turn on a copy of the game and the copy played to the end by the same bots on the same random stream (common
random numbers). The decision **makes a king** when two of its options end differently for the other seats
(different winners among them, or a winner and none); an option with which the out seat itself wins is a
**self-rescue**, counted apart (the oracle called it out too soon).

That count also counts chance: after another choice the dice fall differently. So each such decision is also
played against chance, paired: for each of its K options a copy gets its own **re-deal** (the cards the out
seat cannot see dealt again and the game's generator reseeded, ``redeal`` and ``reseed``), and on that copy
the option is taken (the **dealt options**) and, on a second copy of the same re-deal, the seat's own bot
decides (the **chance** playouts). The same rule (two different winners among the other sides) over each set
of K gives the decision's two verdicts; where the choice does not matter the two sets are alike in law, so
the options' excess over chance (measures/kingmaking/answer.py) reads zero there, and the share of decisions
whose choice decides the winner where it does.

This module only plays games, so it sits beside the engines: a sweep asks for its table with
``tables = ["games", "kingmaking"]`` (options in the spec's ``[kingmaking]``: ``threshold``, ``oracle``), each
game's plugin declares :data:`SCHEMA` and adds :func:`table` to its batches; ``cluster/`` only orchestrates and
``measures/kingmaking/answer.py`` answers from the folder.
"""

from __future__ import annotations

import hashlib
import math
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

import pyarrow as pa

from sim.kit.learned import resolve_model, seat_chances, shipped_models
from sim.params import RuleError

TABLE = "kingmaking"           # the result table: one row per game
THRESHOLD = 0.05               # default: a seat is out once the oracle rates its chance under this
OPTIONS = {"threshold": "a chance in (0, 1): a seat is out once the oracle rates it under this (default 0.05)",
           "oracle": "the learned model whose value head rates the seats: a shipped name, NAME@DIGEST or a .json "
                     "file (default: the oracle the game's models index names)"}

SCHEMA = pa.schema([
    pa.field("seed", pa.uint64(), nullable=False),
    pa.field("game_index", pa.int64(), nullable=False),
    pa.field("oracle", pa.string(), nullable=False),
    pa.field("threshold", pa.float64(), nullable=False),
    pa.field("winner", pa.int8(), nullable=False),
    pa.field("decisions", pa.int32(), nullable=False),
    pa.field("seat_out", pa.bool_(), nullable=False),
    pa.field("out_seats", pa.list_(pa.int8()), nullable=False),
    pa.field("out_at", pa.list_(pa.int32()), nullable=False),
    pa.field("out_decisions", pa.int32(), nullable=False),
    pa.field("king_decisions", pa.int32(), nullable=False),
    pa.field("king", pa.bool_(), nullable=False),
    pa.field("king_at", pa.list_(pa.int32()), nullable=False),
    pa.field("playouts", pa.int32(), nullable=False),
    pa.field("self_rescues", pa.int32(), nullable=False),
    pa.field("king_kinds", pa.list_(pa.string()), nullable=False),
    pa.field("dealt_king_decisions", pa.int32(), nullable=False),
    pa.field("dealt_king_at", pa.list_(pa.int32()), nullable=False),
    pa.field("chance_king_decisions", pa.int32(), nullable=False),
    pa.field("chance_king_at", pa.list_(pa.int32()), nullable=False),
    pa.field("chance_playouts", pa.int32(), nullable=False),
])
CHANCE_COLUMNS = ("dealt_king_decisions", "dealt_king_at", "chance_king_decisions", "chance_king_at",
                  "chance_playouts")     # added with the chance comparison: a folder without them is older
CHANCE = 1                     # the chance comparison's version, in the resolved options (so in the spec digest)
COLUMN_DOCS = {
    "seed": "master seed of the batch",
    "game_index": "game number within the batch",
    "oracle": "the learned model whose value head rated the seats, as NAME@DIGEST",
    "threshold": "a seat is out once the oracle rates its chance to win under this",
    "winner": "the side that won the game as played (a seat, or a team in a team mode); -1: none",
    "decisions": "top-level decisions of the game as played",
    "seat_out": "true when some seat went out (its chance under the threshold) before the end",
    "out_seats": "the seats that went out, in the order they did (seat 0 is the book's Player 1)",
    "out_at": "for each of out_seats, the decision (top-level decisions taken before it) at which it went out",
    "out_decisions": "decisions of seats that were out: each examined with every option played to the end",
    "king_decisions": "of those, the decisions that made a king: two options end with different winners among the "
                      "other sides (or one with a winner and one with none)",
    "king": "true when some decision of an out seat made a king: a kingmaker game",
    "king_at": "the decisions (top-level decisions taken before each) that made a king",
    "playouts": "copies played to the end: one per option of each out_decisions",
    "self_rescues": "options with which the out seat itself would have won (the oracle called it out too soon)",
    "king_kinds": "at each kingmaking decision, every option that hands the win to another side than the game's "
                  "own winner, in the rulebook's words ('raid', 'end the turn', ...); repeated per option",
    "dealt_king_decisions": "of out_decisions, those whose options, each taken on a copy with its own re-deal of "
                            "what the out seat cannot see and of the dice, end with two different winners among "
                            "the other sides",
    "dealt_king_at": "the decisions counted in dealt_king_decisions",
    "chance_king_decisions": "of out_decisions, those where the out seat's own choice (its bot deciding) on the same "
                             "re-deals, one per option, ends with two different winners among the other sides: "
                             "chance alone",
    "chance_king_at": "the decisions counted in chance_king_decisions",
    "chance_playouts": "copies played to the end for the chance comparison: two per option of each out decision "
                       "with two or more options",
}


def paused_games(game, match) -> Any:
    """The match's paused games, refusing (RuleError) one that kingmaking cannot apply to."""
    paused = game.paused_game(match)
    if paused is None:
        raise RuleError(f"{game.name}: kingmaking replays paused games of the engine core, which this game's core "
                        "does not offer")
    if paused.sides < 3:
        raise RuleError(f"{game.name} as set up is played between {paused.sides} sides: kingmaking needs 3 or more "
                        "(a player who cannot win can then decide which of the others does)")
    return paused


def check_threshold(value: Any, where: str) -> float:
    """A threshold: a finite number strictly between 0 and 1, else a one-line RuleError."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or not 0.0 < value < 1.0:
        raise RuleError(f"{where} {value!r} is not allowed; expected a chance between 0 and 1")
    return float(value)


def oracle_model(game, ref: str | None, where: str = "oracle"):
    """The oracle named ``ref`` (a shipped name, NAME@DIGEST or a .json file; None: the one the game's models
    index names, sim.kit.winprob.default_oracle)."""
    from sim.kit.winprob import default_oracle
    names = shipped_models(game.models_dir)
    if game.features is None or (ref is None and not names):
        raise RuleError(f"{game.name} ships no learned model to rate the seats' chances; give an oracle file")
    if not isinstance(ref, (str, type(None))):
        raise RuleError(f"{where} = {ref!r} is not allowed; expected a model name or a .json file")
    ref = ref or default_oracle(game)
    return resolve_model(game.models_dir, game.features, ref, f"{where} {ref}")


def resolve_options(game, match, options: Mapping[str, Any], where: str) -> tuple[tuple[str, Any], ...]:
    """The kingmaking table's options as a match keeps them, (("oracle", "NAME@DIGEST"), ("threshold", x)),
    after refusing (one line) a match it cannot apply to, an unknown key, a bad threshold or oracle."""
    paused_games(game, match)
    for key in options:
        if key not in OPTIONS:
            raise RuleError(f"{where}: [{TABLE}] unknown key {key!r}; valid: {', '.join(OPTIONS)}")
    threshold = check_threshold(options.get("threshold", THRESHOLD), f"{where}: [{TABLE}] threshold =")
    ref = options.get("oracle")
    model = oracle_model(game, ref, f"{where}: [{TABLE}] oracle")
    name = ref.partition("@")[0] if isinstance(ref, str) else model.name
    if name.endswith(".json") or "/" in name:          # a file: by its full path, so a worker finds it
        name = str(Path(name).resolve())
    return (("chance", CHANCE), ("oracle", f"{name}@{model.digest}"), ("threshold", threshold))


@lru_cache(maxsize=8)
def oracle_value(game_name: str, oracle: str):
    """The oracle's value head as seat_chances takes it: a linear head's weights, or a network model whole."""
    from sim.games import GAMES
    game = GAMES[game_name]
    model = oracle_model(game, oracle)
    return model if model.hidden else tuple(model.value)


def deal_seed(seed: int, index: int, decision: int, k: int) -> int:
    """The 64-bit seed of re-deal ``k`` at ``decision`` of game ``index`` of master seed ``seed``."""
    key = f"kingmaking-chance {seed} {index} {decision} {k}".encode()
    return int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "little")


def dealt(pg, seat: int, seed: int):
    """A copy of paused game ``pg`` with what ``seat`` cannot see re-dealt and the dice reseeded from ``seed``."""
    c = pg.copy()
    c.redeal(seat, seed)
    c.reseed(seed)
    return c


def changes_winner(winners: list[int], mine: int) -> bool:
    """Two of ``winners`` differ among the sides other than ``mine`` (another winner, or one and none)."""
    return len({w for w in winners if w != mine}) > 1


def against_chance(games, pg, seat: int, n_options: int, seed: int, index: int) -> tuple[bool, bool]:
    """At ``pg`` (paused at a decision of out seat ``seat``): (the dealt options change the winner, chance does).
    Option k is taken on a copy with re-deal k; the seat's own bot decides on a second copy of re-deal k."""
    mine = games.side_of(seat)
    options, own = [], []
    for k in range(n_options):
        s = deal_seed(seed, index, pg.decisions, k)
        c = dealt(pg, seat, s)
        c.take(k)
        c.play_on(-1)
        options.append(games.winner(c.record()))
        c = dealt(pg, seat, s)
        c.play_on(-1)
        own.append(games.winner(c.record()))
    return changes_winner(options, mine), changes_winner(own, mine)


def game_row(games, value, threshold: float, seed: int, index: int, oracle: str = "") -> dict:
    """One game's row (:data:`SCHEMA`): ``games`` a :class:`sim.games.PausedGames` (or anything with its
    ``new``, ``winner``, ``kind`` and ``side_of``; its paused games with ``redeal`` and ``reseed``), ``value``
    the oracle's value-head weights."""
    pg = games.new(seed, index, 0)
    final = pg.copy()
    final.play_on(-1)
    actual = games.winner(final.record())
    out_seats: list[int] = []
    out_at: list[int] = []
    king_at: list[int] = []
    kinds: list[str] = []
    dealt_at: list[int] = []
    chance_at: list[int] = []
    out_decisions = playouts = rescues = chance_playouts = 0
    while pg.paused:
        seat = pg.seat
        _, seats = pg.learned_features()
        p = seat_chances(seats, value)
        for s in range(len(p)):
            if p[s] < threshold and s not in out_seats:       # out from then on
                out_seats.append(s)
                out_at.append(pg.decisions)
        if seat in out_seats:
            options = pg.options()
            winners = []
            for k in range(len(options)):
                c = pg.copy()
                c.take(k)
                c.play_on(-1)
                winners.append(games.winner(c.record()))
            playouts += len(options)
            out_decisions += 1
            mine = games.side_of(seat)
            rescues += sum(w == mine for w in winners)
            if changes_winner(winners, mine):
                king_at.append(pg.decisions)
                kinds += [games.kind(pg, options[k]) for k, w in enumerate(winners)   # those handing the win on
                          if w != mine and w != actual]
            if len(options) > 1:                       # one option: neither set can change the winner
                by_options, by_chance = against_chance(games, pg, seat, len(options), seed, index)
                chance_playouts += 2 * len(options)
                if by_options:
                    dealt_at.append(pg.decisions)
                if by_chance:
                    chance_at.append(pg.decisions)
        pg.play_on(pg.decisions + 1)
    return {"seed": seed, "game_index": index, "oracle": oracle, "threshold": threshold, "winner": actual,
            "decisions": final.decisions, "seat_out": bool(out_seats), "out_seats": out_seats, "out_at": out_at,
            "out_decisions": out_decisions, "king_decisions": len(king_at), "king": bool(king_at),
            "king_at": king_at, "playouts": playouts, "self_rescues": rescues, "king_kinds": kinds,
            "dealt_king_decisions": len(dealt_at), "dealt_king_at": dealt_at,
            "chance_king_decisions": len(chance_at), "chance_king_at": chance_at, "chance_playouts": chance_playouts}


def table(match, seed: int, start: int, count: int, engine: str = "core") -> pa.Table:
    """The kingmaking rows of games ``start .. start+count-1`` of ``match`` (its options as resolved)."""
    from sim.games import EngineError
    if engine != "core":
        raise EngineError(f"the {TABLE} table replays the engine core's paused games; engine = {engine} has none "
                          "(use engine = core)")
    opts = dict(dict(match.options).get(TABLE, ()))
    game = match.definition
    games = paused_games(game, match)
    value = oracle_value(game.name, opts["oracle"])
    rows = [game_row(games, value, opts["threshold"], seed, i, opts["oracle"]) for i in range(start, start + count)]
    return pa.Table.from_pylist(rows, schema=SCHEMA)


def with_table(match, seed: int, start: int, count: int, engine: str, tables: dict[str, pa.Table]) -> dict:
    """``tables`` with the kingmaking table added where ``match`` asks for it (a game plugin's play_games)."""
    if TABLE in match.tables:
        tables = {**tables, TABLE: table(match, seed, start, count, engine)}
    return tables
