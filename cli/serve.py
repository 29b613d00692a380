"""``playtest serve`` (the web service, docs/service.md) and ``playtest submit`` (its command-line client). The service
is the layer just below the command line (tests/test_layers.py): ``serve`` checks its options and runs the service's
own entry point (service/__main__.py) in this process; ``submit`` speaks the service's JSON API over HTTP (httpx)."""

from __future__ import annotations

import json
import math
import os
import threading
import time
import unicodedata
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from cli.common import check_range, fail

ROLES = ("read", "edit", "admin")          # the service's roles (service/catalog.py)
MAX_SPEC = 256 * 1024                      # the most the service accepts (service/specs.py)
REQUEST_S = 60.0                           # one request, headers and body, at most this long (--request-timeout)
MAX_ANSWER = 8 * 2**20                     # bytes of one answer, at most (a run's JSON with its summary is a few kB)
MAX_REDIRECTS = 5                          # redirects followed, each to the service's own scheme, host and port
RUN_STATES = ("queued", "running", "done", "failed", "cancelled")


def serve(root: Annotated[Path, typer.Option(help="the results root: runs in ROOT/runs/<id>, the catalog in "
                                                  "ROOT/service.sqlite")] = Path("playtest-service"),
          host: Annotated[str, typer.Option(help="the address to listen on (loopback by default)")] = "127.0.0.1",
          port: Annotated[int, typer.Option(help="the port to listen on")] = 8321,
          workers: Annotated[Optional[int], typer.Option(help="each sweep's --workers (default: all cores)")] = None,
          jobs: Annotated[int, typer.Option(help="jobs run at once")] = 1,
          address: Annotated[Optional[str], typer.Option(help="HOST:PORT of a running Ray cluster the jobs run on "
                                                             "(default: each job starts Ray on this machine)")] = None,
          results: Annotated[Optional[str], typer.Option(help="the sweeps' results root on object storage, "
                                                             "s3://BUCKET/PREFIX (default: ROOT/runs)")] = None,
          max_queued: Annotated[int, typer.Option(help="queued jobs per user, at most")] = 5,
          submit_per_minute: Annotated[int, typer.Option(help="submissions per user per minute, at most")] = 10,
          checks_per_minute: Annotated[int, typer.Option(help="checks of a job's cost (each plays a pilot game) per "
                                                         "user per minute, at most")] = 30,
          console_seconds: Annotated[float, typer.Option(help="the SQL console's time limit per statement, seconds "
                                                         "(1 to 3600)")] = 10.0,
          console_memory: Annotated[float, typer.Option(help="the SQL console's memory limit per statement, GiB "
                                                        "(0.25 to 1024)")] = 1.0,
          console_rows: Annotated[int, typer.Option(help="the most rows the SQL console shows (1 to 100000)")] = 1000,
          add_user: Annotated[Optional[str], typer.Option(help="add a user NAME, print its API token once and exit")]
          = None,
          role: Annotated[str, typer.Option(help="with --add-user: read, edit or admin")] = "read",
          rotate_token: Annotated[Optional[str], typer.Option(help="give user NAME a new API token, print it once "
                                                              "and exit (the old one stops working)")] = None,
          job_time_limit: Annotated[Optional[float], typer.Option(help="a job's time limit in seconds, 60 to "
                                                                  "2592000, or 0 for none; a job past it fails "
                                                                  "(default 86400: a day)")] = None,
          base_url: Annotated[Optional[str], typer.Option(help="the service's URL as its users reach it, for the "
                                                          "links it gives (default: http://HOST:PORT)")] = None,
          secure_cookies: Annotated[bool, typer.Option(help="send the session cookies over HTTPS only (behind a "
                                                         "TLS proxy; implied by an https --base-url)")] = False,
          trust_proxy: Annotated[Optional[str], typer.Option(help="the reverse proxy's address ADDR (or network, "
                                                             "comma-separated): only its X-Forwarded-For is "
                                                             "believed (default: nobody's)")] = None) -> None:
    """The web service: a queue of sweeps from specs, run pages, reports and verdict cards, users with roles."""
    check_range("--port", port, 1, 65535)
    check_range("--jobs", jobs, 1, 64)
    check_range("--max-queued", max_queued, 1, 10_000)
    check_range("--submit-per-minute", submit_per_minute, 1, 10_000)
    check_range("--checks-per-minute", checks_per_minute, 1, 10_000)
    check_range("--workers", workers, 1, 4096)
    from service.__main__ import console_problem, job_time_limit_problem
    if (bad := console_problem(console_seconds, console_memory, console_rows)) is not None:
        fail(bad)
    if (bad := job_time_limit_problem(job_time_limit)) is not None:
        fail(bad)
    if add_user is not None and role not in ROLES:
        fail(f"--role {role!r}: expected one of {', '.join(ROLES)}")
    if root.exists() and not root.is_dir():
        fail(f"--root {root}: not a folder")
    args = ["--root", str(root), "--host", host, "--port", str(port), "--jobs", str(jobs), "--max-queued",
            str(max_queued), "--submit-per-minute", str(submit_per_minute), "--checks-per-minute",
            str(checks_per_minute), "--console-seconds", repr(console_seconds),
            "--console-memory", repr(console_memory), "--console-rows", str(console_rows)]
    if workers is not None:
        args += ["--workers", str(workers)]
    if address is not None:
        args += ["--address", address]
    if results is not None:
        args += ["--results", results]
    if add_user is not None:
        args += ["--add-user", add_user, "--role", role]
    if rotate_token is not None:
        args += ["--rotate-token", rotate_token]
    if trust_proxy is not None:
        args += ["--trust-proxy", trust_proxy]
    if base_url is not None:
        args += ["--base-url", base_url]
    if secure_cookies:
        args.append("--secure-cookies")
    if job_time_limit is not None:
        args += ["--job-time-limit", repr(job_time_limit)]
    from service.__main__ import main
    raise typer.Exit(main(args))


