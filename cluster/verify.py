"""Check a sweep's results folder against its spec: every part file it should hold, and nothing else.

The spec alone says which files a finished sweep holds: for every cell, every batch and every table,
``DIR/<table>/cell=<id>/part-<batch:05d>.parquet``. Each is checked on its own evidence: its Parquet
footer must name this spec's digest, this cell, batch, table, first game and game count, its games table
must hold that many rows, and its rows must give the content checksum written beside them
(``playtest.content_sha256``). The manifest is only a cache of the outcome (:func:`reconcile`).

Each expected file is ``ok``, ``missing``, ``corrupt`` (unreadable, truncated, edited rows or metadata,
another engine core) or ``misplaced`` (a whole part of another cell, batch or table, or of another sweep,
at this name). Anything else under DIR is ``stray``, except the manifest, the driver's lock, the hidden
quarantine folder, the spec file itself and its report (the spec's name with ``.json``), the card files its
cells read from inside the folder (``own_files``), and this sweep's own temporary files (removed).
:func:`quarantine` moves strays and the corrupt and misplaced files into
``DIR/.quarantine/<UTC time>/<their path>``: never deleted, and hidden from the query globs
(``DIR/games/*/*.parquet``).
"""

from __future__ import annotations

import hashlib
import os
import random
import stat
from collections.abc import Callable
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from cluster.manifest import BEYOND, DONE, NAME, PENDING, TMP_PREFIX, new_manifest, spec_parts
from cluster.part import CHECKSUM_KEY, DERIVED_KEY, content_sha256, is_temporary, part_path
from cluster.spec import SweepSpec
from cluster.version import loaded_core_digest as current_core
from infra import derived, folder

# the games of a sampled replay: fresh randomness on every verification, so nobody who edits a folder can know
# beforehand which games will be played again (a draw from the folder's own digest could be computed, and spared)
_DRAW = random.SystemRandom()

QUARANTINE = ".quarantine"
LOCK = ".sweep.lock"
MAX_PART_BYTES = 2**30             # a part file larger than this is not read (100,000 games are a few MB)
MAX_PART_DECODED = 4 * 2**30       # nor one whose footer claims more decoded data than this
REPLAY_SAMPLE = 2                  # games of a part no signature vouches for, drawn afresh, played again and compared
NESTED_SCAN = 10_000               # entries looked at when searching a stray folder for another sweep


class VerifyError(ValueError):
    """The folder cannot be checked or repaired (another sweep inside it, a move that failed); one line."""


@dataclass
class FileCheck:
    rel: str                       # path relative to DIR
    status: str                    # ok | missing | corrupt | misplaced
    why: str = ""
    bytes: int = 0
    sha256: str = ""
    rows: int = 0
    spec_digest: str | None = None   # of a readable file
    derived: str = ""                # its playtest.derived (infra.derived columns), "" for none
    lacks: tuple[str, ...] = ()      # record columns it lacks (written before they existed): kept, not replayed


