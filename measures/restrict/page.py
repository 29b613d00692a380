"""The page of a restricted-play answer (``playtest restrict --html``; docs/restricted-play.md): the verdicts in
words, a plot of every option's cost with its 95% interval against the thresholds, and the table per line-up.
One self-contained file (no outside file or address); every text from the answer is escaped."""

from __future__ import annotations

from queries.pages import CSS, SCRIPT, esc, html_table, png_base64

COLOURS = {"dominant": "#a01c17", "matters": "#d95f02", "useless": "#8c8c8c", "negligible": "#a6a6a6",
           "overused": "#1b6fa8",
           "unclear": "#bbbbbb"}
PAGE_CSS = CSS + """
.note { color: #555; font-size: 13px; } .bots { background: #fff3e0; padding: .4em .8em; border-radius: 6px; }
"""


def _points(x: float) -> str:
    return f"{round(100 * x, 1) + 0.0:+.1f}"


def cost_figure(result: dict):
    """One row per option, its cost and 95% interval in points of win share; dashed lines at 0, the margin
    either side and the threshold."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = sorted(result["options"], key=lambda r: r["cost"])
    fig, ax = plt.subplots(figsize=(9, 0.45 * len(rows) + 1.4))
    for i, r in enumerate(rows):
        lo, hi = (100 * v for v in r["cost_95"])
        ax.plot([lo, hi], [i, i], color=COLOURS[r["verdict"]], lw=3)
        ax.plot([100 * r["cost"]], [i], "o", color=COLOURS[r["verdict"]])
    t, m = 100 * result["threshold"], 100 * result["margin"]
    ax.axvline(0, color="#444", lw=1)
    for x, style in ((t, "--"), (-m, ":"), (m, ":")):
        ax.axvline(x, color="#888", lw=1, ls=style)
    ax.set_yticks(range(len(rows)), [f"forbid {r['option']} ({r['verdict']})" for r in rows])
    ax.set_xlabel("cost of forbidding it: points of win share lost against the unrestricted bot (95% interval)")
    fig.tight_layout()
    out = png_base64(fig)
    plt.close(fig)
    return out


def restrict_section(result: dict, sentences: list[str]) -> str:
    """The answer as page sections: the verdicts in words, the plot, the table per option and line-up."""
    rows = sorted(result["options"], key=lambda r: -r["cost"])
    table = html_table(["forbidden", "verdict", "cost, points", "95%", "paired games"]
                       + [f"cost, {lu}" for lu in result["line_ups"]],
                       [[r["option"], r["verdict"], _points(r["cost"]),
                         f"{_points(r['cost_95'][0])} to {_points(r['cost_95'][1])}", f"{r['games']:,}"]
                        + [f"{_points(lu['cost'])} ({_points(lu['cost_95'][0])} to {_points(lu['cost_95'][1])})"
                           for lu in r["line_ups"]] for r in rows],
                       [r["verdict"] in ("dominant", "overused") for r in rows])
    return "\n".join([
        "<section id='answer'><h2>Which options matter</h2>",
        f"<p class='bots'><b>Bots, not people:</b> <code>{esc(result['bot'])}</code> forbidden one kind of option "
        f"at a time, against <code>{esc(result['bot'])}</code> in every other seat, each seat of "
        f"{esc(', '.join(result['line_ups']))} in turn, {result['games_per_seat']:,} games a seat; the same games "
        "played unrestricted beside them. What each option is worth to this bot's play.</p><ul>"
        + "".join(f"<li>{esc(s)}</li>" for s in sentences) + "</ul>",
        f"<img class='plot' alt='cost of forbidding each option' src='data:image/png;base64,{cost_figure(result)}'>",
        f"<p class='note'>Dominant: the whole interval above {_points(result['threshold'])} points. Useless: the same "
        f"within the margin of +-{100 * result['margin']:g} point(s), by two one-sided tests (its 90% interval inside "
        "the margin); negligible: differs from zero, by less than the margin; overused: below 0 (the bot does better "
        "without it); unclear: not enough games to say. Dashed line: the threshold; dotted: the margin.</p></section>",
        "<section id='table'><h2>Per option and line-up</h2>" + table + "</section>",
        f"<p class='note'>{esc(result['method'])}; seed {result['seed']}.</p>"])


def restrict_page(result: dict, sentences: list[str], command: str = "") -> str:
    title = f"playtest restrict: {result['game']}"
    return "\n".join([f"<!doctype html><html><head><meta charset='utf-8'><title>{esc(title)}</title>"
                      f"<style>{PAGE_CSS}</style></head><body><h1>{esc(title)}</h1>",
                      restrict_section(result, sentences),
                      f"<p class='note'><code>{esc(command)}</code></p>" if command else "",
                      f"<script>{SCRIPT}</script></body></html>"])
