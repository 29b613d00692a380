"""The embedded Ray's watchdog (cluster/reaper.py): what it records and what it kills.

Ray's agents can lose their parent (the raylet) a moment after it forked them, when a Ctrl-C reaches the whole
process group, and are then the init process's children: the watchdog must still find them. It does by the
token the driver puts in Ray's environment while Ray starts. Only processes this test starts are ever killed.
"""

import os
import subprocess
import sys
import time

import pytest

from cluster import reaper
from cluster.reaper import MARK, RayGuard

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the watchdog reads /proc")


def orphan(env: dict) -> int:
    """Start ``sleep`` through a parent that exits at once (the sleep is then re-parented); its pid."""
    code = "import subprocess; d = subprocess.DEVNULL; p = subprocess.Popen(['sleep', '60'], start_new_session=True, stdin=d, stdout=d, stderr=d); print(p.pid)"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return int(out.stdout)


def running(pid: int) -> bool:
    st = reaper._stat(pid)
    return st is not None


def gone_within(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while running(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def kill(pid: int) -> None:
    try:
        os.kill(pid, 9)
    except ProcessLookupError:
        pass


def test_kill_all_ends_a_marked_process_whatever_its_parent_and_spares_an_unmarked_one():
    token = "0123456789abcdef"
    marked = orphan({**os.environ, MARK: token})
    plain = orphan({k: v for k, v in os.environ.items() if k != MARK})
    other = orphan({**os.environ, MARK: "fedcba9876543210"})      # another driver's Ray
    try:
        assert reaper._stat(marked)[0] != os.getpid()              # not our child: only the token finds it
        killed = reaper._kill_all({}, os.getpid(), os.getpid(), f"{MARK}={token}".encode())
        assert marked in killed and gone_within(marked, 5)
        assert running(plain) and running(other) and plain not in killed and other not in killed
    finally:
        for pid in (marked, plain, other):
            kill(pid)


def test_record_finds_marked_processes_started_after_the_watchdog_once_each():
    token = "aaaabbbbccccdddd"
    before = orphan({**os.environ, MARK: token})       # started before "the watchdog" below: not recorded
    time.sleep(0.05)
    watchdog = subprocess.Popen(["sleep", "60"])       # stands in for the watchdog's own start time
    time.sleep(0.05)
    after = orphan({**os.environ, MARK: token})
    try:
        tracked, seen = {}, set()
        reaper._record(-1, watchdog.pid, tracked, False, f"{MARK}={token}".encode(), seen)
        assert after in tracked and before not in tracked
        assert (after, tracked[after]) in seen
    finally:
        watchdog.kill()
        watchdog.wait()
        for pid in (before, after):
            kill(pid)


def test_the_guard_kills_an_orphan_started_while_ray_starts_and_nothing_started_later():
    guard = RayGuard.start()
    assert guard.proc is not None and len(guard.token) == 16
    with guard.marked():
        assert os.environ[MARK] == guard.token
        during = orphan(dict(os.environ))               # as an agent whose raylet died at once
    assert MARK not in os.environ                       # no later child of the driver carries it
    guard.ready()
    later = orphan(dict(os.environ))                    # the driver's own business after Ray started
    try:
        guard.close()
        assert gone_within(during, 5)
        assert running(later)
    finally:
        kill(during)
        kill(later)


def test_marked_restores_a_token_the_environment_had_before(monkeypatch):
    monkeypatch.setenv(MARK, "outer")
    guard = RayGuard(None, "inner")
    with guard.marked():                                # no watchdog (not Linux): nothing to mark
        assert os.environ[MARK] == "outer"
    guard = RayGuard(subprocess.Popen(["true"]), "inner")
    try:
        with guard.marked():
            assert os.environ[MARK] == "inner"
        assert os.environ[MARK] == "outer"
    finally:
        guard.proc.wait()
