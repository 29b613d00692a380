"""A loopback multi-node Ray cluster loses a node mid-sweep; Ray retries its tasks and every game lands once.

The cluster and the driver run in a fresh process (as `playtest sweep --address` would): Ray reads its
settings (loopback, token auth) once per process, so this test leaves the test process's Ray alone.
"""

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from cluster.part import part_path
from cluster.spec import parse_spec

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SPEC = {"name": "node-loss", "game": "paws", "seed": 9, "games_per_cell": 160_000, "batch_size": 40_000,
        "grid": {"players": [2, 4]}}

DRIVER = """
import json, sys, time
import ray
from ray.cluster_utils import Cluster
from cluster.spec import parse_spec
from cluster.sweep import run_sweep

small = {"object_store_memory": 80 * 2**20}
fast_death = {"health_check_initial_delay_ms": 0, "health_check_period_ms": 500, "health_check_timeout_ms": 500,
              "health_check_failure_threshold": 3}
import socket
with socket.create_server(("127.0.0.1", 0)) as free:          # the state API (task attempts) needs the dashboard
    port = free.getsockname()[1]
c = Cluster(initialize_head=True,
            head_node_args={"num_cpus": 0, "include_dashboard": True, "dashboard_host": "127.0.0.1",
                            "dashboard_port": port, "_system_config": fast_death, **small})
c.add_node(num_cpus=1, **small)
c.add_node(num_cpus=1, **small)
c.wait_for_nodes()
removed = []
seen = []

def lose_a_node(cell, batch):
    # kill the worker node whose running part started last (the state API says which; tasks report their state
    # every 0.1 s here): most of that part is still to play, so Ray must retry it elsewhere. Until the state API
    # shows a running part, wait for the next finished one (after 3 parts, any worker node)
    if removed:
        return
    from ray.util.state import list_tasks
    driver_node = ray.get_runtime_context().get_node_id()
    seen.append(batch)
    deadline = time.monotonic() + 5      # a loaded machine reports a part's start late: ask again for a while
    while True:
        running = list_tasks(filters=[("name", "=", "play_part"), ("state", "=", "RUNNING")], detail=True,
                             raise_on_missing_output=False)
        latest = max(((t.start_time_ms or 0, t.node_id) for t in running if t.node_id != driver_node), default=None)
        node = next((n for n in c.worker_nodes if latest is not None and n.node_id == latest[1]), None)
        if node is not None or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    if node is None and len(seen) >= 3:
        node = next(n for n in c.worker_nodes if n.node_id != driver_node)
    if node is not None:
        c.remove_node(node, allow_graceful=False)
        removed.append(node.node_id)

try:
    s = run_sweep(parse_spec(json.loads(sys.argv[1]), source="node-loss.toml"), sys.argv[2], address=c.address,
                  progress=False, on_part=lose_a_node)
    ray.init(address=c.address, logging_level="ERROR")
    from ray.util.state import list_tasks
    attempts = [t.attempt_number for t in list_tasks(filters=[("name", "=", "play_part")], limit=10_000,
                                                       raise_on_missing_output=False)]
    print(json.dumps({"parts": s.parts, "games": s.games, "games_done": s.games_done, "removed": removed,
                      "nodes_left": len(c.worker_nodes), "attempts": attempts}))
finally:
    ray.shutdown()
    c.shutdown()
"""


def drive(spec: dict, out: str) -> dict:
    """Run DRIVER (a 2-node loopback cluster that loses a node mid-sweep) on ``spec`` into ``out``; its result."""
    env = {**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_AUTH_MODE": "token",
           "RAY_task_events_report_interval_ms": "100"}     # the state API's view of running parts: 0.1 s old at most
    proc = subprocess.Popen([sys.executable, "-c", DRIVER, json.dumps(spec), out], cwd=ROOT, env=env,
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


def test_a_node_dies_mid_sweep_and_each_cell_game_index_is_still_there_exactly_once(tmp_path):
    out = tmp_path / "out"
    result = drive(SPEC, str(out))
    assert len(result["removed"]) == 1 and result["nodes_left"] == 1
    assert any(a >= 1 for a in result["attempts"]), result["attempts"]    # Ray retried the dead node's task
    assert (result["parts"], result["games"], result["games_done"]) == (8, 320_000, 320_000)   # each part once
    n, distinct = duckdb.sql(f"SELECT count(*), count(DISTINCT (cell, game_index)) "
                             f"FROM read_parquet('{out}/games/*/*.parquet', hive_partitioning = true)").fetchall()[0]
    assert n == distinct == 320_000
    assert not [p for p in out.rglob("*") if ".tmp" in p.name]     # a killed task's temporary file is gone too
    spec = parse_spec(SPEC, source="node-loss.toml")
    for cell in spec.cells:                    # the retried parts hold the engine's games for their seeds
        for batch in (0, 3):
            want = cell.match.play_batch(9, batch * 40_000, 40_000)["games"].replace_schema_metadata(None)
            got = pq.read_table(part_path(out, "games", cell.id, batch)).replace_schema_metadata(None)
            assert got.select(want.column_names).equals(want), (cell.id, batch)   # + per-game query columns
