"""Running known-answer cases (``playtest validate``): select them, check the designer's variant before any game,
run each, and give one row per case."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Iterable

from measures.known import Case, Context, Outcome, cases, measures
from sim.games import GAMES


class ValidateError(ValueError):
    """Bad input to ``playtest validate``: one line naming the flag and the allowed values."""


@dataclass(frozen=True)
class Row:
    """One case's line of the validation table."""

    case: Case
    outcome: Outcome
    seconds: float

    def as_dict(self) -> dict[str, Any]:
        c, o = self.case, self.outcome
        return {"measure": c.measure, "case": c.name, "kind": c.kind, "game": c.game, "expected": c.expected,
                "measured": o.measured, "value": o.value, "interval": list(o.interval) if o.interval else None,
                "passed": o.passed, "slow": c.slow, "seconds": round(self.seconds, 2)}


def select(measure: str | None, ctx: Context, slow: bool) -> list[Case]:
    """The cases to run: of ``measure`` (None: every measure), of ``ctx.game`` where one is given (cases that play
    no game, simulations of a decision rule, always run), fast ones only unless ``slow``. Refuses an unknown
    measure or game, and a variant without a game, in one line (ValidateError)."""
    known = measures()
    if measure is not None and measure not in known:
        raise ValidateError(f"MEASURE {measure!r} has no known-answer cases; allowed: {', '.join(known)}")
    if ctx.game is not None and ctx.game not in GAMES.names():
        raise ValidateError(f"--game {ctx.game!r} is not allowed; expected one of {', '.join(GAMES.names())}")
    if ctx.variant and ctx.game is None:
        raise ValidateError("--rules, --set, --setup and --data describe a variant of one game: give --game too")
    if ctx.variant:
        check_variant(ctx)
    chosen = [c for c in cases() if (measure is None or c.measure == measure)
              and (ctx.game is None or c.game in (None, ctx.game)) and (slow or not c.slow)]
    if ctx.variant:
        chosen = [c for c in chosen if c.variant or c.game is None]
    return chosen


def check_variant(ctx: Context) -> None:
    """The designer's variant resolves as the game's own checks say (one line, ValidateError), before any game."""
    from sim.card_files import CardDataError
    from sim.games import EngineError
    from sim.params import RuleError
    game = GAMES[ctx.game]
    try:
        game.resolve(ctx.rules, dict(ctx.overrides), dict(ctx.setup), dict(ctx.data) or None, where="validate")
    except (RuleError, EngineError, CardDataError, ValueError) as e:
        raise ValidateError(str(e)) from None


def run(chosen: Iterable[Case], ctx: Context, on_row=None) -> list[Row]:
    """Run each case (a case's own failure to run is a bug, raised); ``on_row(row)`` after each."""
    rows = []
    for c in chosen:
        t0 = time.perf_counter()
        outcome = c.run(ctx)
        row = Row(c, outcome, time.perf_counter() - t0)
        rows.append(row)
        if on_row is not None:
            on_row(row)
    return rows
