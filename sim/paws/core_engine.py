"""Drive the Cython engine core: validated parameters in, an Arrow table with the record schema out."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from sim.games import EngineError
from sim.params import as_dict
from sim.paws.board import geometry
from sim.paws.bots import parse_bot
from sim.paws.bots.heuristic import HeuristicBot
from sim.paws.cards import CardSet
from sim.paws.record import SCHEMA
from sim.paws.rules import PawsRules, PawsSetup

NOT_IN_CORE = ("ruleset", "item_deck")   # strings: resolved before the core (the deck is passed as card ids)


class CoreError(EngineError):
    """The core could not play a game (an option list overflowed its fixed capacity)."""


def core_inputs(setup: PawsSetup, rules: PawsRules, cards: CardSet) -> dict:
    """Everything the core needs, as plain ints and lists (after validation by the frozen objects)."""
    bots = []
    for spec in setup.bots:
        bot = parse_bot(spec)
        if isinstance(bot, HeuristicBot):
            bots.append((1, as_dict(bot.w)))
        else:
            bots.append((0, {}))
    radius = 2 if setup.board == "beginner" else rules.explorer_radius
    _, nbrs = geometry(radius)
    return dict(
        rules={k: int(v) for k, v in as_dict(rules).items() if k not in NOT_IN_CORE},
        explorer=setup.board == "explorer", teams=setup.mode == "teams", players=setup.players, bots=bots,
        items=[(int(c.timing), int(c.effect), c.amount, c.turns) for c in cards.items],
        monsters=[(c.hp, int(c.buff), c.amount) for c in cards.monsters],
        item_deck=cards.item_deck(rules.item_deck, rules.unruled_cards), monster_deck=cards.monster_deck(),
        nbrs=[list(n) for n in nbrs])


def _seat_list(values: np.ndarray, players: int) -> pa.Array:
    offsets = np.arange(0, len(values) + 1, players, dtype=np.int32)
    return pa.ListArray.from_arrays(pa.array(offsets), pa.array(values, pa.int8()))


def play_batch_core(setup: PawsSetup, rules: PawsRules, cards: CardSet, master_seed: int, start: int,
                    count: int, inputs: dict | None = None) -> pa.Table:
    """Play games ``start .. start+count-1`` in the core and return their records."""
    from core.paws_engine import END_REASONS, play_batch
    inputs = inputs or core_inputs(setup, rules, cards)
    out = play_batch(**inputs, master_seed=master_seed, start=start, count=count)
    if out["errors"].any():
        bad = int(start + np.flatnonzero(out["errors"])[0])
        raise CoreError(f"game {bad}: a decision had more options than the core's capacity")
    n, p = count, setup.players
    rounds = out["rounds"].astype(np.int64)
    trace_rows = _seat_list(out["vp_trace"], p)
    trace_offsets = np.concatenate([[0], np.cumsum(rounds)]).astype(np.int32)
    reasons = pa.DictionaryArray.from_arrays(pa.array(out["end_reason"].astype(np.int32)),
                                             pa.array(list(END_REASONS))).cast(pa.string())
    cols = {
        "game": pa.repeat("paws", n), "ruleset": pa.repeat(rules.ruleset, n),
        "board": pa.repeat(setup.board, n), "mode": pa.repeat(setup.mode, n),
        "players": pa.repeat(pa.scalar(p, pa.int8()), n),
        "bots": pa.repeat(pa.scalar(list(setup.bots), pa.list_(pa.string())), n),
        "seed": pa.repeat(pa.scalar(master_seed, pa.uint64()), n),
        "game_index": pa.array(np.arange(start, start + n, dtype=np.int64)),
        "first_seat": out["first_seat"], "winner_seat": out["winner_seat"], "winner_team": out["winner_team"],
        "end_reason": reasons, "rounds": out["rounds"], "turns": out["turns"],
        "vp": _seat_list(out["vp"], p), "buildings": _seat_list(out["buildings"], p),
        "lives_left": _seat_list(out["lives"], p), "knockouts": _seat_list(out["knockouts"], p),
        "knockouts_dealt": _seat_list(out["knockouts_dealt"], p),
        "building_fights": out["building_fights"], "invasions": out["invasions"], "raids": out["raids"],
        "items_played": out["items_played"],
        "vp_trace": pa.ListArray.from_arrays(pa.array(trace_offsets), trace_rows),
    }
    for k, v in as_dict(rules).items():
        if k != "ruleset":
            f = SCHEMA.field(k)
            cols[k] = pa.repeat(pa.scalar(v, f.type), n)
    arrays = [cols[f.name] if isinstance(cols[f.name], (pa.Array, pa.ChunkedArray))
              else pa.array(cols[f.name], f.type) for f in SCHEMA]
    return pa.Table.from_arrays(arrays, schema=SCHEMA)
