"""The sweep driver: plays every part of a spec on Ray, a bounded number of tasks in flight.

Each Ray task plays one part (a batch of one cell) and writes it itself; the driver only sees
(cell, batch, rows, bytes) and keeps the manifest. Worker or node deaths are retried by Ray
(``max_retries``); a part is identified by its name and counted once. Ctrl-C keeps the parts that finish
within ``DRAIN_S``, stops the rest with the driver's Ray job, saves the manifest and leaves only finished
parts visible; ``resume=True`` plays the parts still missing.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from cluster.manifest import DONE, PENDING, counts, load_manifest, new_manifest, now, save_manifest
from cluster.part import part_path, play_part, read_part_meta, stale_temporaries
from cluster.spec import SweepSpec
from cluster.version import code_version, core_digest

TASK_RETRIES = 5               # retries of a part whose worker or node died
SAVE_EVERY_S = 1.0             # the manifest is rewritten at most this often while parts finish
DRAIN_S = 2.0                  # after Ctrl-C, parts in flight that finish within this long are kept
OBJECT_STORE_BYTES = 256 * 2**20   # tasks return four numbers: the object store holds only the Matches
LOCK = ".sweep.lock"           # held (flock) by the driver running a sweep in DIR


class SweepError(RuntimeError):
    """A sweep was refused (other spec in DIR, ...) or failed (a task raised); the message says why."""


class SweepInterrupted(KeyboardInterrupt):
    """Ctrl-C: the parts in flight were drained or dropped and the manifest saved; ``summary`` holds what was done."""

    def __init__(self, summary: "SweepSummary"):
        super().__init__("sweep interrupted")
        self.summary = summary


@dataclass
class SweepSummary:
    """What one run of a sweep did (``games``/``parts`` in this run) and where the sweep stands."""

    games: int                 # games played in this run
    wall_s: float              # whole run, Ray start included
    games_per_s: float         # games / wall_s
    parts: int                 # parts written in this run
    bytes: int                 # size of all finished parts of the sweep
    out_dir: str = ""
    games_done: int = 0        # games done in the whole sweep (earlier runs included)
    games_total: int = 0
    parts_done: int = 0
    parts_total: int = 0
    parts_skipped: int = 0     # already finished when this run started (resume)
    ray_start_s: float = 0.0   # starting or joining Ray
    play_s: float = 0.0        # first task submitted -> last part finished (Ray start and shutdown aside)
    workers: int = 0           # tasks allowed to run at once


def prepare_dir(spec: SweepSpec, out_dir: Path, resume: bool, code: str, core: str) -> dict[str, Any]:
    """Check ``out_dir`` against the spec and return the manifest to work from (new or resumed)."""
    manifest = load_manifest(out_dir)
    if manifest is None:
        if out_dir.exists() and any(p.name != LOCK for p in out_dir.iterdir()):
            raise SweepError(f"{out_dir}: not empty and holds no sweep manifest; choose a new or empty --out")
        return new_manifest(spec, code, core)
    if manifest["spec_digest"] != spec.digest:
        raise SweepError(f"{out_dir} holds a different sweep ({manifest['name']!r} from {manifest['spec_file']}, "
                         f"spec digest {manifest['spec_digest']}); {spec.source} has digest {spec.digest}. "
                         "Choose another --out")
    if not resume:
        c = counts(manifest)
        raise SweepError(f"{out_dir} already holds this sweep ({manifest['state']}, {c['parts_done']} of "
                         f"{c['parts']} parts done); pass --resume to finish it, or choose another --out")
    if spec.engine == "core" and manifest["core_digest"] != core:
        raise SweepError(f"{out_dir}: the engine core changed since this sweep started (core digest "
                         f"{manifest['core_digest']}, now {core}); finish it with the same build or "
                         "start a new --out")
    for tmp in stale_temporaries(out_dir):   # left by a killed task; never visible to readers
        tmp.unlink(missing_ok=True)
    for cell in manifest["cells"]:
        for part in cell["parts"]:
            paths = [part_path(out_dir, t, cell["id"], part["batch"]) for t in manifest["tables"]]
            if part["state"] == DONE and all(p.exists() for p in paths):
                continue
            part.update(state=PENDING, rows=0, bytes=0)
            metas = [read_part_meta(p) if p.exists() else None for p in paths]
            if metas and all(m is not None and m.get("playtest.spec_digest") == spec.digest for m in metas) \
                    and int(metas[0]["playtest.rows"]) == part["games"]:
                # finished after the last manifest save of a killed driver: the same rows, keep them
                part.update(state=DONE, rows=part["games"], bytes=sum(p.stat().st_size for p in paths))
    return manifest


def loopback_only(address: str | None) -> bool:
    """Embedded Ray, or a cluster on this machine's loopback: Ray must bind and talk on 127.0.0.0/8 only."""
    host = (address or "").rsplit(":", 1)[0].strip("[]")
    return not address or host in ("localhost", "::1") or host.startswith("127.")


