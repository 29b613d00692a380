"""Stopping policies for sweeps that ask for an answer, not a game count (``[stop]`` in a spec).

The sweep driver (``cluster.sweep.run_sweep``) asks a :class:`Stopper` which parts it may start, feeds it
each finished part's metric summaries **in batch order per cell**, and stops a cell once the stopper says
why. A cell's games are then exactly its parts ``0 .. last observed``: a prefix of game indices, so the
result follows from the spec alone, however many workers played it and in whatever order they finished.

Two stoppers implement the protocol:

* :class:`PrecisionStopper`: a cell stops when the anytime-valid confidence sequence of its metric
  (``infra.sequential.ShareSequence``, docs/sequential.md) is as narrow as asked ("narrow"), or at the cap
  ("cap"). Looking after every batch keeps the guarantee: P(a cell's interval ever misses its true value)
  <= 1 - confidence.
* :class:`SprtStopper`: a pass/fail claim per cell (``metric <= x`` or ``metric >= x``) tested with Wald's
  SPRT (``infra.sequential.Sprt``): "accept" (the claim holds), "reject" (it does not) or "cap".
"""

from __future__ import annotations

import heapq
import math
from typing import Protocol, Sequence, runtime_checkable

from infra.metrics import Metric, estimate
from infra.sequential import ACCEPT_H0, REJECT_H0, ShareSequence, Sprt, stop_when_narrow

NARROW, ACCEPT, REJECT, CAP = "narrow", "accept", "reject", "cap"     # why a cell stopped
REASONS = (NARROW, ACCEPT, REJECT, CAP)
LOOKAHEAD = 2          # parts a cell may run ahead of its last observed one (played speculatively)


@runtime_checkable
class Stopper(Protocol):
    """What the sweep driver asks of a stopping policy."""

    metrics: tuple[Metric, ...]                # what every part must summarise

    def may_start(self, cell_id: str, batch: int) -> bool:
        """May the driver start this part now?"""

    def observe(self, cell_id: str, batch: int, summary: dict[str, tuple[int, float]]) -> None:
        """A finished part's summaries; called in batch order per cell."""

    def stopped(self, cell_id: str) -> str | None:
        """Why the cell is done (its games are parts 0 .. last observed), or None while it plays on."""

    def state(self) -> dict:
        """JSON-able, per cell: estimate, interval, games, reason."""


class _PerCell:
    """Shared bookkeeping: cells, the last batch observed per cell, batch order, the cap and the lookahead."""

    def __init__(self, metric: Metric, cells: Sequence[str], batches: int, lookahead: int):
        if batches < 1:
            raise ValueError(f"batches must be at least 1, got {batches!r}")
        if lookahead < 0:
            raise ValueError(f"lookahead must be 0 or more, got {lookahead!r}")
        self.metric = metric
        self.metrics = (metric,)
        self.batches = batches                 # parts per cell up to the cap
        self.lookahead = lookahead
        self.last = {c: -1 for c in cells}     # last batch observed
        self.games = {c: 0 for c in cells}
        self.reason: dict[str, str | None] = {c: None for c in cells}

    def may_start(self, cell_id: str, batch: int) -> bool:
        return self.reason[cell_id] is None and batch <= self.last[cell_id] + 1 + self.lookahead

    def stopped(self, cell_id: str) -> str | None:
        return self.reason[cell_id]

    def _take(self, cell_id: str, batch: int, summary: dict[str, tuple[int, float]]) -> tuple[int, float]:
        if self.reason[cell_id] is not None:
            raise ValueError(f"cell {cell_id} stopped ({self.reason[cell_id]}); part {batch} is beyond the stop")
        if batch != self.last[cell_id] + 1:
            raise ValueError(f"cell {cell_id}: part {batch} observed after part {self.last[cell_id]}; "
                             "parts are observed in batch order")
        if self.metric.name not in summary:
            raise ValueError(f"cell {cell_id} part {batch}: no summary of metric {self.metric.name!r}")
        n, total = summary[self.metric.name]
        self.last[cell_id] = batch
        self.games[cell_id] += int(n)
        return int(n), float(total)

    def _at_cap(self, cell_id: str) -> bool:
        return self.last[cell_id] + 1 >= self.batches

    def _unscale(self, x: float) -> float:
        return self.metric.low + (self.metric.high - self.metric.low) * x


