"""A regression suite file: a sweep spec, the seeds to play it with, and the alarm thresholds.

```toml
name = "nightly"
seeds = [1, 2]               # each seed plays every cell once (default: the sweep's seed)
fail_on = ["behaviour", "drift"]
[sweep]                      # a sweep spec (cluster.spec), same keys as for `playtest sweep`
game = "..."                 # a registered game (left out: the game the registry names the default)
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
The file is untrusted input: its size is checked before it is read, and a bad one is one error line.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from cluster.spec import SpecError, parse_spec
from regress.baseline import MAX_DEPTH, cut, depth
from regress.metrics import Family, families
from sim.files import parse_toml, read_bounded
from sim.games import GAMES

MAX_BYTES = 2**20             # a suite is a page of TOML (the nightly one: 1.5 KB)
MAX_SEED = 2**64 - 1          # master seeds are unsigned 64-bit (cluster.spec)
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
        try:
            return parse_spec(dict(self.sweep, seed=seed), source=f"{self.path} [sweep]", base_dir=self.path.parent)
        except SpecError as e:
            raise SuiteError(cut(str(e), 2000)) from None
        except (TypeError, ValueError, KeyError, AttributeError, OverflowError, RecursionError) as e:
            # the sweep spec's checks let a value of an odd type through: still one line naming the table
            raise SuiteError(f"{self.path} [sweep]: not a valid sweep spec ({type(e).__name__}: "
                             f"{cut(str(e))})") from None

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


def _show(value: Any) -> str:
    """A value as an error shows it: one line, at most 60 characters."""
    try:
        return cut(repr(value), 60)
    except RecursionError:
        return "(nested too deeply)"


def _finite(value: int | float) -> bool:
    try:
        return math.isfinite(float(value))
    except OverflowError:       # an integer of hundreds of digits
        return False


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _seeds(value: Any, where: str, key: str = "seeds") -> tuple[int, ...]:
    if (not isinstance(value, list) or not value
            or not all(_int(s) and 0 <= s <= MAX_SEED for s in value)):
        raise SuiteError(f"{where}: {key} = {_show(value)} is not allowed; expected a non-empty list of integers "
                         f">= 0 and below 2**64, each once")
    if len(set(value)) != len(value):
        raise SuiteError(f"{where}: {key} = {_show(value)} repeats a seed; expected distinct seeds")
    return tuple(value)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _thresholds(raw: Any, fams: list[Family], where: str) -> Thresholds:
    if not isinstance(raw, dict):
        raise SuiteError(f"{where}: thresholds = {_show(raw)} is not allowed; expected a table with keys "
                         f"{', '.join(THRESHOLD_KEYS)}")
    for key in raw:
        if key not in THRESHOLD_KEYS:
            raise SuiteError(f"{where}: unknown key thresholds.{cut(key, 60)}; valid: {', '.join(THRESHOLD_KEYS)}")
    method = raw.get("method", "bh")
    if not isinstance(method, str) or method not in METHODS:
        raise SuiteError(f"{where}: thresholds.method = {_show(method)} is not allowed; expected one of "
                         f"{', '.join(METHODS)}")
    level = raw.get("level", 0.01)
    if not _number(level) or not 0 < level <= 0.5:   # NaN fails both comparisons
        raise SuiteError(f"{where}: thresholds.level = {_show(level)} is not allowed; expected "
                         f"{THRESHOLD_KEYS['level']}")
    given = raw.get("min_effect", {})
    if not isinstance(given, dict):
        raise SuiteError(f"{where}: thresholds.min_effect = {_show(given)} is not allowed; expected a table of "
                         f"metric family = number")
    by_name = {f.name: f for f in fams}
    for key, value in given.items():
        if key not in by_name:
            raise SuiteError(f"{where}: unknown metric family thresholds.min_effect.{cut(key, 60)}; valid: "
                             f"{', '.join(by_name)}")
        # a rate's shift and a total variation are shares (at most 1); a mean shift is in the family's units
        top = 1.0 if by_name[key].kind in ("rate", "categorical") else math.inf
        if not _number(value) or not 0 <= value <= top or not _finite(value):
            allowed = ("a number from 0 to 1 (a share: 0.02 is 2 percentage points)" if top == 1.0
                       else "a finite number >= 0")
            raise SuiteError(f"{where}: thresholds.min_effect.{key} = {_show(value)} is not allowed; expected "
                             f"{allowed}")
    min_effect = {f.name: float(given.get(f.name, DEFAULT_MIN_EFFECT[f.kind])) for f in fams}
    return Thresholds(method, float(level), min_effect)


def parse_suite(raw: dict[str, Any], path: Path) -> Suite:
    """Validate a suite table read from ``path`` (the sweep too: every seed's spec is built once)."""
    where = str(path)
    if depth(raw) > MAX_DEPTH:
        raise SuiteError(f"{where}: tables and arrays nest more than {MAX_DEPTH} deep; a suite is a few levels")
    for key in raw:
        if key not in TOP_KEYS:
            raise SuiteError(f"{where}: unknown key {_show(key)}; valid: {', '.join(TOP_KEYS)}")
    for key in ("name", "description"):
        if key in raw and not isinstance(raw[key], str):
            raise SuiteError(f"{where}: {key} = {_show(raw[key])} is not allowed; expected text")
    sweep = raw.get("sweep")
    if "sweep" in raw and not isinstance(sweep, dict):
        raise SuiteError(f"{where}: sweep = {_show(sweep)} is not allowed; expected a table [sweep] (the sweep "
                         f"spec)")
    if not isinstance(sweep, dict):
        raise SuiteError(f"{where}: missing table [sweep] (the sweep spec: game, rules, games_per_cell, "
                         f"setup, grid, ...)")
    game = sweep.get("game", GAMES.default.name)     # a suite that names no game plays the default one
    if not isinstance(game, str) or game not in GAMES.names():
        raise SuiteError(f"{where}: sweep.game = {_show(game)} is not allowed; expected one of "
                         f"{', '.join(GAMES.names())}")
    fams = families(game)
    if not fams:
        raise SuiteError(f"{where}: sweep.game = {game!r} has no regression metrics yet "
                         f"(add {GAMES[game].sql_dir / 'regress'}/*.sql)")
    fail_on = raw.get("fail_on", list(FAIL_ON))
    if (not isinstance(fail_on, list) or not all(isinstance(f, str) and f in FAIL_ON for f in fail_on)
            or len(set(fail_on)) != len(fail_on)):
        raise SuiteError(f"{where}: fail_on = {_show(fail_on)} is not allowed; expected a list of "
                         f"{', '.join(FAIL_ON)} (each at most once; [] only reports)")
    if "seeds" in raw:
        seeds = _seeds(raw["seeds"], where)
    elif "seed" in sweep:
        seeds = _seeds([sweep["seed"]], where, "sweep.seed")
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
    """Read and validate a suite TOML file (its size checked before it is read)."""
    path = Path(path)
    blob = read_bounded(path, "suite file", SuiteError, MAX_BYTES)
    try:
        text = blob.decode("utf-8")
    except UnicodeDecodeError as e:
        raise SuiteError(f"{path}: not valid TOML: not UTF-8 text (byte {e.start})") from None
    return parse_suite(parse_toml(text, str(path), SuiteError, MAX_DEPTH), path)   # nesting bounded: one line
