"""Bot specs shared by every game: ``random``, ``heuristic`` or ``heuristic:aggression=3:caution=1``
(a heuristic bot's weights after colons), ``heuristic:preset=tuned`` (a named weight set of the game,
then any weights after it), the search bots ``mcts:iterations=256:rollout=heuristic`` and
``flat:rollouts=16`` (core only; docs/search-bots.md), the random bot, and each game's roster of bot
classes."""

from __future__ import annotations

import math
from dataclasses import fields as dataclasses_fields
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping

from sim.files import load_toml_bounded
from sim.games import EngineError
from sim.kit.learned import resolve_model, strongest_model
from sim.params import RuleError, as_dict, fields, param, parse_assignments, with_overrides

BOT_KINDS = ("random", "heuristic", "mcts", "flat", "learned")   # the cores' BOT_* values are the indexes
SEARCH_KINDS = ("mcts", "flat")
CORE_ONLY = SEARCH_KINDS + ("learned",)      # bots only the cores play (a replay takes their choices from a trace)
# a search bot's rollout policy; its index (the core's Search.rollout) is the policy's bot kind
ROLLOUTS = ("random", "heuristic")
assert ROLLOUTS == BOT_KINDS[:len(ROLLOUTS)]


@dataclass(frozen=True)
class SearchParams:
    """A search bot's parameters (the engine kit's Search struct, core/kit/types.pxd, same names and order)."""
    iterations: int = param(256, "mcts: search iterations per decision (one determinized simulation each)",
                            min=1, max=1_000_000)
    rollouts: int = param(16, "flat: rollouts per option of a decision", min=1, max=100_000)
    rollout: str = param("heuristic", "the policy that plays every seat in the simulations", choices=ROLLOUTS)
    depth: int = param(0, "top-level decisions a rollout plays before the game is evaluated; 0: to the end",
                       min=0, max=100_000)
    c: float = param(0.7, "mcts: the UCB exploration constant (rewards are in [0, 1])", min=0, max=100)


# the spec fields each search bot takes (preset: the heuristic weights of its rollouts and other decisions;
# model: a learned model for its rollouts, its prior and its evaluation at the depth cap)
SEARCH_FIELDS = {"mcts": ("iterations", "rollout", "depth", "c", "preset", "model"),
                 "flat": ("rollouts", "rollout", "depth", "preset", "model")}
SPEC_ONLY = ("preset", "model")      # fields of a spec that are not the core's Search struct
RESTRICTABLE = ("heuristic", "learned")     # the bots that take forbid= (restricted play, docs/restricted-play.md)


def core_weights(w) -> dict:
    """A heuristic's weights as an engine core takes them: a number as it is, a choice (forbid) as the index of
    its value."""
    return {f.name: (f.metadata["choices"].index(getattr(w, f.name)) if f.metadata["choices"] else getattr(w, f.name))
            for f in fields(w)}


class SearchBot:
    """A search bot: ``mcts`` (IS-MCTS) or ``flat`` (flat Monte Carlo), played by the engine cores only; ``w``
    is the heuristic's weights for its rollouts and for the decisions the search does not take."""

    def __init__(self, kind: str, params: SearchParams, weights, model=None):
        self.name, self.params, self.w, self.model = kind, params, weights, model

    @property
    def spec(self) -> str:
        """The bot's spec with every parameter it takes spelled out (weights other than a preset's are not
        part of a search bot's spec; a model by name and digest)."""
        fields = [f for f in SEARCH_FIELDS[self.name] if f not in SPEC_ONLY]
        model = [f"model={self.model.name}@{self.model.digest}"] if self.model is not None else []
        return ":".join([self.name] + [f"{f}={getattr(self.params, f)}" for f in fields] + model)

    def core_params(self) -> dict:
        """The core's Search struct as a dict (the rollout policy as its index)."""
        values = as_dict(self.params)
        values["rollout"] = ROLLOUTS.index(values["rollout"])
        return values

    def decide(self, g, seat: int, kind, options: list) -> int:
        raise EngineError(f"{self.name} is core-only; use engine = core")