class PrecisionStopper(_PerCell):
    """Stop a cell when its confidence sequence's half-width is at most ``half_width`` (on the metric's own
    scale) or at most ``relative`` times the estimate; exactly one of the two."""

    def __init__(self, metric: Metric, cells: Sequence[str], batches: int, *, half_width: float | None = None,
                 relative: float | None = None, confidence: float = 0.95, lookahead: int = LOOKAHEAD):
        super().__init__(metric, cells, batches, lookahead)
        if (half_width is None) == (relative is None):
            raise ValueError("give exactly one of half_width or relative")
        if metric.low != 0.0 and relative is not None:
            raise ValueError(f"relative needs a metric bounded below by 0 ({metric.name} starts at {metric.low})")
        self.half_width, self.relative, self.confidence = half_width, relative, confidence
        self.seq = {c: ShareSequence(alpha=1.0 - confidence) for c in cells}

    def observe(self, cell_id, batch, summary) -> None:
        n, total = self._take(cell_id, batch, summary)
        seq = self.seq[cell_id] = self.seq[cell_id].update(n, min(total, float(n)))
        span = self.metric.high - self.metric.low
        if self.half_width is not None:
            narrow = stop_when_narrow(seq, half_width=min(self.half_width / span, 0.999999))
        else:
            narrow = stop_when_narrow(seq, relative=self.relative)
        if narrow:
            self.reason[cell_id] = NARROW
        elif self._at_cap(cell_id):
            self.reason[cell_id] = CAP

    def state(self) -> dict:
        out = {}
        for c, seq in self.seq.items():
            low, high = seq.interval()
            out[c] = {"metric": self.metric.name, "games": self.games[c], "parts": self.last[c] + 1,
                      "estimate": estimate(self.metric, seq.n, seq.total) if seq.n else None,
                      "interval": [self._unscale(low), self._unscale(high)],
                      "half_width": 0.5 * (high - low) * (self.metric.high - self.metric.low),
                      "confidence": self.confidence, "reason": self.reason[c]}
        return out


