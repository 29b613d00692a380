"""Restricted play: what each kind of option is worth to a bot (``playtest restrict``; docs/restricted-play.md).

Jaffe, Miller, Andersen, Liu, Karlin and Popović, "Evaluating Competitive Game Balance with Restricted Play"
(AIIDE 2012): a bot forbidden one kind of option plays against the unrestricted bot; how much it loses says
what the option is worth. Here the restricted bot (``heuristic:forbid=invade``, or the learned bot's
``learned:model=paws-2:forbid=invade``) takes each seat of each of the game's skill line-ups in turn against the
unrestricted bot in every other seat, and the unrestricted bot plays the same seats of the same games (common random numbers: the same seed and game index, so the two games are
one game until the first forbidden choice). It is played as an ordinary sweep (``sweep_raw``: per line-up one
base cell, the unrestricted bot in every seat, which serves every option, and one cell per option and seat)
and answered from the sweep's folder (measures/restrict/answer.py). The change is the paired per-game difference of
the seat's scores (1 a win, the fair share a draw, 0 a loss), the line-ups weighted equally, with a 95%
interval (normal, the line-ups' variances added): cluster.train's paired_gain and equal_weight.

Verdicts, on the cost of forbidding (the unrestricted score less the restricted), with an equivalence margin
``margin`` (default 2 points of win share) judged by two one-sided tests (infra.stats.equivalence), never by
whether intervals overlap (measures/restrict/answer.py ``verdict``):
- **dominant**: its whole 95% interval is above ``threshold`` (default 5 points): the bot's play leans on it;
- **useless**: the same within +-``margin``: its 90% interval lies inside the margin and its 95% holds zero;
- **negligible**: it differs from zero (its 95% interval leaves zero out) by less than the margin;
- **overused**: its whole interval is below 0 (and not within the margin): the bot does better without it;
- **matters**: above 0 and beyond the margin, not shown above the threshold;
- **unclear**: not enough games to say (the answer gives the games that would settle it).
"""

from __future__ import annotations

from typing import Sequence

from cluster.train import seatings
from measures.protocol import points
from sim.games import GAMES
from sim.kit.bots import RESTRICTABLE
from sim.params import RuleError, fields

STEM = "restrict"               # DIR/restrict.toml: the sweep spec; DIR/restrict.json: the answer
THRESHOLD = 0.05
MARGIN = 0.02               # the equivalence margin: within +-2 points of win share is "the same"


def forbiddable(game_name: str) -> tuple[str, ...]:
    """The options a heuristic bot of the game can be forbidden (its weights' ``forbid`` choices less none)."""
    by = {f.name: f for f in fields(GAMES[game_name].bot_weights)}
    if "forbid" not in by:
        return ()
    return tuple(c for c in by["forbid"].metadata["choices"] if c != "none")


def restricted_spec(base: str, option: str) -> str:
    return f"{base}:forbid={option}"


def check(game_name: str, base: str, options: Sequence[str]) -> None:
    """Refuse (RuleError, one line) a base bot that is not a heuristic or learned bot, or an option the game
    does not have, before any game."""
    allowed = forbiddable(game_name)
    if not allowed:
        raise RuleError(f"{game_name}: its heuristic bot has no options to forbid")
    if base.split(":")[0].strip() not in RESTRICTABLE or "forbid=" in base:
        raise RuleError(f"--bot {base!r}: restricted play forbids options of a heuristic or learned bot (heuristic, "
                        "heuristic:preset=NAME, with weights, or learned:model=NAME), without forbid=")
    for o in options:
        if o not in allowed:
            raise RuleError(f"--forbid {o!r}: {game_name} has no such option; allowed: {', '.join(allowed)}")
    for o in options:
        seatings(GAMES[game_name], restricted_spec(base, o), base)     # every spec resolves


def line_up_cells(game_name: str, base: str, options: Sequence[str]) -> list[tuple[str, list[dict]]]:
    """Per skill line-up (its label): its cells, as a sweep spec's ``[[cells]]`` values: the base bot in every
    seat, then for each option and seat the restricted bot in that seat and the base bot elsewhere."""
    game = GAMES[game_name]
    out = []
    for lu in game.skill_setups:
        seats = len(game.resolve(lu.rules, lu.overrides, lu.setup).setup.bots)
        shape = {**({"rules": lu.rules} if lu.rules is not None else {}), **lu.overrides, **lu.setup}
        cells = [{**shape, "bots": [base] * seats}]
        for o in options:
            for seat in range(seats):
                bots = [base] * seats
                bots[seat] = restricted_spec(base, o)
                cells.append({**shape, "bots": bots})
        out.append((lu.label, cells))
    return out


def sweep_raw(game_name: str, base: str, options: Sequence[str], seed: int, games: int) -> dict:
    """The restricted-play sweep spec (cluster.spec.parse_spec): every cell the same seed and games, so game k of
    every cell is the same deal (common random numbers); the base cell of a line-up serves every option."""
    return {"name": f"restricted play {game_name}", "game": game_name, "seed": seed, "games_per_cell": games,
            "cells": [c for _, cells in line_up_cells(game_name, base, options) for c in cells]}


def games_to_play(game_name: str, base: str, options: Sequence[str], games: int) -> int:
    """The games the sweep plays: per line-up, the base cell and one cell per option and seat."""
    return sum(len(cells) for _, cells in line_up_cells(game_name, base, options)) * games


SAYS = {"dominant": "the bot's play leans on it: forbidding it costs more than {t} points",
        "useless": "forbidding it changes the win share by less than {m} point{s} either way (the same, by an "
                   "equivalence test)",
        "negligible": "forbidding it changes the win share, by less than {m} point{s}",
        "overused": "the bot does better without it: it takes it when it should not",
        "matters": "forbidding it costs something, not shown to be within {m} point{s} nor over {t} points",
        "unclear": "not enough games to say whether it is within {m} point{s}{need}"}


def sentences(result: dict) -> list[str]:
    t, m = 100 * result["threshold"], 100 * result["margin"]
    out = []
    for r in sorted(result["options"], key=lambda r: -r["cost"]):
        low, high = r["cost_95"]
        need = f" (about {r['games_needed']:,} paired games would settle it)" if r.get("games_needed") else ""
        said = SAYS[r["verdict"]].format(t=f"{t:g}", m=f"{m:g}", s="" if m == 1 else "s", need=need)
        out.append(f"forbid {r['option']}: {r['verdict']}, it costs {points(r['cost'])} points of win share "
                   f"(95%: {points(low)} to {points(high)}; {r['games']:,} paired games): {said}")
    return out

