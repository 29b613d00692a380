"""Tension where the report and ``playtest compare`` read it (docs/tension.md): per cell, a section of the report
page (queries.report.PerCell), and per game, two rows of a comparison (queries.compare.PerGame). Both read the
win_prob table through trace.py; the layer above queries hands them in (measures/answers.py)."""

from __future__ import annotations

import numpy as np

from measures.tension.trace import TABLE, per_game, sentences, tension
from queries.compare import PerGame
from queries.pages import BASE, CUR, esc
from queries.report import PerCell, Report, _finish, _grid, _img, _mpl, _text, interval, pct


def cell_line(t: dict) -> str | None:
    """A cell's line in the report's text summary; None when no won game was measured (or it was refused)."""
    if t["decided_early"]["share"] is None:
        return None
    return (f"tension: decided in the first half {pct(t['decided_early']['share'])} of the won games "
            f"(95%: {interval(*t['decided_early']['ci95'])}); the winner's lowest chance "
            f"{t['lowest_chance_of_winner']['mean']:.2f} on average")


def tension_figure(report: Report) -> str:
    """Per cell, the eventual winner's chance through the game and the others' mean chance (median and
    25-75% over the won games), the decided line dashed; shared axes."""
    plt = _mpl()
    cells = [c for c in report.cells if "tension" in c.measures]
    fig, axes = _grid(plt, len(cells))
    for cell, ax in zip(cells, axes):
        t = cell.measures["tension"]
        c = t["curve"]
        x = [100 * p for p in c["progress"]]
        for name, q, colour in (("the eventual winner", c["winner_quartiles"], CUR),
                                ("the others (mean)", c["others_quartiles"], BASE)):
            if q[1]:
                ax.fill_between(x, q[0], q[2], color=colour, alpha=0.2)
                ax.plot(x, q[1], color=colour, lw=2, label=name)
        ax.axhline(t["decided_at"], color="#888", ls="--", lw=1)
        ax.set_ylim(0, 1)
        ax.set_title(_text(cell.label), fontsize=9)
        ax.set_xlabel("progress through the game (% of its turns)")
        ax.set_ylabel("chance to win (median, 25-75%)")
        ax.legend(fontsize=7, loc="upper left")
    return _finish(plt, fig)


def section(report: Report) -> str:
    """The report's tension section: the curves per cell and each cell's answer in words."""
    cells = [c for c in report.cells if "tension" in c.measures]
    oracle = report.spec.get("oracle")
    oracle = f" of <code>{esc(str(oracle))}</code>" if oracle else ""
    parts = [f"<section id='tension'><h2>Is it tense to the end?</h2><p class='note'>Each side's chance to win at the "
             f"start of every turn, by the value head{oracle} (a learned model rating each seat from what every "
             "player can see; docs/tension.md), stored with the games (the win_prob table). Of the games somebody "
             "won: the eventual winner's curve and the others' mean, median and quartiles; dashed: the chance "
             "above which a game counts as decided.</p>", _img("chance to win through the game per cell",
                                                               tension_figure(report))]
    for c in cells:
        parts.append(f"<h3>{esc(c.label)}</h3><ul>" + "".join(f"<li>{esc(x)}</li>"
                                                                for x in sentences(c.measures["tension"]))
                     + "</ul>")
    return "".join(parts) + "</section>"


PER_CELL = PerCell("tension", TABLE, tension, cell_line, section)


# a side's games with their tension measures where the results hold a win_prob table: a game without one counts
# as not won there, so a side without the table has no tension rows to compare; a game of a configuration whose
# recalibration tension refused (not in tension_games) carries the refusal (t_refusal), and a cell with one has
# no tension rows: the refusal is said instead
GAMES = """SELECT g.*, coalesce(t.winning_side >= 0, false)::TINYINT AS t_won,
    coalesce(t.decisive < 0.5, false)::TINYINT AS t_early, coalesce(t.comeback, false)::TINYINT AS t_comeback,
    coalesce(c.refusal, '') AS t_refusal
    FROM {games} g LEFT JOIN tension_games t ON g.seed = t.seed AND g.game_index = t.game_index
        AND g.results IS NOT DISTINCT FROM t.results AND g.cell IS NOT DISTINCT FROM t.cell
    LEFT JOIN (SELECT * FROM tension_calibration WHERE NOT passed) c
        ON g.results IS NOT DISTINCT FROM c.results AND g.cell IS NOT DISTINCT FROM c.cell"""


def refusals(a: dict, b: dict) -> list[str]:
    """Each side's refusal of its configuration's recalibration ('A: tension refused: ...'), empty when neither
    side's games were refused (or neither has tension)."""
    out = []
    for name, side in (("A", a), ("B", b)):
        for line in sorted({str(x) for x in side.get("t_refusal", ()) if x}):
            out.append(f"{name}: {line}")
    return out


def refused(a: dict, b: dict) -> str | None:
    """Why a matched cell has no tension rows, when tension refused a side's configuration."""
    lines = refusals(a, b)
    if lines and "t_won" in a and "t_won" in b:
        return "no tension rows (" + "; ".join(lines) + ")"
    return None


def metrics(a: dict, b: dict) -> list[tuple]:
    """The comparison's tension rows, where it calibrated the oracle on both sides' games."""
    if "t_won" not in a or "t_won" not in b or refusals(a, b):
        return []
    return [("won games decided in their first half", "ratio",
             "the share of won games decided in their first half (tension)",
             np.stack([a["t_early"], a["t_won"]], axis=1), np.stack([b["t_early"], b["t_won"]], axis=1)),
            ("won games with a comeback", "ratio",
             "the share of won games whose winner came back from under half its fair share (tension)",
             np.stack([a["t_comeback"], a["t_won"]], axis=1), np.stack([b["t_comeback"], b["t_won"]], axis=1))]


PER_GAME = PerGame(TABLE, per_game, GAMES, ("t_won", "t_early", "t_comeback", "t_refusal"), metrics, refused)
