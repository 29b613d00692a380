"""``playtest serve --address`` on a real two-node Ray cluster on loopback (`ray start`, token auth): a sweep job
submitted through the API by an edit user plays on the cluster; the worker node dies while it plays a part (Ray plays
that part again on the head), then the service is stopped mid-job (SIGTERM) and started again on the same root (the
job resumes with the sweep's ``--resume``). The job ends done with every part, byte for byte the parts of the same spec
played by ``playtest sweep`` on this machine with nothing lost; no answer the user gets names the cluster, a failed
job's error included."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time

import httpx
import pytest
from part_bytes import parts
from ray_head import cmdline, head_node_running, nodes, worker_node_running
from service_helpers import TINY, Live, end_left_running, free_port, make_users, serve, stop, wait_state

from cluster.sweep import TASK_RETRIES
from service.runner import layout, start_time

pytestmark = pytest.mark.service

# 12 parts of 10,000 games (a second or more each on one core): long enough that the node is lost mid-part and the
# service is stopped with parts still to play
SPEC = """name = "on-a-cluster"
game = "paws"
seed = 11
games_per_cell = 60000
batch_size = 10000
[grid]
players = [2, 4]
"""
PARTS = 12
# the head declares a silent node dead after 3 missed checks of 0.5 s (Ray's default: 5 of 3 s)
FAST_DEATH = {"health_check_initial_delay_ms": 0, "health_check_period_ms": 500, "health_check_timeout_ms": 500,
              "health_check_failure_threshold": 3}
CLI = [sys.executable, "-c", "from cli.main import app; app()"]
# what Ray tells the driver (the job's log) when it plays a lost node's task again
RETRIED = (f"Task play_part failed. There are {TASK_RETRIES} retries remaining, so the task will be retried. Error: "
           "Task failed because the node it was running on is dead")


def playing(node) -> bool:
    """Whether one of the node's Ray workers is playing a part (Ray names a worker after the task it runs)."""
    return any(cmdline(pid).startswith("ray::play_part") for pid in node.pids())


def lose_mid_part(node, timeout: float) -> None:
    """Kill the worker node while it plays a part: once one of its workers is seen playing, every process of the
    node is frozen (SIGSTOP) and, the part still unfinished, killed (SIGKILL); else thawed, and looked at again."""
    deadline = time.monotonic() + timeout
    while True:
        assert time.monotonic() < deadline, "the worker node played no part"
        if playing(node):
            node.signal(signal.SIGSTOP)
            if playing(node):
                node.kill()
                return
            node.signal(signal.SIGCONT)
        time.sleep(0.02)


def parts_on_disk(out) -> int:
    return len(list(out.glob("games/*/part-*.parquet")))


