"""A loopback multi-node Ray cluster writes a sweep into s3:// (moto on loopback) and loses a node mid-sweep:
Ray retries the dead node's tasks, every part lands once and whole, and the parts are byte-identical to the
same sweep on a local disk (the same driver and cluster as tests/cluster/test_sweep_multinode.py)."""

import hashlib

import pytest
from test_sweep_multinode import drive

from cluster.manifest import load_manifest

pytestmark = pytest.mark.slow

# parts of 20,000 games (about a second each): long enough that the node lost is running one
SPEC = {"name": "s3-node-loss", "game": "paws", "seed": 9, "games_per_cell": 120_000, "batch_size": 20_000,
        "grid": {"players": [2, 4]}}


def test_a_node_dies_mid_s3_sweep_and_the_parts_equal_a_local_run(s3_server, tmp_path):
    uri = s3_server.uri(s3_server.bucket("multinode"), "sweep")
    result = drive(SPEC, uri)
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
