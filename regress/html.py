"""The regression report as one self-contained HTML page: plots are inline base64 PNGs, no outside files; and the
nightly trend chart of one metric across runs (trend_plot), drawn the same way.

Flagged metrics come first, then changed cells, then one figure per cell (cells with a flag first):
every rate with its 95% Wilson interval, each length distribution and each end-reason distribution,
baseline beside current.
"""

from __future__ import annotations

from infra import stats
from queries.pages import BASE, CSS, CUR, SCRIPT, esc, html_table, png_base64
from regress.cells import cell_key, cell_label
from regress.compare import Comparison
from regress.report import TEST_HEAD, summary_lines, test_row
from regress.suite import Suite


TREND_LINE, TREND_FLAGGED, TREND_CODE = "#1565c0", "#c62828", "#90a4ae"


def trend_figure(name: str, points: list[dict]):
    """One metric across the nightly runs (oldest left; each point's date, code, value, flagged) as a matplotlib
    figure: a line through one dot per run (red when flagged), a dashed line where the code version changed, each
    run's date and code version under the axis (the first and last only beyond 8 runs)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    n = len(points)
    fig, ax = plt.subplots(figsize=(7.0, 2.2))
    xs, ys = list(range(n)), [p["value"] for p in points]
    for i in range(1, n):
        if points[i]["code"] != points[i - 1]["code"]:
            ax.axvline(i - 0.5, color=TREND_CODE, linestyle="--", linewidth=1)
    if n > 1:
        ax.plot(xs, ys, color=TREND_LINE, linewidth=1.5)
    ax.scatter(xs, ys, s=25, zorder=3, color=[TREND_FLAGGED if p["flagged"] else TREND_LINE for p in points])
    shown = sorted({0, n - 1}) if n > 8 else xs
    ax.set_xticks(shown, [f"{points[i]['date'][5:]}\n{points[i]['code'][:12]}" for i in shown], fontsize=8)
    ax.set_xlim(-0.5, max(n - 0.5, 0.5))
    ax.tick_params(axis="y", labelsize=8)
    ax.set_title(name, fontsize=9)
    fig.tight_layout()
    return fig


def trend_words(name: str, points: list[dict]) -> str:
    """What a trend chart shows, in words (its alt text): the runs, the code changes and the flagged runs."""
    changes = sum(points[i]["code"] != points[i - 1]["code"] for i in range(1, len(points)))
    flagged = sum(bool(p["flagged"]) for p in points)
    values = "; ".join(f"{p['date']} code {p['code']}: {p['value']:.4g}{' (flagged)' if p['flagged'] else ''}"
                       for p in points)
    runs = f"{len(points)} run{'s' if len(points) != 1 else ''}"
    return (f"{name} across {runs}, the code version changed {changes} time{'s' if changes != 1 else ''}, "
            f"{flagged} flagged: {values}")


def trend_plot(name: str, points: list[dict]) -> dict:
    """A trend chart for a page: {"name", "png" (base64, queries.pages.png_base64), "alt" (trend_words)}."""
    import matplotlib.pyplot as plt
    fig = trend_figure(name, points)
    try:
        return {"name": name, "png": png_base64(fig), "alt": trend_words(name, points)}
    finally:
        plt.close(fig)


def cell_figure(suite: Suite, base: dict, cur: dict) -> str:
    """One cell's plots, baseline beside current, as a base64 PNG."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fams = [f for f in suite.families if f.name in base["metrics"] or f.name in cur["metrics"]]
    rates = [f for f in fams if f.kind == "rate"]
    dists = [f for f in fams if f.kind != "rate"]
    panels = (1 if rates else 0) + len(dists)
    fig, axes = plt.subplots(1, max(panels, 1), figsize=(5.2 * max(panels, 1), 3.6), squeeze=False)
    axes = list(axes[0])
    if rates:
        ax = axes.pop(0)
        labels, rows = [], []
        for f in rates:
            b, c = base["metrics"].get(f.name, {}), cur["metrics"].get(f.name, {})
            for key in sorted(set(b) | set(c)):
                short = f.name.replace("_win_rate", "").replace("_rate", "")
                labels.append(key if key.startswith(short) else f"{short}: {key}")
                rows.append((b.get(key, [0, 0]), c.get(key, [0, 0])))
        for j, (side, colour, dx) in enumerate((("baseline", BASE, -0.2), ("current", CUR, 0.2))):
            ys, lo, hi = [], [], []
            for counts in rows:
                k, n = counts[j]
                p = k / n if n else float("nan")
                w = stats.wilson(k, n)
                ys.append(p)
                lo.append(max(0.0, p - w[0]) if n else 0.0)   # rounding must not make an error bar negative
                hi.append(max(0.0, w[1] - p) if n else 0.0)
            ax.errorbar([i + dx for i in range(len(rows))], ys, yerr=[lo, hi], fmt="o", color=colour,
                        capsize=3, label=side)
        ax.set_xticks(range(len(labels)), labels, rotation=40, ha="right", fontsize=8)
        ax.set_ylabel("share of games (seats for bots)")
        ax.set_title("rates with 95% Wilson intervals")
        ax.legend(fontsize=8)
    for f, ax in zip(dists, axes):
        b, c = base["metrics"].get(f.name, {}), cur["metrics"].get(f.name, {})
        nb, nc = sum(b.values()) or 1, sum(c.values()) or 1
        if f.kind == "ordinal":  # cumulative shares: a shift reads as one curve beside the other
            for counts, n, colour, side in ((b, nb, BASE, "baseline"), (c, nc, CUR, "current")):
                xs = sorted(float(k) for k in counts)
                by = {float(k): v for k, v in counts.items()}
                acc, ys = 0, []
                for x in xs:
                    acc += by[x]
                    ys.append(acc / n)
                ax.step(xs, ys, where="post", color=colour, label=side)
            ax.set_xlabel(f.unit or f.name)
            ax.set_ylabel("share of games at most x")
            ax.set_ylim(0, 1.02)
        else:
            keys = sorted(set(b) | set(c), key=lambda k: -(b.get(k, 0) / nb + c.get(k, 0) / nc))
            xs = range(len(keys))
            ax.bar([x - 0.2 for x in xs], [b.get(k, 0) / nb for k in keys], width=0.4, color=BASE, label="baseline")
            ax.bar([x + 0.2 for x in xs], [c.get(k, 0) / nc for k in keys], width=0.4, color=CUR, label="current")
            ax.set_xticks(list(xs), keys, rotation=20, fontsize=8)
            ax.set_ylabel("share of games")
        ax.set_title(f.name.replace("_", " "))
        ax.legend(fontsize=8)
    fig.tight_layout()
    data = png_base64(fig)
    plt.close(fig)
    return data


