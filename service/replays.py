"""Replay pages per run: on a done run with results (a sweep's, a ladder's), a form (a cell, a game's index within the
cell) and the visual replay of that one game, as ``playtest play --from DIR --cell ID --game-index N --html FILE``
draws it: the replay step (service/steps.py: the functions the command calls, cluster/replay.py and
infra/replay_page.py) runs in a child process, so the game is the sweep's own (its spec's seed and the game's index;
the stored decision trace and row where the sweep kept them). The page is cached in the run's own folder
(``ROOT/jobs/<id>/replays/CELL-INDEX.html``) and served with the report's sandbox policy; the pages of every run
together are at most ``CACHE_PAGES`` and ``CACHE_BYTES`` (the least recently shown removed first, :func:`keep_within`).

Bounded: the cell must be one of the manifest's, the index an integer below its games per cell (both checked before
anything runs), at most ``MAX_AT_ONCE`` replays are drawn at once (503 beyond), each for at most ``TIMEOUT_S`` (its
process group is ended after). Every error is one line, without a server path."""

from __future__ import annotations

import os
import re
import secrets
import signal
import subprocess
import sys
import threading
from pathlib import Path

from cluster.part import part_path
from service.kinds import has_manifest
from sim.files import write_atomic
from sim.kit import trace
from infra.storage import StorageError, open_location
from service.runner import PROJECT, job_layout, layout

MAX_AT_ONCE = 2
TIMEOUT_S = 60.0
MAX_PART_BYTES = 1 << 30            # a part copied from object storage for a replay, at most
CACHE_PAGES = 1000                  # replay pages kept, in all the service's runs, at most ...
CACHE_BYTES = 1 << 30               # ... and their bytes: past either, the least recently shown go first
CACHE_GRACE_S = 60.0                # a page shown or drawn this recently is never removed (it may be being sent)
CELL = re.compile(r"c[0-9]{3,6}")
_slots = threading.BoundedSemaphore(MAX_AT_ONCE)


def cells_of(out: Path) -> tuple[list[tuple[str, str]], int] | None:
    """The run's cells, (id, its varied values as text), and its games per cell, from its manifest; None when it
    has none."""
    from cluster.manifest import ManifestError, load_manifest
    try:
        m = load_manifest(out)
    except (ManifestError, OSError, ValueError):
        return None
    if not m or not isinstance(m.get("cells"), list) or not isinstance(m.get("games_per_cell"), int):
        return None
    cells = [(str(c.get("id")), ", ".join(f"{k}={v}" for k, v in (c.get("values") or {}).items()))
             for c in m["cells"] if isinstance(c, dict) and CELL.fullmatch(str(c.get("id")))]
    return cells, m["games_per_cell"]


def replayable(row: dict, root: Path) -> bool:
    """Whether the run page links to its replay form: a done run with results."""
    return row["state"] == "done" and has_manifest(job_layout(root, row)["out"])


def checked(cells: list[tuple[str, str]], per_cell: int, cell: str, index: str) -> tuple[str, int]:
    """The cell and the index, or a ValueError of one line naming the field and what it allows."""
    ids = [c for c, _ in cells]
    if cell not in ids:
        shown = ", ".join(ids[:8]) + (f", ... ({len(ids)} cells)" if len(ids) > 8 else "")
        raise ValueError(f"cell {cell[:20]!r}: expected one of {shown}")
    if not (index.isascii() and index.isdigit() and len(index) <= 12) or int(index) >= per_cell:
        raise ValueError(f"index {index[:20]!r}: expected an integer from 0 to {per_cell - 1} (games per cell of "
                         "this run)")
    return cell, int(index)


