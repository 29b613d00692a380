"""Ends the embedded Ray with its driver, however the driver ends (``kill -9`` and the OOM killer included).

Ray itself only half does this: its raylet and GCS die with the driver (``PR_SET_PDEATHSIG``), but the
dashboard and runtime-env agents the raylet started poll for their parent and then report to the dead
GCS, which keeps them alive for about a minute, and workers linger until they notice. So the driver
starts this watchdog (:class:`RayGuard`) before ``ray.init``: a small stdlib-only process in a session of
its own (a Ctrl-C or hang-up of the driver's terminal does not reach it), connected to the driver by a
pipe on its stdin. It records the driver's children that appear while Ray starts (Ray's processes) and,
from then on, their descendants. When the pipe closes - the driver ended Ray, or died: the kernel closes
a dead process's pipes at once - it kills every recorded process still alive (its start time checked, so
a reused pid is never hit), their children, and any worker of the recorded raylets (``RAY_RAYLET_PID``),
then exits. Run as ``python -I reaper.py DRIVER_PID TOKEN``.

A Ctrl-C at a terminal reaches Ray's processes too (they share the driver's process group): a raylet can die
a moment after it forked its agents, before any scan saw them as its children, and they are then the init
process's. So the driver sets ``PLAYTEST_RAY_GUARD=TOKEN`` in its environment while ``ray.init`` starts Ray
(:meth:`RayGuard.marked`): every process Ray starts inherits it, and the watchdog also records any process
started after it whose environment holds the token, whoever its parent is now. (An agent hides its
environment once it renames itself, a second or more after it starts: by then a scan has recorded it.)
"""

from __future__ import annotations

import contextlib
import os
import secrets
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

SCAN_START_S = 0.1      # while Ray starts (its processes appear)
SCAN_WARM_S = 0.25      # for WARM_FOR_S after that (agents and the first workers)
WARM_FOR_S = 10.0
SCAN_STEADY_S = 5.0     # then: workers started later are found by RAY_RAYLET_PID at the end
MARK = "PLAYTEST_RAY_GUARD"


