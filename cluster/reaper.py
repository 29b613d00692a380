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
then exits. Run as ``python -I reaper.py DRIVER_PID``.
"""

from __future__ import annotations

import os
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


def _raylet_pid_env(pid: int) -> int | None:
    try:
        env = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return None
    for item in env.split(b"\0"):
        if item.startswith(b"RAY_RAYLET_PID="):
            try:
                return int(item.split(b"=", 1)[1])
            except ValueError:
                return None
    return None


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def _record(driver: int, me: int, tracked: dict[int, int], roots_open: bool) -> None:
    """Add the driver's children started since this watchdog (while ``roots_open``) and every descendant of a
    tracked process."""
    procs = _processes()
    born = procs.get(me, (0, 0))[1]
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


def _kill_all(tracked: dict[int, int], me: int) -> list[int]:
    """SIGKILL every tracked process still alive, their children and the recorded raylets' workers; repeated
    until none is left (a process forked meanwhile included), at most ~3 s."""
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
        if raylets:
            for pid in procs:
                if pid not in targets and pid != me and _raylet_pid_env(pid) in raylets:
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
    for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_IGN)          # only the pipe closing ends this process
    me = os.getpid()
    tracked: dict[int, int] = {}
    sys.stdout.write("watching\n")
    sys.stdout.flush()
    fd = sys.stdin.fileno()
    roots_open, warm_until, buf = True, None, b""
    while True:
        _record(driver, me, tracked, roots_open)
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
            _record(driver, me, tracked, True)
            roots_open, warm_until = False, time.monotonic() + WARM_FOR_S
    _kill_all(tracked, me)
    return 0


class RayGuard:
    """The driver's end of the watchdog: :meth:`start` before ``ray.init``, :meth:`ready` after it,
    :meth:`close` after ``ray.shutdown`` (then waits until the watchdog has ended any process left over)."""

    def __init__(self, proc: subprocess.Popen | None):
        self.proc = proc

    @classmethod
    def start(cls) -> "RayGuard":
        if not sys.platform.startswith("linux") or not Path("/proc/self/stat").exists():
            return cls(None)
        proc = subprocess.Popen([sys.executable, "-I", str(Path(__file__).resolve()), str(os.getpid())],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                start_new_session=True, close_fds=True)
        ready, _, _ = select.select([proc.stdout], [], [], 10.0)    # it watches before Ray starts anything
        if ready:
            proc.stdout.readline()
        return cls(proc)

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
