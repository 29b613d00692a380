"""Kingmaking as a sweep (``playtest kingmaker``; docs/kingmaking.md): the spec that asks for the ``kingmaking``
table, its cost up front, and nothing else.

Each game's analysis is played in the simulation layer (sim/kit/kingmaking.py: out seats by the oracle's value
head, every option of an out seat's later decisions played to the end on a copy, on the game's own stream and
again against chance under re-deals); a sweep asks for it with ``tables = ["games", "kingmaking"]`` and ``[kingmaking] threshold, oracle``, so
it runs on Ray like any sweep (``playtest status DIR``, ``--verify``, ``--resume``), and the answer is read from
the folder (measures/kingmaking/answer.py).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from sim.games import Match
from sim.kit.kingmaking import THRESHOLD  # noqa: F401  (the command's default, read here)
from sim.kit.kingmaking import TABLE, game_row, oracle_value, paused_games
from sim.params import RuleError

BATCH = 50                       # games per part: about 0.5-5 s of one core with the heuristic bots
STEM = "kingmaking"              # DIR/kingmaking.toml: the sweep spec in its results folder (cluster/measure_sweep.py)
HEADER = "kingmaking: written by playtest kingmaker (docs/kingmaking.md)"
PILOT = 50                       # games the cost estimate is measured on (the sweep's own first part)


def check(match: Match, oracle) -> None:
    """Refuse (RuleError) a match kingmaking cannot apply to, before any game."""
    paused_games(match.definition, match)
    if oracle is None:
        raise RuleError(f"{match.game} has no learned model to rate the seats' chances (--oracle NAME)")


def spec_raw(game: str, rules: str | None, overrides: dict, setup: dict, seed: int, games: int, threshold: float,
             oracle: str) -> dict[str, Any]:
    """The sweep spec (as parse_spec takes it) of one kingmaking run: one cell, parts of :data:`BATCH` games."""
    raw: dict[str, Any] = {"name": f"kingmaking {game}", "game": game}
    if rules is not None:
        raw["rules"] = rules
    raw.update(seed=seed, games_per_cell=games, batch_size=min(BATCH, games), engine="core",
               tables=["games", TABLE], setup=dict(setup))
    if overrides:
        raw["overrides"] = dict(overrides)
    raw[TABLE] = {"threshold": threshold, "oracle": oracle}
    return raw


@dataclass(frozen=True)
class Cost:
    """What a kingmaking run will play: games, and the playouts and core-seconds a pilot suggests."""

    games: int                   # games still to play
    pilot_games: int
    pilot_s: float               # seconds the pilot took on one core
    pilot_playouts: int          # every copy played to the end: on the game's own stream and against chance

    @property
    def playouts_per_game(self) -> float:
        return self.pilot_playouts / self.pilot_games if self.pilot_games else 0.0

    @property
    def core_s(self) -> float:
        return self.games * self.pilot_s / self.pilot_games if self.pilot_games else 0.0

    def line(self, workers: int | None) -> str:
        per = f"{self.playouts_per_game:,.1f}"
        return (f"{self.games:,} games to play, each replayed decision by decision; estimated from the first "
                f"{self.pilot_games} games (a pilot, {self.pilot_s:.2f} s): {per} playouts a game, about "
                f"{self.games * self.playouts_per_game:,.0f} playouts and {self.core_s:,.0f} s of one core in all "
                f"(an estimate: games differ){'' if workers is None else f', on {workers} workers'}")


def pilot(match: Match, seed: int, games: int, n: int = PILOT) -> Cost:
    """Cost of ``games`` more games, from the first ``n`` of the seed played here (the sweep's own games)."""
    opts = dict(dict(match.options)[TABLE])
    paused = paused_games(match.definition, match)
    value = oracle_value(match.game, opts["oracle"])
    n = min(n, max(games, 1))
    t0 = time.process_time()
    rows = [game_row(paused, value, opts["threshold"], seed, i) for i in range(n)]
    playouts = sum(r["playouts"] + r["chance_playouts"] for r in rows)
    return Cost(games, n, time.process_time() - t0, playouts)
