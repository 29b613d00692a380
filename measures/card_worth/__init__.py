"""Card worth: what each card is worth, by ablations on common random numbers (``playtest card-worth``;
docs/card-worth.md).

Played as a sweep (sweep.py: the real deck's cell and one cell per card variant, the card files written into the
folder), answered from its folder and its spec (answer.py), shown as the report's section (page.py), checked on
known answers (cases.py)."""

from __future__ import annotations

from measures.card_worth import sweep
from measures.card_worth.answer import card_worth
from measures.card_worth.page import card_worth_section
from measures.protocol import Measure

__all__ = ["MEASURE", "card_worth"]

MEASURE = Measure("card-worth", "card worth", "docs/card-worth.md", command="card-worth", sweep=sweep,
                  answer=card_worth, sentences=sweep.sentences, section=card_worth_section, alone=True,
                  cases="measures.card_worth.cases")