class LearnedBot:
    """The learned bot: the model's policy takes every top-level decision (core only: core/kit/learned.pxi);
    ``w`` is the heuristic's weights for the other decisions (and the heuristic's pick, one of its features).
    Restricted play (``w.forbid``): it never takes an option of that kind while another is listed, by the
    rule ``forbidden(forbid, kind, option)`` its game's heuristic asks; a replay checks the core's choices
    against it (:meth:`allows`)."""

    name = "learned"

    def __init__(self, model, weights, forbidden=None):
        self.model, self.w, self.forbidden = model, weights, forbidden

    @property
    def spec(self) -> str:
        forbid = getattr(self.w, "forbid", "none")
        return f"learned:model={self.model.name}@{self.model.digest}" + (f":forbid={forbid}" if forbid != "none" else "")

    def allows(self, kind, options: list, k: int) -> bool:
        """Restricted play: option k may be taken (it is not of the forbidden kind, or every option listed is)."""
        forbid = getattr(self.w, "forbid", "none")
        if forbid == "none" or self.forbidden is None or not self.forbidden(forbid, kind, options[k]):
            return True
        return all(self.forbidden(forbid, kind, o) for o in options)

    def decide(self, g, seat: int, kind, options: list) -> int:
        raise EngineError("learned is core-only; use engine = core")


def _search_number(spec: str, name: str, value: str) -> float:
    """The exploration constant: a finite decimal number in its declared range."""
    f = {f.name: f for f in dataclasses_fields(SearchParams)}[name]
    lo, hi = f.metadata["min"], f.metadata["max"]
    try:
        x = float(value)
    except ValueError:
        x = math.nan
    if not (math.isfinite(x) and lo <= x <= hi):
        raise RuleError(f"bot {spec!r}: {name} = {value!r} is not allowed; expected a number from {lo} to {hi}")
    return x


def spec_fields(spec: str) -> tuple[str, dict[str, str]]:
    """A bot spec's kind and its fields ``{name: value}``, read as every bot is: cut at ':', each field name=value
    with both stripped (sim.params.parse_assignments); a field without '=', or a name given twice, is a RuleError."""
    kind, *assigned = spec.strip().split(":")
    return kind, parse_assignments(assigned, where=f"bot {spec!r}")


def refuse_core_only(specs: Iterable[str], why: str) -> None:
    """Raise an EngineError naming the first core-only bot (a search or learned bot) among ``specs``, for an
    engine that cannot play them."""
    for spec in specs:
        kind = spec.strip().split(":")[0]
        if kind in CORE_ONLY:
            raise EngineError(f"bot {spec!r}: {why.format(kind=kind)}")


class RandomBot:
    """The random legal bot: every decision uniform over its options, drawn from the game's own stream."""

    name = "random"

    def decide(self, g, seat: int, kind, options: list) -> int:
        return g.rng.below(len(options))


def best(scores: list[int]) -> int:
    """Index of the highest score, the first one on ties (how every heuristic bot picks)."""
    return scores.index(max(scores))


def load_weight_presets(path: Path, weights: type) -> dict[str, object]:
    """A game's named heuristic weight sets: ``default`` (the declared defaults) and one per table of the
    TOML file at ``path`` (if there is one), each checked against the weights' ranges."""
    presets: dict[str, object] = {"default": weights()}
    if path.exists():
        tables = load_toml_bounded(path, "weight presets file", RuleError)    # bounded size and nesting
        for name, values in tables.items():
            if name == "default" or not isinstance(values, dict):
                raise RuleError(f"{path}: [{name}] must be a table of weights and not named 'default'")
            presets[name] = with_overrides(weights(), {k: v for k, v in values.items() if k != "about"},
                                           where=f"{path} [{name}]", what="weight")
    return presets


def preset_notes(path: Path) -> dict[str, str]:
    """What each named weight set of a presets file says of itself (its ``about``), by name."""
    if not path.exists():
        return {}
    return {name: str(values.get("about", "")) for name, values in
            load_toml_bounded(path, "weight presets file", RuleError).items() if isinstance(values, dict)}