def local_copy(out: str, own: Path, cell: str, index: int) -> str:
    """A run on object storage, as ``playtest play --from`` reads a folder: its manifest and the parts that hold the
    game (its games part, and its decision traces' where the sweep kept them), copied byte for byte into
    ``OWN/replays/src`` (the command checks each part against the manifest as it would in place). Returns that folder,
    relative to the service's root."""
    from cluster.manifest import ManifestError, load_manifest
    loc = open_location(out, probe=False)
    try:
        m = load_manifest(out)
    except (ManifestError, OSError, ValueError) as e:
        raise ValueError(f"the run's manifest cannot be read ({' '.join(str(e).split())[:200]})") from None
    src = own / "replays" / "src"
    batch = index // int(m["batch_size"])
    wanted = ["manifest.json"] + [str(part_path("", t, cell, batch)) for t in ("games", trace.TABLE)
                                  if t in (m.get("tables") or ["games"])]
    for rel in wanted:
        try:
            data = loc.read_bytes(rel, MAX_PART_BYTES)
        except StorageError as e:
            raise ValueError(f"{rel}: cannot read it from the run's storage ({e})") from None
        if data is None:
            continue                                  # a part that is not there: the command says so
        dest = src / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(dest, data)
    return str(src.relative_to(own.parent.parent))


def draw(root: Path, job: str, cell: str, index: int, results: str = "") -> Path:
    """The replay page of one game (cached); a ValueError of one line when it cannot be drawn, TimeoutError when it
    took too long, BlockingIOError when MAX_AT_ONCE are being drawn. ``results``: the run's results root on object
    storage (the catalog's), if there."""
    paths = layout(root, job, results)
    folder = paths["own"] / "replays"
    page = folder / f"{cell}-{index}.html"
    if page.is_file():
        try:
            os.utime(page)                      # shown now: the last to go (keep_within)
        except OSError:
            pass
        return page
    if not _slots.acquire(blocking=False):
        raise BlockingIOError
    try:
        folder.mkdir(parents=True, exist_ok=True)
        part = folder / f".{cell}-{index}-{secrets.token_hex(4)}.html"
        env = {**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
               "PYTHONPATH": os.pathsep.join(p for p in (str(PROJECT), os.environ.get("PYTHONPATH", "")) if p)}
        where = local_copy(paths["out"], paths["own"], cell, index) if results else f"runs/{job}"
        proc = subprocess.Popen([sys.executable, "-m", "service.steps", "replay", where, cell, str(index), str(part)],
                                cwd=root, env=env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                start_new_session=True)
        try:
            _, err = proc.communicate(timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            part.unlink(missing_ok=True)
            raise TimeoutError from None
        if proc.returncode != 0 or not part.is_file():
            part.unlink(missing_ok=True)
            lines = [x.strip() for x in err.decode("utf-8", "replace").splitlines() if x.strip()]
            line = next((x for x in reversed(lines) if x.startswith("error:")), lines[-1] if lines else "")
            line = line.removeprefix("error:").strip().replace(str(root) + os.sep, "")
            raise ValueError(" ".join(line.split())[:300] or f"the replay ended with exit code {proc.returncode}")
        os.replace(part, page)
        keep_within(root)
        return page
    finally:
        _slots.release()


def keep_within(root: Path, pages: int | None = None, size: int | None = None, now: float | None = None) -> int:
    """Remove the least recently shown replay pages of every run (``ROOT/jobs/*/replays/*.html``, by the time a
    page was last drawn or shown) until at most ``pages`` (CACHE_PAGES) pages of at most ``size`` (CACHE_BYTES)
    bytes are left; a page shown in the last CACHE_GRACE_S seconds stays. A removed page is drawn again when asked
    for. Returns how many were removed."""
    import time
    pages = CACHE_PAGES if pages is None else pages
    size = CACHE_BYTES if size is None else size
    now = time.time() if now is None else now
    found = []
    for f in Path(root).glob("jobs/*/replays/*.html"):
        try:
            st = f.stat()
        except OSError:
            continue
        found.append((st.st_mtime, st.st_size, f))
    found.sort(key=lambda x: x[0])                      # least recently shown first
    count, total, removed = len(found), sum(x[1] for x in found), 0
    for mtime, bytes_, f in found:
        if count <= pages and total <= size:
            break
        if now - mtime < CACHE_GRACE_S:
            break
        try:
            f.unlink()
        except OSError:
            continue
        count, total, removed = count - 1, total - bytes_, removed + 1
    return removed