def _check_reachable(address: str) -> None:
    """Fail fast when nothing listens at HOST:PORT (Ray itself keeps retrying for minutes)."""
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        return                         # "auto" and other forms: left to Ray
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=5).close()
    except OSError as e:
        raise ConnectionError(f"nothing answers at {address} ({e.strerror or e}); is the head node started "
                              "(ray start --head) and the port open?") from None


def _start_ray(workers: int | None, address: str | None) -> tuple[bool, int]:
    """Start embedded Ray or join one; returns (we started it, tasks to keep running at once)."""
    # both read by Ray when it is first imported: set before that
    if loopback_only(address):
        os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    if address:   # clusters from `ray start` use token auth (a token-mode driver joins one without it as well)
        os.environ.setdefault("RAY_AUTH_MODE", "token")
    import ray
    if ray.is_initialized():    # a caller's runtime (tests, notebooks): use it, leave it running
        cpus = int(ray.cluster_resources().get("CPU", 1))
        return False, workers or cpus
    if address:
        _check_reachable(address)
        try:
            ray.init(address=address, logging_level="WARNING", log_to_driver=True)
        except ConnectionError as e:
            raise ConnectionError(f"{e} (a cluster with token authentication needs its token here too: "
                                  "~/.ray/auth_token or RAY_AUTH_TOKEN)") from None
        cpus = int(ray.cluster_resources().get("CPU", 1))
        return True, workers or cpus
    workers = workers or os.cpu_count() or 1
    # "local": a new Ray of our own, never a cluster that `ray start` left running on this machine
    ray.init(address="local", _node_ip_address="127.0.0.1", num_cpus=workers, include_dashboard=False,
             logging_level="ERROR", log_to_driver=True, object_store_memory=OBJECT_STORE_BYTES)
    return True, workers


def _error_text(e: BaseException) -> str:
    cause = getattr(e, "cause", None)
    if isinstance(cause, BaseException):
        return f"{type(cause).__name__}: {cause}"
    return f"{type(e).__name__}: {e}".splitlines()[0]


def run_sweep(spec: SweepSpec, out_dir: str | Path, *, workers: int | None = None, address: str | None = None,
              resume: bool = False, progress: bool = True,
              on_part: Callable[[str, int], None] | None = None) -> SweepSummary:
    """Play every part of ``spec`` into ``out_dir`` (see ``docs/sweeps.md``); ``on_part(cell, batch)`` per part."""
    t0 = time.perf_counter()
    out_dir = Path(out_dir)
    if workers is not None and workers < 1:
        raise SweepError(f"--workers = {workers}: expected at least 1")
    created = not out_dir.exists()
    with _driver_lock(out_dir, created):
        return _run_locked(spec, out_dir, workers, address, resume, progress, on_part, t0)


