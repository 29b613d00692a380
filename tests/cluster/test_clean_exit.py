"""Clean exits: the embedded Ray and every process it started end with the driver, however the driver ends.

Each test runs ``playtest sweep`` in a subprocess (its own session), records the driver's descendants
(gcs_server, raylet, the dashboard and runtime-env agents, workers, the watchdog) before stopping it, and
checks that every one of them is gone within seconds. Only the processes recorded here are ever killed
by the test, and only if they outlive it.
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from signals import default_sigint

ROOT = Path(__file__).resolve().parents[2]
# 2 cells x 100,000 games in parts of 5,000: ~5 s of play on two cores, so a signal lands mid-sweep
SPEC = """name = "exits"
game = "paws"
seed = 5
games_per_cell = 100000
batch_size = 5000
[grid]
players = [3, 4]
"""
GONE_WITHIN_S = 10.0

pytestmark = pytest.mark.slow


def processes() -> dict[int, tuple[int, str, int]]:
    """pid -> (parent pid, name, start time) of every live process (zombies excluded)."""
    out = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        name = text[text.index("(") + 1:text.rindex(")")]
        fields = text.rsplit(")", 1)[1].split()
        if fields[0] not in ("Z", "X"):
            out[int(stat.parent.name)] = (int(fields[1]), name, int(fields[19]))
    return out


def descendants(pid: int) -> dict[int, tuple[str, int]]:
    """Every live process below ``pid``: pid -> (name, start time)."""
    procs, found, grow = processes(), {}, True
    while grow:
        grow = False
        for p, (ppid, name, start) in procs.items():
            if p not in found and (ppid == pid or ppid in found):
                found[p] = (name, start)
                grow = True
    return found


def alive(recorded: dict[int, tuple[str, int]]) -> dict[int, str]:
    """The recorded processes still running (the same start time: not a reused pid)."""
    procs = processes()
    return {p: name for p, (name, start) in recorded.items() if p in procs and procs[p][2] == start}


def start(tmp_path) -> tuple[subprocess.Popen, Path]:
    spec, out = tmp_path / "exits.toml", tmp_path / "out"
    spec.write_text(SPEC)
    cmd = [sys.executable, "-c", "from cli.main import app; app()", "sweep", str(spec), "--out", str(out),
           "--workers", "2", "--no-progress", "--ray"]      # Ray at once: the driver alone would play this sweep
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, env={**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"},
                            preexec_fn=default_sigint)
    return proc, out




def wait_for(proc, what, deadline_s=120.0):
    deadline = time.monotonic() + deadline_s
    while not what():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "timed out waiting for the sweep"
        time.sleep(0.05)


def ray_started(proc) -> dict[int, tuple[str, int]]:
    """The driver's descendants once its raylet, agents and two play_part workers run."""
    found = {}

    def ready():
        found.clear()
        found.update(descendants(proc.pid))
        names = [n for n, _ in found.values()]
        return ("raylet" in names and "gcs_server" in names and sum(n.startswith("ray::play_part") for n in names) >= 2
                and any(n.startswith("ray::DashboardA") for n in names)
                and any(n.startswith("ray::RuntimeEnv") for n in names))
    wait_for(proc, ready)
    return dict(found)


def assert_all_gone(recorded, since: float) -> float:
    """Wait until every recorded process has ended; returns how long that took. Kills leftovers (ours) on failure."""
    while left := alive(recorded):
        if time.monotonic() - since > GONE_WITHIN_S:
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            pytest.fail(f"still running {GONE_WITHIN_S} s after the driver ended: {left}")
        time.sleep(0.05)
    return time.monotonic() - since


def test_kill_9_of_the_driver_ends_every_ray_process_it_started(tmp_path):
    proc, out = start(tmp_path)
    try:
        recorded = ray_started(proc)
        wait_for(proc, lambda: list(out.glob("games/*/part-*.parquet")))
        recorded.update(descendants(proc.pid))                 # everything running right before the kill
        assert {"raylet", "gcs_server"} <= {n for n, _ in recorded.values()}
        t = time.monotonic()
        proc.kill()
        proc.wait(timeout=30)
        took = assert_all_gone(recorded, t)
        print(f"{len(recorded)} processes gone {took:.2f} s after kill -9 of the driver")
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()


def test_double_ctrl_c_still_prints_the_resume_hint_and_leaves_no_process(tmp_path):
    proc, out = start(tmp_path)
    try:
        recorded = ray_started(proc)
        wait_for(proc, lambda: list(out.glob("games/*/part-*.parquet")))
        recorded.update(descendants(proc.pid))
        os.killpg(proc.pid, signal.SIGINT)                     # Ctrl-C at a terminal: the driver's process group
        time.sleep(0.1)
        os.killpg(proc.pid, signal.SIGINT)                     # and again, impatiently
        _, err = proc.communicate(timeout=60)
        t = time.monotonic()
        assert proc.returncode == 130, err
        text = " ".join(err.split())
        assert "interrupted:" in text and f"--out {out} --resume" in text and "Traceback" not in err, err
        assert_all_gone(recorded, t)
        assert not [p for p in out.rglob("*") if ".tmp" in p.name]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def wait_for_raylet(proc) -> dict:
    """Wait until the sweep's embedded Ray has its raylet up; returns every descendant process seen meanwhile."""
    recorded = {}

    def raylet_up():
        recorded.update(descendants(proc.pid))
        return any(n == "raylet" for n, _ in recorded.values())
    wait_for(proc, raylet_up)
    return recorded


def test_ctrl_c_while_ray_starts_leaves_no_agent_behind(tmp_path):
    proc, out = start(tmp_path)
    try:
        recorded = wait_for_raylet(proc)
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        t = time.monotonic()
        assert proc.returncode == 130 and "Traceback" not in err, err
        text = " ".join(err.split())
        assert "interrupted" in text and f"--out {out}" in text, err      # the command to run it again
        assert_all_gone(recorded, t)
        assert not out.exists() or not (out / "manifest.json").exists() or "--resume" in err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def test_sigterm_while_ray_starts_is_a_ctrl_c_and_leaves_no_agent_behind(tmp_path):
    """SIGTERM while the embedded Ray starts: Ray's own handlers do not take over (no exit 1, no stack dump); the
    driver stops as on Ctrl-C, with the line that runs it again, exit 143, and Ray's processes end."""
    proc, out = start(tmp_path)
    try:
        recorded = wait_for_raylet(proc)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
        t = time.monotonic()
        assert proc.returncode == 143 and "Traceback" not in err and "***" not in err, err
        text = " ".join(err.split())
        assert "interrupted" in text and (f"--out {out}" in text), err
        assert_all_gone(recorded, t)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