@dataclass
class Report:
    """What a verification found (and, once applied, did)."""

    out_dir: str
    spec_digest: str
    files: int = 0                                  # expected files checked
    parts: int = 0                                  # expected parts
    ok: dict[tuple[str, int], dict[str, dict]] = field(default_factory=dict)   # whole parts: table -> bytes, sha256
    rows: dict[tuple[str, int], int] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    corrupt: list[tuple[str, str]] = field(default_factory=list)
    misplaced: list[tuple[str, str]] = field(default_factory=list)
    stray: list[str] = field(default_factory=list)
    temporaries: list[str] = field(default_factory=list)
    own_files: int = 0                              # readable files carrying this spec's digest
    other_digests: dict[str, str] = field(default_factory=dict)   # another sweep's digest -> one of its files
    manifest_notes: list[str] = field(default_factory=list)      # where the manifest disagreed (corrected)
    manifest_rebuilt: str = ""                      # why the manifest was rebuilt from the spec, if it was
    quarantine_dir: str = ""
    quarantined: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    beyond: int = 0                                 # [stop] sweeps: parts beyond their cell's stop (not expected)
    derived: set[str] = field(default_factory=set)  # the playtest.derived values of the whole parts' games files
    outdated: list[str] = field(default_factory=list)   # whole parts written before a record column existed
    lacks: set[str] = field(default_factory=set)        # those columns
    upgradable: bool = True                             # all of them engine options (playtest upgrade adds them)
    replayed: int = 0              # whole parts no signature vouched for: every game played again and compared
    sampled: int = 0               # ... of which REPLAY_SAMPLE games, drawn at random, were played again
    unreplayable: int = 0          # ... that cannot be played again here (another engine core, the reference engine)
    unproven: int = 0              # whole parts kept on a sample or on their own checksums alone: not signed
    wall_s: float = 0.0

    @property
    def vouched(self) -> bool:
        """Every whole part is vouched for by this machine: its bytes are those a signed manifest lists, or every
        game of it was played again here and agreed (a sample is not proof). Only then is a manifest signed."""
        return not self.unproven

    @property
    def whole(self) -> bool:
        """Every expected part is there and right, and nothing else is in the folder."""
        return len(self.ok) == self.parts and not (self.missing or self.corrupt or self.misplaced or self.stray)

    @property
    def problems(self) -> bool:
        return not self.whole or bool(self.manifest_notes or self.manifest_rebuilt)

    def bad_parts(self) -> int:
        return self.parts - len(self.ok)

    def lines(self, limit: int = 20) -> list[str]:
        """The findings and actions, one line each (long lists cut after ``limit`` entries)."""
        def some(items: list[str]) -> list[str]:
            return items[:limit] + ([f"    ... and {len(items) - limit} more"] if len(items) > limit else [])

        out = [f"verified {self.files:,} part files ({self.parts:,} parts) against the spec in {self.wall_s:.1f} s: "
               f"parts ok {len(self.ok):,}; files missing {len(self.missing):,}, corrupt {len(self.corrupt):,}, "
               f"misplaced {len(self.misplaced):,}, stray {len(self.stray):,}"]
        if self.missing:
            out.append(f"  missing ({len(self.missing)}):")
            out += some([f"    {r}" for r in self.missing])
        for name, items in (("corrupt", self.corrupt), ("misplaced", self.misplaced)):
            if items:
                out.append(f"  {name} ({len(items)}):")
                out += some([f"    {r}: {why}" for r, why in items])
        if self.stray:
            out.append(f"  stray ({len(self.stray)}), not part of this sweep:")
            out += some([f"    {r}" for r in self.stray])
        if self.outdated:
            out.append(f"  {len(self.outdated):,} whole part file(s) were written before the record column(s) "
                       f"{', '.join(sorted(self.lacks))} existed (e.g. {self.outdated[0]}); kept as they are: "
                       f"{outdated_hint(self)}")
        unlisted = ((self.replayed, ": every game of each played again and compared with their rows"),
                    (self.sampled, f": {REPLAY_SAMPLE} games of each, drawn at random, played again and compared "
                     f"with their rows (a sample, not proof: playtest status {self.out_dir} --verify --full plays "
                     "every game)"),
                    (self.unreplayable, " cannot be played again here (another engine core or the reference engine): "
                     "only their own checksums vouch for them"))
        out += [f"  {n:,} whole part(s) that no signed manifest lists{how}" for n, how in unlisted if n]
        if self.unproven:
            out.append(f"  the manifest is not signed: {self.unproven:,} whole part(s) are vouched for by a sample or "
                       f"by their own checksums only; playtest status {self.out_dir} --verify --full plays every game "
                       "again and signs it")
        if self.beyond:
            out.append(f"  {self.beyond:,} parts are beyond their cell's stop ([stop]): not part of the result")
        if self.manifest_rebuilt:
            out.append(f"  manifest: {self.manifest_rebuilt}; rebuilt from the spec and the verified parts")
        if self.manifest_notes:
            out.append(f"  manifest disagreed with the spec or the files ({len(self.manifest_notes)}), corrected:")
            out += some([f"    {n}" for n in self.manifest_notes])
        if self.removed:
            out.append(f"  removed {len(self.removed)} temporary file(s) of killed tasks or drivers: "
                       + ", ".join(self.removed[:limit]) + (" ..." if len(self.removed) > limit else ""))
        if self.quarantined:
            out.append(f"  moved {len(self.quarantined)} file(s) to {self.quarantine_dir}/ (nothing deleted):")
            out += [f"    {r}" for r in self.quarantined]       # every one: the user may want them back
        return out


def outdated_hint(report: Report) -> str:
    """What to do about parts written before a record column existed (:attr:`Report.outdated`)."""
    if report.upgradable:
        return (f"`playtest upgrade {report.out_dir}` adds the column(s) at the engine option's default (the "
                f"games they hold), then `--resume` may add parts")
    return "finish the sweep with the playtest version that started it, or start a new --out"


