"""Compare a run with its baseline: exact reproduction per cell, and balance drift per metric.

1. Behaviour: for every seed both played with the same number of games, a cell's record digest must
   match. When it does not, the cause is named: its rules, card data or setup changed, or (same
   configuration) the code plays the games differently.
2. Drift: every metric of every cell both have is tested (rates: two-proportion z; end reasons:
   chi-square; lengths: Mann-Whitney U). The p-values of the whole run are adjusted together
   (Benjamini-Hochberg or Holm), and a metric is flagged only when its adjusted p is at most the
   suite's level AND its shift is at least the family's minimum effect: with huge samples a tiny
   real shift is significant but not worth an alarm; with small ones noise is not significant.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from infra import stats
from regress.cells import cell_key, cell_label
from regress.suite import Suite

UNITS = {"rate": "pp", "categorical": "TV", "ordinal": ""}


@dataclass
class Test:
    """One metric of one cell, baseline against current."""

    cell: str                 # the current run's cell id
    label: str                # the cell's varied values
    family: str
    kind: str
    key: str                  # rate: which rate (seat 0, team 1, stalled); distributions: ""
    baseline: Any             # counts: [k, n] or {key: count}
    current: Any
    effect: float             # rate: current - baseline; categorical: total variation; ordinal: mean shift
    p: float
    min_effect: float
    p_adj: float = 1.0
    flagged: bool = False

    @property
    def name(self) -> str:
        return f"{self.family} {self.key}".strip()


@dataclass
class CellCheck:
    """Exact reproduction of one cell."""

    cell: str
    label: str
    status: str               # same | changed | not compared
    detail: str
    seeds: list[str] = field(default_factory=list)


@dataclass
class Comparison:
    verdict: str              # pass | regression
    reasons: list[str]
    tests: list[Test]
    cells: list[CellCheck]
    unmatched: list[str]
    suite_changes: list[str]
    baseline: dict[str, Any]
    current: dict[str, Any]
    thresholds: dict[str, Any]
    skipped: list[str] = field(default_factory=list)   # metrics only one side has (not a regression)

    @property
    def flagged(self) -> list[Test]:
        return sorted((t for t in self.tests if t.flagged), key=lambda t: (t.p_adj, -abs(t.effect)))

    @property
    def changed(self) -> list[CellCheck]:
        return [c for c in self.cells if c.status == "changed"]

    def as_dict(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "reasons": self.reasons, "suite_changes": self.suite_changes,
                "unmatched": self.unmatched, "skipped": self.skipped, "thresholds": self.thresholds,
                "baseline": {k: self.baseline.get(k) for k in ("code_version", "core_digest", "spec_digest",
                                                                "seeds", "games_per_cell")},
                "current": {k: self.current.get(k) for k in ("code_version", "core_digest", "spec_digest",
                                                              "seeds", "games_per_cell", "runs")},
                "cells": [asdict(c) for c in self.cells],
                "tests": [asdict(t) | {"name": t.name} for t in self.tests]}


def _flatten(d: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(d, dict):
        out: dict[str, Any] = {}
        for k, v in d.items():
            out.update(_flatten(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    return {prefix: d}


def suite_changes(base_sweep: dict, cur_sweep: dict) -> list[str]:
    """The sweep keys that differ between baseline and current (seed aside): ``overrides.desert_heal: 2 -> 0``."""
    a = {k: v for k, v in _flatten(base_sweep).items() if k != "seed"}
    b = {k: v for k, v in _flatten(cur_sweep).items() if k != "seed"}
    out = []
    for k in sorted(set(a) | set(b)):
        if a.get(k, "(unset)") != b.get(k, "(unset)"):
            out.append(f"{k}: {a.get(k, '(unset)')!r} -> {b.get(k, '(unset)')!r}".replace("'(unset)'", "(unset)"))
    return out


def column_changes(base: dict[str, str] | None, cur: dict[str, str] | None) -> list[str]:
    """How the record's columns differ (``seats: list<item: int8> -> list<item: int16>``, ``+ new_col``);
    empty when they agree or when the baseline predates stored columns."""
    if not base or not cur:
        return []
    out = [f"{n}: {base[n]} -> {cur[n]}" for n in base if n in cur and base[n] != cur[n]]
    out += [f"- {n}" for n in base if n not in cur] + [f"+ {n}" for n in cur if n not in base]
    return out


def _behaviour(base: dict, cur: dict, label: str, base_run: dict, cur_run: dict) -> CellCheck:
    seeds = [s for s in cur["records"] if s in base["records"] and base["games"].get(s) == cur["games"].get(s)]
    if not seeds:
        return CellCheck(cur["id"], label, "not compared",
                         f"no seed played with the same games in both (baseline seeds {base_run['seeds']} x "
                         f"{base_run['games_per_cell']} games, this run {cur_run['seeds']} x "
                         f"{cur_run['games_per_cell']})")
    differ = [s for s in seeds if base["records"][s] != cur["records"][s]]
    if not differ:
        return CellCheck(cur["id"], label, "same", f"identical games for seed {', '.join(seeds)}", seeds)
    layout = column_changes(base_run.get("record_columns"), cur_run.get("record_columns"))
    if layout:
        cause = (f"the game record's columns changed ({'; '.join(layout)}), so its digest did, whether or "
                 f"not the games did: if no metric moved, rewrite the baseline with --update-baseline")
    elif base["config"] != cur["config"]:
        what = [name for name, key in (("rules", "rules"), ("card data", "data")) if base[key] != cur[key]]
        cause = " and ".join(what) + " changed" if what else "setup changed"
    else:
        core = ("engine core changed" if base_run["core_digest"] != cur_run["core_digest"]
                else "engine core unchanged")
        cause = (f"same rules, data and setup: the code plays these games differently "
                 f"(code {base_run['code_version']} -> {cur_run['code_version']}, {core})")
    return CellCheck(cur["id"], label, "changed", f"seed {', '.join(differ)}: {cause}", seeds)


def _test(fam, cid: str, label: str, key: str, b: Any, c: Any, min_effect: float) -> Test:
    if fam.kind == "rate":
        _, p, effect = stats.two_proportion_z(b[0], b[1], c[0], c[1])
    elif fam.kind == "categorical":
        _, p, effect = stats.chi2_homogeneity(b, c)
    else:
        _, p, effect = stats.mann_whitney({float(k): v for k, v in b.items()}, {float(k): v for k, v in c.items()})
    return Test(cid, label, fam.name, fam.kind, key, b, c, effect, p, min_effect)


def compare(suite: Suite, baseline: dict[str, Any], current: dict[str, Any]) -> Comparison:
    """Everything that moved between ``baseline`` and ``current`` (a run of ``suite``)."""
    th = suite.thresholds
    base_cells = {cell_key(c["values"]): c for c in baseline["cells"]}
    cur_cells = {cell_key(c["values"]): c for c in current["cells"]}
    unmatched = [f"cell {c['id']} ({cell_label(c['values'])}) is not in the baseline"
                 for k, c in cur_cells.items() if k not in base_cells]
    unmatched += [f"baseline cell {c['id']} ({cell_label(c['values'])}) is not in this run"
                  for k, c in base_cells.items() if k not in cur_cells]
    if baseline["game"] != current["game"]:
        unmatched.insert(0, f"the baseline is of game {baseline['game']!r}, this suite plays {current['game']!r}")
        base_cells = {}
    checks, tests, skipped = [], [], []
    for k, cur in cur_cells.items():
        base = base_cells.get(k)
        if base is None:
            continue
        label = cell_label(cur["values"])
        checks.append(_behaviour(base, cur, label, baseline, current))
        for fam in suite.families:
            b, c = base["metrics"].get(fam.name, {}), cur["metrics"].get(fam.name, {})
            if not b and not c:
                continue
            if fam.kind == "rate":
                for key in sorted(set(b) | set(c)):
                    if key in b and key in c:
                        tests.append(_test(fam, cur["id"], label, key, b[key], c[key], th.min_effect[fam.name]))
                    else:  # e.g. a bot spec that only one side plays: nothing to test it against
                        skipped.append(f"{cur['id']} ({label}) {fam.name} {key}: only in "
                                       f"{'the baseline' if key in b else 'this run'}")
            elif b and c:
                tests.append(_test(fam, cur["id"], label, "", b, c, th.min_effect[fam.name]))
    for t, q in zip(tests, stats.adjust([t.p for t in tests], th.method)):
        t.p_adj = q
        t.flagged = q <= th.level and abs(t.effect) >= t.min_effect
    reasons = []
    if unmatched:
        reasons.append(f"{len(unmatched)} cell(s) not in both the baseline and this run")
    changed = [c for c in checks if c.status == "changed"]
    if changed and "behaviour" in suite.fail_on:
        reasons.append(f"{len(changed)} cell(s) changed behaviour")
    flagged = [t for t in tests if t.flagged]
    if flagged and "drift" in suite.fail_on:
        reasons.append(f"{len(flagged)} metric(s) drifted")
    return Comparison("regression" if reasons else "pass", reasons, tests, checks, unmatched,
                      suite_changes(baseline["sweep"], current["sweep"]), baseline, current, th.as_dict(), skipped)
