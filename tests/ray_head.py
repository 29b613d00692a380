"""Ray for the tests: the embedded runtime shared by every test that sweeps (``start_embedded_ray``, behind the
``ray_local`` fixture), a real `ray start` head node on loopback for the tests that join a cluster (token auth,
as docs/sweeps.md says a driver joining one needs): ``head_node_running()``, used by the ``head_node`` fixture
(tests/conftest.py), and a worker node that joins it on loopback and can be killed as a machine dies
(``worker_node_running``). Every process a `ray start` here starts lives in that command's own session, and only
those sessions are ever signalled."""

import contextlib
import json
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
    env = {**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_AUTH_MODE": "token", **extra}
    env.pop("RAY_ADDRESS", None)
    return env


def _stop(proc: subprocess.Popen) -> None:
    """Stops a `ray start --block` this module started: SIGTERM (it stops the processes it started), then whatever
    of its session outlived it (Ray's workers have process groups of their own). Only that process's own session is
    signalled, never `ray stop`."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        signal_session(proc.pid, signal.SIGKILL)
        proc.wait()
    signal_session(proc.pid, signal.SIGKILL)


def session_pids(sid: int) -> list[int]:
    """The live processes of session ``sid`` (from /proc)."""
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] not in ("Z", "X") and int(fields[3]) == sid:        # state, ppid, pgrp, session
                out.append(int(d.name))
    return out


def signal_session(sid: int, sig: int) -> None:
    """``sig`` to every live process of session ``sid`` (a session this module started)."""
    for pid in session_pids(sid):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


# `ray start` for a node that joins a cluster on loopback. With more than one node allowed
# (RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=1, without which `ray start --address` refuses), Ray replaces 127.0.0.1, in
# --address and --node-ip-address alike, by the machine's outward address, where the head (bound to 127.0.0.1)
# does not listen; this keeps the addresses as given, so the node and its traffic stay on loopback.
LOOPBACK_RAY = """
import sys
import ray._private.services as services
services.resolve_ip_for_localhost = lambda host: host
from ray.scripts.scripts import main
sys.argv[0] = "ray"
sys.exit(main())
"""


def _ray_start(args: list[str], log_path: Path, *, joins: bool = False) -> subprocess.Popen:
    ray_exe = shutil.which("ray", path=str(BIN))
    if ray_exe is None:
        pytest.skip("the ray command is not installed beside this Python")
    command = [sys.executable, "-c", LOOPBACK_RAY] if joins else [ray_exe]
    with open(log_path, "wb") as log:
        return subprocess.Popen([*command, "start", "--block", "--node-ip-address", "127.0.0.1", *args],
                                env=ray_env(**({"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "1"} if joins else {})),
                                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


def _log_tail(path: Path) -> str:
    return path.read_text(errors="replace")[-2000:] if path.exists() else ""


@contextlib.contextmanager
def head_node_running(num_cpus: int = 2, system_config: dict | None = None):
    """A `ray start --head --block` on loopback with its dashboard (its own ports and temp folder); yields its
    addresses. ``system_config``: Ray's settings for the cluster (e.g. how soon a silent node is declared dead).
    Stopped by signalling the `ray start --block` process this started, never `ray stop`."""
    gcs, dash, client, agent_listen, agent_grpc, metrics, runtime_env = free_ports(7)
    temp = tempfile.mkdtemp(prefix="rjob", dir="/tmp")      # short: Ray's socket paths live under it
    log = Path(temp) / "ray-start.log"
    extra = ["--system-config", json.dumps(system_config)] if system_config else []
    proc = _ray_start(
        ["--head", "--port", str(gcs),
         "--dashboard-host", "127.0.0.1", "--dashboard-port", str(dash), "--include-dashboard", "true",
         "--ray-client-server-port", str(client), "--dashboard-agent-listen-port", str(agent_listen),
         "--dashboard-agent-grpc-port", str(agent_grpc), "--metrics-export-port", str(metrics),
         "--runtime-env-agent-port", str(runtime_env), "--num-cpus", str(num_cpus), "--object-store-memory",
         str(128 * 2**20), "--disable-usage-stats", "--temp-dir", temp, *extra], log)
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
                    raise RuntimeError("ray start did not come up: " + _log_tail(log))
                time.sleep(0.3)
        yield HeadNode(dashboard=address, gcs=f"127.0.0.1:{gcs}")
    finally:
        _stop(proc)
        shutil.rmtree(temp, ignore_errors=True)


@dataclass
class WorkerNode:
    proc: subprocess.Popen  # the `ray start --block` process; its session holds the node's raylet and workers
    log: Path
    node_id: str            # Ray's id of the node

    def pids(self) -> list[int]:
        """The live processes of this node (its raylet, its agents and its Ray workers)."""
        return session_pids(self.proc.pid)

    def signal(self, sig: int) -> None:
        signal_session(self.proc.pid, sig)

    def kill(self) -> None:
        """The node dies at once, as a machine that loses power: SIGKILL to every process of its session."""
        deadline = time.monotonic() + 30
        while self.pids():
            assert time.monotonic() < deadline, f"the node's processes outlived SIGKILL: {self.pids()}"
            self.signal(signal.SIGKILL)
            time.sleep(0.05)
        self.proc.wait()


def cmdline(pid: int) -> str:
    """What process ``pid`` calls itself (a Ray worker: ``ray::play_part`` while it plays a part); "" once gone."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def nodes(head: HeadNode) -> dict[str, str] | None:
    """The cluster's nodes as its dashboard's state API lists them (token auth): node id -> ALIVE or DEAD; None while
    it does not answer."""
    token = (Path.home() / ".ray" / "auth_token").read_text().strip()
    request = urllib.request.Request(f"{head.dashboard}/api/v0/nodes?limit=100",
                                     headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            listed = json.load(r)["data"]["result"]["result"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return {n["node_id"]: n["state"] for n in listed}


@contextlib.contextmanager
def worker_node_running(head: HeadNode, num_cpus: int = 1):
    """A second node, `ray start --address HEAD --block` on loopback with its own ports; yields a WorkerNode once
    the cluster lists it alive. Stopped like the head (its own session only)."""
    deadline = time.monotonic() + 60
    while not (before := nodes(head)):                    # the head itself is listed first
        assert time.monotonic() < deadline, "the head's dashboard does not list its node"
        time.sleep(0.3)
    node, objects, metrics, agent_listen, agent_grpc, runtime_env = free_ports(6)
    log = Path(tempfile.mkdtemp(prefix="rnode", dir="/tmp")) / "ray-start.log"
    proc = _ray_start(
        ["--address", head.gcs, "--node-manager-port", str(node), "--object-manager-port", str(objects),
         "--metrics-export-port", str(metrics), "--dashboard-agent-listen-port", str(agent_listen),
         "--dashboard-agent-grpc-port", str(agent_grpc), "--runtime-env-agent-port", str(runtime_env),
         "--num-cpus", str(num_cpus), "--object-store-memory", str(80 * 2**20), "--disable-usage-stats"], log,
        joins=True)
    try:
        deadline = time.monotonic() + 120
        while not (joined := [n for n, state in (nodes(head) or {}).items() if n not in before and state == "ALIVE"]):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("ray start (a worker node) did not come up: " + _log_tail(log))
            time.sleep(0.3)
        worker = WorkerNode(proc, log, joined[0])
        yield worker
    finally:
        _stop(proc)
        shutil.rmtree(log.parent, ignore_errors=True)
