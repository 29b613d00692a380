"""Ray job submission to a running cluster writing to object storage, as docs/sweeps.md shows it.

A `ray start` head node on loopback (token auth, its dashboard on a free port) takes a sweep submitted with
`ray job submit ... -- playtest sweep SPEC --out s3://... --address auto`; the bucket is a moto server on
loopback. While the job runs, `playtest status s3://...` reads its progress from the bucket; when it is
done the parts are the same bytes as the same spec swept on a local disk. The head node is this test's own
(its own ports and temp folder) and is stopped by signalling the `ray start --block` process it started.
"""

import json
import os
import re
import threading
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app
from cluster.manifest import counts, load_manifest
from cluster.spec import parse_spec
from cluster.sweep import run_sweep
from ray_head import ray_env

pytestmark = pytest.mark.slow

BIN = Path(sys.executable).parent
SPEC = """name = "submitted"
game = "paws"
seed = 5
games_per_cell = 60000
batch_size = 5000

[setup]
board = "beginner"

[grid]
players = [2, 4]
round_limit = [0, 20]
"""


def _ray_job(address: str, env: dict, command: str, *args: str) -> str:
    r = subprocess.run([str(BIN / "ray"), "job", command, "--address", address, *args], env=env, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout + r.stderr


def test_a_sweep_submitted_as_a_ray_job_writes_to_s3_and_reports_progress(head_node, s3_server, tmp_path):
    spec_file = tmp_path / "submitted.toml"
    spec_file.write_text(SPEC)
    s3_server.bucket("jobs")
    creds = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1",
             "AWS_EC2_METADATA_DISABLED": "true", "AWS_ENDPOINT_URL": s3_server.endpoint}
    env = ray_env()
    job_id = f"playtest-{os.getpid()}-{time.monotonic_ns()}"
    _ray_job(head_node.dashboard, env, "submit", "--no-wait", "--submission-id", job_id,
             "--runtime-env-json", json.dumps({"env_vars": creds}), "--",
             str(BIN / "playtest"), "sweep", str(spec_file), "--out", "s3://jobs/sweep", "--address", "auto",
             "--no-progress")

    uri = s3_server.uri("jobs", "sweep")      # the same bucket and prefix, its endpoint in the URI
    runner = CliRunner()
    seen, printed, job_state = [], [], None
    stop = threading.Event()

    def watch():            # the manifest as often as it can be read (a `ray job status` takes a second or two)
        while not stop.is_set():
            m = load_manifest(uri)
            if m is not None:
                c = counts(m)
                seen.append((m["state"], c["games_done"], c["parts_done"]))
                if m["state"] == "running" and 0 < c["games_done"] < c["games"] and not printed:
                    r = runner.invoke(app, ["status", uri, "--no-cells"])
                    printed.append((r.exit_code, r.output))
                if m["state"] != "running":
                    return
            time.sleep(0.05)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    deadline = time.monotonic() + 300
    try:
        while time.monotonic() < deadline:     # the job's own state, now and then
            said = re.search(r"Job '[^']+' (\w+)|Status for job '[^']+': (\w+)",
                             _ray_job(head_node.dashboard, env, "status", job_id))
            job_state = next(g for g in said.groups() if g).upper() if said else None
            if job_state in ("SUCCEEDED", "FAILED", "STOPPED"):
                break
            time.sleep(1.0)
    finally:
        watcher.join(timeout=30)
        stop.set()
        watcher.join(timeout=30)
    logs = _ray_job(head_node.dashboard, env, "logs", job_id)
    assert job_state == "SUCCEEDED", logs
    assert "240,000 games" in logs and "s3://jobs/sweep" in logs, logs

    # progress was readable from the bucket while the job ran, and it only ever went up
    assert any(s == "running" and 0 < g < 240_000 for s, g, _ in seen), seen
    done = [g for _, g, _ in seen]
    assert done == sorted(done), seen
    assert printed and printed[0][0] == 0, printed
    out = " ".join(printed[0][1].split())
    assert "running" in out and re.search(r"[\d,]+ of 240,000 games", out) and "of 48 parts" in out, out
    assert "renewed its lock" in out, out       # the driver on the head node is alive

    m = load_manifest(uri)
    assert m["state"] == "done" and counts(m)["games_done"] == 240_000 and counts(m)["parts_done"] == 48
    r = runner.invoke(app, ["status", uri, "--verify", "--no-cells"])
    assert r.exit_code == 0, r.output

    local = tmp_path / "local"                 # the same spec on a local disk: the same part bytes
    run_sweep(parse_spec(tomllib.loads(SPEC), source="submitted.toml"), local, progress=False)
    objects = s3_server.keys("jobs", "sweep/")
    parts = {k.removeprefix("sweep/"): v for k, v in objects.items() if k.endswith(".parquet")}
    assert len(parts) == 48
    for rel, data in parts.items():
        assert (local / rel).read_bytes() == data, rel
