"""One service per results root: a second ``playtest serve`` on a root another one serves exits 2 in one line naming
the holder (host, pid, since) before it opens the catalog or touches a job; a lock left by a dead service is taken
over; the lock is the kernel's, so two holders at once cannot both win."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys

import pytest
from service_helpers import free_port, serve, stop

from service.rootlock import LOCK_NAME, Held, RootLock

pytestmark = pytest.mark.service

SERVE = [sys.executable, "-m", "service"]


def test_a_second_service_on_the_same_root_exits_2_naming_the_first(tmp_path):
    root = tmp_path / "root"
    subprocess.run([*SERVE, "--root", str(root), "--add-user", "ann", "--role", "admin"], check=True,
                   capture_output=True, timeout=60)
    port = free_port()
    first = serve([*SERVE, "--root", str(root), "--port", str(port)], f"http://127.0.0.1:{port}")
    try:
        second = subprocess.run([*SERVE, "--root", str(root), "--port", str(free_port())], capture_output=True,
                                text=True, timeout=60)
        assert second.returncode == 2, second.stderr
        lines = second.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in second.stderr, second.stderr
        assert "another playtest serve runs on this root" in lines[0]
        assert f"host {socket.gethostname()}, pid {first.pid}, since " in lines[0] and " UTC" in lines[0]
        assert first.poll() is None                          # the first serves on
        with sqlite3.connect(root / "service.sqlite") as con:
            actions = [a for (a,) in con.execute("SELECT action FROM audit")]
        assert "requeue" not in actions and "runner-error" not in actions, actions
    finally:
        stop(first)


def test_a_lock_left_by_a_dead_service_is_taken_over(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    # a holder that dies without letting go: its name stays in the file, its lock goes with the process
    dead = subprocess.Popen([sys.executable, "-c", "import sys, os; from service.rootlock import RootLock; "
                             "RootLock(sys.argv[1]).acquire(); os._exit(0)", str(root)])
    assert dead.wait(timeout=60) == 0
    assert json.loads((root / LOCK_NAME).read_text())["pid"] == dead.pid
    port = free_port()
    proc = serve([*SERVE, "--root", str(root), "--port", str(port)], f"http://127.0.0.1:{port}")
    try:
        assert json.loads((root / LOCK_NAME).read_text())["pid"] == proc.pid
    finally:
        stop(proc)


def test_two_holders_cannot_both_win_and_release_lets_the_next_in(tmp_path):
    first = RootLock(tmp_path).acquire()
    with pytest.raises(Held) as e:
        RootLock(tmp_path).acquire()
    assert f"pid {os.getpid()}" in str(e.value)
    first.release()
    with RootLock(tmp_path) as again:
        assert json.loads((tmp_path / LOCK_NAME).read_text())["pid"] == os.getpid()
    assert again._fd is None


@pytest.mark.parametrize("text", ["", "not json", "[1, 2]", json.dumps({"host": "\x1b[31mevil\x07", "pid": "x",
                                                                          "since": 1e300})])
def test_a_holder_whose_name_cannot_be_read_is_still_refused_in_one_plain_line(tmp_path, text):
    holder = RootLock(tmp_path).acquire()
    try:
        (tmp_path / LOCK_NAME).write_text(text)
        with pytest.raises(Held) as e:
            RootLock(tmp_path).acquire()
        said = str(e.value)
        assert "\n" not in said and "\x1b" not in said and "\x07" not in said
        assert "another playtest serve runs on this root" in said
    finally:
        holder.release()
