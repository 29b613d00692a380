"""Replay pages per run: on a done run with results (a sweep's, a ladder's), a form (a cell, a game's index within the
cell) and the visual replay of that one game, as ``playtest play --from DIR --cell ID --game-index N --html FILE``
draws it: the command itself runs in a child process (the service runs the command line as a child, never imports
it), so the game is the sweep's own (its spec's seed and the game's index; the stored decision trace and row where
the sweep kept them). The page is cached in the run's own folder (``ROOT/jobs/<id>/replays/CELL-INDEX.html``) and
served with the report's sandbox policy.

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

from fastapi import Request
from fastapi.responses import FileResponse

from service import pages
from cluster.part import part_path
from service.kinds import CLI, has_manifest
from sim.files import write_atomic
from sim.kit import trace
from infra.storage import StorageError, open_location
from service.runner import PROJECT, job_layout, layout

MAX_AT_ONCE = 2
TIMEOUT_S = 60.0
MAX_PART_BYTES = 1 << 30            # a part copied from object storage for a replay, at most
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


def link(row: dict, root: Path) -> str:
    """The run page's link to its replay form (a done run with results only)."""
    if row["state"] != "done" or not has_manifest(job_layout(root, row)["out"]):
        return ""
    return f"<p><a id='replay' href='/runs/{pages.esc(row['id'])}/replay'>Replay a game of this run</a></p>"


def form(row: dict, cells: list[tuple[str, str]], per_cell: int, cell: str = "", index: str = "0",
         error: str = "") -> str:
    opts = "".join(f"<option value='{pages.esc(c)}'{' selected' if c == cell else ''}>{pages.esc(c)}"
                   f"{(': ' + pages.esc(label)) if label else ''}</option>" for c, label in cells)
    return ((f"<p class='error' id='error'>{pages.esc(error)}</p>" if error else "")
            + f"<p>Draw one game of <a href='/runs/{pages.esc(row['id'])}'>{pages.esc(row['title'])}</a> as "
            "<code>playtest play --from DIR --cell ID --game-index N --html</code> draws it: the same game the run "
            "played (its spec's seed and the game's index).</p>"
            f"<form method='get' action='/runs/{pages.esc(row['id'])}/replay/game'>"
            f"<label for='cell'>Cell</label><select id='cell' name='cell'>{opts}</select>"
            f"<label for='index'>Game index within the cell (0 to {per_cell - 1:,})</label>"
            f"<input type='text' id='index' name='index' value='{pages.esc(index)}'> <button>Replay</button></form>")


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
        return page
    if not _slots.acquire(blocking=False):
        raise BlockingIOError
    try:
        folder.mkdir(parents=True, exist_ok=True)
        part = folder / f".{cell}-{index}-{secrets.token_hex(4)}.html"
        env = {**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
               "PYTHONPATH": os.pathsep.join(p for p in (str(PROJECT), os.environ.get("PYTHONPATH", "")) if p)}
        where = local_copy(paths["out"], paths["own"], cell, index) if results else f"runs/{job}"
        proc = subprocess.Popen([sys.executable, "-c", CLI, "play", "--from", where, "--cell", cell,
                                 "--game-index", str(index), "--html", str(part)], cwd=root, env=env,
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
        return page
    finally:
        _slots.release()


def add_routes(app, *, catalog, root: Path, page_user, page, csp: str) -> None:
    """GET /runs/{job}/replay (the form) and GET /runs/{job}/replay/game?cell=&index= (the page), read role."""

    def run_of(request: Request, job: str):
        s = page_user(request, "read")
        row = catalog.job(job)
        out = job_layout(root, row)["out"] if row and row["state"] == "done" else None
        got = cells_of(out) if out is not None else None
        return s, row, got

    def nothing(s):
        return page("No replay", "<p class='error'>no such run, or no results to replay for it (yet)</p>", *s,
                    status=404)

    @app.get("/runs/{job}/replay")
    def replay_form(request: Request, job: str):
        s, row, got = run_of(request, job)
        if got is None:
            return nothing(s)
        return page(f"Replay: {row['title']}", form(row, *got), *s)

    @app.get("/runs/{job}/replay/game")
    def replay_game(request: Request, job: str):
        s, row, got = run_of(request, job)
        if got is None:
            return nothing(s)
        cell = (request.query_params.get("cell") or "")[:100]
        index = (request.query_params.get("index") or "").strip()[:100]
        status, error = 400, ""
        try:
            path = draw(root, row["id"], *checked(*got, cell, index), row.get("results") or "")
            return FileResponse(path, media_type="text/html; charset=utf-8",
                                headers={"Content-Security-Policy": csp})
        except BlockingIOError:
            status, error = 503, f"{MAX_AT_ONCE} replays are being drawn already; try again in a moment"
        except TimeoutError:
            status, error = 503, f"the replay took more than {TIMEOUT_S:g} s, this service's limit; not drawn"
        except ValueError as e:
            error = str(e)
        return page(f"Replay: {row['title']}", form(row, *got, cell=cell, index=index, error=error), *s,
                    status=status)
