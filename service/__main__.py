"""``python -m service``: what ``playtest serve`` runs (cli/serve.py calls :func:`main` once its options are
checked). Starts the app on uvicorn, or adds a user (or gives one a new token) and prints its token once. Bad input
is one line on stderr and exit code 2."""

from __future__ import annotations

import argparse
import ipaddress
import math
import os
import socket
import sqlite3
import sys
from pathlib import Path

from queries.connection import READ_ONLY_MEMORY_GIB, READ_ONLY_TIMEOUT
from service.catalog import ROLES, Catalog, CatalogError

DEFAULT_PORT = 8321
# the SQL console's limits per statement: those of SQL one did not write (as playtest sql --read-only's)
CONSOLE_SECONDS, CONSOLE_MEMORY_GIB, CONSOLE_ROWS = READ_ONLY_TIMEOUT, READ_ONLY_MEMORY_GIB, 1000
CONSOLE_RANGES = {"--console-seconds": (1, 3600), "--console-memory": (0.25, 1024), "--console-rows": (1, 100_000)}


def console_problem(seconds: float, memory_gib: float, rows: int) -> str | None:
    """One line naming the console limit that is out of range (playtest serve checks them too), else None."""
    for flag, value in (("--console-seconds", seconds), ("--console-memory", memory_gib), ("--console-rows", rows)):
        low, high = CONSOLE_RANGES[flag]
        if not (math.isfinite(value) and low <= value <= high):
            kind = "an integer" if flag == "--console-rows" else "a number"
            return f"{flag} {value:g} is out of range; expected {kind} from {low:g} to {high:g}"
    return None


JOB_TIME_LIMIT_RANGE = (60, 30 * 86_400)       # seconds a job may be given (--job-time-limit), or 0 for none


def job_time_limit_problem(seconds: float | None) -> str | None:
    """One line when ``--job-time-limit`` is out of range (playtest serve checks it too), else None."""
    low, high = JOB_TIME_LIMIT_RANGE
    if seconds is None or math.isfinite(seconds) and (seconds == 0 or low <= seconds <= high):
        return None
    return (f"--job-time-limit {seconds:g} is out of range; expected seconds from {low} to {high} (30 days), "
            "or 0 for none")


class _Args(argparse.ArgumentParser):
    def error(self, message: str):          # one line, exit 2 (argparse would print its usage first)
        print(f"error: {message} (playtest serve --help lists what is allowed)", file=sys.stderr)
        sys.exit(2)


def parse(argv: list[str]) -> argparse.Namespace:
    p = _Args(prog="playtest serve", add_help=False)
    p.add_argument("--root", default="playtest-service")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=DEFAULT_PORT)
    p.add_argument("--workers", type=int, default=None)
    p.add_argument("--address", default=None)
    p.add_argument("--results", default=None)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--max-queued", type=int, default=5)
    p.add_argument("--submit-per-minute", type=int, default=10)
    p.add_argument("--checks-per-minute", type=int, default=30)
    p.add_argument("--console-seconds", type=float, default=CONSOLE_SECONDS)
    p.add_argument("--console-memory", type=float, default=CONSOLE_MEMORY_GIB)
    p.add_argument("--console-rows", type=int, default=CONSOLE_ROWS)
    p.add_argument("--add-user", default=None)
    p.add_argument("--role", default="read")
    p.add_argument("--rotate-token", default=None)
    p.add_argument("--trust-proxy", default=None)
    p.add_argument("--job-time-limit", type=float, default=None)
    p.add_argument("--base-url", default=None)
    p.add_argument("--secure-cookies", action="store_true")
    return p.parse_args(argv)


def trusted_proxies(value: str | None) -> list[str]:
    """``--trust-proxy ADDR[,ADDR...]``: the addresses (or networks, CIDR) of the reverse proxies whose
    ``X-Forwarded-For`` and ``X-Forwarded-Proto`` the service believes; a ValueError of one line otherwise."""
    if value is None:
        return []
    out = []
    for item in value.split(","):
        item = item.strip()
        try:
            out.append(str(ipaddress.ip_network(item, strict=False)))
        except ValueError:
            raise ValueError(f"--trust-proxy {item[:100]!r}: expected the proxy's IP address or network (e.g. "
                             "127.0.0.1 or 10.0.0.0/8), comma-separated; '*' and host names are not allowed") from None
    return out


