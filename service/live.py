"""A run's live state: progress, and per cell the games done and the first player's share of the decided games with
its Wilson 95% interval, read from the sweep's finished parts; for a ``[stop]`` sweep also each cell's stop estimate
and why it stopped (the manifest's own per-cell record). Served as JSON (``/api/runs/{id}/progress``) and as
server-sent events (``/runs/{id}/events``) that the run page's small script renders.

Cheap enough for 50 users asking during a 1,000,000-game sweep (docs/service.md, "Load"): one shared state per run
serves every page, API call and stream; while the run is active it is made again at most every ``MIN_REREAD_S``
(the manifest re-read only when its file's (inode, mtime, size) changed, each done part read once: a locked DuckDB
connection over the new parts only, the game's own ``seats.sql`` saying who won); once the run has ended every
look checks the file again (a stat). ``Snapshots`` does the same for the other things the pages derive from a
run's manifest (its counts, its tables)."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow.fs as pafs

from queries import connection, errors, sources, sqlfiles
from infra.stats import wilson
from infra import folder
from infra.storage import StorageError, is_uri, open_location

EVENT_EVERY_S = 2.0           # how often a stream sends the state
STREAM_S = 20.0               # a stream ends after this long (EventSource reconnects): a shutdown waits no longer
BACKGROUND_NICE = 10          # the niceness of the threads that refresh a playing run's state (0: as the service)
MIN_REREAD_S = 2.0            # parts are read at most this often per run, however many pages ask

COUNTS_SQL = """
SELECT cell, count(*) AS games, count(*) FILTER (WHERE winning_side >= 0) AS decided,
       count(*) FILTER (WHERE winning_side = first_player_side) AS first_wins, any_value(sides) AS sides
FROM seat_outcomes GROUP BY cell
"""


def lower_priority() -> None:
    """This thread (only: Linux's niceness is per thread) at BACKGROUND_NICE, below the sweeps' workers, so the
    service's background work takes the CPU they leave; elsewhere nothing."""
    if BACKGROUND_NICE > 0 and sys.platform.startswith("linux"):
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), BACKGROUND_NICE)
        except OSError:
            pass


def stat_key(out: Path | str) -> tuple | None:
    """The manifest file's (inode, mtime, size): a new manifest is a new file (written atomically) or a new mtime. On
    object storage (``s3://...``) the manifest object's (mtime, size): an object is replaced whole."""
    if is_uri(out):
        try:
            info = open_location(str(out), probe=False).info("manifest.json")
        except (StorageError, OSError, ValueError):
            return None
        if info.type != pafs.FileType.File:
            return None
        return (info.mtime_ns, info.size)
    try:
        st = (Path(out) / "manifest.json").stat()
    except OSError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size)


@dataclass
class _Value:
    key: tuple | None = ()                             # the manifest's stat_key it was computed for
    checked_at: float = -1e9                           # when the file was last looked at for it
    value: Any = None
    cost: float = 0.0                                  # CPU seconds its last computing took


