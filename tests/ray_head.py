"""Ray for the tests: the embedded runtime shared by every test that sweeps (``start_embedded_ray``, behind the
``ray_local`` fixture), and a real `ray start` head node on loopback for the tests that join a cluster (token auth,
as docs/sweeps.md says a driver joining one needs): ``head_node_running()``, used by the ``head_node`` fixture
(tests/conftest.py)."""

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
_OWN_RAY: list[bool] = []      # whether this test process started the embedded Ray (and so may stop it)


def start_embedded_ray() -> None:
    """The embedded 2-CPU Ray on loopback, started if no runtime is up in this process."""
    import ray
    if not ray.is_initialized():
        ray.init(address="local", num_cpus=2, include_dashboard=False, logging_level="ERROR",
                 object_store_memory=128 * 2**20)
        _OWN_RAY.append(True)


def stop_embedded_ray() -> None:
    """Stops the embedded Ray if this process started it (a runtime of anybody else's is left alone)."""
    if _OWN_RAY:
        import ray
        if ray.is_initialized():
            ray.shutdown()
        _OWN_RAY.clear()


@dataclass(frozen=True)
class HeadNode:
    dashboard: str          # http://127.0.0.1:PORT (ray job submit --address)
    gcs: str                # 127.0.0.1:PORT (a driver's --address)


def free_ports(n: int) -> list[int]:
    with ExitStack() as stack:
        socks = [stack.enter_context(socket.create_server(("127.0.0.1", 0))) for _ in range(n)]
        return [s.getsockname()[1] for s in socks]


def ray_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ, RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0", RAY_AUTH_MODE="token", **extra)
    env.pop("RAY_ADDRESS", None)
    return env


@contextlib.contextmanager
def head_node_running():
    """A `ray start --head --block` on loopback with its dashboard (its own ports and temp folder); yields its
    addresses. Stopped by signalling the `ray start --block` process this started, never `ray stop`."""
    ray_exe = shutil.which("ray", path=str(BIN))
    if ray_exe is None:
        pytest.skip("the ray command is not installed beside this Python")
    gcs, dash, client, agent_listen, agent_grpc, metrics, runtime_env = free_ports(7)
    temp = tempfile.mkdtemp(prefix="rjob", dir="/tmp")      # short: Ray's socket paths live under it
    log = open(Path(temp) / "ray-start.log", "wb")
    proc = subprocess.Popen(
        [ray_exe, "start", "--head", "--block", "--node-ip-address", "127.0.0.1", "--port", str(gcs),
         "--dashboard-host", "127.0.0.1", "--dashboard-port", str(dash), "--include-dashboard", "true",
         "--ray-client-server-port", str(client), "--dashboard-agent-listen-port", str(agent_listen),
         "--dashboard-agent-grpc-port", str(agent_grpc), "--metrics-export-port", str(metrics),
         "--runtime-env-agent-port", str(runtime_env), "--num-cpus", "2", "--object-store-memory",
         str(128 * 2**20), "--disable-usage-stats", "--temp-dir", temp],
        env=ray_env(), stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    address = f"http://127.0.0.1:{dash}"
    try:
        deadline = time.monotonic() + 120
        while True:                            # up once the dashboard answers (401 without a token is an answer)
            try:
                urllib.request.urlopen(f"{address}/api/version", timeout=2).close()
                break
            except urllib.error.HTTPError:
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    log.flush()
                    raise RuntimeError("ray start did not come up: "
                                       + (Path(temp) / "ray-start.log").read_text(errors="replace")[-2000:])
                time.sleep(0.3)
        yield HeadNode(dashboard=address, gcs=f"127.0.0.1:{gcs}")
    finally:
        proc.send_signal(signal.SIGTERM)        # `ray start --block` stops the processes it started
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        try:                                    # anything of this head's session that outlived it
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        log.close()
        shutil.rmtree(temp, ignore_errors=True)
