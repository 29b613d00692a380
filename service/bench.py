"""``python -m service.bench``: the service's load benchmark (docs/service.md, "The load benchmark").

Starts ``playtest serve`` on loopback over a temporary root with two users, submits a sweep of ``--games`` games of the
smoke spec's shape (examples/smoke.toml: 4 cells), and while the sweep plays drives ``--users`` simulated users
(one asyncio process, a small HTTP/1.1 client; each logs in once, then asks for a page, waits a think time, and so on
until the sweep ends) who browse the run list, the run page, its progress (API), its events stream (time to the first
event) and, when the service has it, the SQL console (a console query). It records each route's latencies (p50, p95,
p99), the users' and the service's CPU seconds and the sweep's own games/s (the sweep's summary line in the job's
log), then plays the same sweep again with no users on the same service and reports the ratio; once per design
(``--workers 2 1``: one service each). Writes ``OUT.md`` and ``OUT.json``.

Bounded in count and time: the users are ``--users`` coroutines, each request times out after 30 s, each phase
after ``--max-s``; only the service process this started (and the job children it started) are stopped."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

import httpx

PROJECT = Path(__file__).resolve().parent.parent
SPEC = """# the smoke spec's shape (examples/smoke.toml), sized by --games
name = "service-load"
game = "paws"
rules = "v4"
seed = 1
games_per_cell = {per_cell}
batch_size = 2500

[setup]
board = "beginner"
bots = "heuristic"

