"""Which files a connection reads: a sweep's verified parts (its manifest), or the Parquet files of a loose
folder, a single file or a glob; results on object storage as Arrow datasets; a run's identity from its
Parquet footer; and a part that cannot be read as one line naming the repair.

For a sweep's results directory (one with ``manifest.json``) the connection reads exactly the parts the
manifest lists as done, after checking that each is there with its recorded size; for a loose folder, a
single Parquet file or a glob it reads the Parquet files found.
"""

from __future__ import annotations

import functools
import glob
import os
import re
import shlex
from pathlib import Path
from typing import Any, Sequence

from infra import folder
from infra.storage import StorageError, is_uri, open_location, shown
from queries.errors import ResultsError, one_line
from queries.sqlfiles import RESERVED_VIEWS, macro_names
from sim.games import GAMES


MANIFEST = "manifest.json"
MANIFEST_FORMAT = 1
_TABLE_NAME = re.compile(r"[A-Za-z_]\w*")


@functools.lru_cache(maxsize=1)
def _keywords() -> frozenset[str]:
    import duckdb
    con = duckdb.connect()
    try:
        return frozenset(k for (k,) in con.execute(
            "SELECT lower(keyword_name) FROM duckdb_keywords() WHERE keyword_category <> 'unreserved'").fetchall())
    finally:
        con.close()


def table_name_ok(name: str) -> bool:
    """A table folder the connection can turn into a view without touching its own views: an identifier,
    not a SQL keyword, not ``games_all`` or ``*_parts`` (the raw views) and not a macro's name."""
    low = name.lower()
    return bool(_TABLE_NAME.fullmatch(name)) and low not in _keywords() and low not in RESERVED_VIEWS \
        and not low.endswith("_parts") and low not in macro_names()


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def read_manifest(root: str | Path) -> dict[str, Any] | None:
    """The sweep manifest in a results directory (read by the one bounded reader, ``infra.folder``), None if there
    is none; a broken or unsafe one is a ResultsError of one line."""
    got = _read_manifest(root)
    return None if got is None else got.data


def manifest_of(root: str | Path) -> folder.Manifest | None:
    """The sweep manifest in a results directory with what its signature says (:func:`read_manifest`)."""
    return _read_manifest(root)


def _read_manifest(root: str | Path) -> folder.Manifest | None:
    try:
        got = folder.read_manifest(root)
    except folder.FolderError as e:
        raise ResultsError(str(e)) from None
    if got is not None and got.signature == folder.BROKEN:     # edited by hand after the sweep signed it
        raise ResultsError(f"{got.where}: its signature does not match its content (edited after the sweep saved "
                           f"it), so it cannot say which parts the sweep wrote; {repair_hint(root, got.data)}")
    return got


def repair_hint(root: str | Path, manifest: dict[str, Any] | None) -> str:
    spec = (manifest or {}).get("spec_file") or "SPEC"
    d = shlex.quote(str(root))
    return f"repair with: playtest status --verify {d}, then playtest sweep {shlex.quote(str(spec))} --out {d} --resume"


def corrupt_message(root: str | Path, manifest: dict[str, Any] | None, parts: Sequence[str],
                    why: str = "") -> str:
    listed = ", ".join(parts[:5]) + (f", and {len(parts) - 5} more" if len(parts) > 5 else "")
    return (f"{root}: {len(parts)} corrupt or missing part(s) ({listed}){why}; {repair_hint(root, manifest)}")


