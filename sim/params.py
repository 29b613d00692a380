"""Frozen rule-parameter objects: typed fields with ranges, named presets, validated overrides.

Every game's rule set is a frozen dataclass whose fields are declared with :func:`param`. The field
metadata (help text, allowed range or choices) drives validation, the CLI's ``--set`` parsing, sweep
specs and the parameter columns of the game record, so a new rule number is added in one place.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import json
from typing import Any, Container, Mapping, TypeVar

T = TypeVar("T")


class RuleError(ValueError):
    """A rule parameter name or value was refused; the message names the field and the allowed values."""


def param(default: Any, help: str, *, min: int | None = None, max: int | None = None,
          choices: tuple | None = None, cite: str = "", option: bool = False,
          relevant: Mapping[str, Container] | tuple[Mapping[str, Container], ...] | None = None) -> Any:
    """Declare one rule parameter with its default, meaning, allowed range or choices and rulebook section.

    ``option=True`` declares a versioned engine option added after results were already written (how the
    engine draws its randomness, not a rule of the book): at its default it plays the games as before the
    option existed, so it is left out of every digest at its default (:func:`provenance`), and old results,
    sweep folders and baselines keep their digests; set away from its default it counts like any parameter.

    ``relevant`` says where the parameter can change a game, when that is not everywhere: ``{name: values}``
    over the game's setup values (``board``, ``mode``, ``players``) and the rule set's other parameters, every
    name matching (``{"mode": ("teams",)}``: Teams games only; ``{"defender_edge": AtLeast(1)}``: only while
    there is an edge to take away), or a tuple of such mappings, any one matching. The generated differential
    cases (sim.kit.contract) play a parameter in every kind of game it can change, and check that it changes
    nothing elsewhere."""
    if isinstance(relevant, Mapping):
        relevant = (relevant,)
    meta = {"help": help, "min": min, "max": max, "choices": choices, "cite": cite, "option": option,
            "relevant": tuple(dict(r) for r in relevant) if relevant is not None else None}
    return dataclasses.field(default=default, metadata=meta)


class AtLeast:
    """Every whole number from ``low`` up, as the values of a ``relevant`` condition (a range's end would go
    stale when a maximum is raised)."""

    def __init__(self, low: int):
        self.low = low

    def __contains__(self, value: Any) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and value >= self.low

    def __repr__(self) -> str:
        return f"AtLeast({self.low})"


def acts(f: dataclasses.Field, rules, setup: Mapping[str, Any]) -> bool:
    """Whether parameter ``f`` can change a game of these rules and setup values (``Game.setup_values``): its
    ``relevant`` conditions (none: everywhere), each name looked up among the setup values first, then the
    rules' parameters."""
    conditions = f.metadata.get("relevant")
    if conditions is None:
        return True

    def value(name: str) -> Any:
        return setup[name] if name in setup else getattr(rules, name)
    return any(all(value(name) in values for name, values in c.items()) for c in conditions)


def fields(cls_or_obj) -> list[dataclasses.Field]:
    """The parameter fields of a rule set, in declaration order."""
    return [f for f in dataclasses.fields(cls_or_obj) if "help" in f.metadata]


def allowed(f: dataclasses.Field) -> str:
    """Human-readable allowed values of one parameter."""
    m = f.metadata
    if m["choices"] is not None:
        return "one of " + ", ".join(str(c) for c in m["choices"])
    if f.type in ("bool", bool):
        return "true or false"
    lo = m["min"] if m["min"] is not None else "-inf"
    hi = m["max"] if m["max"] is not None else "inf"
    return f"an integer from {lo} to {hi}"


def _coerce(f: dataclasses.Field, value: Any, where: str) -> Any:
    kind = f.type if isinstance(f.type, str) else f.type.__name__
    bad = RuleError(f"{where}: {f.name} = {value!r} is not allowed; expected {allowed(f)}")
    if kind == "bool":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "yes", "on", "1", "false", "no", "off", "0"):
            return value.lower() in ("true", "yes", "on", "1")
        if isinstance(value, int) and value in (0, 1):
            return bool(value)
        raise bad
    if kind == "int":
        if isinstance(value, bool):
            raise bad
        if isinstance(value, str):
            try:
                value = int(value.strip())
            except ValueError:
                raise bad from None
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if not isinstance(value, int):
            raise bad
        lo, hi = f.metadata["min"], f.metadata["max"]
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise bad
    if kind == "str":
        if not isinstance(value, str):
            raise bad
    choices = f.metadata["choices"]
    if choices is not None and value not in choices:
        raise bad
    return value


def with_overrides(base: T, overrides: Mapping[str, Any], where: str = "rules", what: str = "rule parameter") -> T:
    """Return a copy of ``base`` with validated overrides; unknown names list the valid ones."""
    by_name = {f.name: f for f in fields(base)}
    changes = {}
    for name, value in overrides.items():
        key = name.strip().replace("-", "_")
        if key not in by_name:
            valid = ", ".join(sorted(by_name))
            close = difflib.get_close_matches(key, by_name, n=1, cutoff=0.75)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise RuleError(f"{where}: unknown {what} {name!r}{hint}; valid {what}s: {valid}")
        changes[key] = _coerce(by_name[key], value, where)
    new = dataclasses.replace(base, **changes)
    check = getattr(new, "check", None)
    if check is not None:
        check(where)
    return new


def parse_assignments(items: list[str] | tuple[str, ...], where: str = "--set") -> dict[str, str]:
    """Parse ``name=value`` strings (the CLI's repeatable ``--set``); a name given twice is refused (the second
    would silently replace the first)."""
    out: dict[str, str] = {}
    for item in items:
        if "=" not in item:
            raise RuleError(f"{where}: {item!r} is not of the form name=value")
        k, v = item.split("=", 1)
        k = k.strip()
        if k in out:
            shown = lambda x: x if x.isprintable() else repr(x)         # noqa: E731 (one line, whatever the text)
            raise RuleError(f"{where}: {shown(k)} is given twice ({shown(f'{k}={out[k]}')} and "
                            f"{shown(f'{k}={v.strip()}')}); give it once")
        out[k] = v.strip()
    return out


def as_dict(rules) -> dict[str, Any]:
    """All parameters as a plain dict, in declaration order."""
    return {f.name: getattr(rules, f.name) for f in fields(rules)}


def option_defaults(rules) -> dict[str, Any]:
    """The versioned engine options of a rule set (class or object) and their defaults, ``{name: default}``."""
    return {f.name: f.default for f in fields(rules) if f.metadata.get("option")}


def provenance(rules) -> dict[str, Any]:
    """The parameters that decide the games, for digests: every parameter, less the engine options at their
    default (those play the games as before the option existed)."""
    skip = option_defaults(rules)
    return {k: v for k, v in as_dict(rules).items() if k not in skip or v != skip[k]}


def digest(rules) -> str:
    """A stable short digest of a rule set's parameter values (provenance of results)."""
    blob = json.dumps(provenance(rules), sort_keys=True).encode()
    return hashlib.sha256(blob).hexdigest()[:16]
