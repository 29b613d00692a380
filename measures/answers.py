"""The measures a results folder answers beyond its cells' records, as report sections and terminal lines
(``playtest report``): each registered measure with a report section (measures/registry.py) whose answer the
folder holds. Restricted play and card worth lay a folder out as themselves (the page is the measure's alone);
kingmaking is a section beside the cells. A measure read from a table of any sweep (tension's win_prob) is
handed to the report per cell (:data:`PER_CELL`) and to ``playtest compare`` per game (:data:`PER_GAME`).
:func:`write_report` is the one choice between a measure's page alone and the full report, for ``playtest
report`` and the service's report step."""

from __future__ import annotations

from pathlib import Path

from infra.storage import is_uri
from measures.registry import MEASURES
from queries import report as rep
from queries.pages import CSS, SCRIPT, esc
from sim.files import write_atomic

# the measures read per cell by the report and per game by a comparison, wherever the results hold their table
PER_CELL = tuple(m.per_cell for m in MEASURES if m.per_cell is not None)
PER_GAME = tuple(m.per_game for m in MEASURES if m.per_game is not None)

PAGE_CSS = CSS + """
.note { color: #555; font-size: 13px; } .bots { background: #fff3e0; padding: .4em .8em; border-radius: 6px; }
.warn { color: #8a1f11; background: #fdecea; padding: .3em .6em; border-radius: 4px; }
"""


def measure_sections(source: str) -> tuple[list[str], bool, list[str]]:
    """(HTML sections, whether they are the page alone, lines for the terminal) of the measures ``source``
    answers; nothing for a run file or object storage. A folder that cannot be read safely raises the
    readers' one-line errors (queries.errors.ResultsError)."""
    if is_uri(source) or not Path(source).is_dir():
        return [], False, []
    sections, lines, alone = [], [], False
    for m in MEASURES:
        if m.section is None or m.answer is None or m.sentences is None:
            continue
        answer = m.answer(source)
        if answer is None:
            continue
        said = m.sentences(answer)
        sections.append(m.section(answer, said))
        lines += [f"{m.title}:"] + [f"  {x}" for x in said]
        alone = alone or m.alone          # its cells are the measure's variants: the page is the answer alone
    return sections, alone, lines


def measure_page(title: str, sections: list[str], source: str, command: str = "") -> str:
    """A page of measure sections alone."""
    return "\n".join([f"<!doctype html><html><head><meta charset='utf-8'><title>{esc(title)}</title>"
                      f"<style>{PAGE_CSS}</style></head><body><h1>{esc(title)}</h1>",
                      f"<p class='note'>From <code>{esc(source)}</code>.</p>", *sections,
                      f"<p class='note'>Built by <code>{esc(command)}</code>.</p>" if command else "",
                      f"<script>{SCRIPT}</script></body></html>"])


def write_report(results: str, page: Path, *, command: str = "", alone_command: str | None = None,
                 **options) -> tuple[rep.Report | None, list[str]]:
    """Write the page of ``results`` to ``page``: the measure's answer alone for a folder laid out as one
    (restricted play, card worth; the page names ``alone_command``, by default ``command``), else the full
    report (queries.report.build, ``options`` its own) with the measures' sections and the per-cell measures.
    Returns (the report, None for a measure's page alone; the measures' lines for the terminal). Raises the
    readers' one-line errors, and OSError when the page cannot be written."""
    sections, alone, lines = measure_sections(results)
    if alone:        # its cells are the measure's variants: the page is the measure's answer
        said = command if alone_command is None else alone_command
        write_atomic(page, measure_page(f"playtest report: {Path(results).name}", sections, results, said))
        return None, lines
    return rep.build(results, page, command=command, sections=sections, per_cell=PER_CELL, **options), lines
