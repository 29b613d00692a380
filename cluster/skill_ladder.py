"""The skill levels rated on one ladder (``playtest sweep SPEC --skill A,B,C --skill-ladder-games N``;
docs/skill.md, "The levels on one ladder").

A skill run plays each level against itself, so its answers say nothing of how far apart the levels are. To put
them on one scale the run also plays the levels' round robin through cluster/ladder.py (its plan, spec and parts:
the folder is a ladder like any ``playtest ladder`` writes) into ``OUT/ladder``: the spec's first cell's game,
rules, rule parameters and setup, heads-up where that setup seats two (else its own seats, which needs as many
levels), on a held-out seed (:func:`held_out`: no model was trained on it). queries/ladder_report.py rates it,
anchored at the first (weakest) level. What it plays is recorded in skill.json's ``ladder`` (:func:`record_ok`
checks it), so that ``--resume`` finishes the same ladder.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Sequence

from cluster.ladder import LadderError, Plan, check_field, plan, shared_setup
from cluster.spec import MAX_GAMES_PER_CELL, SpecError, SweepSpec
from sim.games import GAMES

FOLDER = "ladder"              # OUT/ladder: the levels' ladder
DEFAULT_GAMES = 200            # games per line-up: heads-up, 400 games a pair (both seat orders)
HELD_OUT = 2**63               # training uses master seeds below it; claims about a bot come from seeds above
OPTION = "--skill-ladder-games"


def held_out(seed: int) -> int:
    """The ladder's master seed: the spec's when it is held out already, else 2^63 + it."""
    return seed if seed >= HELD_OUT else HELD_OUT + seed


@dataclass
class Ladder:
    """The levels' ladder of a skill run: its plan (None: none is played), what skill.json records of it, and
    a line for the terminal when the default could not be played (empty otherwise)."""

    plan: Optional[Plan]
    record: dict
    note: str = ""


def games_of(given: Optional[int], recorded: Optional[dict], plan_path: Path) -> int:
    """The games per line-up: as given, checked; on resume the run's own (``recorded``: skill.json's ``ladder``;
    a different number given is refused); a new run plays :data:`DEFAULT_GAMES` unless told."""
    if given is not None and not 0 <= given <= MAX_GAMES_PER_CELL:
        raise SpecError(f"{OPTION} {given}: expected 0 (no ladder) to {MAX_GAMES_PER_CELL:,} games per line-up")
    if recorded is None:
        return DEFAULT_GAMES if given is None else given
    had = recorded.get("games_per_lineup", 0)
    if given is not None and given != had:
        raise SpecError(f"{plan_path}: the run was started with {OPTION} {had}; give the same to resume it, or "
                        "choose another --out")
    return had


def _first_cell(base: SweepSpec) -> tuple[Optional[str], dict, dict]:
    """(rules, rule parameters, setup without bots) of the spec's first cell."""
    g = GAMES[base.game]
    values = base.cells[0].values
    params = {f for f in values if f not in g.setup_keys and f not in g.data_keys and f != "rules"}
    overrides = {**base.overrides, **{k: values[k] for k in params}}
    setup = {k: v for k, v in {**base.setup, **{k: values[k] for k in values if k in g.setup_keys}}.items()
             if k != "bots"}
    return values.get("rules", base.rules), overrides, setup


def _seats(base: SweepSpec, rules, overrides: dict, setup: dict, levels: int) -> tuple[dict, int, str]:
    """(the shared setup, the seats, why no ladder can be played: "" when one can): heads-up where the first
    cell's setup seats two, else its own seats."""
    g = GAMES[base.game]
    if g.seats_column in g.setup_keys:
        try:
            shared, seats = shared_setup(g, rules, overrides, {**setup, g.seats_column: 2}, 2)
            return shared, seats, ""
        except LadderError:
            pass            # this setup cannot be played heads-up (Paws teams): its own seats
    try:
        shared, seats = shared_setup(g, rules, overrides, setup, None)
    except LadderError as e:
        return {}, 0, f"the spec's first cell cannot seat a ladder ({e})"
    if seats > levels:
        shown = ", ".join(f"{k}={v}" for k, v in setup.items()) or "its setup"
        return shared, seats, (f"the spec's first cell ({shown}) seats {seats} and cannot be played heads-up; a "
                               f"ladder seats {seats} different levels a game, and there are {levels}")
    return shared, seats, ""


def prepare(base: SweepSpec, levels: Sequence[str], games: int, out: Path, *, resume: bool,
            given: bool) -> Ladder:
    """The levels' ladder, checked before any game: when it cannot be played (one level, the spec's own card
    data, more seats than levels, two levels that are one bot) a SpecError of one line if ``given``, else it is
    left out with a note; a folder that holds something else, or a ladder started with other settings, is a
    SpecError either way."""
    if games == 0:
        return Ladder(None, {"games_per_lineup": 0})
    why = ""
    if len(levels) < 2:
        why = "one level: a ladder rates two or more"
    elif base.data or any(k in GAMES[base.game].data_keys for k in base.cells[0].values):
        why = "the spec plays its own card data files, and a ladder plays the game's own"
    rules, overrides, setup = _first_cell(base)
    shared, seats, field = {}, 0, []
    if not why:
        shared, seats, why = _seats(base, rules, overrides, setup, len(levels))
    if not why:
        try:
            field = check_field(GAMES[base.game], rules, overrides, shared, list(levels), seats)
        except LadderError as e:         # its words name playtest ladder's --bots: here they are the levels
            why = str(e).removeprefix("--bots: ")
    if why:
        if given:
            raise SpecError(f"{OPTION} {games}: {why}; {OPTION} 0 plays no ladder")
        return Ladder(None, {"games_per_lineup": 0, "skipped": why}, f"no ladder of the levels: {why}")
    seed = held_out(base.seed)
    try:
        p = plan(GAMES[base.game], field, shared, seats, overrides, rules=rules,
                 sets=[f"{k}={v}" for k, v in overrides.items()], setups=[f"{k}={v}" for k, v in shared.items()],
                 players=seats, games=games, seed=seed, batch_size=0, out=out / FOLDER, resume=resume)
    except LadderError as e:
        raise SpecError(str(e)) from None
    record = {"folder": FOLDER, "games_per_lineup": games, "seed": seed, "seats": seats, "bots": field,
              "rules": rules, "setup": shared, "overrides": overrides, "lineups": len(p.line),
              "anchor": field[0]}
    return Ladder(p, record)


def record_ok(record: Any, levels: int) -> bool:
    """Whether skill.json's ``ladder`` is one this version wrote (absent: a run from before the ladder)."""
    if record is None:
        return True
    if not isinstance(record, dict):
        return False
    n = record.get("games_per_lineup")
    if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= MAX_GAMES_PER_CELL:
        return False
    if n == 0:
        return set(record) <= {"games_per_lineup", "skipped"} and isinstance(record.get("skipped", ""), str)
    bots = record.get("bots")
    return (record.get("folder") == FOLDER and isinstance(bots, list) and len(bots) == levels
            and all(isinstance(b, str) for b in bots) and record.get("anchor") == bots[0]
            and all(isinstance(record.get(k), int) and not isinstance(record.get(k), bool)
                    for k in ("seats", "seed", "lineups"))
            and isinstance(record.get("setup"), dict) and isinstance(record.get("overrides"), dict)
            and isinstance(record.get("rules"), (str, type(None))))