def outdated_error(where: str, report: Report) -> str | None:
    """The one line refusing to resume a sweep whose parts were written before a record column existed (a new
    part would have it: the sweep's parts would be two schemas); None when every part has every column."""
    if not report.outdated:
        return None
    return (f"{where}: {len(report.outdated):,} part file(s) were written by an older playtest, before the record "
            f"column(s) {', '.join(sorted(report.lacks))} existed (e.g. {report.outdated[0]}); new parts would have "
            f"them, so the sweep's parts would not read as one table: {outdated_hint(report)}")


def expected_files(spec: SweepSpec) -> list[tuple[str, int, str]]:
    """(cell id, batch, table) of every file the finished sweep holds."""
    return [(cell.id, batch, table) for cell in spec.cells for batch in range(spec.parts_per_cell)
            for table in spec.tables]


def _rel(out_dir: Path, path: Path) -> str:
    return str(path.relative_to(out_dir))


def check_file(out_dir: Path, spec: SweepSpec, cell_id: str, batch: int, table: str, core: str | None) -> FileCheck:
    """Check one expected part file on its own evidence (see the module doc)."""
    path = part_path(out_dir, table, cell_id, batch)
    rel = _rel(out_dir, path)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return FileCheck(rel, "missing")
    except OSError as e:
        return FileCheck(rel, "corrupt", f"cannot stat it ({e.strerror})")
    if stat.S_ISLNK(st.st_mode):
        return FileCheck(rel, "corrupt", "a symbolic link, not a part file")
    if not stat.S_ISREG(st.st_mode):
        return FileCheck(rel, "corrupt", "not a regular file")
    if st.st_size > MAX_PART_BYTES:
        return FileCheck(rel, "corrupt", f"{st.st_size:,} bytes, larger than any part")
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_PART_BYTES + 1)
    except OSError as e:
        return FileCheck(rel, "corrupt", f"unreadable ({e.strerror})")
    return check_data(rel, data, spec, cell_id, batch, table, core)


def check_data(rel: str, data: bytes, spec: SweepSpec, cell_id: str, batch: int, table: str,
               core: str | None) -> FileCheck:
    """Check the bytes of one expected part file (read from disk or from object storage) on their own evidence."""
    sha = hashlib.sha256(data).hexdigest()
    try:
        pf = pq.ParquetFile(pa.BufferReader(data))
        md = pf.metadata
    except (pa.ArrowException, OSError, ValueError, IndexError, TypeError):
        return FileCheck(rel, "corrupt", "not a readable Parquet file (truncated or overwritten)", len(data), sha)
    meta = {k.decode(errors="replace"): v.decode(errors="replace") for k, v in (md.metadata or {}).items()
            if k.startswith(b"playtest.")}
    check = FileCheck(rel, "corrupt", "", len(data), sha, md.num_rows, meta.get("playtest.spec_digest"),
                      meta.get(DERIVED_KEY, ""))
    if check.spec_digest is None:
        check.why = "no playtest part metadata"
        return check
    if check.spec_digest != spec.digest:
        check.status, check.why = "misplaced", f"a part of another sweep (spec digest {check.spec_digest})"
        return check
    if CHECKSUM_KEY not in meta:
        check.why = f"no content checksum ({CHECKSUM_KEY}; written by an older playtest)"
        return check
    try:
        decoded = sum(md.row_group(i).total_byte_size for i in range(md.num_row_groups))
        if decoded > MAX_PART_DECODED:
            check.why = f"its footer claims {decoded:,} bytes of rows, more than any part"
            return check
        rows = pf.read()
    except (pa.ArrowException, OSError, ValueError, IndexError, TypeError) as e:
        check.why = f"its rows are unreadable ({str(e).splitlines()[0][:100] if str(e) else type(e).__name__})"
        return check
    if content_sha256(rows) != meta[CHECKSUM_KEY]:
        check.why = "its rows do not match their content checksum (edited or damaged)"
        return check
    # a whole, self-consistent part of this sweep: is it the one that belongs at this name?
    says = (meta.get("playtest.cell"), meta.get("playtest.batch"), meta.get("playtest.table"))
    if says != (cell_id, str(batch), table):
        check.status = "misplaced"
        check.why = f"holds {says[2]} of cell {says[0]}, part {says[1]}, not {table} of {cell_id}, part {batch}"
        return check
    first, games = spec.part_games(batch)
    got = (meta.get("playtest.first_game"), meta.get("playtest.games"))
    if got != (str(first), str(games)):
        check.why = (f"its metadata says first_game {got[0]}, games {got[1]}; the spec says first_game {first}, "
                     f"games {games}")
        return check
    cell = next(c for c in spec.cells if c.id == cell_id)
    if meta.get("playtest.match_digest") != cell.match.digest:
        check.why = f"its metadata says match digest {meta.get('playtest.match_digest')}; the spec's cell has " \
                    f"{cell.match.digest}"
        return check
    if table == "games" and md.num_rows != games:
        check.why = f"{md.num_rows} rows; the part holds {games} games"
        return check
    if core is not None and spec.engine == "core" and meta.get("playtest.core_digest") != core:
        check.why = f"written by engine core {meta.get('playtest.core_digest')}; this sweep plays core {core}"
        return check
    # a whole part of these games written before a record column existed (e.g. an engine option's): kept,
    # and named, since a resumed sweep must not mix it with parts that have the column (one schema)
    check.lacks = tuple(n for n in cell.match.schemas[table].names if n not in rows.column_names)
    check.status = "ok"
    return check


