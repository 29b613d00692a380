"""The first player's edge judged: among the games somebody won, the first player's share against the fair share
(1 / sides), as an equivalence verdict with a stated margin (infra.stats.equivalence): "no edge" is said only
when the edge is shown to lie within +-margin, never because an interval holds the fair share."""

from __future__ import annotations

import math

from infra.stats import MARGIN, Equivalence, equivalence


def edge_verdict(first_wins: int, decided: int, sides: int, margin: float = MARGIN) -> Equivalence:
    """The edge first_wins / decided - 1 / sides with its binomial standard error, judged against ``margin``."""
    if decided <= 0:
        return Equivalence("not enough games", 0.0, -math.inf, math.inf, margin, 0, None)
    p = first_wins / decided
    se = math.sqrt(max(p * (1 - p), 1.0 / decided) / decided)     # never 0: a share of 0 or 1 still has a spread
    return equivalence(p - 1.0 / sides, se, decided, margin)


def edge_words(v: Equivalence, who: str = "the first player") -> str:
    """The verdict in words: "no first-player edge: the same as the fair share within +-2 points (...)"."""
    shown = f"{100 * v.diff + 0.0:+.1f} points [{100 * v.low + 0.0:+.1f}, {100 * v.high + 0.0:+.1f}]"
    m = f"+-{100 * v.margin:g} points"
    if v.verdict == "same":
        return f"no edge for {who}: the same as the fair share within {m} ({shown})"
    if v.verdict == "negligible":
        return f"{who} has a negligible edge: {shown}, within {m}"
    if v.verdict == "differs":
        return f"{who} has an edge of {shown}" if v.diff > 0 else f"{who} is behind the fair share by {shown}"
    need = f"; about {v.games_needed:,} decided games would settle it" if v.games_needed else ""
    return f"not enough games to say whether {who} has an edge beyond {m} ({shown}){need}"
