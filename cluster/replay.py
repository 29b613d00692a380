"""One game of a sweep played again, move for move: the cell's match rebuilt from the manifest's spec, the stored
row and decision trace read from parts the manifest vouches for, and the game replayed with its event log (the core
plays it with its decision trace, the reference engine replays the trace and logs every event; sim/kit/trace.py).
``playtest play --from DIR`` and the service's replay step (service/steps.py) both draw a sweep's game from here, and
``playtest play`` replays a game of its own through :func:`replayed`. Every refusal is a :class:`ReplayError` of one
line; warnings and notes go to the caller's ``warn`` and ``note``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Optional

import pyarrow as pa
import pyarrow.parquet as pq

from cluster.manifest import ManifestError, load_manifest
from cluster.part import part_path
from cluster.spec import SpecError, parse_spec
from infra.folder import SIGNED, part_problem
from sim.events import EventLog
from sim.games import EngineError, Match
from sim.kit import trace
from sim.kit.bots import CORE_ONLY
from sim.params import RuleError

Say = Callable[[str], None]


class ReplayError(Exception):
    """A game that cannot be replayed: the message is one line. (Not a ValueError: the readers below catch those
    from pyarrow, and a refusal raised inside them must pass through as it is.)"""


def _quiet(message: str) -> None:
    pass


def _fail(message: str) -> None:
    raise ReplayError(message)


def _engine(fn):
    """An engine call; an engine that cannot play this configuration is a ReplayError, not a traceback."""
    try:
        return fn()
    except (EngineError, RuleError) as e:
        raise ReplayError(str(e)) from None


def replayed(m: Match, seed: int, game_index: int, log: EventLog, engine: str, stored: dict | None,
             blob: bytes | None, where: str, warn: Say = _quiet, note: Say = _quiet) -> dict:
    """The game's record, its log into ``log``. The core keeps no log: it plays the game with its decision
    trace (unless ``blob``, a stored trace, is given), and the reference engine replays the trace, its
    core-only seats (search bots) taking the recorded choices and every other seat's choice checked against
    them (sim/kit/trace.py). ``engine`` reference with nothing stored: the reference engine plays alone.
    ``stored``: a sweep's row, which the replay must equal (a warning names the columns that differ). A game that
    cannot be replayed: a ReplayError of one line."""
    if engine == "reference" and blob is None:
        rec = _engine(lambda: m.play_one(seed, game_index, log))   # e.g. a search bot: refused, core-only
        core = stored
    else:
        core = None
        if blob is None:
            core, blob = _engine(lambda: trace.core_game(m, seed, game_index))
        try:
            rec = _engine(lambda: trace.replay(m, seed, game_index, blob, log))
        except trace.TraceError as e:
            _fail(f"{where}: the {'stored ' if core is None else ''}decision trace does not replay: {e}")
        core_only = [f"{m.definition.seat_word} {s + 1} ({spec})" for s, spec in
                     enumerate(m.definition.bot_specs(m.setup)) if spec.split(":")[0] in CORE_ONLY]
        if core_only:
            searched = sum(1 for e in log.events if e["kind"] == "search")
            note(f"{', '.join(core_only)}: core-only; the log is the reference engine's replay of the core's "
                 f"{len(trace.decode(blob)):,} decisions"
                 + (f" ({searched:,} searched, with what the search saw)" if searched else "")
                 + ", every other seat's checked: all agreed")
    if stored is not None:
        differ = sorted(k for k in rec if k in stored and stored[k] != rec[k])
        if differ:
            warn(f"the replayed game differs from the stored row in {', '.join(differ)}; the sweep was played by "
                 "another code version or card data")
        else:
            note(f"the replayed record equals the stored row of {where}")
    elif core is not None:
        differ = sorted(k for k in rec if k in core and core[k] != rec[k])
        if differ:
            _fail(f"{where}: the core and the reference engine took the same decisions but disagree on "
                  f"{', '.join(differ)}; an engine bug (tests/test_decision_trace.py should catch it)")
        rec = core
    return rec


def stored_trace(folder: Path, manifest: dict, cell: str, game_index: int, batch: int) -> bytes | None:
    """The decision trace a sweep stored for one game (its ``decisions`` table), or None; a part that is
    not the file the sweep wrote (a regular file in the folder with the manifest's size and SHA-256), or
    unreadable, is a ReplayError of one line."""
    part = part_path(folder, trace.TABLE, cell, batch)
    try:
        problem = part_problem(folder, manifest, trace.TABLE, cell, batch)
        if problem:
            _fail(f"--from {folder}: {problem}; the stored decision trace is not the one the sweep wrote")
        rows = pq.read_table(part, columns=["game_index", "trace"],
                             filters=[("game_index", "=", game_index)]).to_pylist()
    except (OSError, ValueError, pa.ArrowException) as e:
        _fail(f"{part}: cannot read the stored decision trace ({str(e).splitlines()[0][:120]})")
    if len(rows) != 1:
        _fail(f"{part}: {len(rows)} stored decision traces for game {game_index}; expected one")
    return rows[0]["trace"]


def sweep_game(folder: Path, cell: Optional[str], game_index: int, game: Optional[str],
               warn: Say = _quiet) -> tuple[Match, int, dict | None, str, bytes | None, str]:
    """A game of a sweep: the cell's Match rebuilt from the manifest's spec, the seed, the stored row, a label,
    the stored decision trace (if the sweep kept its ``decisions`` table) and the sweep's engine. A folder, cell or
    index that is not the sweep's: a ReplayError of one line."""
    if not folder.is_dir():
        _fail(f"--from {folder}: not a folder (a sweep's results folder, with manifest.json)")
    try:
        manifest = load_manifest(folder)
    except ManifestError as e:
        _fail(f"--from {folder}: {e}")
    if manifest is None:
        _fail(f"--from {folder}: no sweep here (no manifest.json)")
    try:
        spec = parse_spec(manifest["spec"], source=manifest["spec_file"], base_dir=Path(manifest["spec_file"]).parent,
                          within=None if manifest.signature == SIGNED else folder)     # no file elsewhere, unvouched
    except SpecError as e:
        _fail(f"--from {folder}: its stored spec no longer resolves ({e})")
    if game is not None and game != spec.game:
        _fail(f"--from {folder}: the sweep is of {spec.game!r}, not {game!r}")
    ids = [c.id for c in spec.cells]
    if cell is None or cell not in ids:
        shown = ", ".join(ids[:8]) + (f", ... ({len(ids)} cells)" if len(ids) > 8 else "")
        _fail(f"--cell {cell!r} is not a cell of {folder}; expected one of {shown}" if cell is not None
             else f"--cell: which cell of {folder}? expected one of {shown}")
    if game_index >= spec.games_per_cell:
        _fail(f"--game-index {game_index} is out of range; expected an integer from 0 to {spec.games_per_cell - 1} "
             f"(games per cell of {folder})")
    match = spec.cells[ids.index(cell)].match
    part = part_path(folder, "games", cell, game_index // spec.batch_size)
    stored = None
    problem = part_problem(folder, manifest, "games", cell, game_index // spec.batch_size)
    readable = problem is None
    if problem and os.path.lexists(part):
        warn(f"--from {folder}: {problem}; replaying without the check")
    if readable:
        try:
            table = pq.read_table(part, filters=[("game_index", "=", game_index)])
            rows = table.to_pylist()
            stored = rows[0] if rows else None
        except (OSError, ValueError, pa.ArrowException) as e:
            warn(f"{part}: cannot read the stored row ({str(e).splitlines()[0][:120]}); replaying without the check")
    if stored is None:
        warn(f"no stored row for {cell} game {game_index} ({part} is missing or lacks it); the replay is not checked")
    blob = (stored_trace(folder, manifest, cell, game_index, game_index // spec.batch_size)
            if trace.TABLE in spec.tables else None)
    return match, spec.seed, stored, f"sweep {spec.name!r}, cell {cell}, game {game_index}", blob, spec.engine