def _holds_manifest(folder: Path) -> Path | None:
    """A sweep manifest at or below ``folder`` (the quarantine aside), looking at up to NESTED_SCAN entries."""
    seen = 0
    for root, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if d != QUARANTINE]
        if NAME in files:
            return Path(root) / NAME
        seen += len(dirs) + len(files)
        if seen > NESTED_SCAN:
            return None
    return None


def own_files(spec: SweepSpec, out_dir: str | Path) -> tuple[set[Path], set[Path]]:
    """The files a spec keeps in its own results folder, and the folders directly under it that hold some:
    the spec file itself, its report beside it named like it with .json (playtest ladder writes ladder.toml
    and ladder.json), and the card files its cells read from inside the folder (playtest card-worth writes
    its variant decks into DIR/card-files/)."""
    root = Path(out_dir).resolve()
    keep = {Path(spec.source).resolve(), Path(spec.source).with_suffix(".json").resolve()}
    for cell in spec.cells:
        for _, path in cell.match.definition.data_files(cell.match.data):
            p = Path(path).resolve()
            if root in p.parents:
                keep.add(p)
    dirs = {p.parent for p in keep if p.parent != root and p.parent.parent == root}
    return keep, dirs


def scan(out_dir: str | Path, spec: SweepSpec, core: str | None = None, threads: int | None = None,
         present_only: bool = False) -> Report:
    """Verify ``out_dir`` against ``spec`` without changing anything (see the module doc).

    ``core``: the engine core digest the parts must carry (None: not checked). ``present_only``: an expected
    file the folder listing lacks is missing without a look of its own (a ``[stop]`` sweep expects every part
    up to its cap, but holds only those up to its cells' stops)."""
    t0 = time.perf_counter()
    out_dir = Path(out_dir)
    report = Report(out_dir=str(out_dir), spec_digest=spec.digest, parts=spec.total_parts)
    cell_ids = {c.id for c in spec.cells}
    part_names = {f"part-{b:05d}.parquet" for b in range(spec.parts_per_cell)}

    def entries(folder: Path) -> list[os.DirEntry]:
        try:
            with os.scandir(folder) as it:
                return sorted(it, key=lambda e: e.name)
        except OSError as e:
            raise VerifyError(f"{folder}: cannot list the folder ({e.strerror})") from None

    keep, keep_dirs = own_files(spec, out_dir)

    def stray(entry: os.DirEntry) -> None:
        if Path(entry.path).resolve() in keep and entry.is_file(follow_symlinks=False):
            return
        if Path(entry.path).resolve() in keep_dirs and entry.is_dir(follow_symlinks=False):
            for f in entries(Path(entry.path)):       # a folder of the spec's card files: each file judged
                stray(f)
            return
        if entry.is_dir(follow_symlinks=False) and (inner := _holds_manifest(Path(entry.path))):
            raise VerifyError(f"{inner} is another sweep's manifest inside this sweep's folder {out_dir}; "
                              "move that sweep out first (sweeps are never nested)")
        report.stray.append(_rel(out_dir, Path(entry.path)))

    listed: set[str] = set()
    for top in entries(out_dir):
        if top.name in (NAME, LOCK, QUARANTINE):
            continue
        if top.name.startswith(TMP_PREFIX) and top.is_file(follow_symlinks=False):
            report.temporaries.append(top.name)
        elif top.name in spec.tables and top.is_dir(follow_symlinks=False):
            for cell_dir in entries(Path(top.path)):
                if cell_dir.name.startswith("cell=") and cell_dir.name[5:] in cell_ids \
                        and cell_dir.is_dir(follow_symlinks=False):
                    for f in entries(Path(cell_dir.path)):
                        if f.name in part_names:
                            listed.add(_rel(out_dir, Path(f.path)))
                            continue              # an expected file: checked below, whatever it is
                        if is_temporary(f.name) and f.is_file(follow_symlinks=False):
                            report.temporaries.append(_rel(out_dir, Path(f.path)))
                        else:
                            stray(f)
                else:
                    stray(cell_dir)
        else:
            stray(top)

    wanted = expected_files(spec)
    report.files = len(wanted)

    checks: list[FileCheck | None] = [None] * len(wanted)
    if present_only:             # an expected file not listed: missing, without a look of its own
        for i, (cell_id, batch, table) in enumerate(wanted):
            if (rel := f"{table}/cell={cell_id}/part-{batch:05d}.parquet") not in listed:
                checks[i] = FileCheck(rel, "missing")
    look = [i for i, c in enumerate(checks) if c is None]
    with ThreadPoolExecutor(max_workers=threads or min(4, os.cpu_count() or 1)) as pool:
        for i, c in zip(look, pool.map(lambda i: check_file(out_dir, spec, *wanted[i], core), look)):
            checks[i] = c
    return tally(report, spec, wanted, checks, t0)