def server_config(app, host: str, port: int, trust_proxy: list[str], log_level: str = "warning"):
    """uvicorn's configuration of the service: proxy headers believed only from ``trust_proxy`` (uvicorn's own
    default believes them from 127.0.0.1, so any local client could name any address and dodge the login limit)."""
    import uvicorn
    return uvicorn.Config(app, host=host, port=port, log_level=log_level, proxy_headers=bool(trust_proxy),
                          forwarded_allow_ips=trust_proxy or [], server_header=False)


def base_url_of(given: str | None, host: str, port: int) -> str:
    """The service's own URL for its links: ``--base-url`` checked (http or https, a host, no query or fragment; a
    ValueError of one line otherwise), else ``http://HOST:PORT`` of where it listens, else "" (relative links) when
    it listens on every address (0.0.0.0, ::), whose URL it cannot know."""
    from urllib.parse import urlsplit
    if given is None:
        if host in ("0.0.0.0", "::", ""):
            return ""
        return f"http://{'[' + host + ']' if ':' in host else host}:{port}"
    try:
        u = urlsplit(given)
        ok = u.scheme in ("http", "https") and bool(u.hostname) and not u.query and not u.fragment and u.port != 0
    except ValueError:
        ok = False
    if not ok or any(ch.isspace() or not ch.isprintable() for ch in given) or len(given) > 300:
        raise ValueError(f"--base-url {given[:100]!r}: expected the service's URL as its users reach it, "
                         "http(s)://HOST[:PORT][/PATH] (no query)")
    return given.rstrip("/")


def fail(message: str) -> None:
    print(f"error: {' '.join(message.split())}", file=sys.stderr)
    sys.exit(2)


def address_error(address: str) -> str | None:
    """The one line refusing a ``--address`` that is not HOST:PORT or that nothing answers at (checked before the
    service starts, so a typo is not found by the first job); None when a Ray cluster's head answers there."""
    host, _, port = address.rpartition(":")
    host = host.strip("[]")
    if not host or not port.isdigit() or not 1 <= int(port) <= 65535 or len(address) > 300 \
            or not all(ch.isalnum() or ch in ".-:_" for ch in host):
        return f"--address {address[:100]!r}: expected HOST:PORT of a Ray cluster's head (e.g. 127.0.0.1:6379)"
    try:
        socket.create_connection((host, int(port)), timeout=5).close()
    except OSError as e:
        return (f"--address {address}: nothing answers there ({e.strerror or e}); is the head node started "
                "(ray start --head) and the port open?")
    return None


def results_error(results: str) -> str | None:
    """The one line refusing a ``--results`` that is not an ``s3://BUCKET/PREFIX`` whose bucket answers (checked
    before the service starts); None when it is one."""
    from infra.storage import StorageError, is_uri, open_location
    if not results.lower().startswith("s3://") or not is_uri(results):
        return (f"--results {results[:100]!r}: expected s3://BUCKET/PREFIX (object storage; local results live in "
                "--root)")
    try:
        open_location(results, probe=True)
    except StorageError as e:
        return f"--results: {e}"
    return None


