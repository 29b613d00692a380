"""One service per results root: ``playtest serve`` holds an exclusive lock on ``ROOT/service.lock`` for as long as
it runs. Two services on one root would both run its queue (the second marks the first's running job for resume,
ends its sweep and plays it again; the first then fails the job, and its owner hears "failed" and then "done").

The lock is the kernel's (``fcntl.flock`` on the open file): it is released when the holding process ends, however
it ends, so a lock file left by a dead service is taken over by the next start without a word, and two starts at
once cannot both win. The file's text names the holder (host, pid, since) for the refusal's line; it is only read
by a start that did not get the lock. The job processes the service starts do not inherit the lock (subprocess
closes the file in them), so a job that outlives its service does not keep the root locked."""

from __future__ import annotations

import fcntl
import json
import os
import socket
import time
from pathlib import Path

LOCK_NAME = "service.lock"


class Held(Exception):
    """Another running service holds the root's lock: the exception's text is one line naming it."""


class RootLock:
    """The exclusive lock on a results root, held from :meth:`acquire` until :meth:`release` or the process ends."""

    def __init__(self, root: Path):
        self.path = Path(root) / LOCK_NAME
        self._fd: int | None = None

    def acquire(self) -> RootLock:
        """Take the lock and write this process's name into it; :class:`Held` when a live service holds it."""
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            said = _holder(fd)
            os.close(fd)
            raise Held(f"--root {self.path.parent}: another playtest serve runs on this root ({said}); stop it "
                       "first, or give another --root") from None
        except OSError:
            os.close(fd)
            raise
        me = json.dumps({"host": socket.gethostname(), "pid": os.getpid(), "since": time.time()})
        os.ftruncate(fd, 0)
        os.pwrite(fd, me.encode(), 0)
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is not None:
            os.ftruncate(self._fd, 0)
            os.close(self._fd)             # closing the file releases the lock
            self._fd = None

    def __enter__(self) -> RootLock:
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()


def _holder(fd: int) -> str:
    """The lock file's holder as words: "host H, pid P, since YYYY-MM-DD HH:MM:SS UTC"; what is unknown said so
    (the holder writes its name just after taking the lock: a start in between finds it empty)."""
    for _ in range(20):
        try:
            raw = os.pread(fd, 4096, 0)
        except OSError:
            raw = b""
        if raw:
            break
        time.sleep(0.05)
    try:
        got = json.loads(raw.decode("utf-8"))
    except ValueError:
        got = None
    if not isinstance(got, dict):
        return "its host and pid unknown"
    host, pid, since = got.get("host"), got.get("pid"), got.get("since")
    host = "".join(ch for ch in str(host) if ch.isprintable())[:100] if isinstance(host, str) else "unknown"
    pid = str(pid) if isinstance(pid, int) else "unknown"
    when = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(since)) \
        if isinstance(since, (int, float)) and 0 <= since < 1e11 else "an unknown time"
    return f"host {host}, pid {pid}, since {when}"
