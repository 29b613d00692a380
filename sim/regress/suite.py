"""A regression suite file: a sweep spec, the seeds to play it with, and the alarm thresholds.

```toml
name = "nightly"
seeds = [1, 2]               # each seed plays every cell once (default: the sweep's seed)
fail_on = ["behaviour", "drift"]
[sweep]                      # a sweep spec (cluster.spec), same keys as for `playtest sweep`
game = "paws"
games_per_cell = 20000
[sweep.grid]
players = [2, 4]
[thresholds]
method = "bh"                # bh: Benjamini-Hochberg (false discovery rate) | holm (family-wise error)
level = 0.01                 # the FDR level (bh) or alpha (holm), across every metric of the run
[thresholds.min_effect]      # smallest shift worth an alarm, per metric family, in its own units
seat_win_rate = 0.02
game_length = 0.5
```
Everything is checked before any game is played; errors name the file, the key and what is allowed.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from sim.regress.metrics import Family, families

TOP_KEYS = {"name": "free text", "description": "free text", "seeds": "a list of master seeds (integers >= 0)",
            "fail_on": "a list of behaviour, drift", "sweep": "a table: the sweep spec",
            "thresholds": "a table: method, level, min_effect"}
THRESHOLD_KEYS = {"method": "bh or holm", "level": "a number above 0 and at most 0.5",
                  "min_effect": "a table: metric family = smallest shift worth an alarm"}
METHODS = ("bh", "holm")
FAIL_ON = ("behaviour", "drift")
# Default smallest shift worth an alarm, by kind: 2 percentage points of a rate, a total variation of
# 0.02 between end-reason distributions, half a unit (round) of mean game length.
DEFAULT_MIN_EFFECT = {"rate": 0.02, "categorical": 0.02, "ordinal": 0.5}


class SuiteError(ValueError):
    """A bad suite file; the message names the file, the key and the allowed values."""


@dataclass(frozen=True)
class Thresholds:
    """When a metric's shift raises an alarm: adjusted p at most ``level`` and effect at least its minimum."""

    method: str = "bh"
    level: float = 0.01
    min_effect: dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"method": self.method, "level": self.level, "min_effect": dict(self.min_effect)}


@dataclass(frozen=True)
class Suite:
    """A validated suite: its sweep table (as written), seeds, thresholds and metric families."""

    path: Path
    name: str
    description: str
    game: str
    seeds: tuple[int, ...]
    sweep: dict[str, Any]
    thresholds: Thresholds
    families: tuple[Family, ...]
    fail_on: tuple[str, ...] = FAIL_ON

    def spec(self, seed: int):
        """The sweep spec of this suite played with master seed ``seed`` (a cluster.spec.SweepSpec)."""
        from cluster.spec import SpecError, parse_spec
        try:
            return parse_spec(dict(self.sweep, seed=seed), source=f"{self.path} [sweep]", base_dir=self.path.parent)
        except SpecError as e:
            raise SuiteError(str(e)) from None

    def with_seeds(self, seeds: tuple[int, ...]) -> "Suite":
        return replace(self, seeds=_seeds(list(seeds), f"{self.path}: --seeds"))

    @property
    def games_per_cell(self) -> int:
        return int(self.sweep.get("games_per_cell", 0))

    @property
    def digest(self) -> str:
        """Digest of what the suite plays, seeds aside (they are recorded on their own)."""
        blob = json.dumps({k: v for k, v in self.sweep.items() if k != "seed"}, sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]