def main(argv: list[str] | None = None) -> int:
    a = parse(sys.argv[1:] if argv is None else argv)
    root = Path(a.root)
    if root.exists() and not root.is_dir():
        fail(f"--root {root}: not a folder")
    for flag, value, low, high in (("--port", a.port, 1, 65535), ("--jobs", a.jobs, 1, 64),
                                   ("--max-queued", a.max_queued, 1, 10_000),
                                   ("--submit-per-minute", a.submit_per_minute, 1, 10_000),
                                   ("--checks-per-minute", a.checks_per_minute, 1, 10_000)):
        if not low <= value <= high:
            fail(f"{flag} {value} is out of range; expected an integer from {low} to {high}")
    if (bad := job_time_limit_problem(a.job_time_limit)) is not None:
        fail(bad)
    if a.workers is not None and not 1 <= a.workers <= 4096:
        fail(f"--workers {a.workers} is out of range; expected an integer from 1 to 4096")
    if (bad := console_problem(a.console_seconds, a.console_memory, a.console_rows)) is not None:
        fail(bad)
    if a.address is not None and (bad := address_error(a.address)) is not None:
        fail(bad)
    if a.results is not None and (bad := results_error(a.results)) is not None:
        fail(bad)
    try:
        proxies = trusted_proxies(a.trust_proxy)
        base = base_url_of(a.base_url, a.host, a.port)
    except ValueError as e:
        fail(str(e))
    if a.add_user is not None and a.rotate_token is not None:
        fail("--add-user and --rotate-token: give one of them")
    if a.rotate_token is not None:
        if not (root / "service.sqlite").is_file():
            fail(f"--rotate-token: no service catalog in {root} (add a user first: --add-user NAME --role admin)")
        try:
            catalog = Catalog(root / "service.sqlite")
            try:
                token = catalog.rotate_token(a.rotate_token)
                catalog.audit("service", "rotate-token", None, f"{a.rotate_token} from the command line")
            finally:
                catalog.close()
        except (CatalogError, OSError) as e:
            fail(f"--rotate-token: {e}")
        print(f"user {a.rotate_token}: a new token, shown this once (the old one no longer works, its sessions "
              "ended; keep it secret):", file=sys.stderr)
        print(token)
        return 0
    if a.add_user is not None:
        if a.role not in ROLES:
            fail(f"--role {a.role!r}: expected one of {', '.join(ROLES)}")
        try:
            root.mkdir(parents=True, exist_ok=True)
            catalog = Catalog(root / "service.sqlite")
            token = catalog.add_user(a.add_user, a.role)
            catalog.audit("service", "add-user", None, f"{a.add_user} ({a.role}) from the command line")
            catalog.close()
        except (CatalogError, OSError) as e:
            fail(f"--add-user: {e}")
        print(f"user {a.add_user} ({a.role}) added; its token, shown this once (keep it secret):", file=sys.stderr)
        print(token)
        return 0
    try:
        loopback = ipaddress.ip_address(a.host).is_loopback
    except ValueError:
        loopback = a.host == "localhost"
    if not loopback:
        print(f"warning: --host {a.host} is not loopback: anyone who reaches it sees the login page; put the "
              "service behind TLS (docs/service.md)", file=sys.stderr)
    from service.app import Settings, create_app
    from service.deps import JOB_TIME_LIMIT_S
    from service.console import ConsoleLimits
    from service.rootlock import Held, RootLock
    root.mkdir(parents=True, exist_ok=True)
    try:                   # one service per root (service/rootlock.py): before the catalog opens or a job is resumed
        lock = RootLock(root).acquire()
    except Held as e:
        fail(str(e))
    except OSError as e:
        fail(f"--root {root}: cannot take its lock ({e.strerror or e})")
    try:                   # the catalog opens (and migrates) here: a catalog from newer code is one line
        app = create_app(Settings(root=root, jobs=a.jobs, workers=a.workers, address=a.address, results=a.results or "",
                                  max_queued=a.max_queued, submit_per_minute=a.submit_per_minute,
                                  checks_per_minute=a.checks_per_minute,
                                  console_limits=ConsoleLimits(timeout=a.console_seconds, memory_gib=a.console_memory,
                                                               max_rows=a.console_rows),
                                  job_time_limit_s=JOB_TIME_LIMIT_S if a.job_time_limit is None
                                  else a.job_time_limit or None, base_url=base,
                                  secure_cookies=a.secure_cookies or base.startswith("https://")))
    except (CatalogError, OSError, sqlite3.Error) as e:
        fail(f"--root {root}: {e}")
    if not app.state.catalog.users():
        print(f"warning: no users yet: add one with playtest serve --root {root} --add-user NAME --role admin",
              file=sys.stderr)
    print(f"playtest serve: http://{a.host}:{a.port}/ (results in {root.resolve()}; Ctrl-C stops it, a running job "
          "resumes at the next start)", file=sys.stderr, flush=True)
    import uvicorn
    log_level = os.environ.get("PLAYTEST_SERVE_LOG", "warning")
    server = uvicorn.Server(server_config(app, a.host, a.port, proxies, log_level))
    try:
        server.run()
    finally:
        lock.release()
    return 0 if server.started else 3           # as uvicorn.run: it could not start (its log line says why)


if __name__ == "__main__":
    sys.exit(main())
