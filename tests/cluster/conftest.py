"""A real S3-compatible server on loopback for the object-storage tests: moto's standalone server."""

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

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