class SprtStopper(_PerCell):
    """A claim per cell, ``metric <= threshold`` (``op`` "<=") or ``metric >= threshold`` (">="), tested with
    Wald's SPRT: H0 is the claim at ``threshold``, H1 the claim missed by ``delta`` (the indifference width).
    "accept": the claim holds; "reject": it does not; "cap": undecided when the cap is reached.

    ``alpha``: the rate of rejecting the claim when the share is exactly at the threshold (or inside it);
    ``beta``: the rate of accepting it when the share is ``delta`` or more beyond. ``thresholds`` per cell
    (a claim against ``fair`` differs between a 2- and a 4-player cell)."""

    def __init__(self, metric: Metric, cells: Sequence[str], batches: int, *, op: str,
                 thresholds: dict[str, float], alpha: float = 0.05, beta: float = 0.05, delta: float = 0.01,
                 lookahead: int = LOOKAHEAD):
        super().__init__(metric, cells, batches, lookahead)
        if op not in ("<=", ">="):
            raise ValueError(f"op must be <= or >=, got {op!r}")
        if metric.kind != "share":
            raise ValueError(f"a pass/fail test needs a share metric, not {metric.name} ({metric.kind})")
        self.op, self.alpha, self.beta, self.delta = op, alpha, beta, delta
        self.thresholds = dict(thresholds)
        self.sprt = {}
        for c in cells:
            t = self.thresholds[c]
            # the claim as H0 on q: q = p for "<=", q = 1 - p for ">=" (then "p >= t" is "q <= 1 - t")
            p0 = t if op == "<=" else 1.0 - t
            p1 = p0 + delta
            if not (0.0 <= p0 < p1 <= 1.0):
                raise ValueError(f"cell {c}: the claim {metric.name} {op} {t:g} with delta {delta:g} leaves no "
                                 "room for a test in [0, 1]")
            self.sprt[c] = Sprt(p0, p1, alpha, beta)
        self.sums = {c: 0.0 for c in cells}

    def observe(self, cell_id, batch, summary) -> None:
        total = float(summary.get(self.metric.name, (0, 0.0))[1])
        wins = round(total)
        if abs(total - wins) > 1e-6:        # checked before the state changes
            raise ValueError(f"metric {self.metric.name!r}: the SPRT needs per-game values 0 or 1; part {batch} "
                             f"of cell {cell_id} sums to {total!r}")
        n, total = self._take(cell_id, batch, summary)
        self.sums[cell_id] += wins
        s = wins if self.op == "<=" else n - wins
        sprt = self.sprt[cell_id] = self.sprt[cell_id].update(n, s)
        decision = sprt.decision()
        if decision == ACCEPT_H0:
            self.reason[cell_id] = ACCEPT
        elif decision == REJECT_H0:
            self.reason[cell_id] = REJECT
        elif self._at_cap(cell_id):
            self.reason[cell_id] = CAP

    def state(self) -> dict:
        out = {}
        for c in self.sprt:
            n, s = self.games[c], self.sums[c]
            seq = ShareSequence(alpha=min(self.alpha, 0.5), n=n, total=s)   # for the record: an interval too
            low, high = seq.interval()
            out[c] = {"metric": self.metric.name, "games": n, "parts": self.last[c] + 1,
                      "estimate": estimate(self.metric, n, s) if n else None,
                      "interval": [low, high], "confidence": 1.0 - min(self.alpha, 0.5),
                      "claim": f"{self.metric.name} {self.op} {self.thresholds[c]:g}",
                      "llr": finite(self.sprt[c].llr()) if n else 0.0, "reason": self.reason[c]}
        return out


def finite(x: float | None) -> float | None:
    """``x`` as JSON can hold it (NaN and infinities as None)."""
    return x if x is not None and math.isfinite(x) else None


# --- the driver's side --------------------------------------------------------------------------------------

def make_stopper(spec, lookahead: int = LOOKAHEAD) -> Stopper:
    """The stopper a spec's ``[stop]`` asks for (``spec.stop``, a ``cluster.spec.StopSpec``)."""
    stop = spec.stop
    cells = [c.id for c in spec.cells]
    if stop.test:
        return SprtStopper(stop.metric, cells, spec.parts_per_cell, op=stop.op, thresholds=stop.thresholds,
                           alpha=stop.alpha, beta=stop.beta, delta=stop.delta, lookahead=lookahead)
    return PrecisionStopper(stop.metric, cells, spec.parts_per_cell, half_width=stop.half_width,
                            relative=stop.relative, confidence=stop.confidence, lookahead=lookahead)


