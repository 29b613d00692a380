"""An answer as a skill curve: ``playtest query NAME --results OUT --html PAGE`` on a skill run's folder (``playtest
sweep SPEC --skill A,B,C``; docs/skill.md).

One self-contained page that leads with the answer to the question (whether each estimate holds under stronger
play or moves with skill, between the two strongest levels: queries.variants.top_two), then, for each estimate,
its value with its 95% interval against each level's Elo from the levels' ladder (the Elo's 95% interval as a
horizontal bar; one panel per setting), the verdicts with their margin, and the ladder's ratings table. Levels
are labelled by their bot spec: bots, not people. Every piece of user text (bot specs, names, paths) goes
through Jinja2's autoescape; the plots are SVG images inside the page (data: addresses), so text in them is
never markup of the page.
"""

from __future__ import annotations

import base64
import io
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Sequence

from queries.errors import ResultsError
from queries.pages import CSS, SCRIPT
from queries.variants import TopTwo, bot_settings, estimates, level_of, top_two
from infra.stats import MARGIN

LADDER_REPORT = "ladder.json"        # the levels' ladder's ratings, in OUT/ladder (cluster/ladder.py's name)
PANEL_COLUMNS = 3
COLOURS = ("#4c78a8", "#d95f02", "#1b9e77", "#7570b3", "#e7298a", "#66a61e", "#a6761d", "#666666")


@dataclass
class Curve:
    """What the page is built from: the question and its answer split by bots (``columns``, ``rows``, the
    query's own columns and the split, as ``playtest query`` answered it), the levels (weakest first), each
    level's rating on the levels' ladder (None where it has none: :func:`level_ratings`) with the ladder's report,
    skill.json's record of it and a note on why there is none, and where it came from."""

    query: str
    question: str
    columns: list[str]
    rows: list[tuple]
    query_columns: list[str]
    split: list[str]
    levels: list[str]
    ratings: list[Optional[dict]] = field(default_factory=list)
    ladder: Optional[dict] = None          # ladder.json as the ladder wrote it
    record: Optional[dict] = None          # skill.json's ladder: how it was played
    note: str = ""
    source: str = ""
    spec: str = ""
    command: str = ""
    margin: float = MARGIN


# -- the levels' ladder --------------------------------------------------------------------------------------

def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def level_ratings(out: Path, record: Optional[dict], levels: Sequence[str]) -> tuple[list[Optional[dict]],
                                                                                      Optional[dict], str]:
    """Each level's rating (aligned with ``levels``), the ladder's report and a note, from skill.json's ``ladder``
    (``record``, checked by cluster.skill.read_plan) and ``OUT/ladder/ladder.json``. No ladder (none played, or
    not finished): no ratings and a note saying why. A ladder.json that is not one a ladder wrote is a
    ResultsError of one line."""
    none = [None] * len(levels)
    if not record or not record.get("games_per_lineup"):
        why = (record or {}).get("skipped") or "the run played no ladder of its levels"
        return none, None, f"No Elo: {why}. The levels are placed in the order given."
    path = out / record["folder"] / LADDER_REPORT
    if not path.is_file():
        return none, None, (f"No Elo yet: the levels' ladder in {path.parent} is not finished (no {LADDER_REPORT}); "
                            "resume the skill sweep (--resume) to rate the levels. The levels are placed in the order "
                            "given.")
    from sim.files import load_json_bounded
    report = load_json_bounded(path, "ladder report", ResultsError)
    rated = report.get("ratings") if isinstance(report, dict) else None
    ok = isinstance(rated, list) and all(
        isinstance(r, dict) and isinstance(r.get("bot"), str) and all(_number(r.get(k)) for k in
                                                                       ("elo", "ci95_low", "ci95_high", "games"))
        and r["ci95_low"] <= r["elo"] <= r["ci95_high"] for r in rated)
    by_bot = {r["bot"]: r for r in rated} if ok else {}
    if not ok or any(b not in by_bot for b in record["bots"]):
        raise ResultsError(f"{path}: not the ratings of this run's ladder (each of its bots "
                           f"{', '.join(record['bots'])} with elo, ci95_low, ci95_high and games)")
    return [by_bot[b] for b in record["bots"]], report, ""


# -- the answer in words -------------------------------------------------------------------------------------