class Snapshots:
    """Values derived from a run folder's manifest (its counts, its tables ...), each computed once per version of
    the manifest file and shared by every request. While a run plays, its manifest changes several times a second;
    a value looks at the file again (a stat) at most every ``min(every, max(FLOOR_S, cost / SHARE))`` s: a value
    that costs little to make follows the sweep closely, a costly one (a 1,000,000-game sweep's manifest) at most
    ``every`` s late, so keeping it costs at most about ``SHARE`` of a core. ``fresh``: look now (a run that has
    ended: its manifest changes no more, a stat per look costs little and nothing stale is shown); ``every``: this
    interval instead (the console's parts)."""

    FLOOR_S = 0.05
    SHARE = 0.01

    def __init__(self, every: float = MIN_REREAD_S, size: int = 256):
        self.every, self.size = every, size
        self._runs: dict[str, dict[str, _Value]] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()

    def get(self, out: Path, name: str, fn, fresh: bool = False, every: float | None = None):
        """``fn(out)`` as computed for the version of the manifest file last seen for it."""
        with self._lock:
            values = self._runs.get(str(out))
            if values is None:
                if len(self._runs) >= self.size:           # bounded: forget the oldest run's values
                    oldest = next(iter(self._runs))
                    self._runs.pop(oldest)
                    self._locks.pop(oldest, None)
                values = self._runs[str(out)] = {}
            lock = self._locks.setdefault(str(out), threading.Lock())
        with lock:
            v = values.setdefault(name, _Value())
            now = time.monotonic()
            wait = every if every is not None else min(self.every, max(self.FLOOR_S, v.cost / self.SHARE))
            if fresh or now - v.checked_at >= wait:
                v.checked_at = now
                key = stat_key(out)
                if key != v.key:
                    t0 = time.thread_time()
                    v.value, v.key = fn(out), key
                    v.cost = time.thread_time() - t0
            return v.value

    def forget(self, out: Path) -> None:
        with self._lock:
            self._runs.pop(str(out), None)
            self._locks.pop(str(out), None)


@dataclass
class _Run:
    key: tuple = ()                                    # the manifest file's (inode, mtime, size) last read
    manifest: dict | None = None
    seen: set = field(default_factory=set)             # (cell, batch) of the parts counted
    cells: dict = field(default_factory=dict)          # cell -> [games, decided, first_wins, sides]
    read_at: float = 0.0
    error: str | None = None
    described: dict | None = None                      # the last state made, shared by every caller
    described_at: float = -1e9
    described_for: tuple = ()                          # (manifest key, parts counted, error) it was made from
    refreshing: bool = False                           # a background thread is making a newer one
    lock: threading.Lock = field(default_factory=threading.Lock)


class Live:
    """Per-run caches of the estimate (one per results folder); safe to call from many threads."""

    def __init__(self):
        self._runs: dict[str, _Run] = {}
        self._lock = threading.Lock()

    def state(self, out: Path, fresh: bool = False) -> dict[str, Any] | None:
        """The run's live state (None before the sweep wrote its manifest): the shared one; once it is
        ``MIN_REREAD_S`` old, a newer one is made in a background thread of lower CPU priority (BACKGROUND_NICE)
        while this caller gets the last one at once. The first state, and a ``fresh`` one (the run has ended: look
        at the manifest again), is made by the caller."""
        with self._lock:
            run = self._runs.setdefault(str(out), _Run())
        if not fresh and run.described is not None:
            if time.monotonic() - run.described_at >= MIN_REREAD_S:
                self._refresh(out, run)
            return run.described
        if not run.lock.acquire(blocking=run.manifest is None or fresh):
            return run.described or _describe(run.manifest, run)  # another thread is making it: the last, at once
        try:
            return self._make(out, run)
        finally:
            run.lock.release()

    def _refresh(self, out: Path, run: _Run) -> None:
        """Make the run's state again in a background thread (one at a time per run)."""
        with self._lock:
            if run.refreshing:
                return
            run.refreshing = True

        def made() -> None:
            try:
                lower_priority()
                with run.lock:
                    self._make(out, run)
            except Exception:  # noqa: BLE001 - the last state stays; the next look tries again
                pass
            finally:
                run.refreshing = False
        threading.Thread(target=made, name="live-refresh", daemon=True).start()

    def _make(self, out: Path, run: _Run) -> dict[str, Any] | None:
        """The run's state made now (the caller holds ``run.lock``)."""
        now = time.monotonic()
        m = self._manifest(out, run)
        if m is None:
            return None
        done = {(c, b) for c, b, _ in folder.done_parts(m)}
        if not done:                                   # nothing finished yet (or a folder quarantined)
            run.seen, run.cells, run.error = set(), {}, None
        elif done != run.seen and (now - run.read_at >= MIN_REREAD_S
                                   or (m.get("state") != "running" and run.error is None)):
            self._count(out, m, run, done)
        made_from = (run.key, len(run.seen), run.error)
        if run.described is None or made_from != run.described_for:
            run.described, run.described_for = _describe(m, run), made_from
        run.described_at = now
        return run.described

    def forget(self, out: Path) -> None:
        with self._lock:
            self._runs.pop(str(out), None)

    @staticmethod
    def _manifest(out: Path, run: _Run) -> dict | None:
        key = stat_key(out)
        if key is None:
            return None
        if key != run.key:
            try:
                m = sources.read_manifest(out)
            except (errors.ResultsError, OSError, ValueError):
                return run.manifest
            run.key, run.manifest = key, m
        return run.manifest

    @staticmethod
    def _count(out: Path, m: dict, run: _Run, done: set) -> None:
        """Count the parts not counted yet (all of them again if any counted part is no longer done)."""
        run.read_at = time.monotonic()
        if not run.seen <= done:
            run.seen, run.cells = set(), {}
        fresh = {**m, "cells": [{**c, "parts": [p for p in c["parts"] if (c["id"], p["batch"]) not in run.seen]}
                                for c in m["cells"]]}
        if is_uri(out):                                    # object storage: every done part, read in place
            _count_remote(out, run, done)
            return
        try:                                               # each new part checked once (size and checksum)
            new = sources.sweep_files(out, fresh).get("games", [])
        except errors.ResultsError as e:
            run.error = str(e)
            return
        try:
            rows = _seat_counts(_connect_parts(new), out)
        except Exception as e:  # noqa: BLE001 - a part that cannot be read is shown, never raised
            run.error = errors.one_line(e)
            return
        for cell, games, decided, first_wins, sides in rows:
            have = run.cells.setdefault(cell, [0, 0, 0, sides])
            have[0] += games
            have[1] += decided
            have[2] += first_wins
        run.seen |= {_part_key(f) for f in new}
        run.error = None


