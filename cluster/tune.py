"""Tuning rule parameters toward a target (``playtest tune SPEC``; docs/tuning.md).

A tune spec names a search space over rule parameters (``[space]``), the hold cells the answer must
hold over (``[hold]``: a grid of setup values), an objective (a metric, a target or min/max, combined
over the hold cells by worst case or mean) and constraints. Each candidate (one set of parameter values)
x hold cell is one cell of an ordinary sweep (its values are the hold's setup values and the candidate's
parameter values, so SQL groups by them); the racing policy of :mod:`cluster.racing` is the sweep's
stopper: candidates play in rounds kept in step and are dropped once their interval shows them worse
than the best, or breaking a constraint.

``search = "race"`` races every candidate of the space at once (the space is enumerated). ``search =
"optuna"`` is for spaces too large for that: a seeded TPE sampler proposes ``generation`` candidates at
a time, each generation is raced against the incumbent (the best so far) as its own sweep
(``OUT/generation-NN``), and the sampler is told each candidate's loss estimate.

Every key is validated before any game: one line naming the file, the key and the allowed values.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import json
import math
import numbers
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from cluster.racing import COMBINES, GOALS, OPS, Constraint, Objective, Race
from cluster.spec import MAX_BATCH, MAX_CELLS, MAX_SPEC_BYTES, SpecError, SweepSpec, parse_spec
from sim.files import parse_toml, read_text_bounded, write_atomic
from sim.games import ENGINES, GAMES, Game
from sim.params import RuleError, fields, with_overrides

SPEC_NAME = "tune.toml"          # the sweep spec a tune plays, written into its results folder
REPORT_NAME = "tune.json"        # the answer, beside it (cluster/verify.py keeps both)
MAX_CANDIDATES = 1_000           # race: candidates raced at once
MAX_TRIALS = 1_000               # optuna: proposals in all
MAX_VALUES = 1_000               # values one parameter may list (or a range may hold) in a race

# top-level key -> (TOML type, what is allowed)
KEYS: dict[str, tuple[Any, str]] = {
    "name": (str, "free text"),
    "game": (str, "a game name"),
    "rules": (str, "a preset name"),
    "seed": (int, f"an integer from 0 to {2**64 - 1}"),
    "engine": (str, f"one of {', '.join(ENGINES)}"),
    "setup": (dict, "a table of setup values"),
    "overrides": (dict, "a table of rule parameters"),
    "space": (dict, "a table of rule parameter = [values] | {low, high, step} | \"all\""),
    "hold": (dict, "a table of setup key = [values]"),
    "objective": (dict, "a table: metric, target or goal, combine"),
    "constraint": (list, "an array of tables ([[constraint]]): metric, op, bound"),
    "confidence": (float, "a number from 0.5 to 0.9999"),
    "batch": (int, f"an integer from 1 to {MAX_BATCH} (games per part)"),
    "max_games_per_candidate": (int, "an integer from batch x hold cells to 10**10"),
    "tolerance": (float, "a number from 0 to 1 (half-width of the loss interval that is narrow enough)"),
    "growth": (float, "a number from 1.1 to 10 (parts per cell grow by this factor each round)"),
    "search": (str, "race or optuna"),
    "trials": (int, f"an integer from 1 to {MAX_TRIALS} (search = optuna: candidates proposed in all)"),
    "generation": (int, "an integer from 1 to 64 (search = optuna: candidates proposed per generation)"),
}
REQUIRED = ("game", "seed", "space", "objective", "batch", "max_games_per_candidate")
SEARCHES = ("race", "optuna")


class TuneError(ValueError):
    """A tune spec was refused, or a tune could not run; the message names the file, the key and what is allowed."""


@dataclass(frozen=True)
class Param:
    """One parameter of the space: its name and values (race), or its range (optuna: low, high, step)."""

    name: str
    values: tuple                            # every value, in order (empty for a range too large to list)
    low: int | None = None
    high: int | None = None
    step: int = 1

    def distribution(self):
        """The Optuna distribution over this parameter."""
        import optuna
        if self.low is not None:
            return optuna.distributions.IntDistribution(self.low, self.high, step=self.step)
        return optuna.distributions.CategoricalDistribution(list(self.values))


@dataclass(frozen=True)
class TuneSpec:
    """A validated tune spec."""

    source: str
    name: str
    game: str
    rules: str | None
    seed: int
    engine: str
    setup: dict
    overrides: dict
    space: tuple[Param, ...]
    holds: tuple[dict, ...]                  # setup values of each hold cell, in grid order
    objective: Objective
    constraints: tuple[Constraint, ...]
    confidence: float
    batch: int
    max_games_per_candidate: int
    tolerance: float
    growth: float
    search: str
    trials: int
    generation: int
    raw: dict = field(repr=False, default_factory=dict)

    @property
    def parts_per_cell(self) -> int:
        """The cap, in parts of ``batch`` games, of each (candidate, hold cell)."""
        return max(1, self.max_games_per_candidate // (len(self.holds) * self.batch))

    def candidates(self) -> list[dict]:
        """Every candidate of the space (race): the cartesian product, keys in file order, the last fastest."""
        return [dict(zip((p.name for p in self.space), combo))
                for combo in itertools.product(*(p.values for p in self.space))]

    def sweep_raw(self, candidates: list[dict], name: str | None = None) -> dict:
        """The sweep spec that plays ``candidates`` in every hold cell: one [[cells]] per pair, candidate-major."""
        raw: dict[str, Any] = {"name": name or self.name, "game": self.game, "seed": self.seed,
                               "games_per_cell": self.parts_per_cell * self.batch, "batch_size": self.batch,
                               "engine": self.engine}
        if self.rules is not None:
            raw["rules"] = self.rules
        if self.setup:
            raw["setup"] = dict(self.setup)
        if self.overrides:
            raw["overrides"] = dict(self.overrides)
        raw["cells"] = [{**hold, **cand} for cand in candidates for hold in self.holds]
        return raw


# --- reading and validating ----------------------------------------------------------------------------

def load_tune_spec(path: str | Path) -> TuneSpec:
    """Read and validate a TOML tune spec; raises :class:`TuneError` naming the file, key and allowed values."""
    path = Path(path)
    try:
        text = read_text_bounded(path, "tune spec", TuneError, MAX_SPEC_BYTES)
    except SpecError as e:
        raise TuneError(str(e)) from None
    raw = parse_toml(text, str(path), TuneError)        # nesting bounded: one line, never a RecursionError
    return parse_tune_spec(raw, source=str(path))


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(float(v))


def _type_ok(value, kind) -> bool:
    if kind is int:
        return _is_int(value)
    if kind is float:
        return _is_number(value)
    return isinstance(value, kind)


def _number(src: str, key: str, value, lo: float, hi: float, allowed: str, *, open_low=False) -> float:
    if not _is_number(value) or not (lo < value if open_low else lo <= value) or not value <= hi:
        raise TuneError(f"{src}: {key} = {value!r} is not allowed; expected {allowed}")
    return float(value)


def _clip(value, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 5] + " ...]"


def parse_tune_spec(raw: Any, source: str = "<tune spec>") -> TuneSpec:
    """Validate a tune spec given as a dict (parsed TOML)."""
    src = source
    if not isinstance(raw, dict):
        raise TuneError(f"{src}: a tune spec is a table of keys; valid keys: {', '.join(KEYS)}")
    for key in raw:
        if key not in KEYS:
            raise TuneError(f"{src}: unknown key {key!r}; valid keys: {', '.join(KEYS)}")
    for key in REQUIRED:
        if key not in raw:
            raise TuneError(f"{src}: missing key {key!r} ({KEYS[key][1]}); required keys: {', '.join(REQUIRED)}")
    for key, value in raw.items():
        kind, allowed = KEYS[key]
        if not _type_ok(value, kind):
            raise TuneError(f"{src}: {key} = {_clip(value)} has the wrong type; expected {allowed}")

    game = raw["game"]
    if game not in GAMES.names():
        raise TuneError(f"{src}: game = {game!r} is not allowed; expected one of {', '.join(GAMES.names())}")
    gdef = GAMES[game]
    rules = raw.get("rules")
    if rules is not None and rules not in gdef.presets:
        raise TuneError(f"{src}: rules = {rules!r} is not allowed; expected one of {', '.join(gdef.presets)}")
    seed = raw["seed"]
    if not 0 <= seed <= 2**64 - 1:
        raise TuneError(f"{src}: seed = {seed} is out of range; expected {KEYS['seed'][1]}")
    engine = raw.get("engine", "core")
    if engine not in ENGINES:
        raise TuneError(f"{src}: engine = {engine!r} is not allowed; expected one of {', '.join(ENGINES)}")
    setup = raw.get("setup", {})
    overrides = raw.get("overrides", {})
    try:
        base = gdef.resolve(rules, overrides, setup, where=f"{src}: [setup]/[overrides]")
    except (RuleError, ValueError) as e:
        raise TuneError(str(e) if str(e).startswith(src) else f"{src}: {e}") from None

    search = raw.get("search", "race")
    if search not in SEARCHES:
        raise TuneError(f"{src}: search = {search!r} is not allowed; expected one of {', '.join(SEARCHES)}")
    for key in ("trials", "generation"):
        if key in raw and search != "optuna":
            raise TuneError(f"{src}: {key} applies to search = \"optuna\" only; remove it or set search = \"optuna\"")
    if search == "optuna" and "trials" not in raw:
        raise TuneError(f"{src}: missing key 'trials' ({KEYS['trials'][1]}); search = \"optuna\" needs it")
    trials = raw.get("trials", 0)
    if search == "optuna" and not 1 <= trials <= MAX_TRIALS:
        raise TuneError(f"{src}: trials = {trials} is out of range; expected {KEYS['trials'][1]}")
    generation = raw.get("generation", 4)
    if not 1 <= generation <= 64:
        raise TuneError(f"{src}: generation = {generation} is out of range; expected {KEYS['generation'][1]}")

    space = _parse_space(src, gdef, base.rules, raw["space"], overrides, search)
    holds = _parse_hold(src, gdef, raw.get("hold", {}), setup)
    objective = _parse_objective(src, gdef, raw["objective"])
    constraints = tuple(_parse_constraint(src, gdef, i, c) for i, c in enumerate(raw.get("constraint", [])))

    confidence = _number(src, "confidence", raw.get("confidence", 0.95), 0.5, 0.9999, KEYS["confidence"][1])
    batch = raw["batch"]
    if not 1 <= batch <= MAX_BATCH:
        raise TuneError(f"{src}: batch = {batch} is out of range; expected {KEYS['batch'][1]}")
    cap = raw["max_games_per_candidate"]
    if not batch * len(holds) <= cap <= 10**10:
        raise TuneError(f"{src}: max_games_per_candidate = {cap} is out of range; expected an integer from "
                        f"{batch * len(holds)} (batch x {len(holds)} hold cell(s)) to 10**10")
    tolerance = _number(src, "tolerance", raw.get("tolerance", 0.0), 0.0, 1.0, KEYS["tolerance"][1])
    growth = _number(src, "growth", raw.get("growth", 2.0), 1.1, 10.0, KEYS["growth"][1])

    spec = TuneSpec(source=src, name=raw.get("name", Path(src).stem), game=game, rules=rules, seed=seed,
                    engine=engine, setup=dict(setup), overrides=dict(overrides), space=space, holds=holds,
                    objective=objective, constraints=constraints, confidence=confidence, batch=batch,
                    max_games_per_candidate=cap, tolerance=tolerance, growth=growth, search=search,
                    trials=trials, generation=generation, raw=raw)
    parts = spec.parts_per_cell
    if search == "race":
        n = math.prod(len(p.values) for p in space)
        if n > MAX_CANDIDATES or n * len(holds) > MAX_CELLS:
            raise TuneError(f"{src}: [space] holds {n} candidates x {len(holds)} hold cell(s); a race takes at most "
                            f"{MAX_CANDIDATES} candidates and {MAX_CELLS} cells: narrow it or set search = "
                            "\"optuna\"")
        if n * len(holds) * parts > 100_000:
            raise TuneError(f"{src}: {n * len(holds)} cells x {parts} parts is over the sweep's 100000 parts; "
                            "raise batch or lower max_games_per_candidate")
        check_sweep(spec, spec.candidates())       # every cell resolves and the engine plays it
        _probe_metrics(spec, check_sweep(spec, spec.candidates()[:1]))
    else:
        if (generation + 1) * len(holds) * parts > 100_000:
            raise TuneError(f"{src}: {(generation + 1) * len(holds)} cells x {parts} parts per generation is over "
                            "the sweep's 100000 parts; raise batch or lower max_games_per_candidate")
        try:
            first = check_sweep(spec, [{p.name: p.values[0] if p.values else p.low for p in space}])
        except TuneError:                          # a combination the rules refuse: the trials skip it
            first = None
        if first is not None:
            _probe_metrics(spec, first)
    return spec


def _probe_metrics(spec: TuneSpec, swept: SweepSpec) -> None:
    """The objective's and constraints' metrics summarised on game 0 of every cell of ``swept`` (the first
    candidate in every hold cell), before any work (as a [stop] sweep's metric: a ``sql:`` value outside [0, 1], a
    seat or team a hold cell lacks); a TuneError naming the metric and the cell."""
    from infra.metrics import MetricError, summarize
    metrics = [spec.objective.metric, *(c.metric for c in spec.constraints)]
    for cell in swept.cells:
        try:
            summarize(cell.match.definition, metrics, cell.match.play_batch(spec.seed, 0, 1, spec.engine)["games"])
        except MetricError as e:
            raise TuneError(f"{spec.source}: {_label(cell.values)}: {e} (game 0 of the first candidate, checked "
                            "before the race)") from None


def check_sweep(spec: TuneSpec, candidates: list[dict], source: str | None = None,
                name: str | None = None) -> SweepSpec:
    """The sweep that plays ``candidates``: every cell resolved and checked against the engine (a TuneError
    naming the cell's values otherwise)."""
    try:
        return parse_spec(spec.sweep_raw(candidates, name), source=source or spec.source)
    except SpecError as e:
        raise TuneError(str(e)) from None


def _param_field(src: str, gdef: Game, base_rules, name: str):
    by_name = {f.name: f for f in fields(base_rules)}
    if name not in by_name:
        raise TuneError(f"{src}: [space] unknown {gdef.name} rule parameter {name!r}; valid: {', '.join(by_name)}")
    return by_name[name]


def _check_value(src: str, base_rules, name: str, value) -> Any:
    """One value of a parameter, validated (and coerced) like an override: the error names the allowed values."""
    if isinstance(value, (dict, list)):
        raise TuneError(f"{src}: [space] {name}: value {_clip(value)} must be a single value")
    try:
        return getattr(with_overrides(base_rules, {name: value}, where=f"{src}: [space]"), name)
    except RuleError as e:
        raise TuneError(str(e)) from None


def _parse_space(src: str, gdef: Game, base_rules, space: dict, overrides: dict, search: str) -> tuple[Param, ...]:
    if not space:
        raise TuneError(f"{src}: [space] is empty; name at least one rule parameter = [values] | {{low, high, step}}")
    params = []
    for name, spec in space.items():
        f = _param_field(src, gdef, base_rules, name)
        if name in overrides:
            raise TuneError(f"{src}: [space] {name} is also set in [overrides]; a parameter is either searched or fixed")
        kind = f.type if isinstance(f.type, str) else f.type.__name__
        m = f.metadata
        if spec == "all" or spec is True:
            if kind == "bool":
                values = (False, True)
            elif m["choices"] is not None:
                values = tuple(m["choices"])
            elif kind == "int" and m["min"] is not None and m["max"] is not None:
                values = tuple(range(m["min"], m["max"] + 1))
            else:
                raise TuneError(f"{src}: [space] {name} = {spec!r}: \"all\" needs a bool, a choice or a bounded integer")
            if spec is True and kind != "bool":
                raise TuneError(f"{src}: [space] {name} = true is for a true/false parameter; {name} takes "
                                f"values of another kind: list them, or give {{low, high, step}} or \"all\"")
            values = tuple(_check_value(src, base_rules, name, v) for v in values)
            params.append(Param(name, values))
        elif isinstance(spec, list):
            if not spec:
                raise TuneError(f"{src}: [space] {name} = [] must list at least one value")
            values = tuple(_check_value(src, base_rules, name, v) for v in spec)
            if len(set(map(repr, values))) != len(values):
                raise TuneError(f"{src}: [space] {name} = {_clip(spec)} lists a value twice")
            if len(values) > MAX_VALUES:
                raise TuneError(f"{src}: [space] {name} lists {len(values)} values; at most {MAX_VALUES}")
            params.append(Param(name, values))
        elif isinstance(spec, dict):
            if kind != "int" or m["choices"] is not None:
                raise TuneError(f"{src}: [space] {name}: a {{low, high, step}} range needs an integer parameter; "
                                f"{name} is {'a choice' if m['choices'] else kind}: list its values instead")
            for key in spec:
                if key not in ("low", "high", "step"):
                    raise TuneError(f"{src}: [space] {name}: unknown key {key!r}; valid: low, high, step")
            if "low" not in spec or "high" not in spec:
                raise TuneError(f"{src}: [space] {name}: a range needs low and high (integers), step optional")
            low, high, step = spec["low"], spec["high"], spec.get("step", 1)
            for key, v in (("low", low), ("high", high), ("step", step)):
                if not _is_int(v):
                    raise TuneError(f"{src}: [space] {name}.{key} = {v!r} must be an integer")
            _check_value(src, base_rules, name, low)
            _check_value(src, base_rules, name, high)
            if high < low or step < 1:
                raise TuneError(f"{src}: [space] {name}: expected low <= high and step >= 1, got low={low}, "
                                f"high={high}, step={step}")
            count = (high - low) // step + 1
            if search == "race" and count > MAX_VALUES:
                raise TuneError(f"{src}: [space] {name}: {count} values in the range; a race lists at most "
                                f"{MAX_VALUES} per parameter (search = \"optuna\" takes any range)")
            values = tuple(range(low, high + 1, step)) if count <= MAX_VALUES else ()
            params.append(Param(name, values, low, low + (count - 1) * step, step))
        else:
            raise TuneError(f"{src}: [space] {name} = {_clip(spec)} is not allowed; expected a list of values, "
                            "a table {low, high, step} or \"all\"")
    return tuple(params)


def _parse_hold(src: str, gdef: Game, hold: dict, setup: dict) -> tuple[dict, ...]:
    for key, values in hold.items():
        if key not in gdef.setup_keys:
            raise TuneError(f"{src}: [hold] unknown {gdef.name} setup key {key!r}; valid: {', '.join(gdef.setup_keys)}")
        if not isinstance(values, list) or not values:
            raise TuneError(f"{src}: [hold] {key} = {_clip(values)} must be a non-empty list of "
                            f"{gdef.setup_keys[key]}")
        seen = [json.dumps(v, sort_keys=True, default=str) for v in values]
        if len(set(seen)) != len(seen):
            raise TuneError(f"{src}: [hold] {key} = {_clip(values)} lists a value twice")
        for v in values:
            try:
                gdef.resolve(None, {}, {**setup, key: v}, where=f"{src}: [hold]")
            except (RuleError, ValueError) as e:
                raise TuneError(str(e) if str(e).startswith(src) else f"{src}: [hold] {e}") from None
    if math.prod(len(v) for v in hold.values()) > MAX_CELLS:
        raise TuneError(f"{src}: [hold] makes more than {MAX_CELLS} hold cells")
    return tuple(dict(zip(hold, combo)) for combo in itertools.product(*hold.values())) if hold else ({},)


def _metric(src: str, gdef: Game, where: str, text):
    from infra.metrics import MetricError, parse_metric
    if not isinstance(text, str):
        raise TuneError(f"{src}: {where} metric = {_clip(text)} must be a string naming a metric")
    try:
        return parse_metric(gdef, text)
    except MetricError as e:
        raise TuneError(f"{src}: {where} metric = {text!r}: {e}") from None


def _parse_objective(src: str, gdef: Game, obj: dict) -> Objective:
    for key in obj:
        if key not in ("metric", "target", "goal", "combine"):
            raise TuneError(f"{src}: [objective] unknown key {key!r}; valid: metric, target, goal, combine")
    if "metric" not in obj:
        raise TuneError(f"{src}: [objective] needs metric (a metric name, e.g. \"first_player_share\")")
    metric = _metric(src, gdef, "[objective]", obj["metric"])
    if ("target" in obj) == ("goal" in obj):
        raise TuneError(f"{src}: [objective] needs exactly one of target (a number) or goal (\"min\" or \"max\")")
    target = None
    if "target" in obj:
        target = _number(src, "[objective] target", obj["target"], metric.low, metric.high,
                         f"a number from {metric.low:g} to {metric.high:g} (the range of {metric.name})")
        goal = "target"
    else:
        goal = obj["goal"]
        if goal not in ("min", "max"):
            raise TuneError(f"{src}: [objective] goal = {goal!r} is not allowed; expected min or max")
    combine = obj.get("combine", "worst")
    if combine not in COMBINES:
        raise TuneError(f"{src}: [objective] combine = {combine!r} is not allowed; expected one of "
                        f"{', '.join(COMBINES)}")
    assert goal in GOALS
    return Objective(metric, goal, target, combine)


def _parse_constraint(src: str, gdef: Game, i: int, c) -> Constraint:
    where = f"[[constraint]] {i + 1}"
    if not isinstance(c, dict):
        raise TuneError(f"{src}: {where} = {_clip(c)} must be a table of metric, op, bound")
    for key in c:
        if key not in ("metric", "op", "bound"):
            raise TuneError(f"{src}: {where}: unknown key {key!r}; valid: metric, op, bound")
    for key in ("metric", "op", "bound"):
        if key not in c:
            raise TuneError(f"{src}: {where}: missing key {key!r}; a constraint is metric, op (<= or >=) and bound")
    metric = _metric(src, gdef, where, c["metric"])
    if c["op"] not in OPS:
        raise TuneError(f"{src}: {where}: op = {c['op']!r} is not allowed; expected <= or >=")
    bound = _number(src, f"{where} bound", c["bound"], metric.low, metric.high,
                    f"a number from {metric.low:g} to {metric.high:g} (the range of {metric.name})")
    return Constraint(metric, c["op"], bound)


# --- running ----------------------------------------------------------------------------------------------

def _toml(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in value.items()) + "}"
    return json.dumps(str(value))          # a TOML basic string: JSON's escapes are TOML's


def spec_text(raw: dict, header: str) -> str:
    """A sweep spec as TOML that reads back to exactly ``raw``."""
    lines = [f"# {line}" for line in header.splitlines()]
    for key, value in raw.items():
        if not isinstance(value, (dict, list)) or (isinstance(value, list) and key != "cells"):
            lines.append(f"{key} = {_toml(value)}")
    for key in ("setup", "overrides"):
        if key in raw:
            lines += ["", f"[{key}]"] + [f"{json.dumps(k)} = {_toml(v)}" for k, v in raw[key].items()]
    for cell in raw.get("cells", []):
        lines += ["", "[[cells]]"] + [f"{json.dumps(k)} = {_toml(v)}" for k, v in cell.items()]
    text = "\n".join(lines) + "\n"
    if tomllib.loads(text) != raw:
        raise TuneError("internal: the generated sweep spec does not read back as written")
    return text


def _label(values: dict) -> str:
    return ", ".join(f"{k}={json.dumps(v) if isinstance(v, str) else v}" for k, v in values.items()) or "(base)"


@dataclass
class Answer:
    """What a tune found: the best candidate, the indistinguishable set, every candidate's standing, games."""

    spec: dict
    search: str
    objective: str
    constraints: list[str]
    confidence: float
    alpha_split: str
    best: dict | None
    indistinguishable: list[dict]
    candidates: list[dict]
    games: int
    exhaustive_games: int
    finished: str
    rounds: list[dict]
    generations: list[dict] = field(default_factory=list)
    folders: list[str] = field(default_factory=list)
    race: dict = field(default_factory=dict)         # what rebuilds the race (stopper_for): candidates, confidence
    state: str = "done"

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


def _entry(spec: TuneSpec, race: Race, k: int, values: dict) -> dict:
    s = race.standings[k]
    obj = spec.objective
    return {
        "values": values, "label": _label(values), "reason": s.reason, "round": s.round, "games_per_hold": s.games,
        "loss": s.loss, "loss_interval": [s.loss_low, s.loss_high],
        "objective": {"per_hold": [{"hold": _label(h), "estimate": e, "interval": [lo, hi]}
                                   for h, (e, lo, hi) in zip(spec.holds, s.per_hold)],
                      "metric": obj.metric.name},
        "constraints": [{"constraint": c.text(), "certified": all((hi <= c.bound) if c.op == "<=" else (lo >= c.bound)
                                                                  for _, lo, hi in per),
                         "per_hold": [{"hold": _label(h), "estimate": e, "interval": [lo, hi]}
                                      for h, (e, lo, hi) in zip(spec.holds, per)]}
                        for c, per in zip(spec.constraints, s.constraints)],
        "certified": s.certified,
    }


def new_race(spec: TuneSpec, sweep: SweepSpec, candidates: list[dict], confidence: float,
             on_round: Callable[[Race], None] | None = None) -> Race:
    """The racing stopper over ``sweep``'s cells (candidate-major, as :meth:`TuneSpec.sweep_raw` lays them)."""
    H = len(spec.holds)
    cells = {c.id: divmod(i, H) for i, c in enumerate(sweep.cells)}
    return Race(cells, len(candidates), H, spec.objective, spec.constraints, confidence=confidence,
                batch=spec.batch, max_parts=spec.parts_per_cell, tolerance=spec.tolerance, growth=spec.growth,
                candidate_labels=[_label(c) for c in candidates], hold_labels=[_label(h) for h in spec.holds],
                on_round=on_round)


def prepare_out(spec: TuneSpec, out_dir: Path, raw: dict, resume: bool) -> SweepSpec:
    """Write the sweep spec into ``out_dir`` (new or empty), or check it against the one there (resume); the
    sweep spec, parsed with its path as the source (verification keeps it and the report beside it)."""
    path = out_dir / SPEC_NAME
    text = spec_text(raw, f"written by playtest tune from {spec.source}; the sweep it plays")
    if out_dir.exists() and not out_dir.is_dir():
        raise TuneError(f"{out_dir}: not a folder; --out names the results folder")
    if out_dir.is_dir() and any(out_dir.iterdir()):
        if not resume:
            raise TuneError(f"{out_dir}: not empty; choose a new or empty --out (or pass --resume to finish the "
                            "tune that is there)")
        there = parse_toml(read_text_bounded(path, "tune spec", TuneError, MAX_SPEC_BYTES), str(path), TuneError) \
            if os.path.lexists(path) else None       # the folder's own copy: bounded in size and nesting too
        if there is None or there != raw:
            raise TuneError(f"{out_dir} holds another tune or sweep ({SPEC_NAME} missing or different); choose "
                            "another --out")
    else:
        out_dir.mkdir(parents=True, exist_ok=True)
        write_atomic(path, text.encode())
    return _parse_at(spec, raw, path)


def _parse_at(spec: TuneSpec, raw: dict, path: Path) -> SweepSpec:
    try:
        return parse_spec(raw, source=str(path), base_dir=path.parent)
    except SpecError as e:
        raise TuneError(str(e)) from None


def run_tune(spec: TuneSpec, out_dir: str | Path, *, workers: int | None = None, address: str | None = None,
             resume: bool = False, progress: bool = False, log: Callable[[str], None] | None = None) -> Answer:
    """Run a tune into ``out_dir`` and write its answer (``tune.json``); see the module docstring."""
    out_dir = Path(out_dir)
    say = log or (lambda line: None)
    if spec.search == "race":
        return _run_race(spec, out_dir, workers, address, resume, progress, say)
    return _run_optuna(spec, out_dir, workers, address, resume, progress, say)


def _round_line(race: Race) -> str:
    h = race.history[-1]
    return (f"round {h['round'] + 1}: {h['alive']} of {race.K} candidates alive, {h['games']:,} games spent "
            f"({h['parts_per_cell'] * race.batch:,} per candidate and hold cell)"
            + (f"; race over: {race.finished}" if race.finished else ""))


def _play(spec: TuneSpec, out_dir: Path, candidates: list[dict], confidence: float, workers, address, resume,
          progress, say, name: str | None = None) -> Race:
    raw = spec.sweep_raw(candidates, name)
    created = not out_dir.exists()
    sweep = prepare_out(spec, out_dir, raw, resume)
    _write_report(out_dir, {"state": "running", "spec": spec.raw, "source": spec.source,
                            "race": _race_record(candidates, confidence)})
    race = new_race(spec, sweep, candidates, confidence, on_round=lambda r: say(_round_line(r)))
    from cluster.sweep import SweepError, run_sweep
    try:
        run_sweep(sweep, out_dir, workers=workers, address=address, resume=resume, progress=progress, log=say,
                  stopper=race)
    except SweepError as e:
        if not (out_dir / "manifest.json").exists():       # refused before anything was played: leave no trace
            for name in (SPEC_NAME, REPORT_NAME, ".sweep.lock"):   # the lock: the driver's, released by now
                (out_dir / name).unlink(missing_ok=True)
            if created:
                with contextlib.suppress(OSError):
                    out_dir.rmdir()
        raise TuneError(str(e)) from None
    if race.finished is None:
        raise TuneError(f"{out_dir}: the sweep ended before the race did (round {race.round + 1}); "
                        "pass --resume to finish it")
    return race


def _race_record(candidates: list[dict], confidence: float) -> dict:
    return {"candidates": candidates, "confidence": confidence}


def _write_report(out_dir: Path, report: dict) -> None:
    write_atomic(out_dir / REPORT_NAME, (json.dumps(report, indent=2, default=str) + "\n").encode())


def tune_report(out_dir: str | Path) -> dict | None:
    """The ``tune.json`` of a tune's sweep folder (its answer, or what a running tune wrote first), or None
    where ``out_dir`` is no tune's folder (no ``tune.toml`` and ``tune.json`` there, or unreadable)."""
    out_dir = Path(out_dir)
    path = out_dir / REPORT_NAME
    if not (out_dir / SPEC_NAME).is_file() or not path.is_file():
        return None
    try:
        report = json.loads(read_text_bounded(path, "tune report", TuneError, 256 * 2**20))
    except (TuneError, SpecError, ValueError, RecursionError):
        return None
    return report if isinstance(report, dict) and isinstance(report.get("race"), dict) else None


def stopper_for(out_dir: str | Path, sweep: SweepSpec) -> Race | None:
    """A fresh race of the tune whose sweep folder is ``out_dir`` (for verification to replay), or None where
    ``out_dir`` is no tune's folder or its report does not rebuild a race over ``sweep``'s cells."""
    report = tune_report(out_dir)
    if report is None:
        return None
    try:
        spec = parse_tune_spec(report["spec"], source=str(report.get("source", "<tune spec>")))
        candidates = report["race"]["candidates"]
        confidence = float(report["race"]["confidence"])
        if not isinstance(candidates, list) or len(candidates) * len(spec.holds) != len(sweep.cells) \
                or spec.sweep_raw(candidates)["cells"] != [c.values for c in sweep.cells]:
            return None
        return new_race(spec, sweep, candidates, confidence)
    except (TuneError, KeyError, TypeError, ValueError):
        return None


def _alpha_text(spec: TuneSpec, races: int, candidates: int) -> str:
    seqs = candidates * len(spec.holds) * (1 + len(spec.constraints))
    alpha = 1 - spec.confidence
    return (f"alpha = {alpha:g} split evenly (Bonferroni) over {races} race(s) and, in each, over every "
            f"candidate x hold cell x metric read (objective + {len(spec.constraints)} constraint(s)): "
            f"{'at most ' if races > 1 else ''}{seqs} confidence sequences per race, each at alpha "
            f"{'at least ' if races > 1 else ''}{alpha / races / seqs:.3g}")


def _run_race(spec, out_dir, workers, address, resume, progress, say) -> Answer:
    cands = spec.candidates()
    say(f"tune {spec.name!r}: race of {len(cands)} candidates x {len(spec.holds)} hold cell(s), batches of "
        f"{spec.batch:,} games, at most {spec.parts_per_cell * spec.batch:,} games per candidate and hold cell")
    race = _play(spec, out_dir, cands, spec.confidence, workers, address, resume, progress, say)
    entries = [_entry(spec, race, k, c) for k, c in enumerate(cands)]
    best = race.best()
    answer = Answer(spec=spec.raw, search="race", objective=spec.objective.describe(),
                    constraints=[c.text() for c in spec.constraints], confidence=spec.confidence,
                    alpha_split=_alpha_text(spec, 1, len(cands)),
                    best=entries[best] if best is not None else None,
                    indistinguishable=[entries[k] for k in race.indistinguishable()], candidates=entries,
                    games=race.games_spent(), exhaustive_games=race.exhaustive_games(), finished=race.finished,
                    rounds=race.history, folders=[str(out_dir)], race=_race_record(cands, spec.confidence))
    _write_report(out_dir, answer.to_json())
    return answer


def _run_optuna(spec, out_dir, workers, address, resume, progress, say) -> Answer:
    import optuna

    from cluster.sweep import _start_ray

    gens = math.ceil(spec.trials / spec.generation)
    confidence = 1 - (1 - spec.confidence) / gens
    dists = {p.name: p.distribution() for p in spec.space}
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    sampler = optuna.samplers.TPESampler(seed=spec.seed % (1 << 32), multivariate=True,
                                         n_startup_trials=min(spec.generation, spec.trials))
    study = optuna.create_study(direction="minimize", sampler=sampler)
    if out_dir.exists() and not out_dir.is_dir():
        raise TuneError(f"{out_dir}: not a folder; --out names the results folder")
    if out_dir.is_dir() and any(out_dir.iterdir()) and not resume:
        raise TuneError(f"{out_dir}: not empty; choose a new or empty --out (or pass --resume)")
    out_dir.mkdir(parents=True, exist_ok=True)
    say(f"tune {spec.name!r}: optuna (TPE, seed {spec.seed}), {spec.trials} proposals in {gens} generation(s) of "
        f"{spec.generation}, each raced against the incumbent over {len(spec.holds)} hold cell(s)")
    started, _, guard = _start_ray(workers, address)
    seen: dict[str, float] = {}                       # candidate label -> loss estimate when raced
    every: dict[str, dict] = {}                       # candidate label -> its last entry
    incumbent: dict | None = None
    games = exhaustive = 0
    generations, folders, rounds = [], [], []
    last_race, last_field = None, []
    try:
        asked_total = 0
        for g in range(gens):
            asked, field_ = [], [] if incumbent is None else [incumbent]
            while len(asked) < spec.generation and asked_total < spec.trials:
                t = study.ask(dists)
                asked_total += 1
                values = {p.name: t.params[p.name] for p in spec.space}
                label = _label(values)
                if label in seen:                      # raced before: its estimate is known
                    study.tell(t, seen[label])
                    continue
                try:
                    check_sweep(spec, [values])
                except TuneError:                      # a combination the rules refuse (cross-field checks)
                    study.tell(t, state=optuna.trial.TrialState.FAIL)
                    continue
                asked.append((t, values))
                if values not in field_:
                    field_.append(values)
            if len(field_) < 2 and incumbent is not None and not asked:
                continue
            folder = out_dir / f"generation-{g:02d}"
            race = _play(spec, folder, field_, confidence, None, None, resume, progress, say,
                         name=f"{spec.name}-generation-{g:02d}")
            folders.append(str(folder))
            entries = [_entry(spec, race, k, c) for k, c in enumerate(field_)]
            for e in entries:
                seen[e["label"]] = e["loss"]
                every[e["label"]] = e
            for t, values in asked:
                study.tell(t, seen[_label(values)])
            b = race.best()
            incumbent = field_[b] if b is not None else incumbent
            games += race.games_spent()
            exhaustive += race.exhaustive_games()
            rounds += [{**h, "generation": g} for h in race.history]
            generations.append({"generation": g, "folder": str(folder), "field": [e["label"] for e in entries],
                                "best": entries[b]["label"] if b is not None else None, "finished": race.finished,
                                "games": race.games_spent()})
            say(f"generation {g + 1}/{gens}: {len(field_)} candidates raced, best "
                f"{entries[b]['label'] if b is not None else 'none feasible'}; {games:,} games so far")
            last_race, last_field = race, field_
            _write_report(folder, {"state": "done", "generation": g, "spec": spec.raw, "source": spec.source,
                                   "race": _race_record(field_, confidence), "candidates": entries,
                                   "finished": race.finished})
    finally:
        if started:
            import ray
            ray.shutdown()
        if guard is not None:
            guard.close()
    if last_race is None:
        raise TuneError(f"{spec.source}: no candidate could be raced (every proposal was refused by the rules)")
    best = last_race.best()
    last_entries = [_entry(spec, last_race, k, c) for k, c in enumerate(last_field)]
    answer = Answer(spec=spec.raw, search="optuna", objective=spec.objective.describe(),
                    constraints=[c.text() for c in spec.constraints], confidence=spec.confidence,
                    alpha_split=_alpha_text(spec, gens, spec.generation + 1),
                    best=last_entries[best] if best is not None else None,
                    indistinguishable=[last_entries[k] for k in last_race.indistinguishable()],
                    candidates=list(every.values()), games=games, exhaustive_games=exhaustive,
                    finished=last_race.finished, rounds=rounds, generations=generations, folders=folders)
    _write_report(out_dir, answer.to_json())
    return answer


# the answer in words (what playtest tune prints, and the service's tune step logs) -------------------------------

def _interval(lo, hi) -> str:
    return f"[{_num(lo)}, {_num(hi)}]"


def _num(x) -> str:
    return "?" if x is None else f"{x:.4g}"


def answer_lines(a: Answer) -> list[str]:
    """The answer in words: the best candidate with its intervals, the set no round could tell apart, games."""
    lines = [f"objective: {a.objective}" + (f"; constraints: {', '.join(a.constraints)}" if a.constraints else ""),
             f"race ended: {a.finished}; {a.confidence:.0%} confidence for every interval at once ({a.alpha_split})"]
    if a.best is None:
        lines.append("no candidate meets the constraints: each was dropped by one (see tune.json for the intervals)")
    else:
        b = a.best
        goal = a.spec.get("objective", {}).get("goal") if isinstance(a.spec.get("objective"), dict) else None
        lo, hi = b["loss_interval"]
        value, low, high = ((-b["loss"], -hi, -lo) if goal == "max" and None not in (lo, hi)
                            else (b["loss"], lo, hi))
        lines.append(f"best: {b['label']}  objective {_num(value)} {_interval(low, high)} after "
                     f"{b['games_per_hold']:,} games per hold cell")
        for h in b["objective"]["per_hold"]:
            lines.append(f"  {b['objective']['metric']} in {h['hold']}: {_num(h['estimate'])} "
                         f"{_interval(*h['interval'])}")
        for c in b["constraints"]:
            worst = max(c["per_hold"], key=lambda p: p["interval"][1] if "<=" in c["constraint"] else -p["interval"][0])
            lines.append(f"  {c['constraint']}: {'holds' if c['certified'] else 'not yet shown'} "
                         f"(worst hold cell {worst['hold']}: {_num(worst['estimate'])} {_interval(*worst['interval'])})")
        others = a.indistinguishable[1:]
        lines.append(f"cannot be told apart from the best ({len(others)}):" + ("" if others else " none"))
        for e in others:
            lines.append(f"  {e['label']}: " + ("constraints shown to hold" if e.get("certified") else
                                                 "constraints NOT yet shown to hold (certified: false)"))
        nexts = [n for n in (next_step(e) for e in a.indistinguishable) if n]
        if nexts:
            lines.append("next: " + "; ".join(nexts) + f" (raise max_games_per_candidate in {a.spec.get('name', 'the spec')}"
                         " and run the tune again with --resume)")
    lines.append(f"games: {a.games:,} spent; an exhaustive grid giving every candidate as many games would spend "
                 f"{a.exhaustive_games:,} ({a.games / max(a.exhaustive_games, 1):.0%} of it spent)")
    return lines


def next_step(e: dict) -> str | None:
    """For a candidate whose constraints are not yet shown to hold: about how many games per hold cell would
    show it (an interval narrows as one over the square root of the games), or that its estimate already breaks
    the constraint; None when every constraint holds."""
    if e.get("certified"):
        return None
    n = e.get("games_per_hold") or 0
    needs = []
    for c in e.get("constraints", []):
        if c.get("certified"):
            continue
        upper = "<=" in c["constraint"]
        bound = float(c["constraint"].split("<=" if upper else ">=")[1].strip().rstrip("%")) / \
            (100 if c["constraint"].strip().endswith("%") else 1)
        for h in c["per_hold"]:
            est, (lo, hi) = h["estimate"], h["interval"]
            room = (bound - est) if upper else (est - bound)
            if room <= 0:
                return f"{e['label']} breaks {c['constraint']} in {h['hold']} ({_num(est)}): more games would drop it"
            half = (hi - lo) / 2
            if (hi > bound) if upper else (lo < bound):
                needs.append(math.ceil(n * (half / room) ** 2))
    return f"{e['label']} needs about {max(needs):,} games per hold cell (now {n:,})" if needs else None
