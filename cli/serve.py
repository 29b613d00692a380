"""``playtest serve`` (the web service, docs/service.md) and ``playtest submit`` (its command-line client). The service
is the layer just below the command line (tests/test_layers.py): ``serve`` checks its options and runs the service's
own entry point (service/__main__.py) in this process; ``submit`` speaks the service's JSON API over HTTP (httpx)."""

from __future__ import annotations

import math
import os
import time
from pathlib import Path
from typing import Annotated, Optional

import typer

from cli.common import check_range, fail

ROLES = ("read", "edit", "admin")          # the service's roles (service/catalog.py)
MAX_SPEC = 256 * 1024                      # the most the service accepts (service/specs.py)


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
          console_seconds: Annotated[float, typer.Option(help="the SQL console's time limit per statement, seconds "
                                                         "(1 to 3600)")] = 10.0,
          console_memory: Annotated[float, typer.Option(help="the SQL console's memory limit per statement, GiB "
                                                        "(0.25 to 1024)")] = 1.0,
          console_rows: Annotated[int, typer.Option(help="the most rows the SQL console shows (1 to 100000)")] = 1000,
          add_user: Annotated[Optional[str], typer.Option(help="add a user NAME, print its API token once and exit")]
          = None,
          role: Annotated[str, typer.Option(help="with --add-user: read, edit or admin")] = "read",
          rotate_token: Annotated[Optional[str], typer.Option(help="give user NAME a new API token, print it once "
                                                              "and exit (the old one stops working)")] = None) -> None:
    """The web service: a queue of sweeps from specs, run pages, reports and verdict cards, users with roles."""
    check_range("--port", port, 1, 65535)
    check_range("--jobs", jobs, 1, 64)
    check_range("--max-queued", max_queued, 1, 10_000)
    check_range("--submit-per-minute", submit_per_minute, 1, 10_000)
    check_range("--workers", workers, 1, 4096)
    from service.__main__ import console_problem
    if (bad := console_problem(console_seconds, console_memory, console_rows)) is not None:
        fail(bad)
    if add_user is not None and role not in ROLES:
        fail(f"--role {role!r}: expected one of {', '.join(ROLES)}")
    if root.exists() and not root.is_dir():
        fail(f"--root {root}: not a folder")
    args = ["--root", str(root), "--host", host, "--port", str(port), "--jobs", str(jobs), "--max-queued",
            str(max_queued), "--submit-per-minute", str(submit_per_minute), "--console-seconds", repr(console_seconds),
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
           timeout: Annotated[float, typer.Option(help="with --wait: give up after this many seconds")] = 86_400.0
           ) -> None:
    """Submit a job to a playtest service (a sweep spec, or --kind with its --field values); prints the run's URL
    (with --wait, its summary when done).

    Exit code: 0 (queued; with --wait: done), 1 (with --wait: failed or cancelled), 2 (bad input, refused)."""
    import httpx
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
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(timeout=60.0, headers=headers) as client:
        r = _call(client, "POST", f"{base}/api/runs", json=body)
        run = r.json()
        typer.echo(run["url"])
        if not wait:
            return
        deadline = time.monotonic() + timeout
        while True:
            got = _call(client, "GET", f"{base}/api/runs/{run['id']}").json()
            if got["state"] not in ("queued", "running"):
                break
            if time.monotonic() > deadline:
                fail(f"{run['url']}: still {got['state']} after {timeout:g} s (it goes on; look again later)")
            time.sleep(1.0)
    if got["state"] != "done":
        typer.echo(f"run {got['state']}" + (f": {got['error']}" if got.get("error") else ""), err=True)
        raise typer.Exit(code=1)
    typer.echo((got.get("summary") or "").rstrip("\n"))
    if got.get("report_url"):
        typer.echo(f"the report: {got['report_url']}")


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


def _call(client, method: str, url: str, **kw):
    """One request; any refusal or network problem is one line and exit 2."""
    import httpx
    try:
        r = client.request(method, url, **kw)
    except httpx.HTTPError as e:
        fail(f"{url}: cannot reach the service ({type(e).__name__}: {e})")
    if r.status_code >= 400:
        try:
            said = r.json().get("error") or r.text
        except ValueError:
            said = r.text
        fail(f"the service refused it ({r.status_code}): {said}")
    return r


COMMANDS = {"serve": serve, "submit": submit}