def _seeds(value: Any, where: str) -> tuple[int, ...]:
    if (not isinstance(value, list) or not value
            or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in value)):
        raise SuiteError(f"{where}: seeds = {value!r} is not allowed; expected a non-empty list of integers >= 0")
    if len(set(value)) != len(value):
        raise SuiteError(f"{where}: seeds = {value!r} repeats a seed; expected distinct seeds")
    return tuple(value)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _thresholds(raw: Any, fams: list[Family], where: str) -> Thresholds:
    if not isinstance(raw, dict):
        raise SuiteError(f"{where}: thresholds must be a table with keys {', '.join(THRESHOLD_KEYS)}")
    for key in raw:
        if key not in THRESHOLD_KEYS:
            raise SuiteError(f"{where}: unknown key thresholds.{key}; valid: {', '.join(THRESHOLD_KEYS)}")
    method = raw.get("method", "bh")
    if method not in METHODS:
        raise SuiteError(f"{where}: thresholds.method = {method!r} is not allowed; expected one of "
                         f"{', '.join(METHODS)}")
    level = raw.get("level", 0.01)
    if not _number(level) or not 0 < level <= 0.5:
        raise SuiteError(f"{where}: thresholds.level = {level!r} is not allowed; expected "
                         f"{THRESHOLD_KEYS['level']}")
    given = raw.get("min_effect", {})
    if not isinstance(given, dict):
        raise SuiteError(f"{where}: thresholds.min_effect must be a table of metric family = number")
    by_name = {f.name: f for f in fams}
    for key, value in given.items():
        if key not in by_name:
            raise SuiteError(f"{where}: unknown metric family thresholds.min_effect.{key}; valid: "
                             f"{', '.join(by_name)}")
        if not _number(value) or value < 0:
            raise SuiteError(f"{where}: thresholds.min_effect.{key} = {value!r} is not allowed; expected a "
                             f"number >= 0")
    min_effect = {f.name: float(given.get(f.name, DEFAULT_MIN_EFFECT[f.kind])) for f in fams}
    return Thresholds(method, float(level), min_effect)


def parse_suite(raw: dict[str, Any], path: Path) -> Suite:
    """Validate a suite table read from ``path`` (the sweep too: every seed's spec is built once)."""
    where = str(path)
    for key in raw:
        if key not in TOP_KEYS:
            raise SuiteError(f"{where}: unknown key {key!r}; valid: {', '.join(TOP_KEYS)}")
    for key in ("name", "description"):
        if key in raw and not isinstance(raw[key], str):
            raise SuiteError(f"{where}: {key} = {raw[key]!r} is not allowed; expected text")
    sweep = raw.get("sweep")
    if not isinstance(sweep, dict):
        raise SuiteError(f"{where}: missing table [sweep] (the sweep spec: game, rules, games_per_cell, "
                         f"setup, grid, ...)")
    game = sweep.get("game", "paws")
    from sim.games import GAMES
    if game not in GAMES.names():
        raise SuiteError(f"{where}: sweep.game = {game!r} is not allowed; expected one of {', '.join(GAMES.names())}")
    fams = families(game)
    if not fams:
        raise SuiteError(f"{where}: sweep.game = {game!r} has no regression metrics yet "
                         f"(add sim/regress/sql/{game}/*.sql)")
    fail_on = raw.get("fail_on", list(FAIL_ON))
    if not isinstance(fail_on, list) or not all(f in FAIL_ON for f in fail_on):
        raise SuiteError(f"{where}: fail_on = {fail_on!r} is not allowed; expected a list of "
                         f"{', '.join(FAIL_ON)}")
    if "seeds" in raw:
        seeds = _seeds(raw["seeds"], where)
    elif "seed" in sweep:
        seeds = (sweep["seed"],)
    else:
        raise SuiteError(f"{where}: no seeds: give seeds = [...] or sweep.seed")
    suite = Suite(path=path, name=raw.get("name", path.stem), description=raw.get("description", ""),
                  game=game, seeds=seeds, sweep=sweep,
                  thresholds=_thresholds(raw.get("thresholds", {}), fams, where), families=tuple(fams),
                  fail_on=tuple(fail_on))
    for seed in seeds:
        suite.spec(seed)
    return suite


def load_suite(path: str | Path) -> Suite:
    """Read and validate a suite TOML file."""
    path = Path(path)
    if not path.is_file():
        raise SuiteError(f"{path}: no such suite file")
    try:
        raw = tomllib.loads(path.read_text())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise SuiteError(f"{path}: not valid TOML: {e}") from None
    return parse_suite(raw, path)
