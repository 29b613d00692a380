"""Proxy headers are believed only from the proxy the admin names (``playtest serve --trust-proxy ADDR``; by default
nobody's), so a client cannot dodge the failed-login limit by naming another address in ``X-Forwarded-For``: the
limit is kept per real peer. Against a real ``playtest serve`` on loopback."""

from __future__ import annotations

import subprocess
import sys
from contextlib import contextmanager

import httpx
import pytest
from service_helpers import free_port, serve, stop

from service.manage import LOGIN_FAILURES

pytestmark = pytest.mark.service

SERVE = [sys.executable, "-m", "service"]


@contextmanager
def started(tmp_path, *extra: str):
    """(its url, a read user's token) of a ``playtest serve`` with the flags ``extra``, stopped at the end."""
    root = tmp_path / "root"
    token = subprocess.run([*SERVE, "--root", str(root), "--add-user", "ann", "--role", "read"], check=True,
                           capture_output=True, text=True, timeout=60).stdout.strip()
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    proc = serve([*SERVE, "--root", str(root), "--port", str(port), *extra], url)
    try:
        yield url, token
    finally:
        stop(proc)


def runs(url: str, token: str, forwarded: str) -> int:
    return httpx.get(f"{url}/api/runs", headers={"Authorization": f"Bearer {token}", "X-Forwarded-For": forwarded},
                     timeout=30).status_code


# by default nobody is trusted; a proxy the admin names is trusted only when it is the peer
@pytest.mark.parametrize("trust", [(), ("--trust-proxy", "10.1.2.3")], ids=["by-default", "another-proxy-trusted"])
def test_x_forwarded_for_from_a_peer_not_trusted_is_not_believed_and_the_limit_holds(tmp_path, trust):
    with started(tmp_path, *trust) as (url, token):
        for n in range(LOGIN_FAILURES):                # each guess names another address
            assert runs(url, "pt_wrong", f"10.0.{n}.1") == 401
        assert runs(url, token, "10.9.9.9") == 429     # the real peer (127.0.0.1) is the one that guessed


def test_a_trusted_proxys_forwarded_address_is_the_clients(tmp_path):
    with started(tmp_path, "--trust-proxy", "127.0.0.1") as (url, token):
        for _ in range(LOGIN_FAILURES):
            assert runs(url, "pt_wrong", "10.0.0.1") == 401
        assert runs(url, token, "10.0.0.1") == 429     # the guesser, behind the proxy
        assert runs(url, token, "10.0.0.2") == 200     # another client of the same proxy is not locked out


@pytest.mark.parametrize("bad", ["*", "proxy.example", "10.0.0.1,*", "", "300.1.1.1"])
def test_a_bad_trust_proxy_is_one_line_and_exit_2(tmp_path, bad):
    r = subprocess.run([*SERVE, "--root", str(tmp_path / "root"), "--trust-proxy", bad], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "--trust-proxy" in r.stderr and "expected the proxy's IP address or network" in r.stderr
    assert not (tmp_path / "root" / "service.sqlite").exists()
