"""Racing rule candidates: successive elimination with anytime-valid intervals, as a sweep Stopper.

Every candidate (a set of rule-parameter values) is played in every hold cell (a setup such as board and
player count); one (candidate, hold cell) pair is one sweep cell. Candidates play in **rounds kept in
step**: round r ends when every alive candidate's cells have played their first ``ends[r]`` parts
(``ends`` grows geometrically: 1, 2, 4, ... parts), and a part of round r + 1 starts only after every
alive candidate finished round r and the eliminations ran. So which parts are played follows from the
spec and the games alone, never from worker timing: a rerun plays the same parts.

At each round's end, for every candidate, hold cell and metric, the confidence sequence of
``infra.sequential.share_interval`` (at level ``alpha / sequences``, a union bound over every candidate,
hold cell and metric, so all of them hold at once, at every look, with probability >= 1 - alpha) gives
an interval for the metric; from it:

* the candidate's **loss** in each hold cell (lower is better): ``|value - target|``, ``value`` (goal
  "min") or ``-value`` (goal "max"), with the interval that the metric's interval maps to;
* combined over the hold cells: ``worst`` (the largest loss; its interval is the largest lower and the
  largest upper end) or ``mean`` (the mean of the ends);
* each constraint (``metric <= bound`` or ``>=``), per hold cell: *violated* when the interval lies wholly
  on the wrong side, *certified* when it lies wholly on the right side.

A candidate is dropped when a constraint is violated in some hold cell, or when its loss interval lies
wholly above the smallest upper end among the alive candidates whose constraints are all certified.
On the event that every interval holds (probability >= 1 - alpha), the best candidate that meets the
constraints is never dropped (successive elimination: Even-Dar, Mannor & Mansour 2006; Hoeffding races:
Maron & Moore 1994; here with confidence sequences instead of fixed-n bounds, so looking after every
round is allowed). The race ends when one candidate is left ("won"), every alive candidate's loss
interval is at most ``2 * tolerance`` wide ("narrow"), no candidate is left ("none feasible"), or the
cap is reached ("cap").

Nothing here knows a game or Ray: a metric is anything with ``name``, ``low`` and ``high`` (values are
summarised scaled into [0, 1], as ``infra.metrics.summarize`` does).
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from infra.sequential import share_interval

GOALS = ("target", "min", "max")
COMBINES = ("worst", "mean")
OPS = ("<=", ">=")

# stop reasons (a cell's reason is its candidate's)
WON = "won"                      # the only candidate left
NARROW = "narrow"                # every alive candidate's loss interval is narrower than 2 * tolerance
CAP = "cap"                      # max games reached with several candidates alive
DROPPED = "dropped"              # prefix of the reasons of dropped candidates
NONE_FEASIBLE = "none feasible"  # every candidate was dropped by a constraint


@dataclass(frozen=True)
class Objective:
    """What the race minimises: the metric's distance to ``target``, or the metric itself (goal min/max),
    combined over the hold cells by ``combine`` (worst case or mean)."""

    metric: Any
    goal: str = "target"
    target: float | None = None
    combine: str = "worst"

    def describe(self) -> str:
        m = self.metric.name
        one = f"|{m} - {self.target:g}|" if self.goal == "target" else m
        if self.goal == "max":
            return f"{self.combine} over hold cells of {m} (maximised)" if self.combine == "mean" \
                else f"lowest {m} over hold cells (maximised)"
        return f"{'largest' if self.combine == 'worst' else 'mean'} {one} over hold cells (minimised)"

    def losses(self, est: np.ndarray, low: np.ndarray, high: np.ndarray):
        """Per cell (on the metric's own scale): loss estimate and its interval (lower is better)."""
        if self.goal == "target":
            t = self.target
            lo = np.where((low <= t) & (t <= high), 0.0, np.minimum(np.abs(low - t), np.abs(high - t)))
            return np.abs(est - t), lo, np.maximum(np.abs(low - t), np.abs(high - t))
        if self.goal == "min":
            return est, low, high
        return -est, -high, -low

    def combined(self, est: np.ndarray, lo: np.ndarray, hi: np.ndarray):
        """Per candidate: the loss over its hold cells (axis 1), estimate and interval."""
        f = np.max if self.combine == "worst" else np.mean
        return f(est, axis=1), f(lo, axis=1), f(hi, axis=1)

    def worse_text(self, loss_low: float, ref: float) -> str:
        """Why a candidate whose loss is at least ``loss_low`` lost to a reference loss of at most ``ref``."""
        m = self.metric.name
        if self.goal == "max":
            return f"{self.combine} {m} at most {-loss_low:.4g}, the best's at least {-ref:.4g}"
        if self.goal == "min":
            return f"{self.combine} {m} at least {loss_low:.4g}, the best's at most {ref:.4g}"
        return f"{self.combine} |{m} - {self.target:g}| at least {loss_low:.4g}, the best's at most {ref:.4g}"

    def value(self, loss: float) -> float:
        """A loss back in the goal's words: the distance (target), the value (min), the value (max)."""
        return -loss if self.goal == "max" else loss


@dataclass(frozen=True)
class Constraint:
    """``metric op bound`` must hold in every hold cell (``op``: "<=" or ">=")."""

    metric: Any
    op: str
    bound: float

    def text(self) -> str:
        return f"{self.metric.name} {self.op} {self.bound:g}"


@dataclass
class Standing:
    """One candidate's state at the last look: loss estimate and interval, constraints, games, reason."""

    loss: float = math.nan
    loss_low: float = -math.inf
    loss_high: float = math.inf
    per_hold: list = field(default_factory=list)         # objective metric per hold: (estimate, low, high)
    constraints: list = field(default_factory=list)      # per constraint, per hold: (estimate, low, high)
    certified: bool = False                              # every constraint holds in every hold cell
    games: int = 0                                       # games in each hold cell
    reason: str | None = None
    round: int = -1                                      # the round it was dropped in (or the race ended)


def round_ends(max_parts: int, growth: float = 2.0, first: int = 1) -> list[int]:
    """Cumulative parts per cell at the end of each round: ``first``, then times ``growth`` (at least one
    part more each round), the last one ``max_parts``."""
    if max_parts < 1:
        raise ValueError(f"max_parts must be at least 1, got {max_parts}")
    ends, e = [], max(1, min(first, max_parts))
    while e < max_parts:
        ends.append(e)
        e = max(e + 1, math.ceil(e * growth))
    ends.append(max_parts)
    return ends


class Race:
    """The racing policy, a ``cluster.stopping.Stopper``: ``may_start`` keeps rounds in step, ``observe``
    takes each part's summary (in batch order per cell) and runs the eliminations when a round is whole.

    ``cells`` maps a sweep cell id to (candidate index, hold index); every pair of ``candidates`` x
    ``holds`` must be there once. ``labels`` names the candidates and holds in messages.
    """

    def __init__(self, cells: dict[str, tuple[int, int]], candidates: int, holds: int, objective: Objective,
                 constraints: Sequence[Constraint] = (), *, confidence: float = 0.95, batch: int,
                 max_parts: int, tolerance: float = 0.0, growth: float = 2.0,
                 candidate_labels: Sequence[str] | None = None, hold_labels: Sequence[str] | None = None,
                 on_round: Callable[["Race"], None] | None = None):
        if sorted(cells.values()) != [(k, h) for k in range(candidates) for h in range(holds)]:
            raise ValueError("cells must hold every (candidate, hold) pair exactly once")
        if objective.goal not in GOALS or objective.combine not in COMBINES:
            raise ValueError(f"goal must be one of {GOALS} and combine one of {COMBINES}")
        if not 0.0 < confidence < 1.0:
            raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
        self.cells = dict(cells)
        self.K, self.H = candidates, holds
        self.objective = objective
        self.constraints = tuple(constraints)
        self.confidence = confidence
        self.batch = batch
        self.ends = round_ends(max_parts, growth)
        self.tolerance = tolerance
        self.candidate_labels = list(candidate_labels or [f"candidate {k}" for k in range(candidates)])
        self.hold_labels = list(hold_labels or [f"hold {h}" for h in range(holds)])
        self.on_round = on_round
        # one confidence sequence per candidate, hold cell and metric read (objective, then constraints)
        self.sequences = candidates * holds * (1 + len(self.constraints))
        self.alpha_each = (1.0 - confidence) / self.sequences
        names = [objective.metric, *(c.metric for c in self.constraints)]
        self.metrics = tuple({m.name: m for m in names}.values())   # what every part must summarise
        self._read = [m.name for m in names]
        self._scale = [(m.low, m.high) for m in names]
        self.round = 0
        self.parts = np.zeros((candidates, holds), dtype=np.int64)    # parts counted per cell
        self.seen = np.zeros((candidates, holds), dtype=np.int64)     # parts observed (counted or waiting)
        self.waiting = [[deque() for _ in range(holds)] for _ in range(candidates)]
        self.n = np.zeros((candidates, holds), dtype=np.int64)                  # games per cell
        self.nm = np.zeros((len(names), candidates, holds), dtype=np.int64)     # games each metric counts there
        self.total = np.zeros((len(names), candidates, holds))                  # (a :decided share: the decided)
        self.alive = np.ones(candidates, dtype=bool)
        self.standings = [Standing() for _ in range(candidates)]
        self.finished: str | None = None     # the race's end reason once it ended
        self.history: list[dict] = []        # per round: alive, games so far
        self._fresh: list[str] = []          # cells stopped since newly_stopped() was last asked
        self._cells_of = [[] for _ in range(candidates)]
        for cid, (k, _) in self.cells.items():
            self._cells_of[k].append(cid)

    # --- the Stopper protocol -----------------------------------------------------------------------------

    def may_start(self, cell_id: str, batch: int) -> bool:
        k, _ = self.cells[cell_id]
        return self.finished is None and bool(self.alive[k]) and batch < self.ends[self.round]

    def observe(self, cell_id: str, batch: int, summary: dict[str, tuple[int, float]]) -> None:
        """A finished part, in batch order per cell. A part beyond the current round (the driver replays a
        resumed sweep's parts cell by cell) waits until its round starts, so the eliminations see exactly
        the data of each round whatever the order the cells are observed in."""
        k, h = self.cells[cell_id]
        if batch != self.seen[k, h]:
            raise ValueError(f"cell {cell_id}: part {batch} observed, part {int(self.seen[k, h])} expected "
                             "(parts must be observed in batch order)")
        if not self.alive[k] or self.finished is not None:
            raise ValueError(f"cell {cell_id}: part {batch} observed after its candidate stopped")
        counts, totals = [], []
        for name in self._read:          # a metric may count only some games (a :decided share: the decided)
            games, total = summary[name]
            counts.append(int(games))
            totals.append(float(total))
        self.seen[k, h] += 1
        self.waiting[k][h].append((max(counts), counts, totals))
        self._take(k, h)
        while self.finished is None and np.all(self.parts[self.alive] >= self.ends[self.round]):
            self._end_round()
            for kk in np.flatnonzero(self.alive):
                for hh in range(self.H):
                    self._take(kk, hh)

    def _take(self, k: int, h: int) -> None:
        """Count the waiting parts of cell (k, h) that belong to the current round."""
        q = self.waiting[k][h]
        while q and self.finished is None and self.alive[k] and self.parts[k, h] < self.ends[self.round]:
            n, counts, totals = q.popleft()
            self.total[:, k, h] += totals
            self.nm[:, k, h] += counts
            self.n[k, h] += n
            self.parts[k, h] += 1

    def newly_stopped(self) -> list[str]:
        """The cells whose candidate stopped since the last call (the driver cuts them: a round's end stops
        cells other than the one whose part ended it)."""
        out, self._fresh = self._fresh, []
        return out

    def stopped(self, cell_id: str) -> str | None:
        k, _ = self.cells[cell_id]
        return self.standings[k].reason

    def state(self) -> dict:
        """Per sweep cell: its candidate and hold cell, games, the objective metric's estimate and interval
        there, the candidate's loss and why it stopped (what the driver records in the manifest)."""
        out = {}
        for cid, (k, h) in self.cells.items():
            s = self.standings[k]
            est, low, high = s.per_hold[h] if s.per_hold else (None, None, None)
            out[cid] = _plain({"candidate": self.candidate_labels[k], "hold": self.hold_labels[h],
                               "games": int(self.n[k, h]), "parts": int(self.parts[k, h]),
                               "metric": self.objective.metric.name, "estimate": est, "interval": [low, high],
                               "confidence": 1.0 - self.alpha_each,
                               "loss": s.loss, "loss_interval": [s.loss_low, s.loss_high],
                               "certified": s.certified, "reason": s.reason, "round": self.round})
        return out

    def summary(self) -> dict:
        """The race as a whole: rounds, candidates alive, games, the end reason, the alpha of each sequence."""
        return {"round": self.round, "rounds_planned": len(self.ends), "round_ends_parts": self.ends,
                "alive": [self.candidate_labels[k] for k in np.flatnonzero(self.alive)],
                "games": self.games_spent(), "finished": self.finished, "alpha_each": self.alpha_each}

    # --- the eliminations ---------------------------------------------------------------------------------

    def intervals(self):
        """Per metric read (objective, constraints): estimate, low, high on the metric's own scale, shape (K, H)."""
        low, high = share_interval(self.nm, self.total, self.alpha_each)
        low, high = np.asarray(low).reshape(self.total.shape), np.asarray(high).reshape(self.total.shape)
        est = np.divide(self.total, self.nm, out=np.full(self.total.shape, 0.5), where=self.nm > 0)
        out = []
        for i, (a, b) in enumerate(self._scale):
            out.append((a + (b - a) * est[i], a + (b - a) * low[i], a + (b - a) * high[i]))
        return out

    def _end_round(self) -> None:
        per = self.intervals()
        est, lo, hi = self.objective.losses(*per[0])
        loss, loss_lo, loss_hi = self.objective.combined(est, lo, hi)
        violated = np.zeros(self.K, dtype=bool)
        certified = np.ones(self.K, dtype=bool)
        why: dict[int, str] = {}
        for c, (ce, cl, ch) in zip(self.constraints, per[1:]):
            bad = cl > c.bound if c.op == "<=" else ch < c.bound                       # (K, H)
            good = ch <= c.bound if c.op == "<=" else cl >= c.bound
            for k in np.flatnonzero(bad.any(axis=1) & self.alive & ~violated):
                h = int(np.flatnonzero(bad[k])[0])
                why[k] = f"{DROPPED}: {c.text()} fails in {self.hold_labels[h]}"
            violated |= bad.any(axis=1)
            certified &= good.all(axis=1)
        for k in range(self.K):
            if not self.alive[k]:
                continue
            s = self.standings[k]
            s.loss, s.loss_low, s.loss_high = float(loss[k]), float(loss_lo[k]), float(loss_hi[k])
            s.per_hold = [tuple(float(x[k, h]) for x in per[0]) for h in range(self.H)]
            s.constraints = [[tuple(float(x[k, h]) for x in p) for h in range(self.H)] for p in per[1:]]
            s.certified = bool(certified[k])
            s.games = int(self.n[k].min())
        dropped = self.alive & violated
        alive = self.alive & ~violated
        ref = loss_hi[alive & certified].min() if np.any(alive & certified) else math.inf
        worse = alive & (loss_lo > ref)
        for k in np.flatnonzero(worse):
            why[k] = f"{DROPPED}: worse than the best ({self.objective.worse_text(loss_lo[k], ref)})"
        dropped |= worse
        alive &= ~worse
        for k in np.flatnonzero(dropped):
            self.standings[k].reason = why[k]
            self.standings[k].round = self.round
            self._fresh += self._cells_of[k]
        self.alive = alive
        self.history.append({"round": self.round, "alive": int(alive.sum()), "games": self.games_spent(),
                             "parts_per_cell": self.ends[self.round]})
        left = np.flatnonzero(alive)
        if len(left) == 0:
            self.finished = NONE_FEASIBLE
        elif len(left) == 1:
            self.finished = WON
        elif np.all(loss_hi[left] - loss_lo[left] <= 2 * self.tolerance):
            self.finished = NARROW
        elif self.round == len(self.ends) - 1:
            self.finished = CAP
        if self.finished is not None:
            for k in left:
                self.standings[k].reason = self.finished
                self.standings[k].round = self.round
                self._fresh += self._cells_of[k]
        else:
            self.round += 1
        if self.on_round:
            self.on_round(self)

    # --- the answer ---------------------------------------------------------------------------------------

    def games_spent(self) -> int:
        return int(self.n.sum())

    def exhaustive_games(self) -> int:
        """Games a grid giving every candidate as many games as the most-played one would spend (the same
        intervals for every candidate, at the same confidence)."""
        return int(self.n.max(initial=0)) * self.K * self.H

    def best(self) -> int | None:
        """The alive candidate with the lowest loss estimate (certified constraints first; ties: first listed)."""
        left = [k for k in range(self.K) if self.alive[k]]
        if not left:
            return None
        return min(left, key=lambda k: (not self.standings[k].certified, self.standings[k].loss, k))

    def indistinguishable(self) -> list[int]:
        """The candidates no round could tell apart from the best (the alive ones), best first."""
        b = self.best()
        return [] if b is None else [b] + [k for k in range(self.K) if self.alive[k] and k != b]


def _plain(d: dict) -> dict:
    """A standing as JSON-able values (infinities as None)."""
    def f(v):
        if isinstance(v, float):
            return v if math.isfinite(v) else None
        if isinstance(v, (list, tuple)):
            return [f(x) for x in v]
        return v
    return {k: f(v) for k, v in d.items()}
