"""The measures a results folder answers beyond its cells' records, as report sections and terminal lines
(``playtest report``): restricted play and card worth (a folder laid out as one: the page is the measure's), and
kingmaking (a sweep with the kingmaking table: a section beside the cells). Tension is the report's own (its
win_prob table is per cell)."""

from __future__ import annotations

from pathlib import Path

from cluster import cards as card_words
from cluster import restrict as restrict_words
from measures.card_worth import card_worth
from measures.restrict import restricted_play
from queries import kingmaking as king
from queries.measure_pages import card_worth_section, kingmaking_section
from queries.restrict_page import restrict_section
from sim.storage import is_uri


def measure_sections(source: str) -> tuple[list[str], bool, list[str]]:
    """(HTML sections, whether they are the page alone, lines for the terminal) of the measures ``source``
    answers; nothing for a run file or object storage. A folder that cannot be read safely raises the
    readers' one-line errors (queries.library.ResultsError)."""
    if is_uri(source) or not Path(source).is_dir():
        return [], False, []
    sections, lines, alone = [], [], False
    r = restricted_play(source)
    if r is not None:
        said = restrict_words.sentences(r)
        sections.append(restrict_section(r, said))
        lines += ["restricted play:"] + [f"  {x}" for x in said]
        alone = True
    c = card_worth(source)
    if c is not None:
        said = card_words.sentences(c)
        sections.append(card_worth_section(c, said))
        lines += ["card worth:"] + [f"  {x}" for x in said]
        alone = True
    k = king.kingmaking(source)
    if k is not None:
        said = king.sentences(k)
        sections.append(kingmaking_section(k, said))
        lines += ["kingmaking:"] + [f"  {x}" for x in said]
    return sections, alone, lines