def sweep_files(root: str | Path, manifest: dict[str, Any] | folder.Manifest, listed: dict[str, int] | None = None
                ) -> dict[str, list[str]]:
    """{table: [part file, ...]} of a sweep's done parts, in (cell, batch) order, each checked by the one bounded
    reader (``infra.folder.part_files``): a regular file inside the folder with the size and SHA-256 the manifest
    records (each file hashed once, remembered outside the folder); a part that differs is a ResultsError
    naming it and the repair commands.

    ``listed``: for results on object storage, {relative path: size} of its objects; the parts are then given
    by their relative paths and checked by size."""
    read = manifest if isinstance(manifest, folder.Manifest) else folder.Manifest(manifest, str(root))
    m = read.data
    tables = [t for t in m.get("tables", ["games"]) if table_name_ok(t)]
    if listed is None:
        files, bad = folder.part_files(root, read, tables)
    else:
        files, bad = {t: [] for t in tables}, []
        for cell, batch, p in folder.done_parts(m):
            recorded = p.get("files") or {}
            rels = {t: folder.part_rel(t, cell, batch) for t in m.get("tables", ["games"])}
            for t, rel in rels.items():
                size, want = listed.get(rel), (recorded.get(t) or {}).get("bytes")
                if size is None or (want is not None and want != size):
                    bad.append((rel, "missing" if size is None else f"{size:,} bytes; the manifest records {want:,}"))
                elif t in files:
                    files[t].append(rel)
            if not recorded and p.get("bytes", 0) > 0 and all(r in listed for r in rels.values()) \
                    and sum(listed[r] for r in rels.values()) != p["bytes"]:
                bad += [(r, "its size differs from the manifest's") for r in rels.values()]
    if bad:
        why = bad[0][1] if len(bad) == 1 else f"the first, {bad[0][0]}: {bad[0][1]}"
        raise ResultsError(corrupt_message(root, m, [rel for rel, _ in bad], f" ({why})"))
    if not folder.done_parts(m):
        raise ResultsError(f"{root}: the sweep has no finished parts yet (state {m.get('state')!r}); "
                           f"nothing to answer from")
    return files


def _parquet_files(pattern: str) -> list[str]:
    return sorted(os.path.abspath(f) for f in glob.glob(pattern, recursive=True) if os.path.isfile(f))


def table_sources(result: str | Path) -> dict[str, tuple[list[str], bool]]:
    """{table: (Parquet files, one schema)} for one results directory, Parquet file or glob.

    A sweep's directory (``manifest.json``) gives the done parts of the manifest's tables (sweep_files).
    A sweep's parts of one table share one schema (one game), so DuckDB binds them from the first part;
    a glob or a loose folder may mix games and is unioned by column name (slower to open). Table folders
    whose names could collide with the connection's own views or SQL (table_name_ok) are left out.
    """
    text = str(result)
    if any(ch in text for ch in "*?[") and not os.path.lexists(text):     # a folder named "a[1]" is a folder
        files = _parquet_files(text)
        if not files:
            raise ResultsError(f"{text}: no Parquet files match this pattern")
        return {"games": (files, False)}
    path = Path(text)
    if path.is_file():
        return {file_table(path): ([os.path.abspath(path)], True)}
    if not path.is_dir():
        raise ResultsError(f"{text}: no such results directory or Parquet file")
    manifest = _read_manifest(path)
    if manifest is not None:
        return {t: (files, True) for t, files in sweep_files(text, manifest).items()}
    tables = {}
    for t in sorted(path.iterdir()):
        if t.is_dir() and table_name_ok(t.name):
            files = _parquet_files(glob.escape(str(t)) + "/*/*.parquet")
            if files:
                tables[t.name] = (files, True)
    if "games" in tables:
        return tables
    files = _parquet_files(glob.escape(str(path)) + "/**/*.parquet")
    if files:
        return {"games": (files, False)}
    raise ResultsError(f"{text}: no game records here (expected {text}/games/cell=<id>/part-<n>.parquet "
                       f"or *.parquet files)")


RUN_KEYS = (b"playtest.game", b"playtest.seed", b"playtest.engine", b"playtest.rules_digest", b"playtest.cards_digest")


def _footer(path: str | Path) -> tuple[list[str], dict[bytes, bytes]]:
    """(column names, key-value metadata) of a Parquet file; ([], {}) when it cannot be read (DuckDB says why)."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    try:
        schema = pq.read_schema(path)
    except (OSError, pa.ArrowException, ValueError):
        return [], {}
    return schema.names, dict(schema.metadata or {})


def file_table(path: str | Path) -> str:
    """Which table one Parquet file of ``playtest run`` holds: "cards" for the per-card file its ``--cards-out``
    wrote (its columns are its game's card table's), else "games"."""
    names, meta = _footer(path)
    game = GAMES.get(meta.get(b"playtest.game", b"").decode(errors="replace"))
    if game is not None and "cards" in game.schemas and names == game.schemas["cards"].names:
        return "cards"
    return "games"


def run_identity(path: str | Path) -> tuple | None:
    """What pairs a run's games file with its cards file: the game, seed, engine and digests both footers carry."""
    meta = _footer(path)[1]
    got = tuple(meta.get(k) for k in RUN_KEYS)
    return got if all(got) else None