def _stat(pid: int) -> tuple[int, int] | None:
    """(parent pid, start time) of a live process, or None (gone, a zombie, unreadable)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text.rsplit(")", 1)[1].split()
    if fields[0] in ("Z", "X"):
        return None
    return int(fields[1]), int(fields[19])


def _processes() -> dict[int, tuple[int, int]]:
    """pid -> (parent pid, start time) of every live process."""
    out = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            st = _stat(int(entry.name))
            if st is not None:
                out[int(entry.name)] = st
    return out


def _environ(pid: int) -> list[bytes]:
    try:
        return Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return []


def _raylet_pid_env(pid: int) -> int | None:
    for item in _environ(pid):
        if item.startswith(b"RAY_RAYLET_PID="):
            try:
                return int(item.split(b"=", 1)[1])
            except ValueError:
                return None
    return None


def _marked(pid: int, mark: bytes | None) -> bool:
    """The process was started by the Ray this watchdog guards (its environment holds the driver's token)."""
    return mark is not None and mark in _environ(pid)


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def _record(driver: int, me: int, tracked: dict[int, int], roots_open: bool, mark: bytes | None = None,
            seen: set[tuple[int, int]] | None = None) -> None:
    """Add the driver's children started since this watchdog (while ``roots_open``), every process started since
    then that holds ``mark`` in its environment, and every descendant of a tracked process. ``seen``: the
    (pid, start) of processes whose environment was read already (read once each)."""
    procs = _processes()
    born = procs.get(me, (0, 0))[1]
    if mark is not None:
        for pid, (_, start) in procs.items():
            if pid in (me, driver) or pid in tracked or start < born or (seen is not None and (pid, start) in seen):
                continue
            if seen is not None:
                seen.add((pid, start))
            if _marked(pid, mark):
                tracked[pid] = start
    changed = True
    while changed:
        changed = False
        for pid, (ppid, start) in procs.items():
            if pid in tracked or pid == me:
                continue
            root = roots_open and ppid == driver and start >= born
            if root or (ppid in tracked and procs.get(ppid, (0, -1))[1] == tracked[ppid]):
                tracked[pid] = start
                changed = True


def _kill_all(tracked: dict[int, int], me: int, driver: int = -1, mark: bytes | None = None) -> list[int]:
    """SIGKILL every tracked process still alive, their children, the recorded raylets' workers and any process
    holding ``mark``; repeated until none is left (a process forked meanwhile included), at most ~3 s."""
    raylets = {pid for pid in tracked if _comm(pid) == "raylet"}
    killed: list[int] = []
    deadline = time.monotonic() + 3.0
    while time.monotonic() < deadline:
        procs = _processes()
        targets = {pid for pid, start in tracked.items() if procs.get(pid, (0, -1))[1] == start}
        grow = True
        while grow:
            grow = False
            for pid, (ppid, start) in procs.items():
                if pid not in targets and pid != me and ppid in targets:
                    targets.add(pid)
                    tracked[pid] = start
                    grow = True
        for pid in procs:
            if pid in targets or pid in (me, driver):
                continue
            if (raylets and _raylet_pid_env(pid) in raylets) or _marked(pid, mark):
                targets.add(pid)
                tracked[pid] = procs[pid][1]
        if not targets:
            break
        for pid in targets:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            except (ProcessLookupError, PermissionError):
                pass
        time.sleep(0.05)
    return killed


def main(argv: list[str]) -> int:
    driver = int(argv[1])
    mark = f"{MARK}={argv[2]}".encode() if len(argv) > 2 else None
    for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_IGN)          # only the pipe closing ends this process
    me = os.getpid()
    tracked: dict[int, int] = {}
    sys.stdout.write("watching\n")
    sys.stdout.flush()
    fd = sys.stdin.fileno()
    roots_open, warm_until, buf = True, None, b""
    seen: set[tuple[int, int]] = set()
    while True:
        _record(driver, me, tracked, roots_open, mark, seen)
        now = time.monotonic()
        wait = SCAN_START_S if roots_open else SCAN_WARM_S if now < warm_until else SCAN_STEADY_S
        ready, _, _ = select.select([fd], [], [], wait)
        if not ready:
            continue
        data = os.read(fd, 4096)
        if not data:                                 # the driver closed the pipe or died
            break
        buf += data
        if roots_open and b"ready\n" in buf:         # Ray has started: no more roots, only their descendants
            _record(driver, me, tracked, True, mark, seen)
            roots_open, warm_until = False, time.monotonic() + WARM_FOR_S
    _kill_all(tracked, me, driver, mark)
    return 0


class RayGuard:
    """The driver's end of the watchdog: :meth:`start` before ``ray.init``, :meth:`ready` after it,
    :meth:`close` after ``ray.shutdown`` (then waits until the watchdog has ended any process left over)."""

    def __init__(self, proc: subprocess.Popen | None, token: str = ""):
        self.proc, self.token = proc, token

    @classmethod
    def start(cls) -> "RayGuard":
        if not sys.platform.startswith("linux") or not Path("/proc/self/stat").exists():
            return cls(None)
        token = secrets.token_hex(8)
        proc = subprocess.Popen([sys.executable, "-I", str(Path(__file__).resolve()), str(os.getpid()), token],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                start_new_session=True, close_fds=True)
        ready, _, _ = select.select([proc.stdout], [], [], 10.0)    # it watches before Ray starts anything
        if ready:
            proc.stdout.readline()
        return cls(proc, token)

    @contextlib.contextmanager
    def marked(self):
        """While Ray starts: every process it starts inherits the token (the driver's own environment is
        restored afterwards, so no later child of the driver carries it)."""
        if self.proc is None:
            yield
            return
        before = os.environ.get(MARK)
        os.environ[MARK] = self.token
        try:
            yield
        finally:
            if before is None:
                os.environ.pop(MARK, None)
            else:
                os.environ[MARK] = before

    def ready(self) -> None:
        """Ray has started: the processes recorded so far are its roots."""
        if self.proc is not None:
            try:
                self.proc.stdin.write(b"ready\n")
                self.proc.stdin.flush()
            except OSError:
                pass

    def close(self, wait_s: float = 5.0) -> None:
        """End the watch: whatever Ray left running is killed; returns once the watchdog has exited."""
        if self.proc is None:
            return
        proc, self.proc = self.proc, None
        try:
            proc.stdin.close()
        except OSError:
            pass
        try:
            proc.wait(timeout=wait_s)
        except subprocess.TimeoutExpired:
            pass
        proc.stdout.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