def tally(report: Report, spec: SweepSpec, wanted, checks, t0: float) -> Report:
    """Each file check (of ``wanted``'s (cell, batch, table), in order) into ``report``: the missing, corrupt
    and misplaced files, whose spec wrote them, and the parts whose every table checked out."""
    per_part: dict[tuple[str, int], dict[str, FileCheck]] = {}
    digest = spec.digest               # computed from the whole spec each time it is read: once here
    for (cell_id, batch, table), c in zip(wanted, checks):
        per_part.setdefault((cell_id, batch), {})[table] = c
        if c.status == "missing":
            report.missing.append(c.rel)
        elif c.status == "corrupt":
            report.corrupt.append((c.rel, c.why))
        elif c.status == "misplaced":
            report.misplaced.append((c.rel, c.why))
        if c.spec_digest == digest:
            report.own_files += 1
        elif c.spec_digest:
            report.other_digests.setdefault(c.spec_digest, c.rel)
    for key, tables in per_part.items():
        if all(c.status == "ok" for c in tables.values()):
            report.ok[key] = {t: {"bytes": c.bytes, "sha256": c.sha256} for t, c in tables.items()}
            report.rows[key] = tables["games"].rows
            report.derived.add(tables["games"].derived)
            for c in tables.values():
                if c.lacks:
                    report.outdated.append(c.rel)
                    report.lacks.update(c.lacks)
    if report.lacks:
        options = {n for cell in spec.cells for n in cell.match.definition.engine_options}
        report.upgradable = report.lacks <= options
    report.wall_s = time.perf_counter() - t0
    return report


def quarantine(out_dir: str | Path, report: Report, extra: list[str] = ()) -> None:
    """Move the strays, corrupt and misplaced files (and ``extra`` paths) into ``DIR/.quarantine/<UTC time>/``
    and remove this sweep's own temporary files; records both in ``report``."""
    out_dir = Path(out_dir)
    for rel in report.temporaries:
        try:
            (out_dir / rel).unlink()
            report.removed.append(rel)
        except FileNotFoundError:
            pass
        except OSError as e:
            raise VerifyError(f"{out_dir / rel}: cannot remove this temporary file ({e.strerror})") from None
    moving = [*extra, *report.stray, *(r for r, _ in report.corrupt), *(r for r, _ in report.misplaced)]
    if not moving:
        return
    top = out_dir / QUARANTINE
    try:                        # the quarantine must be this folder's own: never a link that moves files away
        st = os.lstat(top)
        if not stat.S_ISDIR(st.st_mode):
            raise VerifyError(f"{top}: {'a symbolic link' if stat.S_ISLNK(st.st_mode) else 'not a folder'}, not "
                              "the sweep's quarantine folder; nothing was moved: remove it and verify again")
    except FileNotFoundError:
        pass
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    qdir, n = top / stamp, 1
    while qdir.exists():
        n += 1
        qdir = out_dir / QUARANTINE / f"{stamp}-{n}"
    report.quarantine_dir = _rel(out_dir, qdir)
    for rel in moving:
        src, dest = out_dir / rel, qdir / rel
        try:
            dest.parent.mkdir(parents=True, exist_ok=True)
            os.rename(src, dest)
        except FileNotFoundError:
            continue
        except OSError as e:
            raise VerifyError(f"{src}: cannot move it to {qdir} ({e.strerror}); nothing was deleted") from None
        report.quarantined.append(rel)