def submit(spec: Annotated[Optional[Path], typer.Argument(help="a sweep spec (TOML; docs/sweeps.md); left out for "
                                                             "another --kind")] = None,
           server: Annotated[str, typer.Option(help="the service's URL, e.g. http://127.0.0.1:8321")] = "",
           token: Annotated[Optional[str], typer.Option(help="your API token (default: $PLAYTEST_TOKEN)")] = None,
           title: Annotated[Optional[str], typer.Option(help="the run's title (default: the spec's name)")] = None,
           description: Annotated[str, typer.Option(help="the run's description")] = "",
           kind: Annotated[str, typer.Option(help="the job kind: sweep, compare, ladder, report, regress, tune "
                                                  "(docs/service.md)")] = "sweep",
           field: Annotated[Optional[list[str]], typer.Option(
               "--field", help="one of the kind's fields, NAME=VALUE, or NAME=@FILE for a file's text (repeatable), "
                               "e.g. --kind compare --field a=RUN --field b=RUN")] = None,
           card: Annotated[Optional[list[Path]], typer.Option(
               "--card", help="a card file the spec names in [data], sent by its file name (repeatable)")] = None,
           wait: Annotated[bool, typer.Option(help="wait for the run to end and print its report's summary")] = False,
           timeout: Annotated[float, typer.Option(help="with --wait: give up after this many seconds")] = 86_400.0,
           request_timeout: Annotated[float, typer.Option(help="give up on one request to the service after this "
                                                          "many seconds in all (1 to 3600)")] = REQUEST_S
           ) -> None:
    """Submit a job to a playtest service (a sweep spec, or --kind with its --field values); prints the run's URL
    (with --wait, its summary when done).

    Exit code: 0 (queued; with --wait: done), 1 (with --wait: failed or cancelled), 2 (bad input, refused)."""
    if not (math.isfinite(request_timeout) and 1 <= request_timeout <= 3600):
        fail(f"--request-timeout {request_timeout:g} is out of range; expected seconds from 1 to 3600")
    if not (math.isfinite(timeout) and 1 <= timeout <= 30 * 86_400):
        fail(f"--timeout {timeout:g} is out of range; expected seconds from 1 to 2592000 (30 days)")
    token = token or os.environ.get("PLAYTEST_TOKEN")
    if not token:
        fail("give your API token: --token TOKEN or PLAYTEST_TOKEN (an admin makes one with playtest serve "
             "--add-user NAME --role edit)")
    if not server.startswith(("http://", "https://")):
        fail(f"--server {server!r}: expected an http:// or https:// URL")
    body: dict = {"kind": kind, **_fields(field or [])}
    if spec is not None:
        body["spec"] = _text_of(spec, "the spec")
    elif kind == "sweep" and "spec" not in body:
        fail("give a sweep spec file (playtest submit SPEC), or --kind KIND with its --field values")
    if card:
        body["cards"] = {}
        for path in card:
            if path.name in body["cards"]:
                fail(f"--card {path}: a second card file named {path.name}; the spec names card files by file name")
            body["cards"][path.name] = _text_of(path, "a card file")
    body.update(title=title or "", description=description)
    base = server.rstrip("/")
    service = Service(base, token, request_timeout)
    try:
        run = service.call("POST", "/api/runs", json=body)
        from service.catalog import JOB_ID
        job, url = run.get("id"), run.get("url")
        if not isinstance(job, str) or not JOB_ID.fullmatch(job) or not isinstance(url, str):
            fail(f"{base}: the service's answer is not a queued run (no id and url): {_shown(run)}")
        url = _line(url if url.startswith(("http://", "https://")) else f"{base}/{url.lstrip('/')}")
        typer.echo(url)
        if not wait:
            return
        deadline = time.monotonic() + timeout
        while True:
            got = service.call("GET", f"/api/runs/{job}", deadline=deadline)
            state = got.get("state")
            if state not in RUN_STATES:
                fail(f"{base}: the service's answer is not a run's state: {_shown(got)}")
            if state not in ("queued", "running"):
                break
            if time.monotonic() > deadline:
                fail(f"{_line(url)}: still {state} after {timeout:g} s (it goes on; look again later)")
            time.sleep(1.0)
    finally:
        service.close()
    if state != "done":
        error = got.get("error")
        typer.echo(f"run {state}" + (f": {_line(error)[:500]}" if isinstance(error, str) and error else ""),
                   err=True)
        raise typer.Exit(code=1)
    summary = got.get("summary")
    typer.echo(_clean(summary if isinstance(summary, str) else "").rstrip("\n"))
    report = got.get("report_url")
    if isinstance(report, str):
        typer.echo(f"the report: {_line(report if report.startswith(('http://', 'https://')) else base + report)}")


