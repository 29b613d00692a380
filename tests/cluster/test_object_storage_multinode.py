"""A loopback multi-node Ray cluster writes a sweep into s3:// (moto on loopback) and loses a node mid-sweep:
Ray retries the dead node's tasks, every part lands once and whole, and the parts are byte-identical to the
same sweep on a local disk (the same driver and cluster as tests/cluster/test_sweep_multinode.py)."""

import hashlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from test_sweep_multinode import DRIVER

from cluster.manifest import load_manifest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
# parts of 20,000 games (about a second each): long enough that the node lost is running one
SPEC = {"name": "s3-node-loss", "game": "paws", "seed": 9, "games_per_cell": 120_000, "batch_size": 20_000,
        "grid": {"players": [2, 4]}}


def drive(out: str) -> dict:
    env = {**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_AUTH_MODE": "token"}
    proc = subprocess.Popen([sys.executable, "-c", DRIVER, json.dumps(SPEC), out], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=300)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)   # only this test's own session
        except ProcessLookupError:
            pass
    assert proc.returncode == 0, stderr[-3000:]
    return json.loads([line for line in stdout.splitlines() if line.startswith("{")][-1])


def test_a_node_dies_mid_s3_sweep_and_the_parts_equal_a_local_run(s3_server, tmp_path):
    uri = s3_server.uri(s3_server.bucket("multinode"), "sweep")
    result = drive(uri)
    assert len(result["removed"]) == 1 and result["nodes_left"] == 1
    assert any(a >= 1 for a in result["attempts"]), result["attempts"]    # Ray retried the dead node's task
    assert (result["parts"], result["games"], result["games_done"]) == (12, 240_000, 240_000)   # each part once
    objects = s3_server.keys("multinode", "sweep/")
    parts = {k.removeprefix("sweep/"): v for k, v in objects.items() if k.endswith(".parquet")}
    assert len(parts) == 12 and set(objects) == {*(f"sweep/{k}" for k in parts), "sweep/manifest.json"}
    m = load_manifest(uri)
    assert m["state"] == "done"
    for c in m["cells"]:                     # the manifest's checksums are the objects' own
        for p in c["parts"]:
            data = parts[f"games/cell={c['id']}/part-{p['batch']:05d}.parquet"]
            assert hashlib.sha256(data).hexdigest() == p["files"]["games"]["sha256"]
    local = tmp_path / "local"              # the same spec on a local disk, no node lost: the same bytes
    from cluster.spec import parse_spec
    from cluster.sweep import run_sweep
    import ray
    started = not ray.is_initialized()
    if started:
        ray.init(address="local", num_cpus=2, include_dashboard=False, logging_level="ERROR",
                 object_store_memory=128 * 2**20)
    try:
        run_sweep(parse_spec(SPEC, source="node-loss.toml"), local, progress=False)
    finally:
        if started:
            ray.shutdown()
    for rel, data in parts.items():
        assert (local / rel).read_bytes() == data, rel