def verdicts(c: Curve) -> list[tuple[str, TopTwo]]:
    """(setting, verdict) for every setting and estimate with two levels present: the two strongest compared."""
    found = estimates(c.columns)
    b = c.columns.index("bots") if "bots" in c.columns else -1
    out = []
    for where, members in bot_settings(c.columns, c.rows, c.query_columns, c.split):
        out += [(where, t) for t in top_two(members, b, found, c.levels, c.margin)]
    return out


def _margin(c: Curve, t: TopTwo) -> str:
    if t.share:
        return f"±{100 * c.margin:g} points"
    return "none in its units (it can differ, or not enough games)"


def phrase(c: Curve, t: TopTwo) -> str:
    """One verdict in words, with the two levels by their bot spec."""
    a, z = c.levels[t.low], c.levels[t.high]
    if t.kind == "moves":
        return f"moves with skill from {a} to {z}"
    if t.kind == "holds":
        return f"holds under stronger play ({a} and {z} the same within {_margin(c, t)})"
    return f"not enough games to say whether it holds from {a} to {z}"


def headline(c: Curve, said: Sequence[tuple[str, TopTwo]]) -> str:
    """The page's first line: the answer as a whole, naming the two strongest levels' bots."""
    if not said:
        return "No answer to compare across levels: no setting has two levels with an estimate and its interval."
    moved = [(where, t) for where, t in said if t.kind == "moves"]
    first = (moved or said)[0][1]
    pair = (c.levels[first.low], c.levels[first.high])
    if moved:
        settings = len(dict.fromkeys(where for where, _ in said))
        counts: dict[str, int] = {}
        for _, t in moved:
            counts[t.name] = counts.get(t.name, 0) + 1
        which = ", ".join(name if settings == 1 else f"{name} in {n} of {settings} settings"
                          for name, n in counts.items())
        return f"The answer moves with skill from {pair[0]} to {pair[1]}: {which}."
    if all(t.kind == "holds" for _, t in said):
        return (f"The answer holds under stronger play: from {pair[0]} to {pair[1]} every estimate is the same "
                f"within its margin.")
    return f"Not enough games to say whether the answer holds under stronger play, from {pair[0]} to {pair[1]}."


def _settings(wheres: Sequence[str]) -> str:
    return wheres[0] if len(wheres) == 1 else " and ".join(f"({w})" for w in wheres)


def answer_lines(c: Curve, said: Sequence[tuple[str, TopTwo]]) -> list[str]:
    """One line per estimate: its verdict in each setting, settings with the same verdict together."""
    lines = []
    for name in dict.fromkeys(t.name for _, t in said):
        groups: dict[str, list[str]] = {}
        for where, t in said:
            if t.name == name:
                groups.setdefault(phrase(c, t), []).append(where)
        parts = [p if wheres == ["these results"] else f"{p} for {_settings(wheres)}" for p, wheres in groups.items()]
        lines.append(f"{name}: {'; '.join(parts)}")
    return lines


def _points(x: float, share: bool) -> str:
    return f"{100 * x:+.1f}" if share else f"{x:+.4g}"


def verdict_rows(c: Curve, said: Sequence[tuple[str, TopTwo]]) -> list[list[str]]:
    """The verdicts table: setting, estimate, the two levels' values, their difference with its 95% interval,
    the margin and the verdict."""
    rows = []
    for where, t in said:
        share = t.share
        e = t.verdict
        unit = " points" if share else ""
        rows.append([where, t.name, f"{c.levels[t.low]}: {t.value(t.a)}", f"{c.levels[t.high]}: {t.value(t.z)}",
                     f"{_points(e.diff, share)} [{_points(e.low, share)}, {_points(e.high, share)}]{unit}",
                     _margin(c, t), phrase(c, t)])
    return rows


# -- the plots ------------------------------------------------------------------------------------------------

def _label(s: str, width: int = 40) -> str:
    """User text as a plot label: no mathtext (a ``$`` is a dollar), cut at ``width``."""
    s = s if len(s) <= width else s[:width - 1] + "…"
    return s.replace("$", r"\$")


def _svg(plt, fig) -> str:
    """A figure as an SVG ``data:`` address (the same bytes for the same figure: no date, a fixed hash salt)."""
    import matplotlib
    buf = io.BytesIO()
    with matplotlib.rc_context({"svg.hashsalt": "playtest"}):
        fig.tight_layout()
        fig.savefig(buf, format="svg", metadata={"Date": None})
    plt.close(fig)
    return "data:image/svg+xml;base64," + base64.b64encode(buf.getvalue()).decode()


