"""Results folders: the one bounded reader every command uses, and the manifest's signature.

A results folder is untrusted input: anyone who can write to it can replace a file with a FIFO, a device, a
symbolic link out of the folder, a 1 GiB manifest or a part of another cell. Every command that reads one
(``query``, ``report``, ``compare``, ``upgrade``, ``status``, ``--resume``, ``play --from``) reads it here:

- :func:`read_file`: a regular file inside the folder only (no FIFO, device or folder; no symbolic link that
  leads out of it), opened without blocking, at most ``limit`` bytes.
- :func:`read_manifest`: ``manifest.json`` through :func:`read_file` (or from object storage, size-capped),
  parsed with bounded nesting and shape-checked (:func:`manifest_problem`): cell ids, part states, one entry
  per part of each cell, counts within a sweep's limits. Every refusal is one line naming the file and the field.
- :func:`part_files`: the done parts' files, each a regular file inside the folder with the size and SHA-256 the
  manifest records (the hash is taken once per file and remembered by path, size, inode, mtime and ctime in a
  cache outside the folder, so a 10,000,000-game folder is hashed once, not per query).

**The signature.** The sweep driver signs the manifest it saves with an HMAC-SHA256 key kept outside every
results folder (:func:`machine_key`: ``$PLAYTEST_KEY_FILE``, else ``~/.config/playtest/results.key``, made
on first use, mode 0600). The manifest lists every part file's size and SHA-256, so a signed manifest
vouches for the parts' bytes: a part edited by hand, even with its checksums recomputed, no longer matches,
and a manifest edited to match no longer carries a valid signature. A folder signed by another key (another
machine) or not at all (an older playtest, or a manifest written by hand) is read with a one-line note
saying its checksums are the folder's own (anyone who can edit the folder can recompute them).
docs/sweeps.md, "What an attacker with write access can do", says what this does and does not stop.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import re
import secrets
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sim.files import MAX_NESTING, parse_json as parse_json_bounded, stat_named, write_atomic

MANIFEST = "manifest.json"
FORMAT = 1
MAX_MANIFEST_BYTES = 128 * 2**20   # 100,000 parts of two tables are ~50 MB
MAX_DEPTH = MAX_NESTING      # JSON nesting in a manifest (a sweep's is under 10 deep)
MAX_CELLS = 10_000                 # as cluster.spec: a sweep has at most this many cells ...
MAX_PARTS = 100_000                # ... and parts (tests/test_folder.py checks these equal the spec's)
MAX_ID = 64                        # characters in a cell id (a sweep's are c0000 ... c9999)
CELL_ID = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}")
TABLE_NAME = re.compile(r"[A-Za-z_]\w{0,63}")
PENDING, DONE, BEYOND = "pending", "done", "beyond the stop"
PART_STATES = (PENDING, DONE, BEYOND)
KEY_ENV = "PLAYTEST_KEY_FILE"
CACHE_ENV = "PLAYTEST_CACHE_DIR"
SIG_MARK = b', "signature": {"key": "'
READS = 3                          # reads of a manifest on object storage before it is called unreadable


class FolderError(ValueError):
    """A results folder, or a file in it, that cannot be read safely; one line naming it."""


# ---- one file ------------------------------------------------------------------------------------------

def inside(path: str | Path, root: str | Path) -> bool:
    """``path``, with every symbolic link followed, lies inside the folder ``root`` (itself resolved)."""
    real, top = os.path.realpath(path), os.path.realpath(root)
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


def check_regular(path: str | Path, root: str | Path, what: str) -> os.stat_result:
    """The stat of ``path`` if it is a regular file inside ``root`` (a symbolic link may point only inside it),
    else a FolderError naming it."""
    st = stat_named(path, what, FolderError)
    if not inside(path, root):
        raise FolderError(f"{path}: a symbolic link out of the results folder {root}; a {what} is a file inside it")
    if not stat.S_ISREG(st.st_mode):
        kind = "a folder" if stat.S_ISDIR(st.st_mode) else "a FIFO" if stat.S_ISFIFO(st.st_mode) else \
            "a device or socket"
        raise FolderError(f"{path}: {kind}, not a regular file; a {what} is a regular file")
    return st


def read_file(path: str | Path, root: str | Path, what: str, limit: int) -> bytes:
    """The bytes of ``path``, a regular file inside ``root`` of at most ``limit`` bytes (:func:`check_regular`),
    opened without blocking (a file swapped for a FIFO between the check and the open never hangs)."""
    st = check_regular(path, root, what)
    if st.st_size > limit:
        raise FolderError(f"{path}: {st.st_size:,} bytes; a {what} is at most {limit:,} bytes")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise FolderError(f"{path}: cannot read the {what} ({e.strerror or e})") from None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise FolderError(f"{path}: not a regular file; a {what} is a regular file")
        raw = f.read(limit + 1)
    if len(raw) > limit:
        raise FolderError(f"{path}: more than {limit:,} bytes; a {what} is at most {limit:,} bytes")
    return raw


def parse_json(raw: bytes, where: str, what: str) -> Any:
    """``raw`` as JSON nested at most MAX_DEPTH deep (``sim.files.parse_json``); anything else a FolderError
    ``where: unreadable <what> (why)``."""
    class Refused(ValueError):
        pass
    try:
        return parse_json_bounded(raw, "", Refused, MAX_DEPTH)
    except Refused as e:
        detail = str(e).removeprefix(": ").removeprefix("not valid JSON ").strip("()")
        raise FolderError(f"{where}: unreadable {what} ({detail})") from None


# ---- the key and the signature -------------------------------------------------------------------------

def key_path() -> Path:
    if os.environ.get(KEY_ENV):
        return Path(os.environ[KEY_ENV])
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "playtest" / "results.key"


def machine_key(create: bool = False) -> bytes | None:
    """This machine's signing key (32 random bytes, hex in a 0600 file outside any results folder); None when
    there is none and ``create`` is false, or when it cannot be read or made (then nothing is signed)."""
    path = key_path()
    with contextlib.suppress(OSError, ValueError):
        text = path.read_text() if path.is_file() and path.stat().st_size <= 256 else ""
        if re.fullmatch(r"[0-9a-f]{64}\s*", text):
            return bytes.fromhex(text.strip())
    if not create:
        return None
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:          # another process made it first: read its key
        return machine_key(False)
    except OSError:
        return None
    with os.fdopen(fd, "w") as f:
        f.write(secrets.token_hex(32) + "\n")
    return machine_key(False)


def key_id(key: bytes) -> str:
    """A short public name of a key (which key signed a manifest), not the key."""
    return hashlib.sha256(b"playtest results key\0" + key).hexdigest()[:16]


def _mac(key: bytes, body: bytes) -> str:
    return hmac.new(key, body, hashlib.sha256).hexdigest()


def sign(text: str) -> str:
    """A manifest's JSON text (an object) with its signature as its last field; unchanged when this machine has
    no usable key."""
    key = machine_key(create=True)
    if key is None or not text.endswith("}"):
        return text
    body = text.encode()
    return f'{text[:-1]}{SIG_MARK.decode()}{key_id(key)}", "hmac": "{_mac(key, body)}"}}}}'


SIGNED, UNSIGNED, OTHER_KEY, BROKEN = "signed", "unsigned", "signed by another key", "signature does not match"


def signature(raw: bytes) -> str:
    """Whether the manifest bytes ``raw`` carry this machine's valid signature (SIGNED), none (UNSIGNED),
    another key's (OTHER_KEY), or this key's over other content (BROKEN: edited after it was signed)."""
    i = raw.rfind(SIG_MARK)
    if i < 0:
        return UNSIGNED
    m = re.fullmatch(rb'([0-9a-f]{16})", "hmac": "([0-9a-f]{64})"\}\}\s*', raw[i + len(SIG_MARK):])
    if m is None:
        return BROKEN
    key = machine_key()
    if key is None or key_id(key).encode() != m[1]:
        return OTHER_KEY
    return SIGNED if hmac.compare_digest(_mac(key, raw[:i] + b"}"), m[2].decode()) else BROKEN


# ---- the manifest --------------------------------------------------------------------------------------

@dataclass
class Manifest:
    """A parsed, shape-checked manifest and what its signature says."""

    data: dict[str, Any]
    where: str                    # the file, as shown in messages
    signature: str = UNSIGNED

    @property
    def vouched(self) -> bool:
        return self.signature == SIGNED

    def note(self) -> str | None:
        """One line when the parts' checksums are only the folder's own word; None when the signature vouches."""
        if self.signature == SIGNED:
            return None
        why = {UNSIGNED: "carries no signature (written by an older playtest or by hand)",
               OTHER_KEY: "was signed on another machine (another key)"}.get(self.signature, self.signature)
        return (f"{self.where} {why}: its parts are checked against the sizes and checksums it lists, "
                "which anyone who can edit the folder can recompute")


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def manifest_problem(m: Any, whole: bool = True) -> str | None:
    """What is wrong with a parsed manifest's shape (what every reader relies on), or None.

    Cell ids are short names; each part's state is pending, done or beyond the stop; a part lists each table's
    ``{bytes, sha256}``. ``whole`` (what an answer needs): a manifest that records the sweep's size
    (``games_per_cell``, ``batch_size``, ``parts_per_cell``: every one the driver writes) has exactly one entry per
    part of each cell, in batch order, with the games the size gives it, so a part deleted from the manifest cannot
    shrink the sweep unseen. ``status --verify`` and ``--resume`` read a manifest that is not whole (they rebuild
    its parts from the spec); the queries refuse it."""
    if not isinstance(m, dict):
        return "not a JSON object"
    if m.get("format", FORMAT) != FORMAT:
        return f"format {m.get('format')!r}, expected {FORMAT}"
    tables = m.get("tables", ["games"])
    if not isinstance(tables, list) or not tables or not all(isinstance(t, str) and TABLE_NAME.fullmatch(t)
                                                              for t in tables):
        return "field tables is not a list of table names"
    for key in ("spec_file", "name", "state"):
        if key in m and not isinstance(m[key], str):
            return f"field {key} is not a string"
    cells = m.get("cells")
    if not isinstance(cells, list):
        return "field cells is not a list"
    if len(cells) > MAX_CELLS:
        return f"{len(cells):,} cells; a sweep has at most {MAX_CELLS:,}"
    sized = whole and all(_is_int(m.get(k)) for k in ("games_per_cell", "batch_size", "parts_per_cell")) \
        and m["batch_size"] > 0
    if sized and m["parts_per_cell"] != -(-m["games_per_cell"] // m["batch_size"]):
        return (f"field parts_per_cell = {m['parts_per_cell']}; games_per_cell {m['games_per_cell']} in batches of "
                f"{m['batch_size']} make {-(-m['games_per_cell'] // m['batch_size'])}")
    if sized and m["parts_per_cell"] * len(cells) > MAX_PARTS:
        return f"{m['parts_per_cell'] * len(cells):,} parts; a sweep has at most {MAX_PARTS:,}"
    seen: set[str] = set()
    total = 0
    for i, c in enumerate(cells):
        if not isinstance(c, dict) or not isinstance(c.get("id"), str) or not CELL_ID.fullmatch(c["id"]):
            shown = repr(c.get("id"))[:40] if isinstance(c, dict) else "?"
            return (f"cells[{i}].id = {shown} is not a cell id (letters, digits, '_', '.', '-'; at most "
                    f"{MAX_ID} characters)")
        if c["id"] in seen:
            return f"cell {c['id']} is listed twice"
        seen.add(c["id"])
        parts = c.get("parts")
        if not isinstance(parts, list) or not all(isinstance(p, dict) for p in parts):
            return f"field cells[{i}].parts is not a list of objects"
        total += len(parts)
        if total > MAX_PARTS:
            return f"more than {MAX_PARTS:,} parts; a sweep has at most {MAX_PARTS:,}"
        if sized and len(parts) != m["parts_per_cell"]:
            return (f"cell {c['id']} (cells[{i}]): {len(parts)} part entries; the sweep has {m['parts_per_cell']} "
                    "per cell (an entry was removed or added)")
        for j, p in enumerate(parts):
            where = f"field cells[{i}].parts[{j}]"
            batch = p.get("batch", j)
            if not _is_int(batch) or (sized and batch != j):
                return f"{where}.batch = {str(batch)[:20]} is not part number {j}"
            if p.get("state") not in PART_STATES:
                return f"{where}.state = {repr(p.get('state'))[:40]}; expected one of {', '.join(PART_STATES)}"
            if sized and "games" in p and p["games"] != min(m["batch_size"], m["games_per_cell"] - j * m["batch_size"]):
                return f"{where}.games = {str(p['games'])[:20]} is not what the sweep's batch size gives"
            for k in ("bytes", "rows"):
                if k in p and not _is_int(p[k]):
                    return f"{where}.{k} is not a whole number"
            files = p.get("files", {})
            if not isinstance(files, dict) or not all(
                    isinstance(t, str) and isinstance(f, dict) and _is_int(f.get("bytes", 0))
                    and isinstance(f.get("sha256", ""), str) for t, f in files.items()):
                return f"{where}.files is not a map of table to {{bytes, sha256}}"
    return None


def manifest_from_bytes(raw: bytes, where: str, whole: bool = True) -> Manifest:
    """Parse and shape-check manifest bytes (see :func:`manifest_problem`); a FolderError naming ``where``."""
    m = parse_json(raw, where, "sweep manifest")
    problem = manifest_problem(m, whole)
    if problem:
        raise FolderError(f"{where}: not a sweep manifest playtest can read ({problem})")
    sig = signature(raw)
    m.pop("signature", None)
    return Manifest(m, where, sig)


def read_manifest(root: str | Path, whole: bool = True) -> Manifest | None:
    """The manifest of the results folder ``root`` (a local folder or an object-storage URI), None when it has
    none; anything unsafe or malformed a FolderError of one line (``whole``: see :func:`manifest_problem`)."""
    from infra.storage import StorageError, is_uri, open_location
    if is_uri(root):
        import time
        try:
            loc = open_location(str(root))
        except StorageError as e:
            raise FolderError(str(e)) from None
        for attempt in range(READS):        # a manifest replaced between the size and the bytes reads cut short
            try:
                raw = loc.read_bytes(MANIFEST, MAX_MANIFEST_BYTES)
            except StorageError as e:
                raise FolderError(str(e)) from None
            if raw is None:
                return None
            try:
                return manifest_from_bytes(raw, loc.name(MANIFEST), whole)
            except FolderError:
                if attempt + 1 == READS:
                    raise
                time.sleep(0.2)
    path = Path(root) / MANIFEST
    if not os.path.lexists(path):
        return None
    return manifest_from_bytes(read_file(path, root, "sweep manifest", MAX_MANIFEST_BYTES), str(path), whole)


# ---- the parts -----------------------------------------------------------------------------------------

def part_rel(table: str, cell: str, batch: int) -> str:
    return f"{table}/cell={cell}/part-{batch:05d}.parquet"


def done_parts(m: dict[str, Any]) -> list[tuple[str, int, dict[str, Any]]]:
    """(cell id, batch, part entry) of every done part, in (cell, batch) order, each once."""
    done: dict[tuple[str, int], dict] = {}
    for c in m["cells"]:
        for i, p in enumerate(c["parts"]):
            if p["state"] == DONE:
                done.setdefault((c["id"], p.get("batch", i)), p)
    return [(cell, batch, p) for (cell, batch), p in sorted(done.items())]


def cache_dir() -> Path:
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "playtest"


@dataclass
class Hashes:
    """SHA-256 of a results folder's files, remembered by (size, inode, device, mtime, ctime) in a cache outside
    the folder (an edit changes the ctime, which no user can set back), so each file is hashed once."""

    root: str
    path: Path | None = None
    known: dict[str, list] = field(default_factory=dict)
    changed: bool = False

    @classmethod
    def open(cls, root: str | Path) -> "Hashes":
        real = os.path.realpath(root)
        path = cache_dir() / f"verified-{hashlib.sha256(real.encode()).hexdigest()[:24]}.json"
        known: dict[str, list] = {}
        with contextlib.suppress(OSError, ValueError, RecursionError):
            if path.is_file() and path.stat().st_size <= MAX_MANIFEST_BYTES:
                data = json.loads(path.read_bytes())
                if isinstance(data, dict) and data.get("root") == real and isinstance(data.get("files"), dict):
                    known = data["files"]
        return cls(real, path, known)

    def sha256(self, rel: str, path: str, st: os.stat_result) -> str:
        stamp = [st.st_size, st.st_ino, st.st_dev, st.st_mtime_ns, st.st_ctime_ns]
        got = self.known.get(rel)
        if isinstance(got, list) and len(got) == 6 and got[:5] == stamp and isinstance(got[5], str):
            return got[5]
        h = hashlib.sha256()
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(fd, "rb") as f:
            while chunk := f.read(1 << 20):
                h.update(chunk)
        self.known[rel] = stamp + [h.hexdigest()]
        self.changed = True
        return h.hexdigest()

    def save(self) -> None:
        if not self.changed or self.path is None:
            return
        with contextlib.suppress(OSError):
            write_atomic(self.path, json.dumps({"root": self.root, "files": self.known}))
        self.changed = False


def _check_part_file(hashes: "Hashes", root: str | Path, rel: str, want: dict) -> tuple[os.stat_result | None,
                                                                                        str | None]:
    """(its stat, what is wrong or None) of one part file: a regular file inside the folder with the size and
    the SHA-256 the manifest records for it (``want``)."""
    path = Path(root) / rel
    try:
        st = check_regular(path, root, "part file")
    except FolderError as e:
        return None, str(e).split(": ", 1)[-1]
    if "bytes" in want and want["bytes"] != st.st_size:
        return st, f"{st.st_size:,} bytes; the manifest records {want['bytes']:,}"
    if want.get("sha256"):
        try:
            got = hashes.sha256(rel, str(path), st)
        except OSError as e:
            return st, f"cannot read it ({e.strerror or e})"
        if got != want["sha256"]:
            return st, "its bytes differ from what the sweep wrote (the manifest's SHA-256)"
    return st, None


def part_problem(root: str | Path, m: dict[str, Any], table: str, cell: str, batch: int) -> str | None:
    """What is wrong with one done part's file of ``table`` (as :func:`part_files` checks every one), or None;
    a part the manifest does not list as done is a problem too."""
    entry = next((p for c, b, p in done_parts(m) if c == cell and b == batch), None)
    rel = part_rel(table, cell, batch)
    if entry is None:
        return f"{rel}: the manifest lists no finished part {batch} of cell {cell}"
    hashes = Hashes.open(root)
    _, problem = _check_part_file(hashes, root, rel, (entry.get("files") or {}).get(table) or {})
    hashes.save()
    return f"{rel}: {problem}" if problem else None


def part_files(root: str | Path, manifest: Manifest, tables: list[str] | None = None) -> tuple[dict[str, list[str]],
                                                                                                list[tuple[str, str]]]:
    """({table: [absolute path of each done part's file]}, [(relative path, what is wrong)]) for a local sweep
    folder: each file must be a regular file inside the folder with the size and the SHA-256 the manifest records
    (older manifests without per-file entries: the part's total size). ``tables``: those to list (default all
    the manifest's)."""
    m = manifest.data
    named = m.get("tables", ["games"])
    tables = named if tables is None else tables
    files: dict[str, list[str]] = {t: [] for t in tables}
    bad: list[tuple[str, str]] = []
    hashes = Hashes.open(root)
    base = Path(root)
    for cell, batch, p in done_parts(m):
        recorded = p.get("files") or {}
        sizes = {}
        for t in named:
            rel = part_rel(t, cell, batch)
            st, problem = _check_part_file(hashes, root, rel, recorded.get(t) or {})
            if st is not None:
                sizes[t] = st.st_size
            if problem is not None:
                bad.append((rel, problem))
                continue
            if t in files:
                files[t].append(os.path.abspath(base / rel))
        if not recorded and len(sizes) == len(named) and p.get("bytes", 0) > 0 and sum(sizes.values()) != p["bytes"]:
            bad += [(part_rel(t, cell, batch), "its size differs from the manifest's") for t in named]
    hashes.save()
    return files, bad
