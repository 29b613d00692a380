"""What every game's state holds for the kit, and the one hook through which a seat's bot decides."""

from __future__ import annotations

from sim.events import EventLog, indent

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

    # -- the event stream (sim/events.py): a game defines view(), board(), clock() and seat_name() ----------
    def emit(self, kind: str, text: str, actor: int = NOBODY, depth: int = 0) -> None:
        """Narrate one event: a line of the text log, and with an EventLog also the event and its state change."""
        log = self.log
        if log is None:
            return
        if isinstance(log, EventLog):
            if not log.events:
                log.meta = self.board()
            round_, turn = self.clock()
            log.add(round_, turn, self.seat_name(actor) if actor != NOBODY else None, kind, depth, text,
                    self.view())
        else:
            log.append(indent(depth, text))

    def settle_events(self) -> None:
        """At the end of the game: what changed after the last event joins that event's change."""
        if isinstance(self.log, EventLog):
            self.log.settle(self.view())

    def seat_name(self, seat: int) -> str:
        """A seat as the rulebook names it (seat 0 is Player 1)."""
        return f"Player {seat + 1}"

    def clock(self) -> tuple[int, int]:
        """(round, turn) of the game now."""
        return getattr(self, "round", 0), getattr(self, "turns", 0)

    def view(self) -> dict:
        """The drawn state: plain JSON values (the replay draws these)."""
        return {}

    def board(self) -> dict:
        """What does not change during a game that the replay needs to draw it (geometry, names)."""
        return {}
