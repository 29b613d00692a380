"""The sweep manifest (``DIR/manifest.json``): spec, resolved cells, code version, per-part state and rows.

Only the driver writes it, atomically (temporary name, then rename), as parts finish; a killed driver
leaves the last complete manifest, and the parts' own Parquet metadata says which later ones finished.

The manifest is a cache, never the truth: ``--resume`` and ``playtest status --verify`` rebuild the part
list from the spec and check every file on disk (``cluster.verify``). Every field read from it is
type-checked here (:func:`check_manifest`), so a hand-edited manifest is refused in one line naming the
field, never a traceback.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from cluster.spec import SweepSpec
from infra import derived, folder
from sim.files import TMP_MARK, write_atomic
from infra.storage import StorageError, is_uri, open_location

FORMAT = 1
NAME = "manifest.json"
TMP_PREFIX = f".{NAME}{TMP_MARK}"            # ".manifest.json.tmp-<pid>" while it is being saved
PENDING, DONE = "pending", "done"           # part states
BEYOND = "beyond the stop"                  # a [stop] sweep's part after its cell stopped: not played (or discarded)
STATES = ("running", "interrupted", "failed", "incomplete", "done")   # "incomplete": verify found parts missing
MAX_MANIFEST_BYTES = folder.MAX_MANIFEST_BYTES
REBUILD = "the manifest is only a cache: `playtest sweep SPEC --out DIR --resume` rebuilds it from the spec " \
          "and the parts"


class ManifestError(ValueError):
    """The manifest in a results directory is missing, unreadable or of another format; ``detail`` is the
    message without the hint (``rebuild=True``) that --resume rebuilds it."""

    def __init__(self, detail: str, rebuild: bool = False):
        super().__init__(f"{detail}; {REBUILD}" if rebuild else detail)
        self.detail = detail


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def spec_parts(spec: SweepSpec) -> list[dict[str, Any]]:
    """The part entries of one cell as the spec alone defines them (every part pending)."""
    parts = []
    for batch in range(spec.parts_per_cell):
        first, games = spec.part_games(batch)
        parts.append({"batch": batch, "first_game": first, "games": games, "state": PENDING, "rows": 0, "bytes": 0,
                      "files": {}})
    return parts


def new_manifest(spec: SweepSpec, code_version: str, core_digest: str) -> dict[str, Any]:
    """A fresh manifest for ``spec``: every part pending."""
    cells = []
    for cell in spec.cells:
        cells.append({"id": cell.id, "values": cell.values, "match": cell.match.describe(),
                      "rules_digest": cell.match.rules_digest, "data_digest": cell.match.data_digest,
                      "match_digest": cell.match.digest, "parts": spec_parts(spec)})
    return {
        "format": FORMAT, "name": spec.name, "spec_file": str(Path(spec.source).resolve()), "spec": spec.raw,
        "spec_digest": spec.digest, "code_version": code_version, "core_digest": core_digest,
        "game": spec.game, "rules": spec.rules, "engine": spec.engine, "seed": spec.seed,
        "games_per_cell": spec.games_per_cell, "batch_size": spec.batch_size, "parts_per_cell": spec.parts_per_cell,
        "tables": list(spec.tables), "games_total": spec.total_games, "parts_total": spec.total_parts,
        "state": "running", "error": None, "created": now(), "updated": now(), "runs": [], "cells": cells,
        "derived": derived.VERSION,          # its parts carry the per-game columns of infra.derived
        **({"stop": spec.stop.describe()} if spec.stop is not None else {}),
    }


def manifest_path(out_dir: str | Path) -> Path:
    return Path(out_dir) / NAME


# ---- type checks: every field a reader of the manifest uses ------------------------------------------------
_INT, _STR, _DICT, _LIST = "an integer", "a string", "an object", "a list"
_TOP = {"format": _INT, "name": _STR, "spec_file": _STR, "spec": _DICT, "spec_digest": _STR, "code_version": _STR,
        "core_digest": _STR, "game": _STR, "rules": "a string or null", "engine": _STR, "seed": _INT,
        "games_per_cell": _INT, "batch_size": _INT, "parts_per_cell": _INT, "tables": "a list of strings",
        "games_total": _INT, "parts_total": _INT, "state": f"one of {', '.join(STATES)}",
        "error": "a string or null", "created": _STR, "updated": _STR, "runs": "a list of objects", "cells": _LIST}
_CELL = {"id": _STR, "values": _DICT, "parts": _LIST}
_PART = {"batch": _INT, "first_game": _INT, "games": _INT, "state": f"{PENDING}, {DONE} or {BEYOND}", "rows": _INT,
         "bytes": _INT}


def _ok(value: Any, kind: str) -> bool:
    if kind == _INT:
        return isinstance(value, int) and not isinstance(value, bool) and value >= 0
    if kind == _STR:
        return isinstance(value, str)
    if kind == _DICT:
        return isinstance(value, dict)
    if kind == _LIST:
        return isinstance(value, list)
    if kind.endswith("or null"):
        return value is None or isinstance(value, str)
    if kind == "a list of strings":
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    if kind == "a list of objects":
        return isinstance(value, list) and all(isinstance(v, dict) for v in value)
    if kind.startswith("one of"):
        return value in STATES
    if kind == f"{PENDING}, {DONE} or {BEYOND}":
        return value in (PENDING, DONE, BEYOND)
    raise AssertionError(kind)


def _clip(value: Any) -> str:
    text = json.dumps(value, default=str) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 60 else text[:55] + " ..."


def check_manifest(m: Any, path: Path) -> dict[str, Any]:
    """``m`` if it is a playtest sweep manifest whose every field has the right type, else a ManifestError
    naming the file and the field."""
    def bad(where: str, value: Any, kind: str, missing: bool = False) -> ManifestError:
        what = f"field {where} is missing" if missing else f"field {where} = {_clip(value)} has the wrong type"
        return ManifestError(f"{path}: {what}; expected {kind}", rebuild=True)

    if not isinstance(m, dict) or m.get("format") != FORMAT or "cells" not in m:
        raise ManifestError(f"{path}: not a playtest sweep manifest of format {FORMAT}", rebuild=True)
    for key, kind in _TOP.items():
        if key not in m:
            raise bad(key, None, kind, missing=True)
        if not _ok(m[key], kind):
            raise bad(key, m[key], kind)
    for i, cell in enumerate(m["cells"]):
        if not isinstance(cell, dict):
            raise bad(f"cells[{i}]", cell, _DICT)
        for key, kind in _CELL.items():
            if key not in cell:
                raise bad(f"cells[{i}].{key}", None, kind, missing=True)
            if not _ok(cell[key], kind):
                raise bad(f"cells[{i}].{key}", cell[key], kind)
        if "stop" in cell and not isinstance(cell["stop"], dict):
            raise bad(f"cells[{i}].stop", cell["stop"], _DICT)
        for j, part in enumerate(cell["parts"]):
            where = f"cells[{i}].parts[{j}]"
            if not isinstance(part, dict):
                raise bad(where, part, _DICT)
            for key, kind in _PART.items():
                if key not in part:
                    raise bad(f"{where}.{key}", None, kind, missing=True)
                if not _ok(part[key], kind):
                    raise bad(f"{where}.{key}", part[key], kind)
            summary = part.get("summary")              # [stop] sweeps: metric -> [games, sum of scaled values]
            if summary is not None and not (isinstance(summary, dict) and all(
                    isinstance(v, list) and len(v) == 2 and _ok(v[0], _INT)
                    and isinstance(v[1], (int, float)) and not isinstance(v[1], bool) and 0 <= v[1] <= v[0]
                    for v in summary.values())):
                raise bad(f"{where}.summary", summary, "an object of metric: [games, sum in [0, games]]")
            files = part.setdefault("files", {})       # manifests written before file checksums have none
            kind = "an object of table: {bytes, sha256}"
            if not isinstance(files, dict) or not all(
                    isinstance(f, dict) and _ok(f.get("bytes"), _INT) and isinstance(f.get("sha256"), str)
                    for f in files.values()):
                raise bad(f"{where}.files", files, kind)
    return m


class Loaded(dict):
    """A manifest as read (a plain dict for every use) that remembers what its signature said
    (``infra.folder.signature``): SIGNED when this machine's key vouches for every part's size and SHA-256."""

    signature: str = folder.UNSIGNED


def load_manifest(out_dir: str | Path) -> dict[str, Any] | None:
    """The manifest in ``out_dir``, or None if there is none; read through the one bounded reader
    (``infra.folder``: a regular file inside the folder, size-capped, nesting bounded), then every field
    type-checked; anything else a ManifestError in one line. Its ``signature`` says whether this machine signed it;
    a manifest whose part entries disagree with the sweep's size is returned (``--verify`` and ``--resume``
    rebuild them from the spec): :func:`infra.folder.manifest_problem` says what disagrees."""
    try:
        read = folder.read_manifest(out_dir, whole=False)
    except folder.FolderError as e:
        raise ManifestError(str(e), rebuild=not is_uri(out_dir)) from None
    if read is None:
        return None
    m = Loaded(check_manifest(read.data, read.where))
    m.signature = read.signature
    return m


def save_manifest(out_dir: str | Path, manifest: dict[str, Any], sign: bool = True) -> None:
    """Write the manifest atomically: readers and a resumed sweep see the old or the new one, never half.

    ``sign``: with this machine's key (infra.folder.sign), which vouches for every part it lists as done; False
    when some are vouched for by nothing but themselves (a sample replayed, or a folder that came unsigned).
    A failure (full disk, ...) removes the temporary file and is a ManifestError in one line."""
    manifest["updated"] = now()
    text = json.dumps(manifest, default=str)       # no indent: the C encoder, ~0.2 s for 100,000 parts
    text = folder.sign(text) if sign else text
    if is_uri(out_dir):          # one object, written whole (infra.storage); the driver's lock makes it the only writer
        try:
            open_location(str(out_dir), probe=False).write_bytes(NAME, text)
        except StorageError as e:
            raise ManifestError(f"cannot save the sweep manifest: {e}") from None
        return
    path = manifest_path(out_dir)
    try:
        write_atomic(path, text, fsync=True)
    except OSError as e:
        raise ManifestError(f"{path}: cannot save the sweep manifest ({e.strerror or e})") from None


def counts(manifest: dict[str, Any]) -> dict[str, int]:
    """Parts and games done in the whole sweep, from the manifest (parts beyond a cell's stop left out)."""
    parts = [p for c in manifest["cells"] for p in c["parts"] if p["state"] != BEYOND]
    done = [p for p in parts if p["state"] == DONE]
    return {"parts": len(parts), "parts_done": len(done), "games": sum(p["games"] for p in parts),
            "games_done": sum(p["rows"] for p in done), "bytes": sum(p["bytes"] for p in done)}
