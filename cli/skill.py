"""``playtest sweep SPEC --skill A,B,C``: the spec once per bot level, each into its own folder, then the levels'
ladder that rates them on one Elo scale (cluster/skill.py, cluster/skill_ladder.py; docs/skill.md)."""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Optional

from rich.console import Console

from cli.common import fail
from cli.ladder import play_and_rate
from cli.play_sweep import play_spec
from cluster import skill as sk
from cluster import skill_ladder
from cluster.manifest import NAME
from cluster.spec import MAX_SPEC_BYTES, SpecError, load_spec
from cluster.sweep import SweepError, check_out_dir
from infra.storage import is_uri
from sim.files import load_toml_bounded


def skill_sweep(spec: Path, out: str, skill: str, seconds: float, games_text: Optional[str],
                ladder_games: Optional[int], *, workers, address, resume: bool, progress: bool, ray: bool) -> None:
    """``--skill``: the spec once per level, each into its own folder, then the levels' ladder (OUT/ladder), with
    the plan in OUT/skill.json."""
    err = Console(stderr=True)
    if is_uri(out):
        fail("--skill writes one folder per level and their plan: give a local --out")
    out_dir = Path(out)
    levels = [x.strip() for x in skill.split(",")]
    try:
        base, games, specs, ladder = _skill_plan(spec, out_dir, levels, seconds, games_text, ladder_games, workers,
                                                 resume)
    except (SpecError, SweepError) as e:
        fail(str(e))
    for k, (lv, n) in enumerate(zip(levels, games)):
        cut = "" if n >= base.games_per_cell else f" (fewer than the spec's {base.games_per_cell:,}: its cost)"
        err.print(f"skill level {k + 1}: {lv} in every seat, {n:,} games a cell{cut} -> {sk.folder(out_dir, k)}",
                  highlight=False, markup=False)
    if ladder.note:
        err.print(ladder.note, highlight=False, markup=False, soft_wrap=True)
    sk.write_plan(out_dir, str(spec), levels, games, [s.digest for s in specs], ladder.record)
    again = (f"playtest sweep {spec} --out {out} --skill {skill} --skill-games {','.join(map(str, games))}"
             f" --skill-ladder-games {ladder.record['games_per_lineup']}"
             + (f" --address {address}" if address else ""))
    for k, s in enumerate(specs):
        level_out = sk.folder(out_dir, k)
        play_spec(s, level_out, workers=workers, address=address, resume=resume and (level_out / NAME).exists(),
                  progress=progress, again=again, driver_plays=not ray)
    if ladder.plan is not None:
        play_and_rate(ladder.plan, workers, address, resume, progress, again=again, anchor=0)
    err.print(f"ask any question of every level at once: playtest query NAME --results {out} (split by bots, never "
              f"pooled, with whether the answer holds under stronger play); its page against the levels' strength: "
              f"add --html PAGE", highlight=False, markup=False)


def _skill_plan(spec: Path, out_dir: Path, levels: list[str], seconds: float, games_text: Optional[str],
                ladder_games: Optional[int], workers, resume: bool):
    """Every check of a skill run before any game, in order: (the spec, each level's games per cell, each level's
    spec, the levels' ladder: cluster.skill_ladder). A SpecError or SweepError of one line."""
    if not (math.isfinite(seconds) and 1.0 <= seconds <= 30 * 86_400.0):
        raise SpecError(f"--skill-seconds {seconds!r} is not allowed; expected 1 to 2592000")
    raw = load_toml_bounded(spec, "spec file", SpecError, MAX_SPEC_BYTES)
    sk.check_raw(raw, str(spec), levels)
    base = load_spec(spec)
    if base.stop is not None:
        raise SpecError(f"{spec}: a [stop] spec cannot take --skill")
    plan = sk.read_plan(out_dir) if resume else None
    if games_text is not None:
        try:
            games = [int(x) for x in games_text.split(",")]
        except ValueError:
            raise SpecError(f"--skill-games {games_text!r}: expected whole numbers separated by commas") from None
        if len(games) != len(levels) or not all(1 <= n <= base.games_per_cell for n in games):
            raise SpecError(f"--skill-games {games_text!r}: one number per level ({len(levels)}), each from 1 "
                            f"to the spec's games_per_cell ({base.games_per_cell:,})")
    elif plan is not None:
        games = plan["games_per_cell"]
    else:
        games = None
    if plan is not None and plan["levels"] != levels:
        raise SpecError(f"{out_dir / sk.PLAN}: the run in {out_dir} has the levels {','.join(plan['levels'])}; give "
                        "the same --skill to resume it, or choose another --out")
    if not resume and out_dir.exists() and any(out_dir.iterdir()):
        raise SweepError(f"{out_dir}: not empty; pass --resume to finish the skill sweep in it, or choose a new "
                         "or empty --out")
    specs = sk.level_specs(raw, str(spec), spec.parent, levels, [base.games_per_cell] * len(levels))
    n_ladder = skill_ladder.games_of(ladder_games, plan.get("ladder", {"games_per_lineup": 0}) if plan else None,
                                     out_dir / sk.PLAN)
    ladder = skill_ladder.prepare(base, levels, n_ladder, out_dir, resume=resume, given=ladder_games is not None)
    if games is None:
        games = sk.budgets(specs, seconds, workers or os.cpu_count() or 1)
    specs = sk.level_specs(raw, str(spec), spec.parent, levels, games)
    for k in range(len(levels)):
        check_out_dir(sk.folder(out_dir, k))
    return base, games, specs, ladder
