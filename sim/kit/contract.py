"""Contracts a game gets for free: differential configurations generated from its declarations.

The engine core and the reference engine must play the same games for every value of every rule parameter.
A hand-picked list of configurations leaves parameters at their default (25 of the 52 Paws parameters once were),
and then a core that ignores one of them passes every test. So the configurations are generated from the
declarations themselves (OpenSpiel loops its random-simulation test over a game's parameter values): for every
rule parameter of a game, its minimum, its maximum and a value beside its default (a parameter with choices:
every other choice; a yes/no rule: the other answer). A parameter is covered the moment it is declared.

A value that the rule set's own cross-checks refuse on its own (``max_hp`` 1 below the default ``start_hp``) is
left out; :func:`variations` says which parameters kept no value at all, and the tests require there be none.
"""

from __future__ import annotations

from typing import Any, Iterator

from sim.params import RuleError, fields


def candidate_values(field, default: Any) -> list[Any]:
    """Minimum, maximum and a value beside the default (choices: every other one; bools: the other), each once,
    never the default itself."""
    m = field.metadata
    kind = field.type if isinstance(field.type, str) else field.type.__name__
    if m["choices"] is not None:
        values = list(m["choices"])
    elif kind == "bool":
        values = [not default]
    elif kind == "int":
        lo, hi = m["min"], m["max"]
        values = [v for v in (lo, hi, default + 1, default - 1) if v is not None
                  and (lo is None or v >= lo) and (hi is None or v <= hi)]
    else:
        values = []
    out: list[Any] = []
    for v in values:
        if v != default and v not in out:
            out.append(v)
    return out


def variations(game) -> tuple[list[dict[str, Any]], list[str]]:
    """([overrides, ...] to play on both engines, [parameters none of whose values the rule set accepts]) for
    every rule parameter of ``game`` (a registered ``sim.games.Game``), from the defaults of its default preset.

    A value the rule set's cross-checks refuse on its own is tried again with one other whole-number parameter
    moved the other way by as much (the Beginner board's four tile counts must add up to 18: one more Mansion,
    one fewer Home)."""
    base = game.resolve().rules
    ints = [f for f in fields(base) if (f.type if isinstance(f.type, str) else f.type.__name__) == "int"]

    def accepted(overrides: dict[str, Any]) -> bool:
        try:
            game.resolve(overrides=overrides)
        except (RuleError, ValueError):
            return False
        return True

    found: list[dict[str, Any]] = []
    stuck: list[str] = []
    for f in fields(base):
        kept = 0
        default = getattr(base, f.name)
        for value in candidate_values(f, default):
            tries = [{f.name: value}]
            if isinstance(value, int) and not isinstance(value, bool):
                tries += [{f.name: value, q.name: getattr(base, q.name) - (value - default)} for q in ints
                          if q.name != f.name]
            got = next((t for t in tries if accepted(t)), None)
            if got is not None:
                found.append(got)
                kept += 1
        if kept == 0:
            stuck.append(f.name)
    return found, stuck


def contexts(game) -> list[tuple[str, str | None, dict[str, Any], dict[str, Any]]]:
    """(label, preset, overrides, setup) each variation is played in: every configuration ``playtest bench``
    measures (boards, player counts, modes), with the game's default bots and, when it has a ``bots`` setup
    value, random bots in every seat (they reach the rare options a heuristic avoids)."""
    out = []
    for p in game.bench_presets:
        out.append((p.label, p.rules, dict(p.overrides), dict(p.setup)))
        if "bots" in game.setup_keys:
            out.append((f"{p.label}, random bots", p.rules, dict(p.overrides), {**p.setup, "bots": "random"}))
    return out


def first_difference(match, seed: int, start: int, count: int) -> str | None:
    """Where the core's games ``start .. start+count-1`` first differ from the reference engine's (the game and
    the columns), None when every table is equal record for record."""
    core = match.play_batch(seed, start, count, "core")
    ref = match.play_batch(seed, start, count, "reference")
    for table in match.tables:
        a, b = core[table].to_pylist(), ref[table].to_pylist()
        if len(a) != len(b):
            return f"{table}: {len(a)} core rows, {len(b)} reference rows"
        for x, y in zip(a, b):
            if x != y:
                cols = {k: (x.get(k), y.get(k)) for k in x if x.get(k) != y.get(k)}
                where = f"game {x.get('game_index')}" if "game_index" in x else "a row"
                return f"{table}, {where}: core != reference on {cols}"
    return None


def check_variation(game, overrides: dict[str, Any], seed: int, games: int, only: int | None = None) -> list[str]:
    """Play ``overrides`` on both engines in every context (or only context ``only``), ``games`` games in each
    (every table the game writes); the differences found, one line each. A context whose own preset refuses the
    overrides is skipped; ValueError when every one does."""
    found, played = [], 0
    ctx = contexts(game)
    for i, (label, preset, base, setup) in enumerate(ctx):
        if only is not None and i != only % len(ctx):
            continue
        try:
            match = game.resolve(rules=preset, overrides={**base, **overrides}, setup=setup,
                                 tables=tuple(game.schemas))
        except (RuleError, ValueError):
            continue
        played += 1
        if (diff := first_difference(match, seed, 1000 * i, games)) is not None:
            found.append(f"{game.name} {overrides} in {label}: {diff}")
    if not played:
        raise ValueError(f"{game.name} {overrides}: no context accepts it")
    return found