def remote_sources(result: str) -> dict[str, Any]:
    """{table: pyarrow dataset} of a sweep's done parts on object storage (``s3://bucket/prefix``), read in place:
    the parts the manifest lists as done, each checked to be there with its recorded size (as sweep_files)."""
    import pyarrow as pa
    import pyarrow.dataset as pads
    try:
        loc = open_location(result)
        m = _read_manifest(result)
        if m is None:
            raise ResultsError(f"{loc.name()}: no sweep here (no {MANIFEST}); results on object storage are read "
                               "through their sweep manifest")
        files = sweep_files(loc.name(), m, loc.files())
        cell = pads.partitioning(pa.schema([("cell", pa.string())]), flavor="hive")
        return {t: pads.dataset([loc.path(r) for r in rels], filesystem=loc.fs, format="parquet", partitioning=cell,
                                partition_base_dir=loc.path(t))
                for t, rels in files.items()}
    except StorageError as e:
        raise ResultsError(str(e)) from None
    except (OSError, pa.ArrowException) as e:
        raise ResultsError(f"{result}: cannot read the parts ({one_line(e)})") from None


def sweep_notes(results: Sequence[str | Path]) -> list[str]:
    """A line for each results directory whose sweep manifest says it is not finished (answers are partial), and
    one for each whose parts only the folder itself vouches for (no signature of this machine's: infra.folder)."""
    notes = []
    for r in results:
        try:
            got = folder.read_manifest(r) if is_uri(r) or Path(r).is_dir() else None
        except folder.FolderError:
            continue          # refused where the parts are read, in one line
        if got is None:
            continue          # no manifest (a plain Parquet file or folder)
        m = got.data
        if m.get("state") != "done":
            parts = [p for c in m["cells"] for p in c["parts"] if p["state"] != folder.BEYOND]
            done = sum(p["state"] == "done" for p in parts)
            notes.append(f"{r}: the sweep is {m.get('state')!r} ({done} of {len(parts)} parts done); "
                         f"the answer covers the parts written so far")
        if (note := got.note()) is not None:
            notes.append(note)
    return notes


_PARQUET_PATH = re.compile(r"""['"]([^'"]+?\.parquet)['"]""")


def read_error(e: Exception, results: Sequence[str | Path] = ()) -> ResultsError | None:
    """A DuckDB error reading a Parquet file (a corrupt or truncated part) as one line naming the results
    and, for a sweep's part, the repair commands; None for any other error."""
    import duckdb
    if not isinstance(e, (duckdb.InvalidInputException, duckdb.IOException)):
        return None
    msg = one_line(e)
    m = _PARQUET_PATH.search(msg)
    if not m:
        return None
    reason = msg.replace(" " + m[0], "").split(" LINE 1:")[0]
    for r in results:             # a part of a sweep on object storage (named bucket/prefix/... by pyarrow)
        if is_uri(r):
            try:
                root = open_location(str(r), probe=False).root + "/"
            except StorageError:
                continue
            if m[1].startswith(root):
                try:
                    manifest = read_manifest(r)
                except ResultsError:
                    manifest = None
                return ResultsError(corrupt_message(shown(str(r)), manifest, [m[1].removeprefix(root)],
                                                    f" ({reason})"))
    path = Path(os.path.abspath(m[1]))
    if path.parent.name.startswith("cell=") and len(path.parents) > 2 and (path.parents[2] / MANIFEST).is_file():
        root = path.parents[2]
        named = next((str(r) for r in results if os.path.abspath(str(r)) == str(root)), str(root))
        try:
            manifest = read_manifest(root)
        except ResultsError:
            manifest = None
        return ResultsError(corrupt_message(named, manifest, [str(path.relative_to(root))], f" ({reason})"))
    return ResultsError(f"{m[1]}: unreadable Parquet file ({reason}); remove or replace it")
