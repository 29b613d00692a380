"""The live progress bar of a run of games (``playtest run``, sweeps, the regression): games done of all,
games/s in this run and the time left, on stderr."""

from __future__ import annotations

import time

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn


class GamesBar:
    """A rich bar over ``total`` games, ``done`` of them finished before this run began (a resumed sweep).

    Use it as a context manager (or ``start``/``stop``); ``advance(n)`` when n more games are done. The
    rate counts this run's games only."""

    def __init__(self, total: int, done: int = 0, console: Console | None = None):
        self.bar = Progress(TextColumn("[bold]games"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("{task.fields[rate]}"), TextColumn("ETA"), TimeRemainingColumn(),
                            console=console or Console(stderr=True))
        self.task = self.bar.add_task("games", total=total, completed=done, rate="")
        self.games = 0
        self.t0 = time.perf_counter()

    def start(self) -> None:
        self.t0 = time.perf_counter()
        self.bar.start()

    def stop(self) -> None:
        self.bar.stop()

    def __enter__(self) -> "GamesBar":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def advance(self, n: int) -> None:
        """``n`` more games are done."""
        self.games += n
        self.bar.update(self.task, advance=n)
        self.refresh()

    def refresh(self) -> None:
        """Update the games/s figure (called as games finish, and while waiting for them)."""
        rate = self.games / max(time.perf_counter() - self.t0, 1e-9)
        self.bar.update(self.task, rate=f"{rate:,.0f} games/s")
