"""Shared fixtures: the packaged card data, one embedded Ray for the tests that sweep, a `ray start` head node and an
S3-compatible server on loopback; the test markers and the Hypothesis profiles (docs/developing.md).

Plain ``pytest`` is the fast loop: it leaves out the tests marked ``slow`` (pyproject.toml's addopts); CI runs every
test (``-m "slow or not slow"``, the ``ci`` Hypothesis profile). Under pytest-xdist the tests that use Ray run on one
worker (the ``ray`` group), one Ray for all of them, and so do the browser tests (the ``browser`` group); every other
module's tests run on one worker each, so its module fixtures (a played sweep, a started service) are built once."""

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import settings

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")


def _click_command_built_once_per_app():
    """typer's test runner builds the app's click command anew on every ``invoke`` (it inspects every command's
    signature: about 0.19 s a call for ``playtest``, two thirds of a typical CLI test); the tests build it once per
    app. The app is fully registered at import and never changed after, so the cached command is the same one a
    fresh build would give. tests/test_cli_runner.py checks that the cache is in effect."""
    import functools
    import typer.main
    import typer.testing
    typer.testing._get_command = functools.cache(typer.main.get_command)


_click_command_built_once_per_app()


def pytest_configure(config):
    """The results-signing key and the verified-hash cache (infra.folder) of this test run in a folder of its own,
    not the user's ~/.config and ~/.cache (subprocesses inherit them through the environment)."""
    import tempfile
    home = tempfile.mkdtemp(prefix="playtest-test-keys-")
    os.environ.setdefault("PLAYTEST_KEY_FILE", os.path.join(home, "results.key"))
    os.environ.setdefault("PLAYTEST_CACHE_DIR", os.path.join(home, "cache"))


@pytest.fixture(scope="session")
def cards():
    from sim.paws.cards import load_cards
    return load_cards()


# Hypothesis: ``dev`` (the default) plays a tenth of each test's examples, ``ci`` all of them; a test that raises its
# count writes ``max_examples=examples(N)`` (tests/budget.py), N being the count CI plays.
settings.register_profile("ci", max_examples=100, deadline=None)
settings.register_profile("dev", max_examples=10, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

RAY_FIXTURES = {"ray_local", "head_node"}


def pytest_xdist_auto_num_workers(config):
    """``-n auto``: a worker a core for the fast loop; one more when the slow tests run too (CI), whose clusters,
    killed services and restarts leave a core idle for about a third of their time while they wait on processes."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return cores if config.option.markexpr == "not slow" else cores + 1


@pytest.hookimpl(tryfirst=True)          # before pytest-xdist reads the groups
def pytest_collection_modifyitems(config, items):
    """Tests that use Ray are marked ``ray`` and grouped on one xdist worker (one Ray for them all, never two Ray
    runtimes competing for two cores); browser tests likewise share the ``browser`` worker; the rest are grouped by
    module."""
    for item in items:
        if RAY_FIXTURES & set(getattr(item, "fixturenames", ())) or item.get_closest_marker("ray"):
            item.add_marker(pytest.mark.ray)
            item.add_marker(pytest.mark.xdist_group("ray"))
        elif item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.xdist_group("browser"))
        else:                                     # a module's tests on one worker: its module fixtures built once
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::", 1)[0]))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """A test that asks for Ray finds it running; one that does not runs without the embedded one (driver play, the
    fallback, tests that connect to a cluster of their own): it is stopped before any of the test's fixtures, and
    started again when a test asks."""
    from ray_head import start_embedded_ray, stop_embedded_ray
    if "ray_local" in getattr(item, "fixturenames", ()):
        start_embedded_ray()
    else:
        stop_embedded_ray()


@pytest.fixture(scope="session", autouse=True)
def _embedded_ray_ends_with_the_session():
    yield
    from ray_head import stop_embedded_ray
    stop_embedded_ray()


@pytest.fixture(scope="module")
def ray_local():
    """The embedded 2-CPU Ray on loopback (tests/ray_head.py), started by the first module that asks and kept for
    the next ones; a runtime the test process did not start is used as it is."""
    import ray
    from ray_head import start_embedded_ray
    start_embedded_ray()
    yield ray


@pytest.fixture
def head_node():
    """A `ray start --head` on loopback with its dashboard (tests/ray_head.py); yields its addresses."""
    from ray_head import head_node_running
    with head_node_running() as head:
        yield head


# A real S3-compatible server on loopback for the object-storage tests: moto's standalone server.
# dummy credentials, set before any Ray starts so its workers inherit them (moto accepts any); no instance
# metadata look-up
for key, value in (("AWS_ACCESS_KEY_ID", "testing"), ("AWS_SECRET_ACCESS_KEY", "testing"),
                   ("AWS_DEFAULT_REGION", "us-east-1"), ("AWS_EC2_METADATA_DISABLED", "true")):
    os.environ.setdefault(key, value)


class S3Server:
    def __init__(self, port: int):
        self.port = port
        self.endpoint = f"http://127.0.0.1:{port}"
        self.query = f"endpoint_override=127.0.0.1:{port}&scheme=http"

    def uri(self, bucket: str, prefix: str) -> str:
        """``s3://bucket/prefix`` on this server (its endpoint in the URI: workers get it with the URI)."""
        return f"s3://{bucket}/{prefix}?{self.query}"

    def client(self):
        import boto3
        return boto3.client("s3", endpoint_url=self.endpoint, region_name="us-east-1")

    def bucket(self, name: str) -> str:
        self.client().create_bucket(Bucket=name)
        return name

    def keys(self, bucket: str, prefix: str = "") -> dict[str, bytes]:
        c = self.client()
        out = {}
        for page in c.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
            for o in page.get("Contents", []):
                out[o["Key"]] = c.get_object(Bucket=bucket, Key=o["Key"])["Body"].read()
        return out


@pytest.fixture(scope="session")
def s3_server():
    """moto_server on 127.0.0.1 on a free port, stopped at the end of the session."""
    pytest.importorskip("moto")
    exe = shutil.which("moto_server", path=str(Path(sys.executable).parent)) or shutil.which("moto_server")
    if exe is None:
        pytest.skip("moto[server] is not installed")
    with socket.create_server(("127.0.0.1", 0)) as s:
        port = s.getsockname()[1]
    proc = subprocess.Popen([exe, "-H", "127.0.0.1", "-p", str(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("moto_server did not start")
                time.sleep(0.1)
        yield S3Server(port)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