class StopPlan:
    """Which part of a stopping sweep to play next, and what a finished part means (the driver's bookkeeping).

    Parts start round-robin by batch across cells (batch 0 of every cell, then 1, ...) as the stopper's
    ``may_start`` allows; finished parts are held back until every earlier part of their cell is observed,
    so ``observe`` sees them in batch order. When a cell stops, every later part of it is marked "beyond the
    stop" in the manifest and its files (a part played ahead, or one a previous run finished) are deleted:
    the cell's result is exactly parts 0 .. its last observed one. On resume the parts already done are
    replayed through ``observe`` from their manifest summaries (a summary the manifest lacks is computed
    from the part's games file, which verification has just checked)."""

    def __init__(self, spec, manifest: dict, stopper: Stopper, out_dir, drop=None):
        from cluster.manifest import BEYOND, DONE
        self.spec, self.stopper, self.out_dir = spec, stopper, out_dir
        self.drop = drop or self._delete          # what becomes of a finished part's files beyond a stop
        self.cells = [c.id for c in spec.cells]
        self.index = {c: i for i, c in enumerate(self.cells)}
        self.by_id = {c["id"]: c for c in manifest["cells"]}
        self.metrics = tuple(stopper.metrics)
        self.names = [m.name for m in self.metrics]
        self.next_obs = {c: 0 for c in self.cells}          # the next batch to observe
        self.held: dict[str, dict[int, dict]] = {c: {} for c in self.cells}
        self.next_start = {c: 0 for c in self.cells}        # no part below this is left to start
        self.in_flight: set[tuple[str, int]] = set()
        self.discarded = 0                                  # games played beyond a stop in this run
        self.played: set[tuple[str, int]] = set()           # (cell, batch) of the parts finished in this run
        self.games_spent = sum(p["rows"] for c in manifest["cells"] for p in c["parts"] if p["state"] == DONE)
        self.heap: list[tuple[int, int, str]] = []
        self.blocked: list[str] = []
        for cid in self.cells:
            for part in self.by_id[cid]["parts"]:
                if part["state"] == BEYOND:
                    part["state"] = "pending"                 # decided again below, from the summaries
                if part["state"] == DONE:
                    self.held[cid][part["batch"]] = self._summary(cid, part)
            self._advance(cid)
            self._skip(cid)
            self._cut_stopped_elsewhere()
            if self.stopper.stopped(cid) is None and self.next_start[cid] < len(self.by_id[cid]["parts"]):
                heapq.heappush(self.heap, (self.next_start[cid], self.index[cid], cid))

    def _summary(self, cid: str, part: dict) -> dict:
        s = part.get("summary")
        if isinstance(s, dict) and all(isinstance(s.get(n), (list, tuple)) and len(s[n]) == 2 for n in self.names):
            return {n: (int(s[n][0]), float(s[n][1])) for n in self.names}
        import pyarrow.parquet as pq
        from cluster.part import part_path
        from infra.metrics import summarize
        cell = next(c for c in self.spec.cells if c.id == cid)
        table = pq.read_table(part_path(self.out_dir, "games", cid, part["batch"]), partitioning=None)
        summary = summarize(cell.match.definition, self.metrics, table)
        part["summary"] = summary
        return summary

    def _advance(self, cid: str) -> None:
        """Observe the held parts of ``cid`` that are next in batch order; cut the cell if it stopped."""
        held = self.held[cid]
        while self.stopper.stopped(cid) is None and self.next_obs[cid] in held:
            b = self.next_obs[cid]
            self.stopper.observe(cid, b, held.pop(b))
            self.next_obs[cid] = b + 1
        if self.stopper.stopped(cid) is not None:
            self._cut(cid)

    def _cut_stopped_elsewhere(self) -> None:
        """Cut the cells that one part of another cell stopped (a race drops a candidate's every cell at the
        end of a round): a stopper says which through ``newly_stopped()``, if it has it."""
        fresh = getattr(self.stopper, "newly_stopped", None)
        for cid in (fresh() if fresh is not None else ()):
            self._cut(cid)

    def _cut(self, cid: str) -> None:
        from cluster.manifest import BEYOND, DONE
        self.held[cid].clear()
        for part in self.by_id[cid]["parts"][self.next_obs[cid]:]:
            if part["state"] == DONE:
                self.drop(cid, part["batch"])
                if (cid, part["batch"]) in self.played:   # finished in this run ahead of the stop: discarded
                    self.discarded += part["rows"]
            if part["state"] != BEYOND:
                part.update(state=BEYOND, rows=0, bytes=0, files={})
                part.pop("summary", None)

    def _delete(self, cid: str, batch: int) -> None:
        from cluster.part import part_path
        for table in self.spec.tables:
            part_path(self.out_dir, table, cid, batch).unlink(missing_ok=True)

    def _skip(self, cid: str) -> None:
        parts = self.by_id[cid]["parts"]
        b = self.next_start[cid]
        while b < len(parts) and (parts[b]["state"] != "pending" or (cid, b) in self.in_flight):
            b += 1
        self.next_start[cid] = b

    def next_part(self) -> tuple[str, int] | None:
        """(cell, batch) of the next part to start, marked started; None when nothing may start now."""
        while self.heap:
            b, _, cid = heapq.heappop(self.heap)
            if self.stopper.stopped(cid) is not None:
                continue
            self._skip(cid)
            b = self.next_start[cid]
            if b >= len(self.by_id[cid]["parts"]):
                continue
            if not self.stopper.may_start(cid, b):
                self.blocked.append(cid)
                continue
            self.in_flight.add((cid, b))
            self._skip(cid)
            if self.next_start[cid] < len(self.by_id[cid]["parts"]):
                heapq.heappush(self.heap, (self.next_start[cid], self.index[cid], cid))
            return cid, b
        return None

    def keeps(self, cid: str, batch: int) -> bool:
        """Whether a part that just finished belongs to its cell's result (False: beyond its stop)."""
        return self.stopper.stopped(cid) is None or batch < self.next_obs[cid]

    def discard(self, cid: str, batch: int, rows: int) -> None:
        """A part played ahead of its cell's stop: its files go, it stays "beyond the stop"."""
        self.in_flight.discard((cid, batch))
        self._delete(cid, batch)
        self.discarded += rows
        self.games_spent += rows

    def finished(self, cid: str, batch: int, summary: dict) -> None:
        """A part of a cell still playing finished: observe it (and any held after it) in batch order."""
        self.in_flight.discard((cid, batch))
        self.played.add((cid, batch))
        self.games_spent += next(iter(summary.values()))[0] if summary else 0
        self.held[cid][batch] = summary
        self._advance(cid)
        self._cut_stopped_elsewhere()
        for c in self.blocked:            # a stopper may hold cells back on others' progress: ask again
            if self.stopper.stopped(c) is None:
                heapq.heappush(self.heap, (self.next_start[c], self.index[c], c))
        self.blocked.clear()

    def all_stopped(self) -> bool:
        return all(self.stopper.stopped(c) is not None for c in self.cells)

    def alive(self) -> list[str]:
        return [c for c in self.cells if self.stopper.stopped(c) is None]

    def record(self, manifest: dict) -> None:
        """Each cell's stopping state into the manifest (``cells[i].stop``) and the sweep's ``stop`` totals."""
        state = self.stopper.state()
        for c in manifest["cells"]:
            if c["id"] in state:
                c["stop"] = _jsonable(state[c["id"]])
        reasons: dict[str, int] = {}
        for c in self.cells:
            r = self.stopper.stopped(c) or "playing"
            reasons[r] = reasons.get(r, 0) + 1
        manifest["stop"] = {**(self.spec.stop.describe() if getattr(self.spec, "stop", None) else {}),
                            "cells": reasons}