Reader = Callable[[str], bytes]      # a part file's bytes by its path relative to the folder


def local_reader(out_dir: str | Path) -> Reader:
    """A part file's bytes in a local folder, through the one bounded reader (a regular file inside it)."""
    def read(rel: str) -> bytes:
        return folder.read_file(Path(out_dir) / rel, out_dir, "part file", MAX_PART_BYTES)
    return read


def reconcile(old: dict[str, Any] | None, spec: SweepSpec, report: Report, code: str, core: str, *,
              full: bool = False, read: Reader | None = None) -> dict[str, Any]:
    """A manifest whose parts follow from the spec and whose states follow from ``report`` (the verified
    files); what ``old`` said differently goes to ``report.manifest_notes``. ``old`` None: built afresh.

    A whole part no signed manifest vouches for is played again (games depend only on the seed and their index):
    every game when ``full``, or when a manifest signed here lists it as not yet done (a part finished after the
    driver's last save: a few), else REPLAY_SAMPLE games drawn at random. A part that differs is corrupt. Those
    kept on a sample, or not played again at all (another core), are ``report.unproven``: such a manifest is
    not signed (:attr:`Report.vouched`). ``read``: a part file's bytes by relative path (default: the local
    folder ``report.out_dir``)."""
    m = new_manifest(spec, code, core)
    # the parts' derived columns (infra.derived) as the files have them, else as the old manifest said:
    # a sweep's parts keep one schema, so a resumed sweep writes what its first parts did
    said = report.derived or ({old.get("derived", "")} if old is not None else set())
    if said and said != {m["derived"]}:
        del m["derived"]
    if old is not None:
        for key in ("created", "runs", "state", "error", "code_version", "core_digest", "spec_file", "name"):
            m[key] = old[key]
        for key in ("game", "rules", "engine", "seed", "games_per_cell", "batch_size", "parts_per_cell",
                    "games_total", "parts_total", "tables"):
            if old[key] != m[key]:
                report.manifest_notes.append(f"{key} was {old[key]!r}; the spec says {m[key]!r}")
    notes = report.manifest_notes
    old_cells = {c["id"]: c for c in old["cells"]} if old is not None else {}
    if old is not None:
        ids, old_ids = [c.id for c in spec.cells], [c["id"] for c in old["cells"]]
        if old_ids != ids:
            extra = [i for i in old_ids if i not in ids]
            notes.append(f"cells were {len(old_ids)} ({', '.join(old_ids[:5])}{' ...' if len(old_ids) > 5 else ''})"
                         f"; the spec has {len(ids)}" + (f"; not in the spec: {', '.join(extra[:5])}" if extra else ""))
    _replay_unvouched(old, spec, report, old_cells, full, read or local_reader(report.out_dir),
                      core if old is None else old.get("core_digest", core))
    template = spec_parts(spec)
    for cell in m["cells"]:
        said = old_cells.get(cell["id"], {}).get("parts") if old is not None else None
        if said is not None and len(said) != len(template):
            notes.append(f"{cell['id']}: {len(said)} part entries; the spec has {len(template)}")
        for part in cell["parts"]:
            key = (cell["id"], part["batch"])
            if key in report.ok:
                files = report.ok[key]
                part.update(state=DONE, rows=report.rows[key], bytes=sum(f["bytes"] for f in files.values()),
                            files=files)
            if old is None or said is None:
                continue
            where = f"{cell['id']} part {part['batch']}"
            if len(said) == len(template):       # entries by position (so an edited batch number shows)
                prev = said[part["batch"]]
            else:                                # entries deleted or added: by batch number
                prev = next((p for p in said if p["batch"] == part["batch"]), None)
            if prev is None:
                notes.append(f"{where}: no entry")
                continue
            if part["state"] == DONE and isinstance(prev.get("summary"), dict) and prev.get("files") == part["files"]:
                part["summary"] = prev["summary"]       # the metric summaries of the very same files ([stop])
            for k in ("batch", "first_game", "games"):
                if prev[k] != part[k]:
                    notes.append(f"{where}: {k} was {prev[k]}; the spec says {part[k]}")
            if prev["state"] == DONE and part["state"] != DONE:
                notes.append(f"{where}: was done; its files are missing or bad")
            elif prev["state"] == PENDING and part["state"] == DONE:
                notes.append(f"{where}: was pending; whole on disk (finished after the manifest's last save)")
            elif prev["state"] == DONE and (prev["rows"], prev["bytes"]) != (part["rows"], part["bytes"]):
                notes.append(f"{where}: rows/bytes were {prev['rows']}/{prev['bytes']}; the files hold "
                             f"{part['rows']}/{part['bytes']}")
            elif prev["state"] == DONE and prev["files"] and prev["files"] != part["files"]:
                notes.append(f"{where}: file checksums differed from the files")
    if len(report.ok) == report.parts:
        m["state"], m["error"] = "done", None
    elif m["state"] == "done":
        m["state"] = "incomplete"
    return m


