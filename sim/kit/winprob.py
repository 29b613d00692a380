"""The win-probability trace: each seat's chance to win as every turn begins and once when the game ends, rated
by a learned model's value head (the oracle), as the ``win_prob`` result table (docs/tension.md "The stored
trace").

A sweep asks for it with ``tables = ["games", "win_prob"]`` and names its oracle with the top-level key
``oracle = "paws-2"`` (default: the oracle the game's models index names, :func:`default_oracle`). The oracle rides on
the match as the table's option (``Game.table_options``, ``Match.options``: ``(("win_prob", (("oracle",
"paws-2@<digest>"),)),)``), so its name and digest are part of the match's and the spec's digests: the same
spec with another oracle is another sweep. The core computes the rows (core/kit/winprob.pxi, with learned.pxi
``learned_values``): a turn is the rulebook's (Paws: a player's turn, §3; Tales: a team's battle turn), and
the chances are from what every player can see. Only the core writes the table: the reference engine has no
seat features, and a reference sweep that asks for it is refused before any game (:data:`NEEDS_CORE`).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Mapping

import numpy as np
import pyarrow as pa

from sim.params import RuleError

TABLE = "win_prob"             # the result table: one row per turn begun and one per game's end
SCHEMA = pa.schema([pa.field("seed", pa.uint64(), nullable=False),
                    pa.field("game_index", pa.int64(), nullable=False),
                    pa.field("turn", pa.int32(), nullable=False),
                    pa.field("round", pa.int16(), nullable=False),
                    pa.field("seat", pa.int8(), nullable=False),
                    pa.field("chances", pa.list_(pa.float32()), nullable=False)])
COLUMN_DOCS = {
    "seed": "master seed of the batch",
    "game_index": "game number within the batch",
    "turn": "turns begun in the game before this row's (0-based, in order); on the row after the game ended: "
            "the game's turns (Paws: a player's turn, §3; Tales: a team's battle turn)",
    "round": "the round the turn is in (1-based; the last round on the row after the game ended)",
    "seat": "the seat whose turn begins (0-based, as in the cards table; Tales: the team member who picks the "
            "turn's first attacker), -1 on the row after the game ended",
    "chances": "each seat's chance to win by the oracle's value head (the sweep's oracle = model), seat 0 first; "
               "in a team mode each seat's team's chance (the seats' chances sum to 1 over the sides)",
}
NEEDS_CORE = f"{TABLE} needs the core engine (engine = 'core'): the reference engine does not rate the seats"
OPTIONS = ("oracle",)


def default_oracle(game) -> str | None:
    """The oracle a ``win_prob`` table uses when none is named: the one the game's models index names
    (sim/<game>/bots/models/index.toml ``oracle``, chosen by held-out calibration; ``playtest tension`` and
    ``kingmaker`` choose the same), or None when the game ships no model."""
    from sim.kit.learned import indexed_model, shipped_models
    if game.features is None or not shipped_models(game.models_dir):
        return None
    return indexed_model(game.models_dir, "oracle", f"{game.name}'s default oracle")


def resolve_oracle(game, name: str | None, where: str, key: str = "oracle"):
    """The oracle model ``name`` (a shipped model of ``game``, optionally ``NAME@DIGEST``; None: the default)
    as a :class:`sim.kit.learned.Model`; a RuleError in one line naming ``where``, the key and the allowed
    values: an unknown model, another game's model, or a game that ships none."""
    from sim.games import GAMES
    from sim.kit.learned import resolve_model, shipped_models
    known = shipped_models(game.models_dir) if game.features is not None else []
    if name is None:
        name = default_oracle(game)
        if name is None:
            raise RuleError(f"{where}: {game.name} ships no learned model to rate the seats for {TABLE}")
    if not isinstance(name, str):
        raise RuleError(f"{where}: {key} = {name!r} has the wrong type; expected a string (a shipped {game.name} "
                        f"model: {', '.join(known) or 'none'})")
    ref, _, _ = name.partition("@")
    if ref not in known:
        other = [g.name for g in (GAMES[n] for n in GAMES.names())
                 if g is not game and g.features is not None and ref in shipped_models(g.models_dir)]
        what = f"is a model of {other[0]}, not of {game.name}" if other else "is not allowed"
        raise RuleError(f"{where}: {key} = {name!r} {what}; expected one of {', '.join(known) or 'none'} (a "
                        f"shipped {game.name} model, optionally NAME@DIGEST)")
    try:
        return resolve_model(game.models_dir, game.features, name, f"{key}={name}")
    except RuleError as e:
        raise RuleError(f"{where}: {e}") from None


def describe(oracle) -> str:
    """``name@digest`` of an oracle model (what digests and manifests record)."""
    return f"{oracle.name}@{oracle.digest}"


def core_table(seed: int, start: int, rows: np.ndarray, seats: int) -> pa.Table:
    """The win_prob table from a core batch's rows (core/kit/winprob.pxi VALUE_ROW_DTYPE: game offset, turn,
    round, seat, chances of MAXP seats), the first ``seats`` chances of each row."""
    n = len(rows)
    chances = np.ascontiguousarray(rows["chances"][:, :seats], np.float32).reshape(-1)
    offsets = pa.array(np.arange(0, (n + 1) * seats, seats, dtype=np.int32))
    return pa.Table.from_arrays([pa.array(np.full(n, seed, np.uint64)),
                                 pa.array(start + rows["game"].astype(np.int64)),
                                 pa.array(rows["turn"].astype(np.int32)), pa.array(rows["round"].astype(np.int16)),
                                 pa.array(rows["seat"].astype(np.int8)),
                                 pa.ListArray.from_arrays(offsets, pa.array(chances))], schema=SCHEMA)


def resolve_options(game, match, options: Mapping[str, Any], where: str) -> tuple[tuple[str, Any], ...]:
    """The win_prob table's options as a match keeps them, (("oracle", "NAME@DIGEST"),) (Game.table_options),
    after refusing (one line) an unknown key or oracle."""
    for key in options:
        if key not in OPTIONS:
            raise RuleError(f"{where}: {TABLE}: unknown option {key!r}; valid: {', '.join(OPTIONS)}")
    return (("oracle", describe(resolve_oracle(game, options.get("oracle"), where))),)


@lru_cache(maxsize=8)
def _model(game_name: str, ref: str):
    from sim.games import GAMES
    from sim.kit.learned import resolve_model
    game = GAMES[game_name]
    return resolve_model(game.models_dir, game.features, ref, f"oracle={ref}")


def oracle_of(match):
    """The oracle model of a match that asks for the win_prob table (its digest checked against the file's),
    None for one that does not."""
    if TABLE not in match.tables:
        return None
    ref = dict(dict(match.options).get(TABLE, ())).get("oracle")
    return _model(match.game, ref) if ref else resolve_oracle(match.definition, None, "win_prob")


def refuse_reference(match) -> None:
    """The reference engine's refusal of a match that asks for the win_prob table (sim.games.EngineError)."""
    if TABLE in match.tables:
        from sim.games import EngineError
        raise EngineError(NEEDS_CORE)