def _part_key(path: str) -> tuple[str, int]:
    p = Path(path)
    return p.parent.name.removeprefix("cell="), int(p.stem.removeprefix("part-"))


def _seat_counts(con, out) -> list[tuple]:
    """COUNTS_SQL over the games ``con`` holds (closed after), who won told by the game's own seats.sql."""
    try:
        connection.add_seat_outcomes(con, [str(out)])
        return con.execute(COUNTS_SQL).fetchall()
    finally:
        con.close()


def _count_remote(out: str, run: _Run, done: set) -> None:
    """The counts of a run on object storage: its done parts read in place through the library's connection (all of
    them at each look, which the snapshot's pace bounds)."""
    try:
        rows = _seat_counts(connection.connect([str(out)], threads=1), out)
    except Exception as e:  # noqa: BLE001 - a part that cannot be read is shown, never raised
        run.error = errors.one_line(e)
        return
    run.cells = {cell: [games, decided, first_wins, sides] for cell, games, decided, first_wins, sides in rows}
    run.seen, run.error = set(done), None


def _connect_parts(files: list[str]):
    """A locked connection whose ``games`` view holds these part files alone (hive ``cell`` from their folders)."""
    con = connection.locked_connection(files, threads=1)      # a small read: leave the other cores to the sweep
    try:
        con.execute(sqlfiles.all_macros())
        listed = ", ".join(connection._literal(f) for f in files)
        con.execute(f"CREATE VIEW games AS SELECT * FROM read_parquet([{listed}], hive_partitioning = true)")
    except BaseException:
        con.close()
        raise
    return con