def _x(c: Curve, k: int) -> tuple[float, float, float]:
    """Level ``k``'s place on the x axis and its interval: its Elo, or its number when there is no ladder."""
    r = c.ratings[k] if k < len(c.ratings) else None
    if r is None:
        return float(k + 1), float(k + 1), float(k + 1)
    return float(r["elo"]), float(r["ci95_low"]), float(r["ci95_high"])


def figure(c: Curve, name: str, v: int, lo: int, hi: int, settings: Sequence[tuple[str, list[tuple]]]) -> str:
    """One estimate against the levels' strength: a panel per setting, each level's value with its 95% interval
    (vertical) at its Elo with the Elo's 95% interval (horizontal), labelled by its bot spec."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    n = max(1, len(settings))
    cols = min(PANEL_COLUMNS, n)
    fig, axes = plt.subplots(math.ceil(n / cols), cols, figsize=(4.6 * cols, 3.6 * math.ceil(n / cols)),
                             squeeze=False)
    flat = [ax for row in axes for ax in row]
    for ax in flat[n:]:
        ax.set_visible(False)
    b = c.columns.index("bots")
    elo = any(r is not None for r in c.ratings)
    for ax, (where, members) in zip(flat, settings):
        placed = sorted(((k, r) for r in members if (k := level_of(r[b], c.levels)) is not None
                         and None not in (r[v], r[lo], r[hi])), key=lambda kr: kr[0])
        for k, r in placed:
            x, xl, xh = _x(c, k)
            ax.errorbar([x], [r[v]], yerr=[[r[v] - r[lo]], [r[hi] - r[v]]], xerr=[[x - xl], [xh - x]], fmt="o",
                        color=COLOURS[k % len(COLOURS)], capsize=3, elinewidth=1.2)
            ax.annotate(_label(c.levels[k], 28), (x, r[v]), textcoords="offset points", xytext=(4, 4), fontsize=7,
                        color=COLOURS[k % len(COLOURS)], bbox={"boxstyle": "round,pad=0.1", "fc": "white",
                                                               "ec": "none", "alpha": 0.8})
        if len(placed) > 1:
            ax.plot([_x(c, k)[0] for k, _ in placed], [r[v] for _, r in placed], color="#bbb", lw=0.8, zorder=0)
        ax.set_title(_label(where, 60), fontsize=9)
        if elo:
            ax.set_xlabel(f"Elo on the levels' ladder ({_label(c.levels[0], 24)} = 0)", fontsize=8)
        else:
            ax.set_xticks(range(1, len(c.levels) + 1), [_label(x, 16) for x in c.levels], fontsize=7)
            ax.set_xlabel("level, in the order given (no ladder)", fontsize=8)
        ax.set_ylabel(_label(name), fontsize=8)
        ax.margins(x=0.25, y=0.15)
    return _svg(plt, fig)


# -- the page -------------------------------------------------------------------------------------------------

TEMPLATE = """<!doctype html><html><head><meta charset="utf-8"><title>{{ title }}</title>
<style>{{ css }}
.lead { font-size: 1.3em; } .note { color: #555; font-size: 13px; }
.bots { background: #fff3e0; padding: .4em .8em; border-radius: 6px; } td { overflow-wrap: anywhere; }</style></head><body>
<h1>{{ c.query }}: the answer against the bots' skill</h1>
<section id="answer"><p class="verdict lead">{{ head }}</p>
<ul>{% for line in lines %}<li>{{ line }}</li>{% endfor %}</ul>
<p class="note">Between the two strongest levels of each setting. "Holds": their difference lies within the margin
by two one-sided tests (its 90% interval inside it); "moves": its 95% interval leaves out zero; otherwise not enough
games to say. Two overlapping intervals are never read as agreement.</p>
{% if c.question %}<p class="note">The question: {{ c.question }}</p>{% endif %}
<p class="bots">Bots, not people: each level is one bot spec in every seat
({% for lv in c.levels %}{{ loop.index }}. <code>{{ lv }}</code>{% if not loop.last %}, {% endif %}{% endfor %};
weakest first as given). A person may play otherwise.</p></section>
<section id="plots"><h2>Each estimate against the levels' strength</h2>
<p class="note">{{ axis_note }}</p>
{% for name, src in plots %}<figure><img class="plot" alt="{{ name }} against the levels' strength" src="{{ src }}">
<figcaption class="note"><code>{{ name }}</code> with its 95% interval, per level</figcaption></figure>
{% endfor %}</section>
<section id="verdicts"><h2>The two strongest levels compared</h2>
<table><tr>{% for h in verdict_head %}<th>{{ h }}</th>{% endfor %}</tr>
{% for row in verdict_rows %}<tr>{% for cell in row %}<td>{{ cell }}</td>{% endfor %}</tr>{% endfor %}</table></section>
<section id="ladder"><h2>The levels' ladder</h2>
{% if ladder_rows %}<p class="note">{{ ladder_note }}</p>
<table><tr>{% for h in ladder_head %}<th>{{ h }}</th>{% endfor %}</tr>
{% for row in ladder_rows %}<tr>{% for cell in row %}<td>{{ cell }}</td>{% endfor %}</tr>{% endfor %}</table>
{% if fit %}<p class="note">{{ fit }}</p>{% endif %}{% else %}<p class="note">{{ c.note }}</p>{% endif %}</section>
<p class="note">Query <code>{{ c.query }}</code> over <code>{{ c.source }}</code>{% if c.spec %} (spec
<code>{{ c.spec }}</code>){% endif %}.{% if c.command %} Built by <code>{{ c.command }}</code>.{% endif %}</p>
<script>{{ script | safe }}</script></body></html>
"""


def _ladder_rows(c: Curve) -> list[list[str]]:
    rows = []
    for k, (lv, r) in enumerate(zip(c.levels, c.ratings)):
        if r is not None:
            rows.append([str(k + 1), lv, r["bot"], f"{r['elo']:+.0f}", f"{r['ci95_low']:+.0f}",
                         f"{r['ci95_high']:+.0f}", f"{int(r['games']):,}"])
    return rows


def _ladder_note(c: Curve) -> str:
    """How the levels' ladder was played, from skill.json's record of it."""
    rec = c.record or {}
    played = (c.ladder or {}).get("games")
    setup = ", ".join(f"{k}={v}" for k, v in rec.get("setup", {}).items())
    return (f"Bradley-Terry ratings on the Elo scale with 95% intervals, anchored at the first level ({c.levels[0]} "
            f"= 0), from {f'{played:,}' if isinstance(played, int) else 'the'} games of the levels against each other: "
            f"{rec.get('lineups')} line-ups (every {rec.get('seats')} levels in every seat order), "
            f"{rec.get('games_per_lineup'):,} games each, on {setup or 'the game default setup'}, rules "
            f"{rec.get('rules') or 'the default'}, master seed {rec.get('seed')} (held out: no model was trained on "
            "it): the spec's first cell's setting; the estimates come from each setting of the sweep. The anchor's "
            "interval is 0 by definition; each other level's is relative to it.")


def page(c: Curve) -> str:
    """The page, as text."""
    from jinja2 import Environment
    said = verdicts(c)
    settings = bot_settings(c.columns, c.rows, c.query_columns, c.split)
    plots = [(name, figure(c, name, v, lo, hi, settings)) for name, v, lo, hi in estimates(c.columns)] \
        if settings else []
    elo = any(r is not None for r in c.ratings)
    axis = ("x: each level's Elo on the levels' ladder with its 95% interval (horizontal bar); y: the estimate "
            "with its 95% interval (vertical bar). The Elo comes from the ladder's own setting (below).") if elo \
        else c.note
    env = Environment(autoescape=True)
    fit = (c.ladder or {}).get("fit", {})
    return env.from_string(TEMPLATE).render(
        c=c, title=f"{c.query}: the answer against skill", css=CSS, script=SCRIPT, head=headline(c, said),
        lines=answer_lines(c, said), plots=plots, axis_note=axis,
        verdict_head=["setting", "estimate", "second-strongest level", "strongest level",
                      "difference (strongest - second), 95%", "margin", "verdict"],
        verdict_rows=verdict_rows(c, said),
        ladder_head=["level", "bot spec", "bot as recorded", "Elo", "95% low", "95% high", "games"],
        ladder_rows=_ladder_rows(c) if elo else [], ladder_note=_ladder_note(c) if elo else "",
        fit=fit.get("says") if isinstance(fit, dict) and isinstance(fit.get("says"), str) else "")