def page(suite: Suite, cmp: Comparison, baseline_path: str, command: str) -> str:
    """The whole report as one HTML page."""
    fams = {f.name: f for f in suite.families}
    verdict = "REGRESSION" if cmp.verdict == "regression" else "PASS"
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>regress {esc(suite.name)}: {verdict}"
             f"</title><style>{CSS}</style></head><body>",
             f"<div class='verdict {cmp.verdict}' id='verdict'>Balance regression {esc(suite.name)}: {verdict}</div>",
             "<ul>" + "".join(f"<li>{esc(s.replace('`', ''))}</li>" for s in summary_lines(suite, cmp, baseline_path))
             + "</ul>",
             f"<p><b>Why:</b> {esc('; '.join(cmp.reasons))}.</p>" if cmp.reasons else "<p>Nothing moved.</p>"]
    if cmp.unmatched or cmp.skipped:
        parts.append("<h2>Not compared</h2><ul>"
                     + "".join(f"<li>{esc(u)}</li>" for u in cmp.unmatched + cmp.skipped) + "</ul>")
    flagged = cmp.flagged
    parts.append(f"<section id='flagged'><h2>Flagged metrics ({len(flagged)})</h2>")
    parts.append(html_table(TEST_HEAD, [test_row(t, fams) for t in flagged], [True] * len(flagged))
                 if flagged else "<p>None.</p>")
    parts.append("</section>")
    parts.append(f"<section id='behaviour'><h2>Changed behaviour ({len(cmp.changed)} of {len(cmp.cells)} cells)"
                 "</h2>" + html_table(["cell", "values", "status", "detail"],
                                  [[c.cell, c.label, c.status, c.detail] for c in cmp.cells],
                                  [c.status == "changed" for c in cmp.cells]) + "</section>")
    if cmp.suite_changes:
        parts.append("<h2>Suite changes since the baseline</h2><ul>"
                     + "".join(f"<li><code>{esc(s)}</code></li>" for s in cmp.suite_changes) + "</ul>")
    base_cells = {cell_key(c["values"]): c for c in cmp.baseline["cells"]}
    flagged_cells = {t.cell for t in flagged}
    order = sorted(cmp.current["cells"], key=lambda c: (c["id"] not in flagged_cells, c["id"]))
    parts.append("<section id='plots'><h2>Baseline beside current, per cell (flagged cells first)</h2>")
    for cur in order:
        base = base_cells.get(cell_key(cur["values"]))
        if base is None:
            continue
        title = f"{cur['id']} ({cell_label(cur['values'])})" + (": flagged" if cur["id"] in flagged_cells else "")
        parts.append(f"<h3 id='cell-{esc(cur['id'])}'>{esc(title)}</h3><img class='plot' alt='plots of {esc(cur['id'])}' "
                     f"src='data:image/png;base64,{cell_figure(suite, base, cur)}'>")
    parts.append("</section>")
    parts.append(f"<section id='all'><h2>All {len(cmp.tests)} metrics</h2>"
                 + html_table(TEST_HEAD, [test_row(t, fams) for t in cmp.tests], [t.flagged for t in cmp.tests])
                 + "</section>")
    parts.append(f"<h2>Reproduce</h2><pre><code>{esc(command)}</code></pre>")
    parts.append(f"<script>{SCRIPT}</script></body></html>")
    return "\n".join(parts)