def _describe(m: dict, run: _Run) -> dict[str, Any]:
    parts = [p for c in m["cells"] for p in c["parts"] if p["state"] != "beyond the stop"]
    done = [p for p in parts if p["state"] == "done"]
    stop = isinstance(m.get("stop"), dict)
    cells = []
    for c in m["cells"]:
        mine = [p for p in c["parts"] if p["state"] != "beyond the stop"]
        games, decided, first, sides = run.cells.get(c["id"], [0, 0, 0, None])
        low, high = wilson(first, decided) if decided else (None, None)
        cell = {"id": c["id"], "label": ", ".join(f"{k}={v}" for k, v in (c.get("values") or {}).items()) or "(base)",
                "parts_done": sum(p["state"] == "done" for p in mine), "parts": len(mine),
                "games_done": sum(p["rows"] for p in mine if p["state"] == "done"),
                "games_read": games, "decided": decided, "first_wins": first,
                "first_share": first / decided if decided else None, "ci95": [low, high] if decided else None,
                "fair_share": 1.0 / sides if sides else None}
        if stop:
            s = c.get("stop") if isinstance(c.get("stop"), dict) else {}
            cell["stop"] = {"metric": s.get("metric"), "estimate": s.get("estimate"), "interval": s.get("interval"),
                            "confidence": s.get("confidence"), "claim": s.get("claim"),
                            "reason": s.get("reason") or "playing"}
        cells.append(cell)
    return {"state": m.get("state"), "parts": len(parts), "parts_done": len(done),
            "games": sum(p["games"] for p in parts), "games_done": sum(p["rows"] for p in done),
            "stop": ({k: v for k, v in m["stop"].items() if k != "cells"} if stop else None),
            "cells": cells, "estimate_error": run.error, "updated": m.get("updated")}


def event(data: dict, name: str = "progress") -> bytes:
    """One server-sent event (JSON on one line: no user text can end the event early)."""
    return f"event: {name}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


STREAMS_PER_USER = 8          # live pages (event streams) open at once per user, at most ...
STREAMS_TOTAL = 64            # ... and in all: each looks at its run every EVENT_EVERY_S (300 made /runs take 6.7 s)


class Streams:
    """The open event streams per user, at most ``per_user`` each and ``total`` in all. A stream's place is held
    from :meth:`open` to :meth:`close`, and at most until its STREAM_S are over (and a little more), so a stream
    whose end was never seen (its client went before it began) frees its place anyway."""

    def __init__(self, per_user: int = STREAMS_PER_USER, total: int = STREAMS_TOTAL, hold_s: float = STREAM_S + 10,
                 clock=time.monotonic):
        self.per_user, self.total, self.hold_s, self.clock = per_user, total, hold_s, clock
        self._open: dict[str, dict[int, float]] = {}
        self._next = 0
        self._lock = threading.Lock()

    def open(self, user: str) -> int | str:
        """A place for a new stream of ``user`` (a token for close), or the one line refusing it."""
        with self._lock:
            self._purge()
            mine = self._open.get(user, {})
            if len(mine) >= self.per_user:
                return f"{self.per_user} live pages of yours are open already (the most at once); close one"
            if sum(map(len, self._open.values())) >= self.total:
                return f"{self.total} live pages are open already (the most at once); try again in a minute"
            self._next += 1
            self._open.setdefault(user, {})[self._next] = self.clock() + self.hold_s
            return self._next

    def _purge(self) -> None:
        now = self.clock()
        for name in list(self._open):
            self._open[name] = {t: until for t, until in self._open[name].items() if until > now}
            if not self._open[name]:
                del self._open[name]

    def close(self, user: str, token: int) -> None:
        with self._lock:
            self._open.get(user, {}).pop(token, None)

    def count(self, user: str | None = None) -> int:
        with self._lock:
            self._purge()
            return len(self._open.get(user, {})) if user is not None else sum(map(len, self._open.values()))


