"""The sweep driver: plays every part of a spec on Ray, a bounded number of tasks in flight.

Each Ray task plays one part (a batch of one cell) and writes it itself; the driver only sees
(cell, batch, rows, bytes) and keeps the manifest. Worker or node deaths are retried by Ray
(``max_retries``); a part is identified by its name and counted once. Ctrl-C keeps the parts that finish
within ``DRAIN_S``, stops the rest with the driver's Ray job, saves the manifest and leaves only finished
parts visible; ``resume=True`` checks every file against the spec (``cluster.verify``: the manifest is only a
cache), moves what does not belong into ``DIR/.quarantine/`` and plays every part missing or bad.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import os
import signal
import socket
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from cluster.local import LocalPlayers
from cluster.manifest import (BEYOND, DONE, NAME, ManifestError, counts, load_manifest, manifest_path,
                              new_manifest, now)
from cluster.manifest import save_manifest as _save_manifest
from cluster.part import DERIVED_KEY, play_part, stale_temporaries
from cluster.reaper import RayGuard
from cluster.spec import SweepSpec
from cluster.stopping import StopPlan, StopProgress, Stopper, make_stopper
from cluster.verify import (QUARANTINE, Report, VerifyError, _holds_manifest, outdated_error, own_files, quarantine,
                            reconcile, scan, settle_stop)
from cluster.version import code_version, core_digest
from infra import derived, folder
from infra.progress import GamesBar
from infra.storage import StorageError, is_uri, open_location

TASK_RETRIES = 5               # retries of a part whose worker or node died
SAVE_EVERY_S = 1.0             # the manifest is rewritten at most this often while parts finish
DRAIN_S = 2.0                  # after Ctrl-C, parts in flight that finish within this long are kept
OBJECT_STORE_BYTES = 256 * 2**20   # tasks return four numbers: the object store holds only the Matches
LOCK = ".sweep.lock"           # held (flock) by the driver running a sweep in DIR


MAX_CLUSTER_WORKERS = 2**16    # --workers with --address: tasks in flight at once (the cluster runs what it has)


def max_workers(address: str | None = None) -> int:
    """The most ``--workers`` a sweep accepts: on this machine 4 per core (at least 64); with ``--address``,
    MAX_CLUSTER_WORKERS (the cluster's own CPUs decide how many run)."""
    return MAX_CLUSTER_WORKERS if address else max(4 * (os.cpu_count() or 1), 64)


def workers_error(workers: int | None, address: str | None = None) -> str | None:
    """The one line refusing a ``--workers`` out of range (None: fine)."""
    if workers is None or 1 <= workers <= max_workers(address):
        return None
    where = ("with --address" if address else
             f"on this machine: 4 per core of its {os.cpu_count() or 1}, at least 64")
    return f"--workers {workers} is out of range; expected an integer from 1 to {max_workers(address):,} ({where})"


class SweepError(RuntimeError):
    """A sweep was refused (other spec in DIR, ...) or failed (a task raised); the message says why."""


class SweepFailed(SweepError):
    """A sweep that began and then failed (a part raised, its player was lost, neither Ray nor the driver's players
    could play it): not a refusal of its input. The finished parts are kept; ``--resume`` plays the rest."""


class SweepInterrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM: the parts in flight were drained or dropped and the manifest saved; ``summary`` holds
    what was done, ``signum`` the signal (the command exits 128 + it: 130 for Ctrl-C, 143 for SIGTERM)."""

    def __init__(self, summary: "SweepSummary", signum: int = signal.SIGINT):
        super().__init__("sweep interrupted")
        self.summary = summary
        self.signum = int(signum)

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


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
    verify: Report | None = None   # what --resume found on disk and did about it
    games_discarded: int = 0   # [stop]: games played in this run beyond a cell's stop (their parts deleted)
    stop: dict | None = None   # [stop]: per cell, the stopper's state (estimate, interval, games, reason)
    driver_parts: int = 0      # parts the driver played itself (cluster.local), before or instead of Ray


def _is_sweep_manifest(path: Path) -> bool:
    """``path`` is a playtest sweep manifest (a readable JSON object with a format and a spec digest)."""
    if not path.is_file():
        return False
    try:                               # the one bounded reader: a regular file in its folder, size and nesting capped
        m = folder.parse_json(folder.read_file(path, path.parent, "sweep manifest", folder.MAX_MANIFEST_BYTES),
                              str(path), "sweep manifest")
    except folder.FolderError:
        return True                    # unreadable: still a sweep's, most likely; refuse rather than nest
    return isinstance(m, dict) and "format" in m and "spec_digest" in m


def check_out_dir(out_dir: Path) -> None:
    """Refuse an ``--out`` that is not a folder, or that would nest sweeps (before any work)."""
    if out_dir.exists() and not out_dir.is_dir():
        raise SweepError(f"{out_dir}: not a folder; --out names the results folder")
    check_not_nested(out_dir)


def check_not_nested(out_dir: Path) -> None:
    """Refuse an ``--out`` inside another sweep's results folder, or a folder with a sweep below it."""
    resolved = out_dir.resolve()
    for parent in resolved.parents:
        if _is_sweep_manifest(parent / NAME):
            raise SweepError(f"{out_dir} is inside the results folder of another sweep ({parent / NAME}); "
                             "choose an --out outside it")
    if resolved.is_dir():
        with contextlib.suppress(OSError):
            for entry in resolved.iterdir():
                if entry.name != QUARANTINE and entry.is_dir() and not entry.is_symlink():
                    if inner := _holds_manifest(entry):
                        raise SweepError(f"{out_dir} holds another sweep's results below it ({inner}); sweeps are "
                                         "never nested: move that sweep out or choose another --out")


def prepare_dir(spec: SweepSpec, out_dir: Path, resume: bool, code: str, core: str,
                log: Callable[[str], None] | None = None, stopping: bool = False) -> tuple[dict[str, Any], Report | None]:
    """Check ``out_dir`` against the spec and return the manifest to work from (new or resumed) and, on resume,
    the verification report (every file checked, strays and bad files quarantined, the manifest rebuilt).

    ``stopping``: the sweep stops its cells early (``[stop]``, a tune's race): only the part files there are
    read (a cell holds the parts up to its stop, not up to the cap)."""
    stopping = stopping or spec.stop is not None
    check_not_nested(out_dir)
    broken: ManifestError | None = None
    try:
        manifest = load_manifest(out_dir)
    except ManifestError as e:
        manifest, broken = None, e
    if manifest is not None:
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
    else:
        own, own_dirs = own_files(spec, out_dir)    # a spec written into its results folder (ladder, tune), its
        own |= own_dirs                             # report and card files beside it (kept by verification)
        if not out_dir.exists() or not any(p.name != LOCK and p.resolve() not in own for p in out_dir.iterdir()):
            return new_manifest(spec, code, core), None
        if not resume:
            if broken is not None:
                raise SweepError(f"{broken.detail}; pass --resume to rebuild it from the spec and the parts on disk")
            raise SweepError(f"{out_dir}: not empty and holds no sweep manifest; choose a new or empty --out "
                             "(or pass --resume to rebuild the manifest of this spec's sweep from its parts)")
    if log:
        log(f"verifying the part files in {out_dir} against the spec ..." if stopping else
            f"verifying {spec.total_parts * len(spec.tables):,} part files in {out_dir} against the spec ...")
    try:
        report = scan(out_dir, spec, core, present_only=stopping)
    except VerifyError as e:
        raise SweepError(str(e)) from None
    if manifest is None:
        if report.other_digests:
            digest, rel = next(iter(report.other_digests.items()))
            raise SweepError(f"{out_dir} holds parts of another sweep (spec digest {digest}, e.g. {rel}) and no "
                             f"readable manifest; {spec.source} has digest {spec.digest}. Choose another --out")
        if not report.own_files:
            raise SweepError(f"{out_dir}: not empty and holds neither a sweep manifest nor parts of this spec's "
                             "sweep; choose a new or empty --out")
        report.manifest_rebuilt = f"unreadable ({broken.detail})" if broken is not None else "missing"
    if (old_layout := outdated_error(str(out_dir), report)) is not None:
        raise SweepError(old_layout)
    extra = [NAME] if broken is not None and manifest_path(out_dir).exists() else []
    fixed = reconcile(manifest, spec, report, code, core)
    try:
        if spec.stop is not None:
            settle_stop(out_dir, spec, fixed, report)
        quarantine(out_dir, report, extra)
    except VerifyError as e:
        raise SweepError(str(e)) from None
    return fixed, report


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


@contextlib.contextmanager
def ray_session(workers: int | None, address: str | None):
    """Ray for a command's own tasks (restrict, kingmaker, tension, card-worth): ``_start_ray``, then the
    ``ray`` module; an embedded Ray (and its guard) is ended after, a caller's runtime left running."""
    started, _, guard = _start_ray(workers, address)
    import ray
    try:
        yield ray
    finally:
        if started:
            ray.shutdown()
        if guard is not None:
            guard.close()


def _start_ray(workers: int | None, address: str | None) -> tuple[bool, int, RayGuard | None]:
    """Start embedded Ray or join one; returns (we started it, tasks to keep running at once, the guard that
    ends the embedded Ray's processes with the driver)."""
    # both read by Ray when it is first imported: set before that
    if loopback_only(address):
        os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    if address:   # clusters from `ray start` use token auth (a token-mode driver joins one without it as well)
        os.environ.setdefault("RAY_AUTH_MODE", "token")
    import ray
    if ray.is_initialized():    # a caller's runtime (tests, notebooks): use it, leave it running
        cpus = int(ray.cluster_resources().get("CPU", 1))
        return False, workers or cpus, None
    if address:
        _check_reachable(address)
        try:
            with _keep_handlers():
                ray.init(address=address, logging_level="WARNING", log_to_driver=True)
        except ConnectionError as e:
            raise ConnectionError(f"{e} (a cluster with token authentication needs its token here too: "
                                  "~/.ray/auth_token or RAY_AUTH_TOKEN)") from None
        cpus = int(ray.cluster_resources().get("CPU", 1))
        return True, workers or cpus, None
    workers = workers or os.cpu_count() or 1
    guard = RayGuard.start()     # before Ray starts anything: whatever it starts ends with this process
    try:
        # "local": a new Ray of our own, never a cluster that `ray start` left running on this machine
        with _keep_handlers(), guard.marked():
            ray.init(address="local", _node_ip_address="127.0.0.1", num_cpus=workers, include_dashboard=False,
                     logging_level="ERROR", log_to_driver=True, object_store_memory=OBJECT_STORE_BYTES)
    except BaseException:        # Ctrl-C or a failure during the start: no agent or worker is left behind
        with contextlib.suppress(Exception, KeyboardInterrupt):
            ray.shutdown()
        guard.close()
        raise
    guard.ready()
    return True, workers, guard


def _ray_running() -> bool:
    """A Ray runtime is already up in this process (a caller's: tests, notebooks)."""
    ray = sys.modules.get("ray")
    return ray is not None and ray.is_initialized()


def _error_text(e: BaseException) -> str:
    cause = getattr(e, "cause", None)
    if isinstance(cause, BaseException):
        return f"{type(cause).__name__}: {cause}"
    return f"{type(e).__name__}: {e}".splitlines()[0]


class _Interrupts:
    """SIGINT and SIGTERM handler: the first Ctrl-C (or SIGTERM) raises KeyboardInterrupt; later ones are only
    counted, so the stop that follows (drain, manifest, Ray shutdown, the resume hint) is never cut short.
    ``signum``: the first signal (the command exits 128 + it)."""

    def __init__(self):
        self.count = 0
        self.signum = signal.SIGINT

    def __call__(self, signum, frame):
        self.count += 1
        if self.count == 1:
            self.signum = signum
            raise KeyboardInterrupt


SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextlib.contextmanager
def interrupts():
    """Install :class:`_Interrupts` for SIGINT and SIGTERM for the block (main thread only; an outer one already
    installed is reused). A signal whose handler is not the default (the caller's own, or ignored) is left as
    it is."""
    current = {sig: signal.getsignal(sig) for sig in SIGNALS}
    outer = next((h for h in current.values() if isinstance(h, _Interrupts)), None)
    if outer is not None:
        yield outer
        return
    if threading.current_thread() is not threading.main_thread():
        yield _Interrupts()        # another thread: left as it is
        return
    handler = _Interrupts()
    defaults = {signal.SIGINT: signal.default_int_handler, signal.SIGTERM: signal.SIG_DFL}
    mine = [sig for sig in SIGNALS if current[sig] is defaults[sig]]
    for sig in mine:
        signal.signal(sig, handler)
    try:
        yield handler
    finally:
        for sig in mine:
            signal.signal(sig, current[sig])


@contextlib.contextmanager
def _keep_handlers():
    """Around ``ray.init``: Ray would install SIGTERM handlers of its own (``sys.exit``, or killing its node's
    processes and exiting 1) in place of ours, and its core a native one that dumps a stack. Ours stay in place
    while Ray starts (its ``set_sigterm_handler`` does nothing meanwhile), so a SIGTERM then is a Ctrl-C of
    ours, and are installed again after it (over the native one)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    saved = {sig: signal.getsignal(sig) for sig in SIGNALS}
    utils = sys.modules.get("ray._private.utils")
    real = getattr(utils, "set_sigterm_handler", None)
    if real is not None and isinstance(saved[signal.SIGTERM], _Interrupts):
        utils.set_sigterm_handler = lambda handler: None
    try:
        yield
    except SystemExit as e:          # a handler of Ray's all the same: its exit is our Ctrl-C
        ours = saved[signal.SIGTERM]
        if e.code == signal.SIGTERM and isinstance(ours, _Interrupts) and ours.count == 0:
            ours.count, ours.signum = 1, signal.SIGTERM
            raise KeyboardInterrupt from None
        raise
    finally:
        if real is not None:
            utils.set_sigterm_handler = real
        for sig, h in saved.items():
            if h is not None:
                signal.signal(sig, h)


def run_sweep(spec: SweepSpec, out_dir: str | Path, *, workers: int | None = None, address: str | None = None,
              resume: bool = False, progress: bool = True, on_part: Callable[[str, int], None] | None = None,
              log: Callable[[str], None] | None = None, stopper: Stopper | None = None,
              driver_plays: bool = True) -> SweepSummary:
    """Play every part of ``spec`` into ``out_dir`` (see ``docs/sweeps.md``); ``on_part(cell, batch)`` per part;
    ``log(line)`` gets what verification found and did on resume (also in ``SweepSummary.verify``).

    ``stopper``: a stopping policy (``cluster.stopping.Stopper``) that ends each cell early; None: the spec's
    ``[stop]`` if it has one, else every part is played (fixed size).

    ``driver_plays``: an embedded sweep (no ``address``, no Ray runtime of the caller's) plays on the
    driver's threads first and starts Ray only when the rest would take longer than ``cluster.local.RAY_PAYS_S``;
    False starts Ray at once."""
    run = SweepRun(spec, out_dir, workers=workers, address=address, resume=resume, progress=progress,
                   on_part=on_part, log=log, stopper=stopper, driver_plays=driver_plays, t0=time.perf_counter())
    if (bad := workers_error(workers, address)) is not None:
        raise SweepError(bad)
    if is_uri(out_dir):          # results on object storage (cluster.remote)
        return _run_remote(dataclasses.replace(run, out_dir=str(out_dir)))
    out_dir = Path(out_dir)
    check_out_dir(out_dir)
    created = not out_dir.exists()
    with interrupts() as ints, _driver_lock(out_dir, created):
        return _Run(dataclasses.replace(run, out_dir=out_dir, ints=ints)).run()


def check_remote_out(out: str, spec: SweepSpec | None = None, stopper: Stopper | None = None):
    """The object-storage ``--out`` opened and checked before any work (SweepError in one line)."""
    from cluster.remote import ObjectLock
    try:
        ObjectLock.supported(open_location(out, probe=False))     # the scheme first: no wait on a refused one
        loc = open_location(out)
    except StorageError as e:
        raise SweepError(str(e)) from None
    if spec is not None and (spec.stop is not None or stopper is not None):
        raise SweepError(f"{loc.name()}: a sweep with a stopping rule ([stop], tune) writes to a local --out only")
    return loc


def _run_remote(run: SweepRun) -> SweepSummary:
    from cluster.remote import LockHeld, object_lock
    loc = check_remote_out(run.out_dir, run.spec, run.stopper)
    try:
        with interrupts() as ints, object_lock(loc) as lock:
            if lock.took_over and run.log:
                run.log(f"{loc.name()}: {lock.took_over}")
            # Ray's workers write the parts: the driver does not fork players of its own, as the S3
            # client's threads do not survive a fork
            return _Run(dataclasses.replace(run, ints=ints, stopper=None, remote=(loc, lock),
                                            driver_plays=False)).run()
    except (LockHeld, StorageError) as e:
        raise SweepError(str(e)) from None


@contextlib.contextmanager
def _driver_lock(out_dir: Path, created: bool):
    """One driver per results directory (a killed driver's lock goes with it); a refused start leaves no trace."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise SweepError(f"{out_dir}: cannot create the results folder ({e.strerror or e})") from None
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


@dataclass(frozen=True)
class SweepRun:
    """One run of a sweep as :func:`run_sweep` was asked for it, passed whole to :class:`_Run` (see run_sweep for
    the options' meaning)."""

    spec: SweepSpec
    out_dir: Path | str                      # the local results folder, or an object-storage URI (cluster.remote)
    workers: int | None = None
    address: str | None = None
    resume: bool = False
    progress: bool = True
    on_part: Callable[[str, int], None] | None = None
    log: Callable[[str], None] | None = None
    stopper: Stopper | None = None           # None: the spec's [stop] if it has one (the run's plan makes it)
    driver_plays: bool = True
    t0: float = 0.0                          # when run_sweep was called (time.perf_counter)
    ints: "_Interrupts | None" = None        # the run's Ctrl-C and SIGTERM handler, once in place
    remote: tuple | None = None              # object storage: (location, the driver's lock), else None


class _Run:
    """One run of a sweep, in named steps (:meth:`run` calls them in order):

    * :meth:`prepare`: check ``DIR`` (new, or verified on resume) and save the manifest to work from;
    * :meth:`make_plan`: the stopping plan of a ``[stop]`` sweep or a race (it replays the parts on disk);
    * :meth:`play_local`: play on the driver's forked players (``cluster.local``; a lost player is
      replaced there and its part played again), until Ray pays for itself;
    * :meth:`play_ray`: play on Ray, a bounded number of tasks in flight (Ray retries lost workers);
    * :meth:`record`: one finished part into the manifest (and the plan);
    * :meth:`interrupted` / :meth:`failed`: Ctrl-C or SIGTERM (drain, then ``SweepInterrupted``), or an error;
    * :meth:`settle`: the run's record and the manifest saved, whatever happened;
    * :meth:`cleanup`: the players and Ray ended, temporary files of cut-off parts removed."""

    def __init__(self, run: SweepRun):
        self.cfg = run
        self.stopper = run.stopper         # a [stop] sweep's is made by make_plan
        self.code, self.core = code_version(), core_digest()     # once per run: the tree may change while it runs
        self.manifest: dict[str, Any] = {}
        self.report: Report | None = None
        self.plan: StopPlan | None = None
        self.mu = threading.Lock()     # take() and record(): the driver's threads and its dispatch loop share them
        self.local: LocalPlayers | None = None
        self.in_flight: dict[Any, tuple[str, int]] = {}
        self.bar = None
        self.games = self.parts = self.driver_parts = 0
        self.ray_started, self.ray_up, self.guard = False, False, None
        self.ray_failed: str | None = None     # why an embedded Ray could not start (the driver's players play)
        self.running = run.workers or os.cpu_count() or 1
        self.ray_start_s = 0.0
        self.last_save, self.save_gap = time.perf_counter(), SAVE_EVERY_S
        # an embedded sweep plays on the driver's players first (cluster.local), Ray only when it pays
        self.local_first = run.driver_plays and not run.address and not _ray_running()

    @property
    def spec(self) -> SweepSpec:
        return self.cfg.spec

    @property
    def out_dir(self) -> Path | str:
        return self.cfg.out_dir

    def save_manifest(self) -> None:
        """Save the manifest (object storage: first check the driver's lock is still ours), signed unless the parts
        it resumed from include some that only a sample vouched for (``Report.vouched``; ``status --verify --full``
        plays them all again and signs)."""
        if self.cfg.remote is not None:
            self.cfg.remote[1].check()
        _save_manifest(self.out_dir, self.manifest, sign=self.report is None or self.report.vouched)

    # --- the steps ------------------------------------------------------------------------------------------

    def run(self) -> SweepSummary:
        self.prepare()
        if self.make_plan():
            return self.settle_idle()
        if not self.local_first:
            try:
                if not self.start_ray():     # an embedded Ray that could not start: the driver's players play
                    self.local_first = True
            except KeyboardInterrupt:
                summary = _summary(self.manifest, self.out_dir, self.cfg.t0, time.perf_counter(), 0.0, 0, 0,
                                   self.before, 0, self.report)
                raise SweepInterrupted(summary, self.cfg.ints.signum) from None
        self.t_ray = self.t_play = self.t_done = time.perf_counter()
        self.run_record = {"started": now(), "code_version": self.code, "address": self.cfg.address, "games": 0}
        try:
            self.begin()
            if self.local_first:
                self.play_local()
            if self.ray_up:
                self.play_ray()
            self.done()
        except KeyboardInterrupt:
            self.interrupted()
        except Exception as e:   # the tasks still in flight end with the driver's Ray job (see _drain)
            self.failed(e)
        finally:
            try:
                self.settle()
            finally:
                self.cleanup()
        summary = self.summary(self.t_done - self.t_play)
        summary.driver_parts = self.driver_parts
        return summary

    def prepare(self) -> None:
        """Check DIR against the spec (verify every part there on resume) and save the manifest to work from."""
        try:
            if self.cfg.remote is not None:
                from cluster.remote import prepare_remote
                self.manifest, self.report = prepare_remote(self.spec, self.cfg.remote[0], self.cfg.resume,
                                                            self.code, self.core, self.cfg.log, SweepError)
            else:
                self.manifest, self.report = prepare_dir(self.spec, self.out_dir, self.cfg.resume, self.code, self.core,
                                                         self.cfg.log, stopping=self.stopper is not None)
            if self.report is not None:
                if self.cfg.log:
                    for line in self.report.lines():
                        self.cfg.log(line)
                self.save_manifest()     # the verified state, before Ray starts
        except KeyboardInterrupt:        # Ctrl-C while verifying: each move was whole; nothing played
            waited = time.perf_counter() - self.cfg.t0
            raise SweepInterrupted(SweepSummary(0, waited, 0.0, 0, 0, out_dir=str(self.out_dir),
                                                games_total=self.spec.total_games,
                                                parts_total=self.spec.total_parts), self.cfg.ints.signum) from None
        self.before = counts(self.manifest)

    def make_plan(self) -> bool:
        """The stopping plan (a ``[stop]`` sweep or a race): it replays the parts done, in batch order, and cuts
        the cells that stopped. True when nothing is left to play."""
        if self.stopper is None and self.spec.stop is not None:
            self.stopper = make_stopper(self.spec)
        if self.stopper is not None:
            try:
                self.plan = StopPlan(self.spec, self.manifest, self.stopper, self.out_dir)
            except ValueError as e:
                raise SweepError(f"{self.out_dir}: {e}") from None
        b = self.before
        return (b["parts_done"] == b["parts"] and self.manifest["state"] == "done") \
            or (self.plan is not None and self.plan.all_stopped())

    def settle_idle(self) -> SweepSummary:
        """Nothing to play (every part done, or every cell stopped): the manifest says so; no Ray."""
        if self.plan is not None:
            self.plan.record(self.manifest)
            self.manifest.update(state="done", error=None)
        self.save_manifest()
        return _summary(self.manifest, self.out_dir, self.cfg.t0, self.cfg.t0, 0.0, 0, 0, self.before, 0, self.report,
                        self.plan)

    def can_fall_back(self) -> bool:
        """Whether the driver's forked players (cluster.local) may play instead of Ray: an embedded Ray (no
        ``--address``: a cluster the user named is not replaced behind their back) and a local results folder
        (the S3 client's threads do not survive a fork)."""
        return not self.cfg.address and self.cfg.remote is None

    def start_ray(self) -> bool:
        """Start or join Ray (before anything is written when it comes first: a cluster that cannot be joined
        leaves DIR as it was). True when Ray is up. An embedded Ray that cannot start (a busy machine: "node timed
        out during startup") is not the sweep's end: one line is logged and False returned, and the driver's
        forked players play instead (:meth:`can_fall_back`); joining a cluster that fails stays a SweepError."""
        t = time.perf_counter()
        try:
            self.ray_started, self.running, self.guard = _start_ray(self.cfg.workers, self.cfg.address)
        except (ConnectionError, RuntimeError, ValueError) as e:
            if not self.can_fall_back():
                raise SweepError(f"could not {'join Ray at ' + self.cfg.address if self.cfg.address else 'start Ray'}: "
                                 f"{e}") from e
            self.fall_back(e, time.perf_counter() - t)
            return False
        except Exception as e:        # noqa: BLE001 - Ray's own start-up errors are plain Exceptions
            if not self.can_fall_back():
                joining = f"join Ray at {self.cfg.address}" if self.cfg.address else "start Ray"
                raise SweepFailed(f"could not {joining}: {_error_text(e)}") from e
            self.fall_back(e, time.perf_counter() - t)
            return False
        self.ray_start_s, self.ray_up = time.perf_counter() - t, True
        return True

    def fall_back(self, e: BaseException, seconds: float) -> None:
        """Ray could not start: say so in one line; the driver's forked players play the rest."""
        self.ray_started, self.guard, self.ray_start_s = False, None, seconds
        self.running = self.cfg.workers or os.cpu_count() or 1
        self.ray_failed = " ".join(str(e).split())[:300] or type(e).__name__
        if self.cfg.log:
            self.cfg.log(f"note: Ray could not start ({self.ray_failed}); the sweep plays on {self.running} forked "
                     "local player(s) instead")

    def begin(self) -> None:
        """The run's record in the manifest, the part queue and the progress line."""
        spec, manifest = self.spec, self.manifest
        self.meta = {"playtest.spec_digest": spec.digest, "playtest.code_version": self.code,
                     "playtest.core_digest": self.core if spec.engine == "core" else "", "playtest.sweep": spec.name,
                     # derived columns only in a sweep that started with them: every part of a sweep has one schema
                     **({DERIVED_KEY: derived.VERSION} if manifest.get("derived") == derived.VERSION else {})}
        self.by_id = {c["id"]: c for c in manifest["cells"]}
        self.cells_by_id = {c.id: c for c in spec.cells}
        self.todo = ((cell, part) for cell in spec.cells for part in self.by_id[cell.id]["parts"]
                     if part["state"] != DONE)
        self.games_todo = sum(p["games"] for c in manifest["cells"] for p in c["parts"]
                              if p["state"] not in (DONE, BEYOND))
        self.metrics = tuple(self.stopper.metrics) if self.stopper is not None else ()
        manifest["runs"].append(self.run_record)
        manifest.update(state="running", error=None, code_version=self.code)
        self.save_manifest()
        if self.cfg.progress:
            self.bar = StopProgress(self.plan) if self.plan is not None else \
                GamesBar(self.before["games"], self.before["games_done"])
        self.t_play = time.perf_counter()
        if self.bar:
            self.bar.start()

    def take(self) -> tuple[str, int] | None:
        """The next part to start as (cell id, batch): in cell order (fixed size), or round-robin by batch as the
        stopper allows (under ``mu``)."""
        if self.plan is None:
            item = next(self.todo, None)
            return None if item is None else (item[0].id, item[1]["batch"])
        return self.plan.next_part()

    def part_args(self, key: tuple[str, int], match) -> tuple:
        """``play_part``'s arguments for part ``key`` (``match``: the cell's Match, or Ray's reference to it)."""
        part = self.by_id[key[0]]["parts"][key[1]]
        return (match, self.spec.engine, self.spec.seed, part["first_game"], part["games"], str(self.out_dir),
                key[0], key[1], self.meta, self.metrics)

    def record(self, key: tuple[str, int], result) -> None:
        """Record one finished part (under ``mu``); a part is its name: never counted twice."""
        cell_id, batch = key
        _, _, rows, size, files, summary = result
        part = self.by_id[cell_id]["parts"][batch]
        if part["state"] == DONE:
            return
        if rows != part["games"]:
            raise SweepError(f"part {cell_id}/{batch}: {rows} rows written, {part['games']} expected")
        self.games += rows
        self.run_record["games"] = self.games
        plan = self.plan
        if plan is not None and not plan.keeps(cell_id, batch):    # played ahead of a stop: not part of the result
            plan.discard(cell_id, batch, rows)
        else:
            part.update(state=DONE, rows=rows, bytes=size, files=files)
            if plan is not None:
                part["summary"] = summary
                plan.finished(cell_id, batch, summary)
            self.parts += 1
            if self.cfg.on_part:
                self.cfg.on_part(cell_id, batch)
        if self.bar:
            self.bar.advance(rows)

    def save_now(self) -> None:
        """Save the manifest while parts finish, at most every ``save_gap`` (saving stays under 5% of the driver)."""
        if time.perf_counter() - self.last_save >= self.save_gap:
            t_save = time.perf_counter()
            with self.mu:
                if self.plan is not None:
                    self.plan.record(self.manifest)
                self.save_manifest()
            self.last_save = time.perf_counter()
            self.save_gap = max(SAVE_EVERY_S, 20 * (self.last_save - t_save))

    def collect(self, timeout: float) -> None:
        """Record the parts the driver's players finished (a part that failed fails the sweep)."""
        for key, result, err in self.local.results(timeout):
            if err is not None:
                raise err
            with self.mu:
                self.record(key, result)
                self.local.recorded(result[2])
                self.driver_parts += 1

    def play_local(self) -> None:
        """Play on the driver's forked players (``cluster.local``) until every part is played, or until Ray
        pays for the rest (then Ray starts while the players finish the part each holds)."""
        self.local = LocalPlayers(self.running, self.take,
                                  lambda key: (play_part, self.part_args(key, self.cells_by_id[key[0]].match)),
                                  self.mu, retries=TASK_RETRIES).start()
        local = self.local
        while local.alive() or not local.idle():
            self.collect(0.25)
            if self.bar:
                self.bar.refresh()
            self.save_now()
            if self.ray_failed is None and local.alive() and \
                    local.ray_pays(self.games_todo - local.games, self.spec.engine):
                if self.start_ray():      # the players play on while Ray starts
                    local.stop()
                    break                 # else (Ray could not start) the players play every part

    def play_ray(self) -> None:
        """Play on Ray, a bounded number of tasks in flight (a lost worker or node: Ray plays the part again)."""
        import ray
        ray_started, address, workers = self.ray_started, self.cfg.address, self.cfg.workers
        in_flight_max = (2 * self.running if (ray_started and not address) or not workers else self.running)
        task = ray.remote(num_cpus=1, max_retries=TASK_RETRIES)(play_part)
        match_refs = {c.id: ray.put(c.match) for c in self.spec.cells}
        in_flight, local = self.in_flight, self.local
        while True:
            if local is not None:     # first: a part the players finished may allow the next ones (a stop plan)
                self.collect(0.0)
            with self.mu:
                while len(in_flight) < in_flight_max and (key := self.take()) is not None:
                    in_flight[task.remote(*self.part_args(key, match_refs[key[0]]))] = key
            if not in_flight and (local is None or local.idle()):     # nothing started, nothing left to record
                break
            ready = ray.wait(list(in_flight), num_returns=1, timeout=0.5)[0] if in_flight else []
            for ref in ready:
                key = in_flight.pop(ref)
                result = ray.get(ref)
                with self.mu:
                    self.record(key, result)
            if local is not None and not in_flight:
                self.collect(0.25)
            if self.bar:
                self.bar.refresh()
            self.save_now()

    def done(self) -> None:
        """Every part played (or every cell stopped): the sweep is done."""
        plan = self.plan
        if plan is not None and not plan.all_stopped():
            raise SweepError(f"the stopping policy holds back every part while cells "
                             f"{', '.join(plan.alive()[:5])} are still playing")
        self.manifest["state"] = "done"
        self.t_done = time.perf_counter()
        for tmp in stale_temporaries(self.out_dir):   # a player that died mid-write (its part was played again)
            tmp.unlink(missing_ok=True)

    def interrupted(self) -> None:
        """Ctrl-C or SIGTERM: keep the parts in flight that finish within ``DRAIN_S``; raise SweepInterrupted."""
        self.manifest["state"] = "interrupted"
        deadline = time.perf_counter() + DRAIN_S
        if self.local is not None:
            self.local.drain(self.record, deadline, lambda: self.cfg.ints.count > 1)
        in_flight = self.in_flight
        if in_flight:
            _drain(in_flight, lambda ref: self.record(in_flight.pop(ref), sys.modules["ray"].get(ref)), self.cfg.ints,
                   self.mu)
        raise SweepInterrupted(self.summary(time.perf_counter() - self.t_ray), self.cfg.ints.signum) from None

    def failed(self, e: Exception) -> None:
        """A part or the driver failed: the manifest says why; SweepError in one line."""
        if self.local is not None:
            self.local.stop()
        self.manifest.update(state="failed", error=_error_text(e))
        raise SweepFailed(f"sweep failed: {self.manifest['error']}") from e

    def settle(self) -> None:
        """The run's record, the stopping state and the manifest saved (a ManifestError, e.g. a full disk, still
        lets :meth:`cleanup` end the players and Ray)."""
        if self.bar:
            self.bar.stop()
        self.run_record.update(ended=now(), games=self.games)
        with self.mu:
            if self.plan is not None:
                self.plan.record(self.manifest)
                self.run_record["games_discarded"] = self.plan.discarded
            self.save_manifest()

    def cleanup(self) -> None:
        """End the driver's players (idle now, or cut off after Ctrl-C or a failure) and Ray, and remove the
        temporary files of parts cut off mid-write (those parts stay pending)."""
        try:
            if self.local is not None:
                self.local.close()
        finally:
            try:
                if self.ray_started:
                    with contextlib.suppress(Exception, KeyboardInterrupt):
                        sys.modules["ray"].shutdown()
            finally:
                if self.guard is not None:
                    self.guard.close()     # whatever Ray left running ends here
            if (self.ray_started or self.local is not None) and self.manifest["state"] != "done":
                for tmp in stale_temporaries(self.out_dir):
                    tmp.unlink(missing_ok=True)

    def summary(self, play_s: float) -> SweepSummary:
        t0 = self.cfg.t0
        return _summary(self.manifest, self.out_dir, t0, t0 + self.ray_start_s, play_s, self.games, self.parts,
                        self.before, self.running, self.report, self.plan)


def _key(item) -> tuple[str, int] | None:
    """A part to play as (cell id, batch), from ``take()``'s (cell, part entry)."""
    return None if item is None else (item[0].id, item[1]["batch"])


def _drain(in_flight: dict, finish: Callable, ints: _Interrupts | None = None,
           mu: threading.Lock | None = None) -> None:
    """After Ctrl-C: keep the tasks in flight that finish within ``DRAIN_S``; the rest end with the driver.

    No ``ray.cancel``: in Ray 2.x a cancel racing a task's completion can abort the driver itself
    ("Check failed: ... Tried to complete task that was not pending", ray-project/ray#54846). Ending the
    driver's job stops its tasks anyway: the embedded Ray is shut down, a cluster drops a departed job's
    tasks. A part killed mid-write leaves only a hidden temporary file, removed afterwards. In a caller's
    own runtime (``ray.init`` before ``run_sweep``) the remaining tasks run on and write whole parts that
    the manifest does not list yet; ``resume`` keeps them. A second Ctrl-C ends the wait at once."""
    import ray
    deadline = time.perf_counter() + DRAIN_S
    while in_flight and time.perf_counter() < deadline and not (ints and ints.count > 1):
        try:
            ready, _ = ray.wait(list(in_flight), num_returns=len(in_flight), timeout=0.1)
        except (Exception, KeyboardInterrupt):  # Ray is going down: keep nothing more
            return
        for ref in ready:
            try:
                with mu or contextlib.nullcontext():
                    finish(ref)
            except Exception:  # failed: the part stays pending
                in_flight.pop(ref, None)


def _summary(manifest, out_dir, t0, t_ray, play_s, games, parts, before, running, report=None,
             plan=None) -> SweepSummary:
    c = counts(manifest)
    wall = time.perf_counter() - t0
    return SweepSummary(games=games, wall_s=wall, games_per_s=games / wall if wall > 0 else 0.0, parts=parts,
                        bytes=c["bytes"], out_dir=str(out_dir), games_done=c["games_done"], games_total=c["games"],
                        parts_done=c["parts_done"], parts_total=c["parts"], parts_skipped=before["parts_done"],
                        ray_start_s=t_ray - t0, play_s=play_s, workers=running, verify=report,
                        games_discarded=plan.discarded if plan is not None else 0,
                        stop=plan.stopper.state() if plan is not None else None)