def _replay_unvouched(old: dict[str, Any] | None, spec: SweepSpec, report: Report, old_cells: dict, full: bool,
                      read: Reader, played_by: str) -> None:
    """Each whole part in ``report.ok``: checked against a signed manifest's SHA-256 where it lists the part, else
    played again (all its games or a sample, :func:`reconcile`); a part that differs is moved to the corrupt."""
    signed_here = getattr(old, "signature", None) == folder.SIGNED     # this machine's key signed every file's SHA-256
    # games replay exactly under the build that played them
    replayable = spec.engine == "core" and current_core() == played_by
    todo: list[tuple[tuple[str, int], bool]] = []            # (part, every game)
    for key in sorted(report.ok):
        signed = _as_signed(old_cells, key[0], key[1], report.ok[key]) if signed_here else None
        if signed is False:
            _edited(report, spec, key, "its bytes differ from what the sweep wrote (the SHA-256 in the signed "
                                       "manifest): edited after it was written")
        elif signed is None and not replayable:
            report.unreplayable += 1
            report.unproven += 1
        elif signed is None:
            todo.append((key, full or signed_here))
    for key, whole in todo:        # one after another: the engine core is not asked to play in two threads at once
        why = replay_differs(spec, key[0], key[1], read, None if whole else REPLAY_SAMPLE)
        if whole:
            report.replayed += 1
        else:
            report.sampled += 1
        if why is not None:
            _edited(report, spec, key, why)
        elif not whole:
            report.unproven += 1


def _as_signed(old_cells: dict, cell_id: str, batch: int, files: dict[str, dict]) -> bool | None:
    """Whether whole part files ``files`` ({table: {bytes, sha256}}) are those a signed manifest lists for this part;
    None when it lists none (a part finished after the manifest's last save): then only the part vouches for itself."""
    parts = old_cells.get(cell_id, {}).get("parts") or []
    prev = parts[batch] if batch < len(parts) else None
    if prev is None or prev.get("state") != DONE or not prev.get("files"):
        return None
    return all(prev["files"].get(t, {}).get("sha256") == f["sha256"] for t, f in files.items())


def replay_differs(spec: SweepSpec, cell_id: str, batch: int, read: Reader, sample: int | None = None) -> str | None:
    """Why a part's stored rows differ from its games played again (a game depends only on the seed and its
    index), None when they agree. ``sample`` None: every game of every table, each column the part holds (its
    derived columns worked out again too); else that many of its games, drawn at random afresh (fresh
    randomness: nobody can tell beforehand which), compared in the games table. ``read``: a part file's bytes."""
    cell = next(c for c in spec.cells if c.id == cell_id)
    first, games = spec.part_games(batch)
    tables = spec.tables if sample is None else ("games",)
    stored: dict[str, tuple[pa.Table, bytes | None]] = {}     # each table's rows and its derived version
    for table in tables:
        try:
            pf = pq.ParquetFile(pa.BufferReader(read(str(part_path("", table, cell_id, batch)))))
            meta = pf.schema_arrow.metadata or {}
            stored[table] = pf.read().replace_schema_metadata(None), meta.get(DERIVED_KEY.encode())
        except (pa.ArrowException, OSError, ValueError) as e:
            return (f"its {table} rows cannot be read for a replay "
                    f"({str(e).splitlines()[0][:100] if str(e) else type(e).__name__})")
    if sample is None:
        picks = None
        fresh = cell.match.play_batch(spec.seed, first, games, spec.engine)
    else:
        picks = sorted(_DRAW.sample(range(first, first + games), min(sample, games)))
        fresh = {"games": pa.concat_tables([cell.match.play_batch(spec.seed, k, 1, spec.engine)["games"]
                                            for k in picks])}
    for table in tables:
        rows, with_derived = stored[table]
        if picks is not None:
            if "game_index" not in rows.column_names:
                return "its games have no game_index column"
            rows = rows.filter(pc.is_in(rows["game_index"], pa.array(picks, rows.schema.field("game_index").type)))
        again = fresh[table]
        if table == "games" and with_derived is not None:      # the per-game columns it was written with, again
            again = derived.derive(cell.match.definition, again)
        if (why := _rows_differ(rows, again, first if picks is None else None, picks)) is not None:
            return why if table == "games" else f"{table}: {why}"
    return None


