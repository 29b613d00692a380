"""The regression report as Markdown (for a pull request or chat) and the shared wording of its numbers."""

from __future__ import annotations

import math
from typing import Any

from regress.compare import Comparison, Test
from regress.metrics import Family
from regress.suite import Suite

METHOD = {"bh": "Benjamini-Hochberg (false discovery rate)", "holm": "Holm (family-wise error)"}


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def distribution_stats(hist: dict[str, int]) -> tuple[float, float, int]:
    """(mean, median, games) of a histogram {value: count}."""
    items = sorted((float(k), v) for k, v in hist.items())
    n = sum(v for _, v in items)
    if n == 0:
        return math.nan, math.nan, 0
    mean = sum(k * v for k, v in items) / n
    acc = 0
    for k, v in items:
        acc += v
        if 2 * acc >= n:
            return mean, k, n
    return mean, items[-1][0], n


def value_text(t: Test, counts: Any) -> str:
    """One side of a test in words: ``25.1% (502/2000)``, ``vp 94%, stalled 1%``, ``mean 8.0, median 7``."""
    if t.kind == "rate":
        k, n = counts
        return f"{_pct(k / n) if n else '-'} ({k}/{n})"
    if t.kind == "categorical":
        n = sum(counts.values()) or 1
        return ", ".join(f"{k} {_pct(v / n)}" for k, v in sorted(counts.items(), key=lambda kv: -kv[1]))
    mean, median, _ = distribution_stats(counts)
    return f"mean {mean:.2f}, median {median:g}"


def shift_text(t: Test, fam: Family | None) -> str:
    if t.kind == "rate":
        return f"{100 * t.effect:+.1f} pp"
    if t.kind == "categorical":
        return f"TV {t.effect:.3f}"
    unit = f" {fam.unit}" if fam and fam.unit else ""
    return f"{t.effect:+.2f}{unit}"


def min_text(t: Test, fam: Family | None) -> str:
    if t.kind == "rate":
        return f"{100 * t.min_effect:g} pp"
    if t.kind == "categorical":
        return f"TV {t.min_effect:g}"
    return f"{t.min_effect:g}" + (f" {fam.unit}" if fam and fam.unit else "")


def p_text(p: float) -> str:
    return "<1e-300" if p <= 0 else f"{p:.2g}" if p < 0.001 else f"{p:.3f}"


def test_row(t: Test, fams: dict[str, Family]) -> list[str]:
    fam = fams.get(t.family)
    return [f"{t.cell} ({t.label})", t.name, value_text(t, t.baseline), value_text(t, t.current),
            shift_text(t, fam), min_text(t, fam), p_text(t.p_adj), "**yes**" if t.flagged else "no"]


TEST_HEAD = ["cell", "metric", "baseline", "current", "shift", "min. shift", "p (adjusted)", "flagged"]


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    esc = [[c.replace("|", "\\|") for c in r] for r in rows]
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] + ["| " + " | ".join(r) + " |" for r in esc]


def summary_lines(suite: Suite, cmp: Comparison, baseline_path: str) -> list[str]:
    cur, base, th = cmp.current, cmp.baseline, cmp.thresholds
    mins = ", ".join(f"{k} {v:g}" for k, v in th["min_effect"].items())
    wall = sum(r["wall_s"] for r in cur.get("runs", []))
    return [
        f"Suite `{suite.path}` ({suite.name}): game {cur['game']}, {len(cur['cells'])} cells x "
        f"{cur['games_per_cell']:,} games x seeds {', '.join(map(str, cur['seeds']))}; played in {wall:.1f} s.",
        f"Baseline `{baseline_path}`: code {base['code_version']}, seeds {', '.join(map(str, base['seeds']))} x "
        f"{base['games_per_cell']:,} games. This run: code {cur['code_version']}.",
        f"Drift test: {len(cmp.tests)} metrics, {METHOD[th['method']]} at {th['level']:g}; minimum shifts: {mins}.",
    ]


def markdown(suite: Suite, cmp: Comparison, baseline_path: str, command: str) -> str:
    """The whole report as Markdown: verdict, flagged metrics first, changed cells, then everything."""
    fams = {f.name: f for f in suite.families}
    verdict = "REGRESSION" if cmp.verdict == "regression" else "PASS"
    out = [f"# Balance regression `{suite.name}`: **{verdict}**", ""]
    out += [f"- {line}" for line in summary_lines(suite, cmp, baseline_path)]
    out += ["", "Why: " + "; ".join(cmp.reasons) + "." if cmp.reasons else "Nothing moved: every compared cell "
            "played identical games (or could not be compared) and no metric drifted.", ""]
    if cmp.unmatched or cmp.skipped:
        out += ["## Not compared", ""] + [f"- {u}" for u in cmp.unmatched + cmp.skipped] + [""]
    flagged = cmp.flagged
    out += [f"## Flagged metrics ({len(flagged)})", ""]
    out += _table(TEST_HEAD, [test_row(t, fams) for t in flagged]) if flagged else ["None."]
    out += [""]
    changed = cmp.changed
    out += [f"## Changed behaviour ({len(changed)} of {len(cmp.cells)} cells)", ""]
    if changed:
        out += _table(["cell", "values", "what changed"], [[c.cell, c.label, c.detail] for c in changed])
    else:
        out += ["None." if cmp.cells else "No cells compared."]
    other = [c for c in cmp.cells if c.status != "changed"]
    if other:
        out += ["", *(f"- {c.cell} ({c.label}): {c.status}: {c.detail}" for c in other)]
    if cmp.suite_changes:
        out += ["", "## Suite changes since the baseline", ""] + [f"- `{s}`" for s in cmp.suite_changes]
    out += ["", f"<details><summary>All {len(cmp.tests)} metrics</summary>", ""]
    out += _table(TEST_HEAD, [test_row(t, fams) for t in cmp.tests])
    out += ["", "</details>", "", "Reproduce:", "", "```bash", command, "```", ""]
    return "\n".join(out)
