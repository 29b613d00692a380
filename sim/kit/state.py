"""What every game's state holds for the kit, and the one hook through which a seat's bot decides."""

from __future__ import annotations

NOBODY = -1     # no seat (no owner, no winner, no one acting)


class GameState:
    """Rules, cards, one bot per seat, the game's random stream and its optional event log.

    A game's ``Game`` class extends it with its own board, seats and counters. Bots decide through
    :meth:`ask` only, so every random number of a game is drawn from ``rng`` in a fixed order.
    """

    def __init__(self, setup, rules, cards, bots, rng, log: list | None):
        self.setup, self.rules, self.cards, self.bots, self.rng, self.log = setup, rules, cards, bots, rng, log

    def ask(self, seat: int, kind, options: list) -> int:
        """The index of the option the seat's bot picks; a choice of one is not asked (and draws nothing)."""
        if len(options) == 1:
            return 0
        return self.bots[seat].decide(self, seat, kind, options)

    def choose(self, seat: int, kind, options: list):
        """The option itself that the seat's bot picks (see :meth:`ask`)."""
        return options[self.ask(seat, kind, options)]

    def say(self, text: str) -> None:
        """Add a line to the event log, if this game keeps one."""
        if self.log is not None:
            self.log.append(text)