def _rows_differ(rows: pa.Table, again: pa.Table, first: int | None, picks: list[int] | None) -> str | None:
    """Why stored ``rows`` differ from ``again``, the same games played again (each column the rows hold, compared
    by content: a Parquet round trip changes no value), or None."""
    extra = [c for c in rows.column_names if c not in again.column_names]
    if extra:
        return f"its column(s) {', '.join(extra[:3])} are not in a replay of its games (added by hand)"
    again = again.select(rows.column_names)
    if rows.num_rows != again.num_rows:
        games = f"game(s) {', '.join(map(str, picks))}" if picks is not None else "its games"
        return f"{rows.num_rows} rows of {games}; a replay gives {again.num_rows} (its rows were edited)"
    if content_sha256(rows) == content_sha256(again):
        return None
    differ = [c for c in rows.column_names
              if content_sha256(rows.select([c])) != content_sha256(again.select([c]))]
    if not differ:
        return "its rows differ from a replay of its games"
    a, b = rows.column(differ[0]).to_pylist(), again.column(differ[0]).to_pylist()
    row = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), 0)
    if "game_index" in rows.column_names:
        game = rows.column("game_index")[row].as_py()
    else:
        game = (first or 0) + row
    return (f"game {game} differs from a replay of it in {', '.join(differ[:3])}{' ...' if len(differ) > 3 else ''} "
            "(its rows were edited)")


def _edited(report: Report, spec: SweepSpec, key: tuple[str, int], why: str) -> None:
    """A part whose files are whole and self-consistent but not what the sweep wrote (edited by hand with its
    checksums recomputed): corrupt, so it is quarantined and played again."""
    report.ok.pop(key)
    report.rows.pop(key, None)
    for table in spec.tables:
        rel = _rel(Path(report.out_dir), part_path(report.out_dir, table, *key))
        report.corrupt.append((rel, why))


def settle_stop(out_dir: str | Path, spec: SweepSpec, manifest: dict[str, Any], report: Report,
                stopper=None) -> None:
    """A ``[stop]`` sweep expects, per cell, only the parts up to where it stopped: replay the spec's stopper
    over the verified parts in batch order (``cluster.stopping.StopPlan``), mark the later parts "beyond the
    stop" in ``manifest``, drop them from what ``report`` counts as missing, and list whole part files found
    beyond a stop as strays (quarantined, not deleted)."""
    from cluster.stopping import StopPlan, make_stopper
    out_dir = Path(out_dir)
    found: list[tuple[str, int]] = []
    plan = StopPlan(spec, manifest, stopper if stopper is not None else make_stopper(spec), out_dir,
                    drop=lambda cid, b: found.append((cid, b)))
    plan.record(manifest)
    beyond = {(c["id"], p["batch"]) for c in manifest["cells"] for p in c["parts"] if p["state"] == BEYOND}
    rels = {_rel(out_dir, part_path(out_dir, t, cid, b)) for cid, b in beyond for t in spec.tables}
    report.missing = [r for r in report.missing if r not in rels]
    for key in found:
        report.ok.pop(key, None)
        report.stray += [_rel(out_dir, part_path(out_dir, t, *key)) for t in spec.tables
                         if part_path(out_dir, t, *key).exists()]
    report.beyond = len(beyond)
    report.parts -= len(beyond)
    report.files -= len(beyond) * len(spec.tables)
    if plan.all_stopped() and len([k for k in report.ok if k not in beyond]) == report.parts:
        manifest["state"], manifest["error"] = "done", None
    elif manifest["state"] == "done":
        manifest["state"] = "incomplete"