@dataclass(frozen=True)
class BotRoster:
    """A game's bots: the shared :class:`RandomBot`, and its heuristic bot with the frozen weights it takes
    (``presets``: named weight sets, ``default`` first); ``features`` and ``models``: its learned bots'
    feature set and the folder of its shipped models (sim/kit/learned.py), None where it has none."""

    heuristic: type
    weights: type
    presets: Mapping[str, object] = field(default_factory=dict)
    features: object = None
    models: Path | None = None

    refuse_core_only = staticmethod(refuse_core_only)     # for callers that hold a game's roster (sim.games)

    def canonical(self, spec: str) -> str:
        """The spec as records keep it: a model named by name and digest (``model=paws-1@3fa2c1d09b1e``), so
        results of two models are never pooled; every other spec as given."""
        bot = self.parse(spec)
        if getattr(bot, "model", None) is None:
            return spec.strip()
        kind, *assigned = spec.strip().split(":")
        if not any(a.partition("=")[0].strip() == "model" for a in assigned):      # learned: the strongest model
            assigned = [f"model={bot.model.name}"] + assigned
        out = []
        for a in assigned:
            key, _, value = a.partition("=")
            out.append(f"model={value.strip().partition('@')[0]}@{bot.model.digest}" if key.strip() == "model" else a)
        return ":".join([kind] + out)

    def parse(self, spec: str):
        """The bot a spec names; an unknown kind or weight is refused with the valid ones."""
        kind, *assigned = spec.strip().split(":")
        if kind not in BOT_KINDS:
            raise RuleError(f"bot {spec!r}: unknown bot {kind!r}; valid bots: {', '.join(BOT_KINDS)}")
        if kind == "random":
            if assigned:
                raise RuleError(f"bot {spec!r}: the random bot takes no weights")
            return RandomBot()
        values = spec_fields(spec)[1]
        search = model = None
        if kind == "learned" or "model" in values and kind in SEARCH_KINDS:
            if self.features is None:
                raise RuleError(f"bot {spec!r}: this game has no learned bot yet (no features are declared for it)")
            if "model" not in values and kind == "learned":
                values["model"] = strongest_model(self.models, spec)
            if "model" not in values:
                raise RuleError(f"bot {spec!r}: which model? {kind}:...:model=NAME (playtest bots {self.game_name} "
                                "lists the shipped ones)")
            model = resolve_model(self.models, self.features, values.pop("model"), spec)
        if kind in SEARCH_KINDS:
            allowed = SEARCH_FIELDS[kind]
            search = {k: values.pop(k) for k in list(values) if k != "preset"}
            for k in search:
                if k not in allowed:
                    raise RuleError(f"bot {spec!r}: unknown {kind} parameter {k!r}; valid {kind} parameters: "
                                    f"{', '.join(allowed)}")
            if "c" in search:
                search["c"] = _search_number(spec, "c", search["c"])
            search = with_overrides(SearchParams(), search, where=f"bot {spec!r}", what=f"{kind} parameter")
        start = self.weights()
        if "preset" in values:
            name = values.pop("preset")
            presets = self.presets or {"default": start}
            if name not in presets:
                raise RuleError(f"bot {spec!r}: unknown weight preset {name!r}; valid presets: {', '.join(presets)}")
            start = presets[name]
        w = with_overrides(start, values, where=f"bot {spec!r}", what="weight")
        if kind not in RESTRICTABLE and getattr(w, "forbid", "none") != "none":
            raise RuleError(f"bot {spec!r}: forbid is restricted play of the heuristic and learned bots; "
                            f"use heuristic:forbid={w.forbid} or learned:model=NAME:forbid={w.forbid}")
        if kind == "learned":
            return LearnedBot(model, w, getattr(self.heuristic, "forbidden", None))
        return self.heuristic(w) if search is None else SearchBot(kind, search, w, model)

    @property
    def game_name(self) -> str:
        return getattr(self.features, "game", "GAME")

    def make(self, specs) -> list:
        """One bot per seat."""
        return [self.parse(s) for s in specs]

    def core_bots(self, specs, weight_fields, search_fields, known) -> list[tuple]:
        """The bots as an engine core takes them, one per seat: (kind index, weights) or, for a search bot,
        (kind index, weights, search parameters); ``known(what, names, core_names)`` refuses a weight or a
        parameter the core's structs lack."""
        out = []
        for spec in specs:
            bot = self.parse(spec)
            if isinstance(bot, RandomBot):
                out.append((BOT_KINDS.index("random"), {}))
                continue
            weights = core_weights(bot.w)
            known("bot weight(s)", weights, weight_fields)
            if isinstance(bot, SearchBot):
                known("search parameter(s)", bot.core_params(), search_fields)
                out.append((BOT_KINDS.index(bot.name), weights, bot.core_params())
                           + ((bot.model.core(),) if bot.model is not None else ()))
            elif isinstance(bot, LearnedBot):
                out.append((BOT_KINDS.index("learned"), weights, {}, bot.model.core()))
            else:
                out.append((BOT_KINDS.index("heuristic"), weights))
        return out
