"""Named rule presets: a game's frozen rule sets by name, picked with validated overrides."""

from __future__ import annotations

from typing import Any, Mapping, TypeVar

from sim.params import RuleError, with_overrides

T = TypeVar("T")


def pick_preset(presets: Mapping[str, T], name: str, overrides: Mapping[str, Any] | None = None,
                where: str = "rules", title: str = "") -> T:
    """The preset ``name`` of a game (``title``) with ``overrides`` applied; an unknown name lists the valid ones."""
    if name not in presets:
        game = f"{title} " if title else ""
        raise RuleError(f"{where}: unknown {game}rule set {name!r}; valid rule sets: {', '.join(presets)}")
    return with_overrides(presets[name], overrides or {}, where)
