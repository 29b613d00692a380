"""Add the per-game derived columns (infra.derived) to a sweep written before them: ``playtest upgrade DIR``;
also the columns of engine options added since (``dice_stream``), at their default, which is how those games
were played (the record digest leaves an option at its default out, so it does not change).

Each done part's games file is read, given the columns, and rewritten in place under its own name (hidden
temporary name, then rename: a reader sees the old or the new file, never half), with its content checksum
and ``playtest.derived`` in its metadata; the manifest gets each file's new size and SHA-256, and
``"derived"`` once every part has them. The rows of the record are untouched (the regression's record
digests read only the record's columns).

Run it when no sweep is writing to DIR. Parts are rewritten last first: until the run ends, the first part
of the sweep still has the old schema, which DuckDB binds the sweep to, so queries answer (the slow way)
while it runs or after a crash; run it again to finish (parts that have the columns are skipped).
``status --verify`` and ``--resume`` keep working at every step (the files and their checksums are the
truth).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from cluster.manifest import DONE, ManifestError, load_manifest, save_manifest
from cluster.part import DERIVED_KEY, encode_part, part_path
from cluster.verify import MAX_PART_BYTES
from infra import derived, folder
from sim.files import write_atomic
from sim.games import GAMES


class UpgradeError(ValueError):
    """A results folder that cannot be upgraded; the message names it and why."""


def _lacks_options(game, columns: list[str]) -> bool:
    return any(n not in columns for n in game.engine_options)


def _with_options(game, table: pa.Table) -> pa.Table:
    """``table`` with the engine-option columns it lacks (a part written before the option existed), each at
    its default, which is how those games were played; in the record's column order."""
    schema = game.schemas["games"]
    for name, default in game.engine_options.items():
        if name not in table.column_names:
            f = schema.field(name)
            table = table.append_column(f, pa.array([default] * table.num_rows, f.type))
    order = [n for n in schema.names if n in table.column_names]
    return table.select(order + [n for n in table.column_names if n not in order])


def upgrade(out_dir: str | Path, progress=None) -> dict[str, int]:
    """Give every done part of the sweep in ``out_dir`` the derived columns; returns counts
    (``parts``, ``rewritten``, ``skipped``)."""
    out_dir = Path(out_dir)
    try:
        manifest = load_manifest(out_dir)
    except ManifestError as e:
        raise UpgradeError(str(e)) from None
    if manifest is None:
        raise UpgradeError(f"{out_dir}: no sweep here (no manifest.json); upgrade reads a sweep's folder")
    game = GAMES[manifest["game"]] if manifest.get("game") in GAMES.names() else None
    if game is None:
        raise UpgradeError(f"{out_dir}: holds {manifest.get('game')!r} records, not a registered game")
    done = [(c["id"], i, p) for c in manifest["cells"] for i, p in enumerate(c["parts"]) if p["state"] == DONE]
    counts = {"parts": len(done), "rewritten": 0, "skipped": 0}
    # signed again only when this machine's signature vouched for every part it rewrites (their SHA-256 checked
    # first): an upgrade never turns a folder's own word into this machine's
    vouched = manifest.signature == folder.SIGNED
    repair = f"run playtest status --verify {out_dir} (it quarantines what is not the sweep's), then --resume"
    for cell, i, part in sorted(done, key=lambda x: (x[0], x[2].get("batch", x[1])), reverse=True):
        path = part_path(out_dir, "games", cell, part.get("batch", i))
        recorded = (part.get("files") or {}).get("games", {})
        try:     # a regular file inside the folder (no FIFO, no link out of it), of a part's size at most
            data = folder.read_file(path, out_dir, "part file", MAX_PART_BYTES)
        except folder.FolderError as e:
            raise UpgradeError(f"{e}; {repair}") from None
        if recorded.get("sha256"):          # the file must be the one the manifest lists
            if hashlib.sha256(data).hexdigest() != recorded["sha256"]:
                raise UpgradeError(f"{path}: does not match the manifest's checksum; {repair}")
        else:
            vouched = False
        try:
            pf = pq.ParquetFile(pa.BufferReader(data))
            meta = {k.decode(): v.decode() for k, v in (pf.metadata.metadata or {}).items()
                    if k.startswith(b"playtest.")}
            if meta.get(DERIVED_KEY) == derived.VERSION and not _lacks_options(game, pf.schema_arrow.names):
                counts["skipped"] += 1
            else:
                table = _with_options(game, pf.read().replace_schema_metadata(None))
                table = derived.derive(game, table)
                meta.pop("playtest.content_sha256", None)
                data = encode_part(table, {**meta, DERIVED_KEY: derived.VERSION}).to_pybytes()
                write_atomic(path, data)
                counts["rewritten"] += 1
        except (pa.ArrowException, ValueError, IndexError, TypeError, UnicodeDecodeError) as e:
            why = str(e).splitlines()[0][:120] if str(e) else type(e).__name__
            raise UpgradeError(f"{path}: not a readable part file ({why}); {repair}") from None
        except OSError as e:
            raise UpgradeError(f"{path}: cannot rewrite it ({e.strerror or e}); {repair}") from None
        size, sha = len(data), hashlib.sha256(data).hexdigest()
        old_size = recorded.get("bytes", 0) if recorded else 0
        part.setdefault("files", {})["games"] = {"bytes": size, "sha256": sha}
        if "bytes" in part:
            part["bytes"] = part["bytes"] - old_size + size if recorded else size
        save_manifest(out_dir, manifest, sign=vouched)    # after each part: it always lists the files as they are
        if progress:
            progress(counts)
    manifest["derived"] = derived.VERSION
    save_manifest(out_dir, manifest, sign=vouched)
    return counts
