"""Faults: Ctrl-C and a killed driver (real subprocesses) leave only whole parts; resume ends with every game once."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest
from signals import default_sigint

from cluster.manifest import load_manifest
from cluster.part import part_path
from cluster.spec import load_spec
from cluster.sweep import run_sweep
from infra.derived import derive

ROOT = Path(__file__).resolve().parents[2]
# 2 cells x 100,000 games in parts of 5,000: ~5 s of play on two cores, so a signal lands mid-sweep
SPEC = """name = "faults"
game = "paws"
seed = 5
games_per_cell = 100000
batch_size = 5000
[grid]
players = [3, 4]
"""

pytestmark = pytest.mark.slow


def start_sweep(tmp_path, *more: str) -> tuple[subprocess.Popen, Path, Path]:
    spec, out = tmp_path / "faults.toml", tmp_path / "out"
    spec.write_text(SPEC)
    cmd = [sys.executable, "-c", "from cli.main import app; app()", "sweep", str(spec), "--out", str(out),
           "--workers", "2", "--no-progress", *more]
    # its own session: whatever Ray processes it starts are ours to stop, and only those
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, env={**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"},
                            preexec_fn=default_sigint)
    deadline = time.monotonic() + 120
    while not list(out.glob("games/*/part-*.parquet")):     # wait for the first finished part
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "no part finished in 120 s"
        time.sleep(0.05)
    return proc, spec, out


def live_members(sid: int) -> list[int]:
    """Processes of session ``sid`` that are still running (zombies excluded). Ray's workers get process
    groups of their own but stay in the session."""
    pids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == sid and fields[0] != "Z":
            pids.append(int(stat.parent.name))
    return pids


def stop_session(proc: subprocess.Popen) -> None:
    """Kill every process of the sweep's session and wait until they are gone (so no part lands later)."""
    deadline = time.monotonic() + 30
    while members := live_members(proc.pid):
        for pid in members:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        assert time.monotonic() < deadline, "the sweep's processes outlived SIGKILL for 30 s"
        time.sleep(0.05)


def check_visible_parts_are_whole(out: Path, hidden_temporaries_allowed: bool = False) -> int:
    """Every visible part is a whole part (its row count and game range); temporary files are hidden or gone."""
    temporaries = [p for p in out.rglob("*") if ".tmp" in p.name]
    assert all(p.name.startswith(".") for p in temporaries) if hidden_temporaries_allowed else not temporaries
    parts = list(out.glob("games/*/part-*.parquet"))
    for p in parts:
        md = pq.read_metadata(p)
        meta = {k.decode(): v.decode() for k, v in md.metadata.items() if k.startswith(b"playtest.")}
        assert md.num_rows == int(meta["playtest.games"]) == 5000
    return len(parts)


def check_complete(spec_path: Path, out: Path) -> None:
    """Each (cell, game_index) exactly once, and a resumed part equals the engine's batch."""
    n, distinct, cells = duckdb.sql(
        f"SELECT count(*), count(DISTINCT (cell, game_index)), count(DISTINCT cell) "
        f"FROM read_parquet('{out}/games/*/*.parquet', hive_partitioning = true)").fetchall()[0]
    assert (n, distinct, cells) == (200_000, 200_000, 2)
    assert duckdb.sql(f"SELECT min(game_index), max(game_index) FROM read_parquet('{out}/games/*/*.parquet')"
                      ).fetchall()[0] == (0, 99_999)
    spec = load_spec(spec_path)
    want = spec.cells[1].match.play_batch(5, 95_000, 5000)["games"].replace_schema_metadata(None)
    got = pq.read_table(part_path(out, "games", "c001", 19)).replace_schema_metadata(None)
    assert got.select(want.column_names).equals(want)          # the record; then the per-game query columns
    assert got.equals(derive(spec.cells[1].match.definition, want))
    man = load_manifest(out)
    assert man["state"] == "done" and all(p["state"] == "done" for c in man["cells"] for p in c["parts"])


def test_ctrl_c_leaves_only_whole_parts_and_says_how_to_resume(ray_local, tmp_path):
    proc, spec, out = start_sweep(tmp_path)
    try:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        stop_session(proc)
    assert proc.returncode == 130, err
    assert "interrupted:" in err and "--resume" in err and "Traceback" not in err
    visible = check_visible_parts_are_whole(out)
    man = load_manifest(out)
    assert man["state"] == "interrupted"
    done = [(c["id"], p["batch"]) for c in man["cells"] for p in c["parts"] if p["state"] == "done"]
    # the manifest was saved after the drain; a task stopped between its rename and its
    # return leaves a whole part the manifest does not list yet: resume keeps it
    assert 1 <= len(done) <= visible < 40
    assert all(part_path(out, "games", c, b).exists() for c, b in done)
    summary = run_sweep(load_spec(spec), out, resume=True, progress=False)
    assert summary.parts_skipped == visible and summary.parts == 40 - visible
    check_complete(spec, out)


def test_a_killed_driver_leaves_only_whole_parts_and_resume_finishes_the_sweep(ray_local, tmp_path):
    proc, spec, out = start_sweep(tmp_path)
    try:
        time.sleep(0.5)
        proc.kill()
        proc.communicate(timeout=60)
    finally:
        stop_session(proc)
    visible = check_visible_parts_are_whole(out, hidden_temporaries_allowed=True)   # a task killed mid-write
    assert load_manifest(out)["state"] == "running"          # nobody closed it
    summary = run_sweep(load_spec(spec), out, resume=True, progress=False)
    # parts written after the manifest's last save are kept (same rows), the rest played again
    assert summary.parts_skipped == visible and summary.parts == 40 - visible
    check_complete(spec, out)


@pytest.mark.parametrize("more", [(), ("--ray",)], ids=["driver-plays", "ray"])
def test_sigterm_is_a_ctrl_c_keeps_whole_parts_says_how_to_resume_and_exits_143(ray_local, tmp_path, more):
    """SIGTERM (a scheduler's stop, ``kill``) ends a sweep as Ctrl-C does: drain, manifest saved, only whole
    parts kept, the resume hint; exit 143 (128 + SIGTERM; Ctrl-C: 130), no Ray stack dump."""
    proc, spec, out = start_sweep(tmp_path, *more)
    try:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        stop_session(proc)
    text = " ".join(err.split())
    assert proc.returncode == 143, err
    assert "interrupted:" in text and f"--out {out} --resume" in text, err
    assert "Traceback" not in err and "SIGTERM received" not in err and "***" not in err, err
    visible = check_visible_parts_are_whole(out)
    assert load_manifest(out)["state"] == "interrupted" and 1 <= visible < 40
    summary = run_sweep(load_spec(spec), out, resume=True, progress=False)
    assert summary.parts_skipped == visible and summary.parts == 40 - visible
    check_complete(spec, out)
