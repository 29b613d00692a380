"""A loopback multi-node Ray cluster loses a node mid-sweep; Ray retries its tasks and every game lands once."""

import duckdb
import pyarrow.parquet as pq
import pytest

from cluster.part import part_path
from cluster.spec import parse_spec
from cluster.sweep import run_sweep

pytestmark = pytest.mark.slow

SPEC = {"name": "node-loss", "game": "paws", "seed": 9, "games_per_cell": 30_000, "batch_size": 3000,
        "grid": {"players": [2, 4]}}
SMALL = {"object_store_memory": 80 * 2**20}
FAST_DEATH = {"health_check_initial_delay_ms": 0, "health_check_period_ms": 500, "health_check_timeout_ms": 500,
              "health_check_failure_threshold": 3}


@pytest.fixture(scope="module")
def cluster():
    import os

    import ray
    from ray.cluster_utils import Cluster
    # token auth on every node and the driver, as `ray start` clusters use it (the driver sets it by default)
    saved = os.environ.get("RAY_AUTH_MODE")
    os.environ["RAY_AUTH_MODE"] = "token"
    c = Cluster(initialize_head=True,
                head_node_args={"num_cpus": 0, "include_dashboard": False, "_system_config": FAST_DEATH, **SMALL})
    c.add_node(num_cpus=1, **SMALL)
    c.add_node(num_cpus=1, **SMALL)
    c.wait_for_nodes()
    yield c
    ray.shutdown()
    c.shutdown()
    if saved is None:
        os.environ.pop("RAY_AUTH_MODE", None)
    else:
        os.environ["RAY_AUTH_MODE"] = saved


def test_a_node_dies_mid_sweep_and_each_cell_game_index_is_still_there_exactly_once(cluster, tmp_path):
    spec = parse_spec(SPEC, source="node-loss.toml")
    out = tmp_path / "out"
    removed = []

    def lose_a_node(cell, batch):
        # after the first part (two equal 2-player parts started together): the node that finished has
        # already started its queued task and the other is mid-task, so either node dies with a task running
        if not removed:    # not the node the driver joined through (on one machine Ray may pick any)
            import ray
            driver_node = ray.get_runtime_context().get_node_id()
            node = next(n for n in cluster.worker_nodes if n.node_id != driver_node)
            cluster.remove_node(node, allow_graceful=False)
            removed.append(node)

    # the driver joins the cluster as `playtest sweep --address` does
    summary = run_sweep(spec, out, address=cluster.address, progress=False, on_part=lose_a_node)
    assert removed and len(cluster.worker_nodes) == 1
    assert (summary.parts, summary.games, summary.games_done) == (20, 60_000, 60_000)   # each part counted once
    n, distinct = duckdb.sql(f"SELECT count(*), count(DISTINCT (cell, game_index)) "
                             f"FROM read_parquet('{out}/games/*/*.parquet', hive_partitioning = true)").fetchall()[0]
    assert n == distinct == 60_000
    assert not [p for p in out.rglob("*") if ".tmp" in p.name and not p.name.startswith(".")]
    for cell in spec.cells:                    # the retried parts hold the engine's games for their seeds
        for batch in (0, 9):
            want = cell.match.play_batch(9, batch * 3000, 3000)["games"].replace_schema_metadata(None)
            got = pq.read_table(part_path(out, "games", cell.id, batch)).replace_schema_metadata(None)
            assert got.equals(want), (cell.id, batch)
