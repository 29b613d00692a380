"""The queue: one thread owns the running jobs. Each step of a job (service.kinds.Step) is ``python -m service.steps
STEP ...`` in a child process of its own session (Ray, if a sweep starts it, lives and dies with that child; a crash
of a job never takes the service down); a sweep job is its sweep step, then its report step. What happens next is
the job's state machine's say (service/lifecycle.py): the runner carries its decisions out, one handler per event. A
job that was running when the service stopped is started again with the sweep's own ``--resume``. Only processes this
runner started (their pid and start time are recorded) are ever signalled."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from service import jobkinds  # noqa: F401 - every job kind registered in KINDS
from service import lifecycle
from service.catalog import Catalog
from service.kinds import Options, Step, child_uri, kind_of
from service.lifecycle import CANCELLED

PROJECT = Path(__file__).resolve().parent.parent      # so the children import this checkout's playtest
TERM_GRACE_S = 10.0                                    # SIGTERM, then SIGKILL after this long
CLUSTER = "the service's Ray cluster"                  # what a job's users are told in place of its address


def layout(root: Path, job: str, results: str = "") -> dict[str, Any]:
    """Where a job's files live: its results folder (the sweep's --out, nothing else in it, so status --verify
    finds no stray file) and its own folder (spec, log, report page, summary, verdict). ``results``: the job's results
    root on object storage (the catalog's ``results`` column, ``s3://BUCKET/PREFIX``); then "out" is the URI
    ``s3://BUCKET/PREFIX/runs/<id>`` (text, not a Path), its query (an endpoint) kept."""
    own = root / "jobs" / job
    return {"out": child_uri(results, f"runs/{job}") if results else root / "runs" / job, "own": own,
            "spec": own / "spec.toml", "log": own / "job.log", "report": own / "report.html",
            "summary": own / "report.txt", "verdict": own / "verdict.json"}


def job_layout(root: Path, row: dict) -> dict[str, Any]:
    """``layout`` of a catalog row (its id and results root)."""
    return layout(root, row["id"], row.get("results") or "")


def params_of(row: dict) -> dict:
    """A job's kind's own inputs (the catalog's params column, JSON)."""
    try:
        value = json.loads(row.get("params") or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def start_time(pid: int) -> int | None:
    """A process's start time (clock ticks since boot, /proc/PID/stat field 22): with the pid, who it is."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text.rsplit(")", 1)[1].split()
    return None if fields[0] in ("Z", "X") else int(fields[19])


def step_command(step: Step) -> list[str]:
    """How a step is started: this interpreter, ``-m service.steps`` and the step's arguments."""
    return [sys.executable, *step.argv()]


@dataclass
class Child:
    job: str
    steps: list[Step]
    index: int                                         # the step under way
    proc: subprocess.Popen
    log: object
    cancelled: bool = False
    term_at: float | None = None

    @property
    def step(self) -> Step:
        return self.steps[self.index]


class Runner:
    """Starts queued jobs (at most ``jobs`` at once), watches them, cancels them, resumes the interrupted.
    ``command``: how a step's child is started (step_command; a test gives its own)."""

    def __init__(self, catalog: Catalog, root: Path, *, jobs: int = 1, workers: int | None = None,
                 address: str | None = None, tick_s: float = 0.2,
                 command: Callable[[Step], list[str]] = step_command, time_limit_s: float | None = None):
        self.catalog, self.root, self.jobs, self.workers, self.tick_s = catalog, Path(root), jobs, workers, tick_s
        self.time_limit_s = time_limit_s                   # a job's steps together, at most (None: no limit)
        self.began: dict[str, float] = {}                  # job -> time.monotonic() its first step started here
        self.address = address                             # a Ray cluster's HOST:PORT for the jobs' sweeps
        self.command = command
        self.children: dict[str, Child] = {}
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        # one handler per event of the state machine (service/lifecycle.py): what carrying it out takes
        self._handlers: dict[str, Callable[..., None]] = {
            "start": self._on_start, "refuse": self._on_end, "next": self._on_next, "finish": self._on_finish,
            "fail": self._on_end, "cancel": self._on_cancel, "requeue": self._on_requeue}

    # the loop ---------------------------------------------------------------------------------------------

    def start(self) -> Runner:
        self.recover()
        self._thread = threading.Thread(target=self._loop, name="playtest-runner", daemon=True)
        self._thread.start()
        return self

    def stop(self, *, end_jobs: bool = True) -> None:
        """Stop the loop; ``end_jobs``: terminate the running children too (they resume at the next start)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
        if end_jobs:
            with self._lock:
                for c in list(self.children.values()):
                    self._signal(c.proc, signal.SIGTERM)
                for c in list(self.children.values()):
                    try:
                        c.proc.wait(timeout=TERM_GRACE_S)
                    except subprocess.TimeoutExpired:
                        self._signal(c.proc, signal.SIGKILL)
                        c.proc.wait()
                    c.log.close()
                self.children.clear()

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self.step()
            except Exception as e:  # noqa: BLE001 - the loop must outlive any one job's trouble
                self.catalog.audit("service", "runner-error", None, f"{type(e).__name__}: {e}"[:500])
            self._stop.wait(self.tick_s)

    def step(self) -> None:
        """One look: reap finished children, escalate slow cancels, start queued jobs into free slots."""
        with self._lock:
            for job, c in list(self.children.items()):
                code = c.proc.poll()
                if code is None:
                    if c.term_at is not None and time.monotonic() - c.term_at > TERM_GRACE_S:
                        self._signal(c.proc, signal.SIGKILL)
                    elif c.term_at is None and self._over_time(job):
                        self._event(job, "fail", None, error=f"stopped after {self.time_limit_s:g} s, this service's "
                                    "time limit per job (playtest serve --job-time-limit); ask for fewer games or "
                                    "a cheaper bot", code=None, child=c)
                    continue
                c.log.close()
                del self.children[job]
                self._ended(c, code)
            while len(self.children) < self.jobs:
                rows = self.catalog.q("SELECT id, resume FROM jobs WHERE state = 'queued' ORDER BY resume DESC, "
                                      "priority DESC, created LIMIT 1")
                if not rows:
                    break
                self._start_job(rows[0]["id"], bool(rows[0]["resume"]))

    # the state machine's events ---------------------------------------------------------------------------

    def _event(self, job: str, event: str, row: dict | None = None, **detail) -> None:
        """Move ``job`` by ``event`` (lifecycle.move refuses a move the table has not) and carry it out."""
        row = row if row is not None else self.catalog.job(job)
        state = lifecycle.move(row["state"], event)
        self._handlers[event](job, row, state, **detail)

    def _start_job(self, job: str, resume: bool) -> None:
        """A queued job's steps (its kind's, service/kinds.py; a resumed job starts them again, the sweep with its
        own --resume), then its start; a job that cannot start is refused with the reason."""
        row = self.catalog.job(job)
        kind = kind_of(row.get("kind", "sweep"))
        paths = job_layout(self.root, row)
        paths["own"].mkdir(parents=True, exist_ok=True)
        if isinstance(paths["out"], Path):
            paths["out"].parent.mkdir(parents=True, exist_ok=True)
        row = {**row, "params": params_of(row)}
        try:
            if kind is None:
                raise ValueError(f"unknown job kind {row.get('kind')!r}")
            if kind.prepare is not None:
                kind.prepare(row, paths)
            steps = kind.steps(row, paths, Options(workers=self.workers, address=self.address, resume=resume))
        except (OSError, ValueError) as e:
            self._event(job, "refuse", row, error=" ".join(f"the job could not start: {e}".split())[:500])
            return
        self._event(job, "start", row, steps=steps, resume=resume)

    def _on_start(self, job: str, row: dict, state: str, *, steps: list[Step], resume: bool) -> None:
        self.catalog.set_job(job, state=state, started=row["started"] or time.time(), resume=0, error=None)
        self.began[job] = time.monotonic()
        self.catalog.audit("service", "resume" if resume else "start", job)
        self._launch(job, steps, 0)

    def _on_next(self, job: str, row: dict, state: str, *, steps: list[Step], index: int) -> None:
        self._launch(job, steps, index)

    def _on_finish(self, job: str, row: dict, state: str, *, error: str | None) -> None:
        """The last step ended: the kind's answer read into the catalog (a step that may fail and did leaves the job
        done, with the reason)."""
        values: dict = {}
        kind = kind_of(row.get("kind", "sweep"))
        if error is None and kind is not None and kind.finish is not None:
            try:
                values = kind.finish({**row, "params": params_of(row)}, job_layout(self.root, row)) or {}
            except (OSError, ValueError) as e:
                values = {"error": f"the job's answer could not be read: {e}"[:500]}
        self.catalog.set_job(job, **{"state": state, "ended": time.time(), "pid": None, "pid_start": None,
                                     "exit_code": 0, "error": error, **values})
        self.began.pop(job, None)

    def _on_end(self, job: str, row: dict, state: str, *, error: str, code: int | None = None,
                child: Child | None = None) -> None:
        """A failed step (``code``), a job refused before it started, or one over its time limit (``child``: its
        step still running, ended here as a cancel ends it)."""
        values = {"started": row["started"] or time.time()} if code is None else \
            {"pid": None, "pid_start": None, "exit_code": code}
        self.catalog.set_job(job, state=state, ended=time.time(), error=error, **values)
        self.began.pop(job, None)
        if child is not None:
            child.cancelled = True
            child.term_at = time.monotonic()
            self._signal(child.proc, signal.SIGTERM)
            self.catalog.audit("service", "time-limit", job, error[:200])

    def _over_time(self, job: str) -> bool:
        began = self.began.get(job)
        return self.time_limit_s is not None and began is not None and time.monotonic() - began > self.time_limit_s

    def _on_cancel(self, job: str, row: dict, state: str, *, who: str) -> None:
        self.catalog.set_job(job, state=state, ended=time.time())
        self.began.pop(job, None)
        self.catalog.audit(who, "cancel", job)
        c = self.children.get(job)
        if c is not None:
            c.cancelled = True
            c.term_at = time.monotonic()
            self._signal(c.proc, signal.SIGTERM)

    def _on_requeue(self, job: str, row: dict, state: str) -> None:
        pid, started = row["pid"], row["pid_start"]
        if pid and started and start_time(pid) == started:
            _end_group(pid, started)
        self.catalog.set_job(job, state=state, resume=1, pid=None, pid_start=None)
        self.catalog.audit("service", "requeue", job, "running when the service stopped: resumes")

    # the children -----------------------------------------------------------------------------------------

    def _launch(self, job: str, steps: list[Step], index: int) -> None:
        """Start step ``index`` of the job in a child of its own session, its output appended to the job's log."""
        paths = layout(self.root, job)
        step = steps[index]
        argv = self.command(step)
        log = open(paths["log"], "ab")
        log.write(f"\n$ {step.title}: {' '.join(['python', *argv[1:]])}\n".encode())
        log.flush()
        env = {**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
               "PYTHONPATH": os.pathsep.join(p for p in (str(PROJECT), os.environ.get("PYTHONPATH", "")) if p)}
        proc = subprocess.Popen(argv, cwd=paths["own"], stdin=subprocess.DEVNULL, stdout=log,
                                stderr=subprocess.STDOUT, env=env, start_new_session=True)
        self.catalog.set_job(job, pid=proc.pid, pid_start=start_time(proc.pid))
        self.children[job] = Child(job, steps, index, proc, log)

    def _ended(self, c: Child, code: int) -> None:
        """A step's child ended: a cancelled job keeps its state (its exit code noted); else the machine decides."""
        row = self.catalog.job(c.job)
        if row is None or row["state"] == CANCELLED or c.cancelled:
            self.catalog.set_job(c.job, pid=None, pid_start=None, exit_code=code, ended=row and row["ended"]
                                 or time.time())
            return
        said = self.told(last_line(job_layout(self.root, row)["log"]))
        d = lifecycle.after_step(c.steps, c.index, code, said)
        detail = {"next": {"steps": c.steps, "index": d.index}, "finish": {"error": d.error},
                  "fail": {"error": d.error, "code": code}}[d.event]
        self._event(c.job, d.event, row, **detail)

    def told(self, line: str) -> str:
        """A step's last line as the job's users see it: the Ray cluster's address (--address) said as "the
        service's Ray cluster". Only the service talks to Ray; the job's log keeps the line whole for the admin."""
        return line.replace(self.address, CLUSTER) if self.address else line

    # cancel and recover -----------------------------------------------------------------------------------

    def cancel(self, job: str, who: str) -> bool:
        """Cancel a queued or running job (its child is terminated); False when it had ended already."""
        with self._lock:
            row = self.catalog.job(job)
            if row is None or not lifecycle.takes(row["state"], "cancel"):
                return False
            self._event(job, "cancel", row, who=who)
            return True

    def recover(self) -> None:
        """At start-up: a job left running (the service was stopped or killed) is queued again to resume. Its old
        child, if still alive (the same pid and start time), is terminated first: only one driver per folder."""
        for row in self.catalog.q("SELECT id, state, pid, pid_start, started FROM jobs WHERE state = 'running'"):
            self._event(row["id"], "requeue", dict(row))

    @staticmethod
    def _signal(proc: subprocess.Popen, sig: int) -> None:
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, sig)          # its own session: the sweep's forked players and Ray with it
            except ProcessLookupError:
                pass


def _end_group(pid: int, started: int) -> None:
    """Terminate a recorded child of an earlier run of the service (and its process group), then wait for it."""
    for sig, wait_s in ((signal.SIGTERM, TERM_GRACE_S), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            if start_time(pid) != started:
                return
            time.sleep(0.05)


def last_line(log: Path, limit: int = 500) -> str:
    """The log's last line that says something (the command's one-line error), without its ``error:`` prefix."""
    try:
        with open(log, "rb") as f:
            f.seek(max(0, os.path.getsize(log) - 8192))
            lines = [x.strip() for x in f.read().decode("utf-8", "replace").splitlines() if x.strip()]
    except OSError:
        return ""
    errors = [x for x in lines if x.startswith("error:")]
    line = (errors or lines or [""])[-1]
    return line.removeprefix("error:").strip()[:limit]