def _jsonable(x):
    if isinstance(x, float):
        return finite(x)
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    return x


class StopProgress:
    """The live line of a stopping sweep: cells done and still playing, games spent (and kept), games/s."""

    def __init__(self, plan: StopPlan, console=None):
        import time
        from rich.console import Console
        from rich.progress import Progress, SpinnerColumn, TextColumn
        self.plan, self._time = plan, time.perf_counter
        self.bar = Progress(SpinnerColumn(), TextColumn("{task.fields[line]}"),
                            console=console or Console(stderr=True))
        self.task = self.bar.add_task("stop", line="")
        self.games = 0
        self.t0 = self._time()

    def start(self) -> None:
        self.t0 = self._time()
        self.bar.start()
        self.refresh()

    def stop(self) -> None:
        self.refresh()
        self.bar.stop()

    def advance(self, n: int) -> None:
        self.games += n
        self.refresh()

    def refresh(self) -> None:
        p = self.plan
        done = len(p.cells) - len(p.alive())
        rate = self.games / max(self._time() - self.t0, 1e-9)
        self.bar.update(self.task, line=f"cells done {done}/{len(p.cells)}, playing {len(p.cells) - done}; "
                                        f"games spent {p.games_spent:,} ({p.discarded:,} beyond a stop); "
                                        f"{rate:,.0f} games/s")