def _text_of(path: Path, what: str) -> str:
    """A file's text to send (a spec, a card file, a suite): at most MAX_SPEC bytes of UTF-8."""
    if not path.is_file():
        fail(f"{path}: no such file ({what})")
    if path.stat().st_size > MAX_SPEC:
        fail(f"{path}: {path.stat().st_size:,} bytes; the service accepts {what} of at most {MAX_SPEC:,}")
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        fail(f"{path}: cannot read it as UTF-8 text ({e})")


def _fields(items: list[str]) -> dict[str, str]:
    """``--field NAME=VALUE`` (or ``NAME=@FILE``, the file's text) as the API body's keys."""
    out = {}
    for item in items:
        name, eq, value = item.partition("=")
        if not eq or not name.strip():
            fail(f"--field {item!r}: expected NAME=VALUE (or NAME=@FILE)")
        out[name.strip()] = _text_of(Path(value[1:]), f"--field {name.strip()}") if value.startswith("@") else value
    return out


# the service's answers, as a hostile server might give them ------------------------------------------------------



class Service:
    """The service's JSON API over HTTP, bounded against a server that misbehaves: each request is given
    ``request_s`` in all (connecting, headers, the body: a server that sends a byte a second is cut off, where
    httpx's own timeout is per read), an answer is read as it comes and refused past MAX_ANSWER bytes (never held
    whole first), is sent uncompressed (a compressed one is refused: no bomb to unpack), a redirect is followed
    only to the same scheme, host and port, and anything that is not the JSON object the API answers is one line,
    exit code 2, its text without control characters."""

    def __init__(self, base: str, token: str, request_s: float = REQUEST_S):
        import httpx
        self.base, self.request_s = base, request_s
        self.origin = _origin(base)
        self.client = httpx.Client(timeout=min(request_s, 30.0), follow_redirects=False,
                                   headers={"Authorization": f"Bearer {token}", "Accept-Encoding": "identity",
                                            "Accept": "application/json"})

    def close(self) -> None:
        self.client.close()

    def call(self, method: str, path: str, *, deadline: float | None = None, **kw) -> dict:
        """The JSON object the service answers ``method path`` with (a 4xx/5xx: its error in one line, exit 2)."""
        url = f"{self.base}{path}"
        until = time.monotonic() + self.request_s
        if deadline is not None:
            until = min(until, max(deadline, time.monotonic() + 1.0))
        for _ in range(MAX_REDIRECTS + 1):
            status, headers, body = self._bounded(method, url, until, **kw)
            if status in (301, 302, 303, 307, 308):
                where = _line(headers.get("location", ""))[:300]
                target = str(self.client.build_request(method, url).url.join(where)) if where else ""
                if not where or _origin(target) != self.origin:
                    fail(f"{url}: the service answered {status}, a redirect to {where or 'nowhere'!r}; playtest "
                         "submit follows a redirect only to the same scheme, host and port (give the service's own "
                         "URL as --server)")
                if status in (301, 302, 303) and method != "GET":
                    fail(f"{url}: the service answered {status}, a redirect to {where!r}, which would drop the "
                         f"{method}'s body; give the service's own URL as --server")
                url = target
                continue
            return self._answer(url, status, headers, body)
        fail(f"{url}: more than {MAX_REDIRECTS} redirects; give the service's own URL as --server")

    def _bounded(self, method: str, url: str, until: float, **kw) -> tuple[int, dict, bytes]:
        """(status, headers, body) of one request, within ``until`` and MAX_ANSWER bytes; one line otherwise. The
        request runs in a thread of its own so that the deadline holds whatever the server does."""
        import httpx
        box: dict = {}
        done = threading.Event()

        def work() -> None:
            try:
                with self.client.stream(method, url, **kw) as r:
                    coding = r.headers.get("content-encoding", "identity").strip().lower()
                    if coding not in ("", "identity"):
                        box["refused"] = f"its answer is compressed ({_line(coding)[:40]}), though none "\
                                         "was asked for"
                        return
                    size = r.headers.get("content-length", "")
                    if size.isdigit() and int(size) > MAX_ANSWER:
                        box["refused"] = f"its answer is {int(size):,} bytes; at most {MAX_ANSWER:,} are read"
                        return
                    body = bytearray()
                    for chunk in r.iter_raw():
                        body += chunk
                        if len(body) > MAX_ANSWER:
                            box["refused"] = f"its answer is over {MAX_ANSWER:,} bytes; at most that is read"
                            return
                        if time.monotonic() > until:
                            return
                    box["answer"] = (r.status_code, dict(r.headers), bytes(body))
            except httpx.HTTPError as e:
                box["error"] = e
            except Exception as e:  # noqa: BLE001 - anything the server makes the client meet: one line
                box["error"] = e
            finally:
                done.set()

        threading.Thread(target=work, name="playtest-submit", daemon=True).start()
        if not done.wait(max(0.0, until - time.monotonic())) or ("answer" not in box and not box):
            fail(f"{url}: no whole answer from the service within {self.request_s:g} s (--request-timeout)")
        if "refused" in box:
            fail(f"{url}: {box['refused']}")
        if "error" in box:
            e = box["error"]
            fail(f"{url}: cannot reach the service ({type(e).__name__}: {_line(str(e))[:300]})")
        return box["answer"]

    def _answer(self, url: str, status: int, headers: dict, body: bytes) -> dict:
        try:
            value = json.loads(body.decode("utf-8"))
        except (ValueError, RecursionError):
            value = None
        if status >= 400:
            said = value.get("error") if isinstance(value, dict) else None
            if not isinstance(said, str):
                said = body.decode("utf-8", "replace")
            fail(f"the service refused it ({status}): {_line(said)[:500]}")
        if not 200 <= status < 300:
            fail(f"{url}: the service answered {status}; expected 200 or 201")
        if not isinstance(value, dict):
            kind = headers.get("content-type", "no content type")
            fail(f"{url}: the service's answer is not a JSON object ({_line(kind)[:60]}: "
                 f"{_line(body[:120].decode('utf-8', 'replace'))!r}); is --server a playtest service?")
        return value


def _origin(url: str) -> tuple[str, str, int | None]:
    import httpx
    try:
        u = httpx.URL(url)
    except (httpx.InvalidURL, ValueError, TypeError):
        return ("", "", None)
    return (u.scheme, u.host, u.port or {"http": 80, "https": 443}.get(u.scheme))


def _clean(text: Any, keep: str = "\n\t") -> str:
    """A server's text as the terminal may show it: no control or format characters (escape sequences, bells,
    carriage returns, bidirectional overrides) but those in ``keep``."""
    return "".join(ch if ch in keep or unicodedata.category(ch) not in ("Cc", "Cf", "Cs")
                   else " " if ch in "\n\r\t" else "" for ch in str(text))


def _line(text: Any) -> str:
    """A server's text as one line of the terminal: _clean, every run of white space one space."""
    return " ".join(_clean(text, keep="").split())


def _shown(value: Any) -> str:
    return _line(json.dumps(value, ensure_ascii=False)[:200])


COMMANDS = {"serve": serve, "submit": submit}