@contextlib.contextmanager
def _driver_lock(out_dir: Path, created: bool):
    """One driver per results directory (a killed driver's lock goes with it); a refused start leaves no trace."""
    out_dir.mkdir(parents=True, exist_ok=True)
    lock = out_dir / LOCK
    with open(lock, "a") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise SweepError(f"{out_dir}: another driver is running a sweep here; let it finish or stop it "
                             "(its Ctrl-C saves the manifest), then --resume") from None
        try:
            yield
        finally:
            if created and not (out_dir / "manifest.json").exists():
                lock.unlink(missing_ok=True)
                with contextlib.suppress(OSError):
                    out_dir.rmdir()


def _run_locked(spec, out_dir, workers, address, resume, progress, on_part, t0) -> SweepSummary:
    code, core = code_version(), core_digest()       # once per run: the tree may change while it runs
    manifest = prepare_dir(spec, out_dir, resume, code, core)
    try:       # before anything is written: a cluster that cannot be joined leaves DIR as it was
        started_ray, running = _start_ray(workers, address)
    except (ConnectionError, RuntimeError, ValueError) as e:
        raise SweepError(f"could not {'join Ray at ' + address if address else 'start Ray'}: {e}") from e
    import ray
    t_ray = time.perf_counter()
    out_dir.mkdir(parents=True, exist_ok=True)
    before = counts(manifest)
    run = {"started": now(), "code_version": code, "address": address, "games": 0}
    manifest["runs"].append(run)
    manifest.update(state="running", error=None, code_version=code)
    save_manifest(out_dir, manifest)
    in_flight_max = 2 * running if (started_ray and not address) or not workers else running
    meta = {"playtest.spec_digest": spec.digest, "playtest.code_version": code,
            "playtest.core_digest": core if spec.engine == "core" else "", "playtest.sweep": spec.name}
    task = ray.remote(num_cpus=1, max_retries=TASK_RETRIES)(play_part)
    by_id = {c["id"]: c for c in manifest["cells"]}
    todo = ((cell, part) for cell in spec.cells for part in by_id[cell.id]["parts"] if part["state"] != DONE)
    in_flight: dict[Any, tuple[str, int]] = {}
    games = parts = 0
    last_save, save_gap = time.perf_counter(), SAVE_EVERY_S
    bar = _progress(before["games"], before["games_done"]) if progress else None

    def finish(ref) -> None:
        nonlocal games, parts
        cell_id, batch = in_flight.pop(ref)
        _, _, rows, size = ray.get(ref)
        part = by_id[cell_id]["parts"][batch]
        if part["state"] == DONE:     # a part is its name: never counted twice
            return
        if rows != part["games"]:
            raise SweepError(f"part {cell_id}/{batch}: {rows} rows written, {part['games']} expected")
        part.update(state=DONE, rows=rows, bytes=size)
        games += rows
        parts += 1
        run["games"] = games
        if bar:
            bar.advance(rows)
        if on_part:
            on_part(cell_id, batch)

    try:
        match_refs = {c.id: ray.put(c.match) for c in spec.cells}
        t_play = time.perf_counter()
        if bar:
            bar.start()
        while True:
            while len(in_flight) < in_flight_max and (item := next(todo, None)) is not None:
                cell, part = item
                ref = task.remote(match_refs[cell.id], spec.engine, spec.seed, part["first_game"], part["games"],
                                  str(out_dir), cell.id, part["batch"], meta)
                in_flight[ref] = (cell.id, part["batch"])
            if not in_flight:
                break
            ready, _ = ray.wait(list(in_flight), num_returns=1, timeout=0.5)
            for ref in ready:
                finish(ref)
            if bar:
                bar.refresh()
            if time.perf_counter() - last_save >= save_gap:
                t_save = time.perf_counter()
                save_manifest(out_dir, manifest)
                last_save = time.perf_counter()
                save_gap = max(SAVE_EVERY_S, 20 * (last_save - t_save))   # saving stays under 5% of the driver
        manifest["state"] = "done"
        t_done = time.perf_counter()
        for tmp in stale_temporaries(out_dir):   # a worker that died mid-write (its part was played again)
            tmp.unlink(missing_ok=True)
    except KeyboardInterrupt:
        manifest["state"] = "interrupted"
        _drain(in_flight, finish)
        raise SweepInterrupted(_summary(manifest, out_dir, t0, t_ray, time.perf_counter() - t_ray, games, parts,
                                        before, running)) from None
    except Exception as e:   # the tasks still in flight end with the driver's Ray job (see _drain)
        manifest.update(state="failed", error=_error_text(e))
        raise SweepError(f"sweep failed: {manifest['error']}") from e
    finally:
        if bar:
            bar.stop()
        run.update(ended=now(), games=games)
        save_manifest(out_dir, manifest)
        if started_ray:
            ray.shutdown()
        if started_ray and manifest["state"] != "done":   # a task stopped mid-write (its part stays pending)
            for tmp in stale_temporaries(out_dir):
                tmp.unlink(missing_ok=True)
    return _summary(manifest, out_dir, t0, t_ray, t_done - t_play, games, parts, before, running)


