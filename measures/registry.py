"""Every design measure, one line each: the report (measures/answers.py), the service's report step and
``playtest validate`` (measures/known) read them from here. A new measure is a package under ``measures/``
(measures/protocol.py) and its line below."""

from __future__ import annotations

from measures import card_worth, compare, first_player, kingmaking, ladder_fit, restrict, skill, strength, tension
from measures.protocol import Measure

# in the order the report shows their sections
MEASURES: tuple[Measure, ...] = (
    restrict.MEASURE,
    card_worth.MEASURE,
    kingmaking.MEASURE,
    tension.MEASURE,
    skill.MEASURE,
    strength.MEASURE,
    ladder_fit.MEASURE,
    first_player.MEASURE,
    compare.MEASURE,
)


def named(name: str) -> Measure:
    """The measure called ``name`` (KeyError when there is none)."""
    for m in MEASURES:
        if m.name == name:
            return m
    raise KeyError(name)
