"""The regression report as Markdown (for a pull request or chat) and the shared wording of its numbers."""

from __future__ import annotations

import math
from typing import Any

from infra import stats
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


def _moments(hist: dict[str, int]) -> tuple[float, float, int]:
    """(mean, sample variance, games) of a histogram {value: count}."""
    n = sum(hist.values())
    if n == 0:
        return math.nan, math.nan, 0
    mean = sum(float(k) * v for k, v in hist.items()) / n
    var = sum((float(k) - mean) ** 2 * v for k, v in hist.items()) / (n - 1) if n > 1 else math.nan
    return mean, var, n


def value_text(t: Test, counts: Any) -> str:
    """One side of a test in words: ``25.1% [23.2, 27.1] (502/2000)`` (Wilson 95%), ``vp 94%, stalled 1%``,
    ``mean 8.0 [7.9, 8.1], median 7`` (normal 95%)."""
    if t.kind == "rate":
        k, n = counts
        if not n:
            return f"- ({k}/{n})"
        lo, hi = stats.wilson(k, n, stats.Z95)
        return f"{_pct(k / n)} [{100 * lo:.1f}, {100 * hi:.1f}] ({k}/{n})"
    if t.kind == "categorical":
        n = sum(counts.values()) or 1
        return ", ".join(f"{k} {_pct(v / n)}" for k, v in sorted(counts.items(), key=lambda kv: -kv[1]))
    mean, median, _ = distribution_stats(counts)
    _, var, n = _moments(counts)
    half = stats.Z95 * math.sqrt(var / n) if n > 1 else math.nan
    return f"mean {mean:.2f} [{mean - half:.2f}, {mean + half:.2f}], median {median:g}"


def shift_text(t: Test, fam: Family | None) -> str:
    """The shift, current - baseline, with its 95% interval (each interval alone, not adjusted for the run's
    many metrics; the adjusted p decides the alarm): Newcombe for a rate, Welch for a mean; a total
    variation distance has none."""
    if t.kind == "rate":
        _, lo, hi = stats.newcombe(t.baseline[0], t.baseline[1], t.current[0], t.current[1])
        return f"{100 * t.effect:+.1f} pp [{100 * lo:+.1f}, {100 * hi:+.1f}]"
    if t.kind == "categorical":
        return f"TV {t.effect:.3f}"
    unit = f" {fam.unit}" if fam and fam.unit else ""
    (m1, v1, n1), (m2, v2, n2) = _moments(t.baseline), _moments(t.current)
    _, lo, hi, _ = stats.mean_difference(m1, v1, n1, m2, v2, n2)
    return f"{m2 - m1:+.2f}{unit} [{lo:+.2f}, {hi:+.2f}]"


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


TEST_HEAD = ["cell", "metric", "baseline [95%]", "current [95%]", "shift [95%]", "min. shift", "p (adjusted)", "flagged"]


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
        "Intervals in brackets are 95% each (Wilson for a rate, Newcombe for a rate's shift, normal for a mean "
        "and Welch for its shift), not adjusted for the run's many metrics: the adjusted p decides an alarm.",
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