def _drain(in_flight: dict, finish: Callable) -> None:
    """After Ctrl-C: keep the tasks in flight that finish within ``DRAIN_S``; the rest end with the driver.

    No ``ray.cancel``: in Ray 2.x a cancel racing a task's completion can abort the driver itself
    ("Check failed: ... Tried to complete task that was not pending", ray-project/ray#54846). Ending the
    driver's job stops its tasks anyway: the embedded Ray is shut down, a cluster drops a departed job's
    tasks. A part killed mid-write leaves only a hidden temporary file, removed afterwards. In a caller's
    own runtime (``ray.init`` before ``run_sweep``) the remaining tasks run on and write whole parts that
    the manifest does not list yet; ``resume`` keeps them."""
    import ray
    refs = list(in_flight)
    if not refs:
        return
    try:
        ready, _ = ray.wait(refs, num_returns=len(refs), timeout=DRAIN_S)
    except (Exception, KeyboardInterrupt):  # a second Ctrl-C, or Ray is going down: keep nothing more
        return
    for ref in ready:
        try:
            finish(ref)
        except Exception:  # failed: the part stays pending
            pass


def _summary(manifest, out_dir, t0, t_ray, play_s, games, parts, before, running) -> SweepSummary:
    c = counts(manifest)
    wall = time.perf_counter() - t0
    return SweepSummary(games=games, wall_s=wall, games_per_s=games / wall if wall > 0 else 0.0, parts=parts,
                        bytes=c["bytes"], out_dir=str(out_dir), games_done=c["games_done"], games_total=c["games"],
                        parts_done=c["parts_done"], parts_total=c["parts"], parts_skipped=before["parts_done"],
                        ray_start_s=t_ray - t0, play_s=play_s, workers=running)


class _progress:
    """A live bar on stderr: games done, games/s in this run, ETA."""

    def __init__(self, total: int, done: int):
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
        self.bar = Progress(TextColumn("[bold]games"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("{task.fields[rate]}"), TextColumn("ETA"), TimeRemainingColumn(),
                            console=Console(stderr=True))
        self.task = self.bar.add_task("games", total=total, completed=done, rate="")
        self.games = 0
        self.t0 = time.perf_counter()

    def start(self) -> None:
        self.t0 = time.perf_counter()
        self.bar.start()

    def advance(self, n: int) -> None:
        self.games += n
        self.bar.update(self.task, advance=n)

    def refresh(self) -> None:
        rate = self.games / max(time.perf_counter() - self.t0, 1e-9)
        self.bar.update(self.task, rate=f"{rate:,.0f} games/s")

    def stop(self) -> None:
        self.bar.stop()
