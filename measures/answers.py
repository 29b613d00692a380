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
from infra.storage import is_uri


def measure_sections(source: str) -> tuple[list[str], bool, list[str]]:
    """(HTML sections, whether they are the page alone, lines for the terminal) of the measures ``source``
    answers; nothing for a run file or object storage. A folder that cannot be read safely raises the
    readers' one-line errors (queries.errors.ResultsError)."""
    if is_uri(source) or not Path(source).is_dir():
        return [], False, []
    sections, lines, alone = [], [], False
    for read, say, section, label, whole in (
            (restricted_play, restrict_words.sentences, restrict_section, "restricted play", True),
            (card_worth, card_words.sentences, card_worth_section, "card worth", True),
            (king.kingmaking, king.sentences, kingmaking_section, "kingmaking", False)):
        answer = read(source)
        if answer is None:
            continue
        said = say(answer)
        sections.append(section(answer, said))
        lines += [f"{label}:"] + [f"  {x}" for x in said]
        alone = alone or whole           # its cells are the measure's variants: the page is the answer alone
    return sections, alone, lines