[grid]
players = [2, 4]
round_limit = [0, 20]
"""
CELLS = 4
CONSOLE_SQL = "SELECT players, round_limit, count(*) AS games FROM games GROUP BY ALL ORDER BY ALL"
# what a simulated user asks for, and how often (weights)
ROUTES = {"GET /runs": 3, "GET /runs/{id}": 3, "GET /api/runs/{id}/progress": 2, "GET /runs/{id}/events": 1,
          "POST /runs/{id}/sql": 1}
SUMMARY = re.compile(r"([\d,]+) games in ([\d.]+) s \(([\d,]+) games/s")


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m service.bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=1_000_000, help="games in the sweep (4 cells of games/4)")
    p.add_argument("--users", type=int, default=50, help="simulated users while the sweep plays")
    p.add_argument("--think", type=float, nargs=2, default=(1.0, 3.0), metavar=("LOW", "HIGH"),
                   help="each user's wait between requests, uniform in seconds")
    p.add_argument("--workers", type=int, nargs="+", default=None, metavar="N",
                   help="the sweep's --workers (default: all cores); several: one design each, e.g. --workers 2 1")
    p.add_argument("--max-s", type=float, default=1800.0, help="each phase at most this long (seconds)")
    p.add_argument("--pairs", type=int, default=3, help="pairs of phases (with users, alone) per design, in turns "
                   "(the first pair with users first, the next alone first ...): the ratio is the pairs' median")
    p.add_argument("--out", default=str(PROJECT / "bench" / "service-load"), help="writes OUT.md and OUT.json")
    p.add_argument("--seed", type=int, default=1, help="the users' random choices")
    a = p.parse_args(argv)
    if any(not 1 <= w <= 256 for w in a.workers or []):
        p.error("--workers: each from 1 to 256")
    if a.games < CELLS or a.users < 0 or a.users > 1000 or not 0 <= a.think[0] <= a.think[1] <= 60:
        p.error("--games at least 4, --users 0 to 1000, --think LOW <= HIGH within 0 to 60 s")
    return a


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def service_cmd(root: Path, *more: str) -> list[str]:
    return [sys.executable, "-m", "service", "--root", str(root), *more]


def percentile(xs: list[float], q: float) -> float | None:
    if not xs:
        return None
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, round(q / 100 * len(s) + 0.5) - 1))]


class Phase:
    """One sweep played on the service, with or without users browsing."""

    def __init__(self, url: str, root: Path, edit_token: str, read_token: str, spec: str, users: int,
                 think: tuple[float, float], max_s: float, rng: random.Random, service_pid: int | None = None):
        self.url, self.root, self.spec, self.users, self.think, self.max_s = url, root, spec, users, think, max_s
        self.service_pid = service_pid
        self.edit, self.read, self.rng = edit_token, read_token, rng
        self.lat: dict[str, list[float]] = {r: [] for r in ROUTES}
        self.errors: dict[str, int] = dict.fromkeys(ROUTES, 0)
        self.console = False

    async def run(self) -> dict:
        api = httpx.AsyncClient(base_url=self.url, timeout=30, headers={"Authorization": f"Bearer {self.edit}"})
        async with api:
            m0, w0 = machine_busy(), time.monotonic()
            tree0, own0 = tree_seconds(self.service_pid), time.process_time()
            r = await api.post("/api/runs", json={"spec": self.spec, "title": f"load, {self.users} users"})
            r.raise_for_status()
            job = r.json()["id"]
            deadline = time.monotonic() + self.max_s
            while (await api.get(f"/api/runs/{job}")).json()["progress"] is None:     # the sweep has begun
                self._bounded(deadline, "the sweep did not start")
                await asyncio.sleep(0.2)
            stop = asyncio.Event()
            tasks = []
            if self.users:
                self.console = await self._has_console(job)
                tasks = [asyncio.create_task(self._user(i, job, stop)) for i in range(self.users)]
            t0 = time.monotonic()
            cpu0, service0 = time.process_time(), cpu_seconds(self.service_pid)
            while True:                                   # the same look every second, users or not
                got = (await api.get(f"/api/runs/{job}")).json()
                p = got["progress"] or {}
                if got["state"] not in ("queued", "running") or p.get("games_done", 0) >= p.get("games", 1):
                    break
                self._bounded(deadline, "the sweep did not finish")
                await asyncio.sleep(1.0)
            browsed = time.monotonic() - t0
            stop.set()
            await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), timeout=60)
            users_cpu = time.process_time() - cpu0
            service1 = cpu_seconds(self.service_pid)
            service_cpu = None if service0 is None or service1 is None else service1 - service0
            while got["state"] in ("queued", "running"):  # the report too, before the next phase
                self._bounded(deadline, "the report did not finish")
                await asyncio.sleep(0.5)
                got = (await api.get(f"/api/runs/{job}")).json()
        m1, w1 = machine_busy(), time.monotonic()
        tree1, own1 = tree_seconds(self.service_pid), time.process_time()
        machine = None
        if None not in (m0, m1, tree0, tree1):
            ours = (tree1 - tree0) + (own1 - own0)
            machine = {"wall_s": round(w1 - w0, 1), "busy_cores": round((m1 - m0) / (w1 - w0), 2),
                       "ours_cores": round(ours / (w1 - w0), 2),
                       "others_cores": round(max(0.0, (m1 - m0) - ours) / (w1 - w0), 2)}
        if got["state"] != "done":
            raise RuntimeError(f"the sweep ended {got['state']}: {got.get('error')}")
        log = " ".join((self.root / "jobs" / job / "job.log").read_text().split())
        m = SUMMARY.search(log)
        if m is None:
            raise RuntimeError("the sweep's summary line is not in its log")
        games, wall, rate = int(m[1].replace(",", "")), float(m[2]), int(m[3].replace(",", ""))
        return {"job": job, "users": self.users, "games": games, "sweep_wall_s": wall, "sweep_games_per_s": rate,
                "machine": machine,
                "browsed_s": round(browsed, 1), "console": self.console,
                "cpu_s": {"users": round(users_cpu, 1),
                          "service": None if service_cpu is None else round(service_cpu, 1)},
                "routes": {r: {"requests": len(xs), "errors": self.errors[r],
                               **{f"p{q}_ms": None if percentile(xs, q) is None else round(1000 * percentile(xs, q), 1)
                                  for q in (50, 95, 99)}}
                           for r, xs in self.lat.items() if xs or self.errors[r]}}

    def _bounded(self, deadline: float, what: str) -> None:
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} within --max-s {self.max_s:g} s")

    async def _login(self, c: "Http") -> None:
        status, page = await c.request("GET", "/login")
        csrf = re.search(r"name='csrf' value='([^']+)'", page.decode())[1]
        status, _ = await c.request("POST", "/login", form={"csrf": csrf, "token": self.read})
        if status != 303:
            raise RuntimeError(f"login: {status}")

    async def _has_console(self, job: str) -> bool:
        c = Http(self.url)
        try:
            await self._login(c)
            return (await c.request("GET", f"/runs/{job}/sql"))[0] == 200
        finally:
            c.close()

    async def _user(self, i: int, job: str, stop: asyncio.Event) -> None:
        rng = random.Random(self.rng.random() + i)
        routes = [r for r in ROUTES if self.console or "sql" not in r]
        weights = [ROUTES[r] for r in routes]
        c = Http(self.url)
        try:
            await asyncio.sleep(rng.uniform(*self.think))          # users arrive over the first think time
            await self._login(c)
            while not stop.is_set():
                route = rng.choices(routes, weights)[0]
                try:
                    t0 = time.perf_counter()
                    ok = await asyncio.wait_for(self._ask(c, route, job), timeout=30)
                    took = time.perf_counter() - t0
                except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError, ValueError):
                    c.close()
                    ok, took = False, None
                if ok and took is not None:
                    self.lat[route].append(took)
                else:
                    self.errors[route] += 1
                try:
                    await asyncio.wait_for(stop.wait(), timeout=rng.uniform(*self.think))
                except asyncio.TimeoutError:
                    pass
        finally:
            c.close()

    async def _ask(self, c: "Http", route: str, job: str) -> bool:
        if route == "GET /runs":
            return (await c.request("GET", "/runs"))[0] == 200
        if route == "GET /runs/{id}":
            return (await c.request("GET", f"/runs/{job}"))[0] == 200
        if route == "GET /api/runs/{id}/progress":
            got = await c.request("GET", f"/api/runs/{job}/progress", headers={"Authorization": f"Bearer {self.read}"})
            return got[0] == 200
        if route == "GET /runs/{id}/events":                       # until the first event with the state
            status, body = await c.request("GET", f"/runs/{job}/events", until=b"\ndata:")
            return status == 200 and b"\ndata:" in body
        status, page = await c.request("GET", f"/runs/{job}/sql")  # the console: its form, then one query
        m = re.search(r"name='csrf' value='([^']+)'", page.decode())
        if status != 200 or m is None:
            return False
        return (await c.request("POST", f"/runs/{job}/sql", form={"csrf": m[1], "sql": CONSOLE_SQL}))[0] == 200


class Http:
    """A small HTTP/1.1 client for the simulated users: one keep-alive loopback connection and its cookies, no
    redirects followed. The users run on the same cores as the service and the sweep, so their client is kept
    cheap (httpx costs several times the CPU per request); ``Phase`` reports what it cost."""

    def __init__(self, url: str):
        self.host, _, port = url.removeprefix("http://").partition(":")
        self.port = int(port)
        self.cookies: dict[str, str] = {}
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None

    async def request(self, method: str, path: str, form: dict[str, str] | None = None,
                      headers: dict[str, str] | None = None, until: bytes | None = None) -> tuple[int, bytes]:
        """(status, body); ``until``: read a streamed body only until it holds these bytes, then hang up."""
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        body = urlencode(form).encode() if form is not None else b""
        head = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}", *(f"{k}: {v}" for k, v in
                                                                               (headers or {}).items())]
        if self.cookies:
            head.append("Cookie: " + "; ".join(f"{k}={v}" for k, v in self.cookies.items()))
        if form is not None:
            head += ["Content-Type: application/x-www-form-urlencoded", f"Content-Length: {len(body)}"]
        self.writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
        r = self.reader
        status = int((await r.readuntil(b"\r\n")).split()[1])
        length, chunked, close = 0, False, False
        while (line := await r.readuntil(b"\r\n")) != b"\r\n":
            name, _, value = line.decode("latin-1").partition(":")
            name, value = name.strip().lower(), value.strip()
            if name == "content-length":
                length = int(value)
            elif name == "transfer-encoding":
                chunked = "chunked" in value.lower()
            elif name == "connection":
                close = value.lower() == "close"
            elif name == "set-cookie":
                pair, _, attrs = value.partition(";")
                k, _, v = pair.partition("=")
                if "max-age=0" in attrs.lower().replace(" ", "") or not v.strip('"'):
                    self.cookies.pop(k.strip(), None)
                else:
                    self.cookies[k.strip()] = v
        if not chunked:
            got = await r.readexactly(length)
        else:
            got = b""
            while size := int((await r.readuntil(b"\r\n")).split(b";")[0], 16):
                got += (await r.readexactly(size + 2))[:-2]
                if until is not None and until in got:
                    self.close()
                    return status, got
            await r.readuntil(b"\r\n")
        if close:
            self.close()
        return status, got


def cpu_seconds(pid: int | None) -> float | None:
    """CPU seconds (user + system) a process has used itself so far (not its children), from /proc; None if unknown."""
    if pid is None:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def tree_seconds(pid: int | None) -> float | None:
    """CPU seconds of a process and of its children it has waited for (the service and its ended jobs)."""
    if pid is None:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def machine_busy() -> float | None:
    """CPU seconds the whole machine has been busy (every process, every core), from /proc/stat."""
    try:
        cpu = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:9]]
    except (OSError, ValueError, IndexError):
        return None
    user, nice, system, _idle, _iowait, irq, softirq, steal = cpu
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def start_service(root: Path, port: int, workers: int | None) -> subprocess.Popen:
    env = {**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
           "PYTHONPATH": os.pathsep.join(p for p in (str(PROJECT), os.environ.get("PYTHONPATH", "")) if p)}
    cmd = service_cmd(root, "--host", "127.0.0.1", "--port", str(port), "--max-queued", "10",
                      *(("--workers", str(workers)) if workers else ()))
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=PROJECT,
                            start_new_session=True)
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=5).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            stop_service(proc)
            raise RuntimeError("the service did not start")
        time.sleep(0.1)


def stop_service(proc: subprocess.Popen) -> None:
    """SIGTERM to the service (it terminates its own job children), SIGKILL to its group if it lingers."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def add_user(root: Path, name: str, role: str) -> str:
    r = subprocess.run(service_cmd(root, "--add-user", name, "--role", role), capture_output=True, text=True,
                       check=True, timeout=60, cwd=PROJECT)
    return r.stdout.strip()


