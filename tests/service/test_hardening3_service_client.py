"""``playtest submit`` against hostile servers: real servers on 127.0.0.1 started here, each answering every request
its own bad way (a redirect to another host, HTML, a JSON list, deep JSON, a 2 GiB body, a byte a second, escape
sequences, a compressed body, a run that fails with escapes in its error). The client answers each in one line with
exit code 2 (1 for a failed run), within its deadline, holding no more of an answer than its cap, and prints no
control character of the server's. Every server and client here is bounded in time."""

from __future__ import annotations

import gzip
import json
import socket
import subprocess
import sys
import threading
from collections.abc import Callable

import pytest

from cli.serve import MAX_ANSWER

pytestmark = pytest.mark.service

JOB = "0123456789ab"
CLIENT = ("import resource, sys\nfrom cli.main import app\ntry:\n    app()\nfinally:\n"
          "    print(f'maxrss={resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}', file=sys.stderr)\n")


class Hostile:
    """A server on a free loopback port answering every request with ``respond(conn, method, path, stop)``; it
    records the requests it got and stops (its threads end within a second) when the test leaves it."""

    def __init__(self, respond: Callable):
        self.respond = respond
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.stop = threading.Event()
        self.seen: list[tuple[str, str]] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self) -> Hostile:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.thread.join(timeout=10)
        self.sock.close()

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn: socket.socket) -> None:
        conn.settimeout(5)
        try:
            head = b""
            while b"\r\n\r\n" not in head and len(head) < 65536:
                got = conn.recv(4096)
                if not got:
                    return
                head += got
            head, _, body = head.partition(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            method, path, _ = lines[0].split(" ", 2)
            length = next((int(x.split(":", 1)[1]) for x in lines[1:] if x.lower().startswith("content-length:")), 0)
            while len(body) < length:
                body += conn.recv(65536)
            self.seen.append((method, path))
            self.respond(conn, method, path, self.stop)
        except OSError:
            pass
        finally:
            conn.close()


def answer(status: int, body: bytes, content_type: str = "application/json", extra: str = "") -> bytes:
    return (f"HTTP/1.1 {status} X\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n{extra}"
            "Connection: close\r\n\r\n").encode() + body


def fixed(status: int, body: bytes, content_type: str = "application/json", extra: str = "") -> Callable:
    return lambda conn, method, path, stop: conn.sendall(answer(status, body, content_type, extra))


def queued(base: str) -> bytes:
    return json.dumps({"id": JOB, "url": f"{base}/runs/{JOB}", "state": "queued"}).encode()


def trickle(head: bytes, drip: bytes) -> Callable:
    """``head`` at once, then one byte of ``drip`` a second (at most 120 s; the test stops it sooner)."""
    def respond(conn, method, path, stop):
        conn.sendall(head)
        for byte in drip[:120]:
            if stop.wait(1.0):
                return
            conn.sendall(bytes([byte]))
    return respond


def huge(conn, method, path, stop) -> None:
    """200 MB of a JSON string, chunked, then a proper end: a client that reads it whole holds it all."""
    conn.sendall(b"HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
                 b"Connection: close\r\n\r\n")
    chunk = b"x" * 2**20
    conn.sendall(b'1\r\n"\r\n')
    for _ in range(200):
        if stop.is_set():
            return
        conn.sendall(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
    conn.sendall(b'1\r\n"\r\n0\r\n\r\n')


def submit(tmp_path, url: str, *extra: str) -> tuple[int, list[str], str, int]:
    """``playtest submit`` of a small spec to ``url``: (exit code, stderr's lines, stdout, its peak memory in KiB)."""
    spec = tmp_path / "spec.toml"
    spec.write_text('name = "s"\ngame = "paws"\nseed = 1\ngames_per_cell = 10\n')
    r = subprocess.run([sys.executable, "-c", CLIENT, "submit", str(spec), "--server", url, "--token", "t",
                        "--request-timeout", "3", *extra], capture_output=True, text=True, timeout=90)
    lines = r.stderr.strip().splitlines()
    rss = int(lines.pop().removeprefix("maxrss="))
    return r.returncode, lines, r.stdout, rss


def one_clean_line(lines: list[str]) -> str:
    assert len(lines) == 1, lines
    assert "Traceback" not in lines[0] and lines[0].startswith("error: "), lines
    assert all(ch == " " or ch.isprintable() for ch in lines[0]), repr(lines[0])
    return lines[0]


BAD = {
    "HTML": (fixed(200, b"<!doctype html><html><body><h1>Welcome</h1>\n<p>nginx</p></body></html>", "text/html"),
             "not a JSON object (text/html"),
    "a JSON list": (fixed(201, b"[1, 2, 3]"), "not a JSON object"),
    "deep JSON": (fixed(201, b"[" * 100_000 + b"]" * 100_000), "not a JSON object"),
    "an object without a run": (fixed(201, b'{"ok": true}'), "not a queued run"),
    "an id that is a path": (fixed(201, json.dumps({"id": "../../admin", "url": "x"}).encode()), "not a queued run"),
    "a refusal with escape sequences": (fixed(400, json.dumps({"error": "\x1b[2J\x1b]0;owned\x07bad \u202espec\r\n"
                                                                        "line two"}).encode()),
                                        "the service refused it (400): [2J]0;ownedbad spec line two"),
    "a refusal in HTML": (fixed(502, b"<html>\n<b>Bad gateway</b>\n</html>", "text/html"),
                          "the service refused it (502): <html> <b>Bad gateway</b> </html>"),
    "a compressed answer": (fixed(201, gzip.compress(b"\0" * 2**24), extra="Content-Encoding: gzip\r\n"),
                            "its answer is compressed (gzip)"),
    "a 2 GiB length": (lambda conn, method, path, stop: conn.sendall(
        b"HTTP/1.1 201 X\r\nContent-Type: application/json\r\nContent-Length: 2147483648\r\n\r\n" + b" " * 65536),
                       f"its answer is 2,147,483,648 bytes; at most {MAX_ANSWER:,} are read"),
    "a 200 MB body without its length": (huge, f"its answer is over {MAX_ANSWER:,} bytes"),
    "headers a byte a second": (trickle(b"HTTP/1.1 201 Created\r\n", b"X-Slow: " + b"a" * 200),
                                "no whole answer from the service within 3 s"),
    "a body a byte a second": (trickle(b"HTTP/1.1 201 Created\r\nContent-Type: application/json\r\n"
                                       b"Content-Length: 100\r\n\r\n", b" " * 100),
                               "no whole answer from the service within 3 s"),
    "a 303 to the same host, for a POST": (fixed(303, b"", extra="Location: /api/other\r\n"), "would drop the POST"),
}


# CI only: each waits out the 3 s deadline, or sends or parses megabytes (the fast loop keeps the others)
SLOW = ("headers a byte a second", "a body a byte a second", "a 2 GiB length", "a 200 MB body without its length",
        "a compressed answer", "deep JSON")


@pytest.mark.parametrize("case", [pytest.param(c, marks=pytest.mark.slow) if c in SLOW else c for c in BAD])
def test_each_bad_answer_is_one_clean_line_and_exit_2(tmp_path, case):
    respond, said = BAD[case]
    with Hostile(respond) as server:
        code, lines, out, _ = submit(tmp_path, server.url)
    line = one_clean_line(lines)
    assert code == 2 and said in line, (code, line)
    assert out == ""


def test_a_redirect_to_another_host_is_not_followed(tmp_path):
    with Hostile(fixed(201, b"{}")) as other:
        moved = f"{other.url}/api/runs"
        with Hostile(fixed(307, b"", extra=f"Location: {moved}\r\n")) as server:
            code, lines, _, _ = submit(tmp_path, server.url)
        assert other.seen == []                        # the token never went there
    line = one_clean_line(lines)
    assert code == 2 and f"a redirect to '{moved}'" in line and "same scheme, host and port" in line


@pytest.mark.slow
def test_a_redirect_on_the_same_host_is_followed(tmp_path):
    def respond(conn, method, path, stop):
        if path == "/api/runs":
            conn.sendall(answer(308, b"", extra="Location: /v2/api/runs\r\n"))
        else:
            conn.sendall(answer(201, queued("http://service.example")))
    with Hostile(respond) as server:
        code, lines, out, _ = submit(tmp_path, server.url)
        assert server.seen == [("POST", "/api/runs"), ("POST", "/v2/api/runs")]
    assert code == 0 and lines == [] and out == f"http://service.example/runs/{JOB}\n"


@pytest.mark.slow
def test_a_huge_answer_is_never_held_whole(tmp_path):
    with Hostile(fixed(200, b"<html>small</html>", "text/html")) as server:
        _, _, _, small = submit(tmp_path, server.url)
    with Hostile(huge) as server:
        code, lines, _, big = submit(tmp_path, server.url)
    assert code == 2 and "over" in one_clean_line(lines)
    assert big - small < 64 * 1024, (small, big)         # KiB: the 200 MB answer cost under 64 MB more


def waiting(run_json: dict) -> Callable:
    def respond(conn, method, path, stop):
        if method == "POST":
            conn.sendall(answer(201, queued("http://service.example")))
        else:
            conn.sendall(answer(200, json.dumps(run_json).encode()))
    return respond


def test_wait_a_failed_run_is_exit_1_in_one_clean_line(tmp_path):
    with Hostile(waiting({"state": "failed", "error": "\x1b[31mboom\x1b[0m\nat line 2\x07"})) as server:
        code, lines, out, _ = submit(tmp_path, server.url, "--wait")
    assert code == 1 and lines == ["run failed: [31mboom[0m at line 2"], lines
    assert out == f"http://service.example/runs/{JOB}\n"


def test_wait_a_state_that_is_none_is_exit_2(tmp_path):
    with Hostile(waiting({"state": ["done"]})) as server:
        code, lines, _, _ = submit(tmp_path, server.url, "--wait")
    assert code == 2 and "not a run's state" in one_clean_line(lines)


def test_wait_a_done_runs_summary_keeps_its_lines_without_escapes(tmp_path):
    run = {"state": "done", "summary": "\x1b[2J400 games\x1b]8;;http://evil\x07 in 2 cells\nsecond line\n",
           "report_url": "http://service.example/runs/x/report\x1b[8m"}
    with Hostile(waiting(run)) as server:
        code, lines, out, _ = submit(tmp_path, server.url, "--wait")
    assert code == 0 and lines == []
    assert out.splitlines() == [f"http://service.example/runs/{JOB}", "[2J400 games]8;;http://evil in 2 cells",
                                "second line", "the report: http://service.example/runs/x/report[8m"]


def test_a_relative_run_url_is_joined_with_the_server(tmp_path):
    # a service that knows no base URL of its own (listening on every address) links relatively
    body = json.dumps({"id": JOB, "url": f"/runs/{JOB}", "state": "queued"}).encode()
    with Hostile(fixed(201, body)) as server:
        code, lines, out, _ = submit(tmp_path, server.url)
    assert code == 0 and lines == [] and out == f"{server.url}/runs/{JOB}\n"
