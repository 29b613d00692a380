"""Answers across skill: one sweep spec played at several bot levels (``playtest sweep SPEC --skill A,B,C``;
docs/skill.md).

Each level is the spec with that bot in every seat, played into its own folder ``OUT/skill-K`` (a whole
sweep: resume, status, verify and every query work on it); ``OUT/skill.json`` lists the levels in the order
given (weakest first by intent), their folders and their games per cell. A query given ``OUT`` reads every
level's folder: the answer is split by bots, never pooled, and says whether it holds under stronger play
(the two strongest levels agree within their 95% intervals) or how it moves with skill.

Budgets fit each bot's cost: a level plays the spec's games per cell, or fewer when it is slower, so that
no level takes more than ``seconds`` of play (estimated from a short timing of the spec's first cell on one
core, times the workers); at least ``MIN_GAMES`` a cell. The budgets are written to ``skill.json`` when the
run starts, so a resumed run plays exactly the same games. The levels are also rated against each other on one
ladder (``OUT/ladder``, recorded in skill.json's ``ladder``: cluster/skill_ladder.py).
"""

from __future__ import annotations

import copy
import json
import math
import time
from pathlib import Path
from typing import Any, Sequence

from cluster.skill_ladder import record_ok
from cluster.spec import SpecError, SweepSpec, parse_spec
from sim.files import load_json_bounded, write_atomic

PLAN = "skill.json"
MIN_GAMES = 100
PILOT_SECONDS = 1.0


def folder(out: Path, k: int) -> Path:
    return out / f"skill-{k + 1}"


def check_raw(raw: dict[str, Any], src: str, levels: Sequence[str]) -> None:
    """Refuse a spec that sets the bots itself, or a [stop] spec (its budget is its own), before any game."""
    if not levels or any(not lv.strip() for lv in levels):
        raise SpecError("--skill: give bot specs separated by commas, weakest first (e.g. heuristic,learned:model=paws-2)")
    if len(set(levels)) != len(levels):
        raise SpecError(f"--skill {','.join(levels)}: a level is given twice")
    if "stop" in raw:
        raise SpecError(f"{src}: a [stop] spec plays each cell until its answer is clear; --skill sets games per "
                        "cell for each level: use a spec with games_per_cell")
    grid = raw.get("grid") or {}
    if isinstance(grid, dict) and "bots" in grid or any(isinstance(c, dict) and "bots" in c
                                                          for c in raw.get("cells") or []):
        raise SpecError(f"{src}: the spec varies the bots itself; --skill sets them: remove bots from [grid] and "
                        "[[cells]]")


def level_raw(raw: dict[str, Any], level: str, k: int, games: int) -> dict[str, Any]:
    """The spec at one level: that bot in every seat, ``games`` games per cell, its name marked."""
    out = copy.deepcopy(raw)
    out["setup"] = {**(out.get("setup") or {}), "bots": level}
    out["games_per_cell"] = games
    out["name"] = f"{raw.get('name', 'sweep')} @ skill {k + 1}: {level}"
    return out


def level_specs(raw: dict[str, Any], src: str, base_dir: Path, levels: Sequence[str],
                games: Sequence[int]) -> list[SweepSpec]:
    """Every level's spec, validated (a bad level is refused naming it); each keeps the spec file as its source,
    so its manifest names the file and data paths stay relative to it."""
    out = []
    for k, (lv, n) in enumerate(zip(levels, games)):
        try:
            out.append(parse_spec(level_raw(raw, lv, k, n), source=src, base_dir=base_dir))
        except SpecError as e:
            raise SpecError(f"--skill level {lv!r}: {e}") from None
    return out


PILOT_CELLS = 4           # cells a pilot samples, spread over the spec (the first, the last and between)


def pilot_speed(spec: SweepSpec, seconds: float = PILOT_SECONDS) -> float:
    """Games per second of one core over the spec's cells, from about ``seconds`` of play spread over up to
    :data:`PILOT_CELLS` of them (the first, the last and evenly between): cells differ in speed (2 players against 4,
    a round limit, another board), so the first cell alone can be ten times off. The mean time a game over the
    sampled cells."""
    cells = spec.cells
    k = min(PILOT_CELLS, len(cells))
    picked = [cells[round(i * (len(cells) - 1) / max(1, k - 1))] for i in range(k)]
    per_game = []
    for cell in picked:
        played, n, t0 = 0, 1, time.perf_counter()
        while time.perf_counter() - t0 < seconds / k and played < spec.games_per_cell:
            cell.match.play_batch(spec.seed, played, n, spec.engine)
            played += n
            n = min(2 * n, 2048)
        per_game.append(max(time.perf_counter() - t0, 1e-9) / played)
    return 1.0 / (sum(per_game) / len(per_game))


def budgets(specs: Sequence[SweepSpec], seconds: float, workers: int) -> list[int]:
    """Each level's games per cell: the spec's, or what ``seconds`` of play on ``workers`` cores affords."""
    out = []
    for s in specs:
        affordable = math.floor(seconds * workers * pilot_speed(s) / max(1, len(s.cells)))
        out.append(max(min(s.games_per_cell, MIN_GAMES), min(s.games_per_cell, affordable)))
    return out


def write_plan(out: Path, spec_path: str, levels: Sequence[str], games: Sequence[int], digests: Sequence[str],
               ladder: dict | None = None) -> None:
    """``OUT/skill.json``; ``ladder``: what the levels' ladder plays (cluster/skill_ladder.py)."""
    out.mkdir(parents=True, exist_ok=True)
    plan = {"spec": spec_path, "levels": list(levels), "folders": [folder(out, k).name for k in range(len(levels))],
            "games_per_cell": list(games), "digests": list(digests),
            "note": "one sweep per skill level, weakest first by intent; a query given this folder reads them all"}
    if ladder is not None:
        plan["ladder"] = ladder
    write_atomic(out / PLAN, json.dumps(plan, indent=1) + "\n")


def read_plan(out: Path) -> dict | None:
    """The plan of a skill folder (None: not one); a damaged plan is a SpecError naming it."""
    path = Path(out) / PLAN
    if not path.is_file():
        return None
    plan = load_json_bounded(path, "skill plan", SpecError)
    ok = (isinstance(plan, dict) and isinstance(plan.get("levels"), list) and isinstance(plan.get("folders"), list)
          and isinstance(plan.get("games_per_cell"), list) and len(plan["levels"]) == len(plan["folders"])
          == len(plan["games_per_cell"]) and all(isinstance(x, str) for x in plan["levels"])
          and all(isinstance(f, str) and f == f"skill-{k + 1}" for k, f in enumerate(plan["folders"]))
          and all(isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in plan["games_per_cell"])
          and record_ok(plan.get("ladder"), len(plan["levels"])))
    if not ok:
        raise SpecError(f"{path}: not a skill plan this version wrote (levels, folders skill-1.., games_per_cell, "
                        "the levels' ladder)")
    return plan


def expand(results: Sequence[str]) -> list[str]:
    """Results arguments with every skill folder replaced by its levels' folders (in level order)."""
    out: list[str] = []
    for r in results:
        plan = None
        if "://" not in str(r) and Path(r).is_dir():
            plan = read_plan(Path(r))
        out += [str(Path(r) / f) for f in plan["folders"]] if plan else [r]
    return out


def level_order(results: Sequence[str]) -> list[str] | None:
    """The skill levels, weakest first, of the first skill folder among ``results`` (None: none)."""
    for r in results:
        if "://" not in str(r) and Path(r).is_dir():
            plan = read_plan(Path(r))
            if plan:
                return list(plan["levels"])
    return None