def machine() -> str:
    model = ""
    try:
        model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                      if line.startswith("model name")), "")
    except OSError:
        pass
    return f"{os.cpu_count()} cores{', ' + model if model else ''}, {platform.system()} {platform.release()}"


def code_version() -> str:
    try:
        from cluster.version import code_version as version
        return str(version())
    except Exception:  # noqa: BLE001 - only a label in the report
        return "unknown"


def design(a: argparse.Namespace, root: Path, spec: str, workers: int | None, rng: random.Random,
           edit: str, read: str) -> dict:
    """One design: a service whose sweeps use ``--workers workers``; ``a.pairs`` pairs of the sweep with users and
    alone, in turns (so that a slow spell of the machine or an order effect falls on both sides); the ratio is the
    median of the pairs' ratios, the worst p95 the worst of every phase with users. The tables show the median pair."""
    port = free_port()
    proc = start_service(root, port, workers)
    pairs = []
    try:
        url = f"http://127.0.0.1:{port}"
        for k in range(max(1, a.pairs)):
            phases = {}
            for users in ((a.users, 0) if k % 2 == 0 else (0, a.users)):
                phases[users > 0] = asyncio.run(Phase(url, root, edit, read, spec, users, tuple(a.think), a.max_s,
                                                      rng, proc.pid).run())
            pairs.append((phases[True], phases[False]))
    finally:
        stop_service(proc)
    ratios = [w["sweep_games_per_s"] / n["sweep_games_per_s"] for w, n in pairs]
    middle = sorted(range(len(pairs)), key=lambda i: ratios[i])[len(pairs) // 2]
    loaded, alone = pairs[middle]
    ratio = statistics.median(ratios)
    worst_p95 = max((r["p95_ms"] for w, _ in pairs for r in w["routes"].values() if r["p95_ms"] is not None),
                    default=None)
    return {"workers": workers or os.cpu_count(), "with_users": loaded, "no_users": alone,
            "pair_ratios": [round(r, 3) for r in ratios], "games_per_s_ratio": round(ratio, 3),
            "worst_p95_ms": worst_p95,
            "targets": {"page_p95_under_300_ms": worst_p95 is not None and worst_p95 < 300,
                        "games_per_s_within_10_percent": ratio >= 0.9}}


def run(a: argparse.Namespace) -> dict:
    per_cell = a.games // CELLS
    spec = SPEC.format(per_cell=per_cell)
    rng = random.Random(a.seed)
    designs = []
    with tempfile.TemporaryDirectory(prefix="playtest-bench-") as tmp:
        root = Path(tmp) / "root"
        edit, read = add_user(root, "bench-edit", "edit"), add_user(root, "bench-read", "read")
        for workers in a.workers or [None]:
            designs.append(design(a, root, spec, workers, rng, edit, read))
    return {"command": " ".join(["python -m service.bench", *sys.argv[1:]]), "machine": machine(),
            "code_version": code_version(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "games": per_cell * CELLS, "users": a.users, "think_s": list(a.think), "designs": designs}


def others(phase: dict) -> str:
    m = phase.get("machine")
    return "?" if not m else f"{m['others_cores']:.2f}"


def markdown(r: dict) -> str:
    ds = r["designs"]
    out = [f"# Service load benchmark ({r['date']})", "",
           f"`{r['command']}` on {r['machine']}; code {r['code_version']}.", "",
           (f"A sweep of {r['games']:,} games (the smoke spec's shape: 4 cells, parts of 2,500), played on one "
            f"`playtest serve` over loopback: while {r['users']} simulated users browse (each waits "
            f"{r['think_s'][0]:g} to {r['think_s'][1]:g} s between requests) and alone; once per design (the "
            "sweep's `--workers`). The users are one asyncio process (a small keep-alive HTTP/1.1 client); its CPU "
            "seconds and the service "
            "process's own (its job children not included) are measured over the browsing time. The machine is "
            "shared: other processes' cores are the machine's busy CPU (/proc/stat) over the whole job, less the "
            "service's, its jobs' and this benchmark's own; CPU they take is not the sweep's either."), "",
           ("Each design plays the pair (with users, alone) several times in turns; the ratio is the median of the "
            "pairs' ratios (each pair's in the last column), the worst p95 the worst of all the phases with users; "
            "games/s and the tables below are the median pair's."), "",
           "| design | games/s with users | games/s alone | ratio (target >= 0.90) | worst p95 ms (target < 300) "
           "| users' CPU s | service's CPU s | browsed s | other processes' cores (with users / alone) | "
           "each pair's ratio |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for d in ds:
        w, n, t = d["with_users"], d["no_users"], d["targets"]
        out.append(f"| `--workers {d['workers']}` | {w['sweep_games_per_s']:,} | {n['sweep_games_per_s']:,} | "
                   f"**{d['games_per_s_ratio']:.3f}** ({'met' if t['games_per_s_within_10_percent'] else 'not met'}) | "
                   f"**{d['worst_p95_ms']}** ({'met' if t['page_p95_under_300_ms'] else 'not met'}) | "
                   f"{w['cpu_s']['users']} | {w['cpu_s']['service']} | {w['browsed_s']:g} | "
                   f"{others(w)} / {others(n)} | {', '.join(f'{x:.3f}' for x in d.get('pair_ratios', []))} |")
    for d in ds:
        w, n = d["with_users"], d["no_users"]
        out += ["", f"## `--workers {d['workers']}`", "",
                f"Sweep wall time: {w['sweep_wall_s']:g} s with users, {n['sweep_wall_s']:g} s alone. Page latencies "
                f"while the sweep played ({w['browsed_s']:g} s; the SQL console "
                f"{'included' if w['console'] else 'absent in this service'}):", "",
                "| route | requests | errors | p50 ms | p95 ms | p99 ms |", "|---|---|---|---|---|---|"]
        for route, x in w["routes"].items():
            out.append(f"| `{route}` | {x['requests']:,} | {x['errors']} | {x['p50_ms']} | {x['p95_ms']} | "
                       f"{x['p99_ms']} |")
    out += ["", ("`GET /runs/{id}/events` is the time to the stream's first event; `POST /runs/{id}/sql` the console "
                 f"query (`{CONSOLE_SQL}`) alone, after its form. An error is a request that failed or did not answer "
                 "200 (the console's 503 when busy counts as one)."), ""]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    a = parse(argv)
    report = run(a)
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(report, indent=2) + "\n")
    out.with_suffix(".md").write_text(markdown(report))
    print(markdown(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
