"""Nothing lost: ``playtest serve`` and its job's child killed with SIGKILL mid-sweep (both process groups, as a crash of
the machine would), the service started again on the same root: the job finishes and its Parquet parts are
byte-identical, file by file, to an uninterrupted ``playtest sweep`` of the same spec."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time

import httpx
import pytest
from part_bytes import parts
from service_helpers import end_left_running, free_port, kill_group, serve, stop, wait_state

from service.runner import layout, start_time

pytestmark = pytest.mark.service

SPEC = """name = "durable"
game = "paws"
seed = 7
games_per_cell = 30000
batch_size = 2000
[grid]
players = [2, 4]
"""
CLI = [sys.executable, "-c", "from cli.main import app; app()"]


@pytest.mark.slow
def test_kill_9_of_the_service_and_its_job_then_a_restart_gives_byte_identical_parts(tmp_path):
    spec = tmp_path / "durable.toml"
    spec.write_text(SPEC)
    reference = tmp_path / "reference"
    played = subprocess.run([*CLI, "sweep", str(spec), "--out", str(reference), "--no-progress", "--workers", "2"],
                            check=False, capture_output=True, text=True, timeout=300,
                            env={**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"})
    assert played.returncode == 0, played.stderr
    want = parts(reference)
    assert len(want) == 30

    root, port = tmp_path / "root", free_port()
    url = f"http://127.0.0.1:{port}"
    cli = [*CLI, "serve", "--root", str(root), "--port", str(port), "--workers", "2"]
    token = subprocess.run([*cli, "--add-user", "ann", "--role", "edit"], check=True, capture_output=True, text=True,
                           timeout=60).stdout.strip()
    api = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=30)
    procs, children = [], []
    try:
        procs.append(serve(cli, url))
        job = api.post("/api/runs", json={"spec": SPEC, "title": "durable"}).json()["id"]
        deadline = time.monotonic() + 60
        while not (api.get(f"/api/runs/{job}").json()["progress"] or {}).get("parts_done"):
            assert time.monotonic() < deadline, "no part finished"
            time.sleep(0.05)
        with sqlite3.connect(root / "service.sqlite") as con:
            pid, started = con.execute("SELECT pid, pid_start FROM jobs WHERE id = ?", (job,)).fetchone()
        children.append((pid, started))
        kill_group(procs[0].pid)                       # the machine "crashes": the service and its job at once
        kill_group(pid)
        procs[0].wait(timeout=30)
        deadline = time.monotonic() + 30
        while start_time(pid) == started:
            assert time.monotonic() < deadline, "the job's child outlived its SIGKILL"
            time.sleep(0.05)
        out = layout(root, job)["out"]
        before = len(list(out.glob("games/*/part-*.parquet")))
        assert 0 < before < 30, f"killed with {before} of 30 parts written: not mid-sweep"

        procs.append(serve(cli, url))                  # the same root: the job resumes with --resume
        got = wait_state(api, job, ("done", "failed", "cancelled"), timeout=240)
        assert got["state"] == "done", got
        assert "--resume" in layout(root, job)["log"].read_text()
        have = parts(out)
        assert sorted(have) == sorted(want)            # the same files ...
        for name in want:                              # ... with the same bytes
            assert have[name] == want[name], f"{name} differs from the uninterrupted run's"
    finally:
        for p in procs:
            stop(p, group=True)
        end_left_running(root, children)
