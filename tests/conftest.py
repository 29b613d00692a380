"""Shared fixtures: the packaged card data, an embedded Ray for the modules that sweep, a `ray start` head node and an
S3-compatible server on loopback."""

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")


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
