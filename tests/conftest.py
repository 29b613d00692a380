"""Shared fixtures: the packaged card data, and an embedded Ray for the modules that sweep."""

import os

import pytest

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")


def pytest_configure(config):
    """The results-signing key and the verified-hash cache (sim.folder) of this test run in a folder of its own,
    not the user's ~/.config and ~/.cache (subprocesses inherit them through the environment)."""
    import tempfile
    home = tempfile.mkdtemp(prefix="playtest-test-keys-")
    os.environ.setdefault("PLAYTEST_KEY_FILE", os.path.join(home, "results.key"))
    os.environ.setdefault("PLAYTEST_CACHE_DIR", os.path.join(home, "cache"))


@pytest.fixture(scope="session")
def cards():
    from sim.paws.cards import load_cards
    return load_cards()


@pytest.fixture(scope="module")
def ray_local():
    """An embedded 2-CPU Ray on loopback for one test module; a runtime already running is used as it is."""
    import ray
    if ray.is_initialized():
        yield ray
        return
    ray.init(address="local", num_cpus=2, include_dashboard=False, logging_level="ERROR",
             object_store_memory=128 * 2**20)
    yield ray
    ray.shutdown()


@pytest.fixture
def head_node():
    """A `ray start --head` on loopback with its dashboard (tests/ray_head.py); yields its addresses."""
    from ray_head import head_node_running
    with head_node_running() as head:
        yield head