async def stream(request, look, *, every: float = EVENT_EVERY_S, limit: float = STREAM_S):
    """Server-sent events: ``look()`` (run in a thread) every ``every`` s, sent when it changed, until the run ends,
    the client goes or ``limit`` s pass (the browser's EventSource then reconnects after the ``retry`` delay)."""
    yield f"retry: {int(every * 1000)}\n\n".encode()
    deadline = time.monotonic() + limit
    last = None
    while True:
        got = await asyncio.to_thread(look)
        text = json.dumps(got, sort_keys=True)
        if text != last:
            yield event(got)
            last = text
        if got.get("run_state") not in ("queued", "running"):
            yield event({"run_state": got.get("run_state")}, "end")
            return
        if time.monotonic() >= deadline or await request.is_disconnected():
            return
        await asyncio.sleep(every)


def look(catalog, live: Live, root: Path, job: str) -> dict[str, Any] | None:
    """The run's state for its page and the API: the job's state and error, and the live state of its folder."""
    from service.runner import layout
    row = catalog.job(job)
    if row is None:
        return None
    fresh = row["state"] not in ("queued", "running")       # ended: its manifest is final, look again
    got = (live.state(layout(root, row["id"], row.get("results") or "")["out"], fresh=fresh) if row["state"] != "queued" or row["started"]
           else None)
    return {"id": row["id"], "run_state": row["state"], "error": row["error"], "progress": got}


# the run page's live updates: text only (textContent), never markup from the data; a reload once the run ends
SCRIPT = """
(function(){
 var box=document.getElementById('live'); if(!box||!window.EventSource){return;}
 var active=['queued','running'].indexOf(box.dataset.state)>=0;
 function pct(x){return x===null||x===undefined?'':(100*x).toFixed(1)+'%';}
 function num(x){return x===null||x===undefined?'':Number(x).toLocaleString('en');}
 function td(tr,text,cls){var d=document.createElement('td');d.textContent=text;if(cls){d.className=cls;}tr.appendChild(d);}
 function show(s){
  var st=document.getElementById('state'); if(st){st.textContent=s.run_state;st.className='state '+s.run_state;}
  var p=s.progress, status=document.getElementById('live-status'), body=box.querySelector('tbody');
  if(!p){status.textContent=s.run_state==='queued'?'queued: waiting for its turn':s.run_state==='running'?'starting':
   s.run_state+': no part of a sweep in its results folder';return;}
  var share=p.games?p.games_done/p.games:0;
  status.textContent=num(p.parts_done)+' of '+num(p.parts)+' parts, '+num(p.games_done)+' of '+num(p.games)+
   ' games ('+(100*share).toFixed(1)+'%)'+(p.estimate_error?' - the estimate: '+p.estimate_error:'');
  var bar=document.querySelector('#progress .bar div'); if(bar){bar.style.width=Math.round(360*share)+'px';}
  var text=document.querySelector('#progress p'); if(text){text.textContent=status.textContent;}
  var stop=!!p.stop; box.querySelectorAll('.stopcol').forEach(function(e){e.hidden=!stop;});
  body.textContent='';
  p.cells.forEach(function(c){
   var tr=document.createElement('tr');
   td(tr,c.id+' '+c.label); td(tr,c.parts_done+'/'+c.parts); td(tr,num(c.games_done));
   td(tr,c.ci95?pct(c.first_share)+' ('+pct(c.ci95[0])+' to '+pct(c.ci95[1])+') of '+num(c.decided):'');
   td(tr,pct(c.fair_share));
   var sc=c.stop||{}, est=sc.estimate===null||sc.estimate===undefined?'':Number(sc.estimate).toPrecision(4)+
    (sc.interval?' ('+Number(sc.interval[0]).toPrecision(4)+' to '+Number(sc.interval[1]).toPrecision(4)+')':'');
   td(tr,(sc.metric?sc.metric+' ':'')+est,'stopcol'); td(tr,sc.reason||'','stopcol');
   if(!stop){tr.querySelectorAll('.stopcol').forEach(function(e){e.hidden=true;});}
   body.appendChild(tr);
  });
 }
 var es=new EventSource(box.dataset.events);
 es.addEventListener('progress',function(e){show(JSON.parse(e.data));});
 es.addEventListener('end',function(){es.close();if(active){location.reload();}});
})();
"""