@pytest.mark.slow
@pytest.mark.ray
def test_a_job_on_a_cluster_survives_a_lost_node_and_a_restart_of_the_service(tmp_path):
    spec = tmp_path / "cluster.toml"
    spec.write_text(SPEC)
    reference = tmp_path / "reference"                 # the same spec on this machine, nothing lost
    played = subprocess.run([*CLI, "sweep", str(spec), "--out", str(reference), "--no-progress", "--workers", "2"],
                            check=False, capture_output=True, text=True, timeout=300,
                            env={**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"})
    assert played.returncode == 0, played.stderr
    want = parts(reference)
    assert len(want) == PARTS

    root, port = tmp_path / "root", free_port()
    url = f"http://127.0.0.1:{port}"
    with head_node_running(num_cpus=1, system_config=FAST_DEATH) as head, worker_node_running(head) as node:
        cli = [*CLI, "serve", "--root", str(root), "--port", str(port), "--address", head.gcs, "--workers", "2"]
        token = subprocess.run([*cli, "--add-user", "ed", "--role", "edit"], check=True, capture_output=True,
                               text=True, timeout=60).stdout.strip()
        api = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=30)
        procs, children = [], []
        try:
            procs.append(serve(cli, url))
            made = api.post("/api/runs", json={"spec": SPEC, "title": "on the cluster"})
            assert made.status_code == 201, made.text
            job = made.json()["id"]
            out = layout(root, job)["out"]

            lose_mid_part(node, timeout=120)           # one CPU each: the worker node plays one of the first parts
            at_loss = parts_on_disk(out)
            assert at_loss < PARTS
            deadline = time.monotonic() + 60
            while nodes(head).get(node.node_id) != "DEAD":
                assert time.monotonic() < deadline, "Ray did not see the node die"
                time.sleep(0.2)

            log = layout(root, job)["log"]
            deadline = time.monotonic() + 120          # the job plays on, on the head: one more part, then a stop
            while parts_on_disk(out) <= at_loss or RETRIED not in log.read_text():
                assert api.get(f"/api/runs/{job}").json()["state"] == "running"
                assert time.monotonic() < deadline, "Ray did not play the lost part again, or no part was written since"
                time.sleep(0.1)
            with sqlite3.connect(root / "service.sqlite") as con:
                children.append(con.execute("SELECT pid, pid_start FROM jobs WHERE id = ?", (job,)).fetchone())
            procs[0].send_signal(signal.SIGTERM)      # the service stops, and ends its job's child
            assert procs[0].wait(timeout=60) in (0, -signal.SIGTERM)
            pid, started = children[0]
            assert start_time(pid) != started
            with sqlite3.connect(root / "service.sqlite") as con:
                assert con.execute("SELECT state FROM jobs WHERE id = ?", (job,)).fetchone() == ("running",)
            before = parts_on_disk(out)
            assert at_loss < before < PARTS, f"stopped with {before} of {PARTS} parts written: not mid-job"

            procs.append(serve(cli, url))              # the same root: the job resumes with --resume
            got = wait_state(api, job, ("done", "failed", "cancelled"), timeout=240)
            assert got["state"] == "done", got
            assert got["progress"]["games_done"] == 120_000
            sweeps = [line for line in log.read_text().splitlines() if line.startswith("$ sweep:")]
            assert len(sweeps) == 2 and all(f"--address {head.gcs} " in f"{line} " for line in sweeps), sweeps
            assert sweeps[1].endswith(" --resume")     # both drivers joined the cluster, the second to resume
            have = parts(out)
            assert sorted(have) == sorted(want)         # every part once ...
            for name in want:                           # ... with the bytes of the run that lost nothing
                assert have[name] == want[name], f"{name} differs from the uninterrupted run's"
            assert not [p for p in out.rglob("*") if ".tmp" in p.name]   # nor a lost part's unfinished file

            # what a user is told names neither the cluster's address nor its dashboard
            told = [api.get(f"/api/runs/{job}").text, api.get(f"/api/runs/{job}/progress").text,
                    api.get("/api/runs").text]
            for secret in (head.gcs, head.dashboard):
                assert not [t for t in told if secret in t], secret
        finally:
            api.close()
            for p in procs:
                stop(p, group=True)
            end_left_running(root, children)


def test_a_job_that_cannot_reach_the_cluster_fails_without_naming_it_to_its_user(tmp_path):
    """The sweep's own error names the address it could not join; the user is told the service's cluster failed, and
    the address stays in the job's log, for the admin."""
    address = f"127.0.0.1:{free_port()}"                # nothing listens there
    with Live(tmp_path / "root", address=address) as live:
        users = make_users(live.app)
        with httpx.Client(base_url=live.url, headers={"Authorization": f"Bearer {users['edit'].token}"},
                          timeout=60) as api:
            job = api.post("/api/runs", json={"spec": TINY}).json()["id"]
            got = wait_state(api, job, ("done", "failed"), timeout=120)
            told = [api.get(f"/api/runs/{job}").text, api.get("/api/runs").text]
    assert got["state"] == "failed"
    assert got["error"] == ("could not join Ray at the service's Ray cluster: nothing answers at the service's Ray "
                            "cluster (Connection refused); is the head node started (ray start --head) and the port "
                            "open?"), got["error"]
    assert not [t for t in told if address in t]
    assert f"error: could not join Ray at {address}: nothing answers at {address}" in \
        layout(live.app.state.root, job)["log"].read_text()
