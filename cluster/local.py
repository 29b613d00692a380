"""Driver play: an embedded sweep starts playing at once, and starts Ray only when Ray pays for itself.

Starting the embedded Ray takes seconds (about 5 s on 2 cores, CPU taken from the games) and shutting it
down another second or two; a sweep of 20,000 games plays in about 1 s. So a sweep without ``--address``
(and without a Ray runtime of the caller's) plays its parts at once on ``workers`` processes forked from
the driver (``fork``: nothing to import again, so they start in milliseconds; a batch of games holds
Python's lock, so threads would share one core). A part is the same function (``cluster.part.play_part``)
writing the same bytes whatever process runs it, so the results are byte for byte those of Ray workers.
The forked processes ignore Ctrl-C (the driver decides what to keep) and die with the driver, even on
``kill -9`` (``PR_SET_PDEATHSIG``).

A player that dies (``kill -9``, the OOM killer, a crash in the engine) is noticed at once: its end of the
pipe closes. Its thread forks a new player and plays the part again from its start (its half-written file
is a hidden temporary, removed at the end), up to ``retries`` times per part as Ray retries a task; then
the sweep fails with one line (:class:`PlayerLost`). A part is its name: played again, it writes the same
bytes.

Once parts have finished, the driver estimates how long the rest takes on these threads; when that is
more than :data:`RAY_PAYS_S` (the core engine: on one machine Ray adds start-up and shutdown but no speed,
only process isolation, worth it for long sweeps) or :data:`RAY_PAYS_GIL_S` (the pure-Python reference
engine, whose threads share one core), it starts Ray (the threads keep playing meanwhile), the threads
finish the part each holds and Ray's workers play the rest. ``playtest sweep --ray`` starts Ray at once.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import queue
import signal
import threading
import time
from multiprocessing.connection import Connection
from typing import Any, Callable

RAY_PAYS_S = 600.0         # start Ray when the rest would take longer than this on the driver's threads
RAY_PAYS_GIL_S = 20.0      # ... the reference engine (pure Python: its threads share one core)
ESTIMATE_AFTER_S = 0.5     # ... judged once parts have finished and this long has passed


PR_SET_PDEATHSIG = 1


def _child_start() -> None:
    """In each forked player: Ctrl-C and SIGTERM are the driver's to handle; the process ends when the
    driver's thread that forked it does (the driver itself included)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)      # the driver's own handler is not the player's
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):      # not Linux: a player still ends when its pipe closes
        pass


def _serve(conn: Connection) -> None:
    """A forked player's loop: play each (function, arguments) received, send back (True, result) or
    (False, the exception); end when the driver closes the pipe."""
    _child_start()
    while True:
        try:
            func, args = conn.recv()
        except (EOFError, OSError):
            return
        try:
            out = (True, func(*args))
        except BaseException as e:       # noqa: BLE001 - the driver fails the sweep with it
            out = (False, e)
        try:
            conn.send(out)
        except Exception:                # noqa: BLE001 - an exception that does not pickle: its text
            conn.send((False, RuntimeError(f"{type(out[1]).__name__}: {out[1]}")))


_CLOSED = object()                      # a part cut off by close(): no result


class PlayerLost(RuntimeError):
    """A part's player died ``retries`` + 1 times while playing it (killed, out of memory, crashed)."""


def _died(code: int | None) -> str:
    """How a player process ended, in words."""
    if code is None:
        return "ended"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"was killed by {name}" + (" (kill -9 or the out-of-memory killer)" if -code == signal.SIGKILL else "")
    return f"exited with code {code}"


class _Player:
    """One forked process that plays the parts its thread sends it, one at a time, over a pipe."""

    def __init__(self):
        ctx = multiprocessing.get_context("fork")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(child,), name="playtest-player", daemon=True)
        self.proc.start()
        child.close()                    # the player's end lives in the player only: its death closes it

    def play(self, func: Callable, args: tuple) -> tuple[bool, Any]:
        """(True, result) or (False, the exception raised); None when the player died before answering."""
        try:
            self.conn.send((func, args))
            return self.conn.recv()
        except (EOFError, OSError):
            return None

    def close(self) -> int | None:
        """End the player (at once, if it still plays) and return its exit code."""
        with contextlib.suppress(OSError):
            self.conn.close()
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join()
        return self.proc.exitcode


class LocalPlayers:
    """``threads`` threads that take parts (``take()``, under ``lock``) and play each on a forked process of
    their own (``play(item)`` gives the function and its arguments); a player that dies is replaced and its
    part played again, up to ``retries`` times per part (then :class:`PlayerLost` fails the sweep).

    Results come back on the driver's thread through :meth:`results`; the driver records each (under
    ``lock``) and then calls :meth:`recorded`. ``pending`` counts the parts taken and not yet recorded.
    A thread ends when ``take()`` gives nothing while no part is pending (every part is taken, or a
    stopping policy holds the rest back: the driver decides), or after :meth:`stop`."""

    def __init__(self, threads: int, take: Callable[[], Any], play: Callable[[Any], Any], lock: threading.Lock,
                 retries: int = 5):
        self._take, self._play, self.lock, self.retries = take, play, lock, retries
        self._results: queue.Queue = queue.Queue()
        self._stop = threading.Event()
        self._closed = threading.Event()
        self.pending = 0
        self.games = 0                       # games recorded from these threads
        self.replaced = 0                    # players that died and were replaced
        self.t0 = time.perf_counter()
        self._n = max(1, threads)
        self._threads = [threading.Thread(target=self._work, args=(i,), name=f"playtest-part-{i}", daemon=True)
                         for i in range(self._n)]
        self._players: list[_Player | None] = [None] * self._n
        self._mu = threading.Lock()          # the players list: a thread replaces its own, close() ends all

    def start(self) -> "LocalPlayers":
        self.t0 = time.perf_counter()
        for i in range(self._n):             # forked from the driver's thread, before the others run
            self._players[i] = _Player()
        for t in self._threads:
            t.start()
        return self

    def _work(self, i: int) -> None:
        while not self._stop.is_set():
            with self.lock:
                try:
                    item = self._take()
                except BaseException as e:   # noqa: BLE001 - a stopping policy's error: the driver fails the sweep
                    self.pending += 1
                    self._results.put((None, None, e))
                    return
                if item is None and self.pending == 0:
                    return
                if item is not None:
                    self.pending += 1
            if item is None:                 # held back until the parts in flight are recorded
                time.sleep(0.01)
                continue
            try:
                func, args = self._play(item)
                result = self._play_on(i, item, func, args)
            except BaseException as e:       # noqa: BLE001 - handed to the driver, which fails the sweep
                self._results.put((item, None, e))
                return
            if result is _CLOSED:            # closed meanwhile: the driver keeps nothing more
                return
            self._results.put((item, result, None))

    def _play_on(self, i: int, item: Any, func: Callable, args: tuple) -> Any:
        """Play one part on thread ``i``'s player, replacing the player each time it dies (``_CLOSED``: the
        players were closed meanwhile)."""
        for attempt in range(self.retries + 1):
            with self._mu:
                if self._closed.is_set():
                    return _CLOSED
                if self._players[i] is None:
                    self._players[i] = _Player()
                player = self._players[i]
            answer = player.play(func, args)
            if answer is not None:
                ok, value = answer
                if not ok:
                    raise value
                return value
            with self._mu:
                if self._closed.is_set():
                    return _CLOSED
                self._players[i] = None
            how = _died(player.close())
            if attempt < self.retries:
                self.replaced += 1
        raise PlayerLost(f"part {_name(item)}: its player process {how} {self.retries + 1} times in a row; "
                         "the sweep stops (the other parts are kept: --resume plays the rest)")

    def results(self, timeout: float) -> list[tuple[Any, Any, BaseException | None]]:
        """The parts finished since the last call (waits up to ``timeout`` for the first one)."""
        out = []
        try:
            out.append(self._results.get(timeout=timeout))
            while True:
                out.append(self._results.get_nowait())
        except queue.Empty:
            pass
        return out

    def recorded(self, games: int) -> None:
        """The driver recorded one part of ``games`` games (call under ``lock``)."""
        self.pending -= 1
        self.games += games

    def stop(self) -> None:
        """Take no new part; a part being played is finished and its result still comes back."""
        self._stop.set()

    def close(self) -> None:
        """End the forked players at once (a part cut off mid-write leaves only a hidden temporary file)."""
        self._stop.set()
        with self._mu:
            self._closed.set()
            players, self._players = self._players, [None] * self._n
        for p in players:
            if p is not None:
                p.close()

    def pids(self) -> list[int]:
        """The process ids of the players alive now."""
        with self._mu:
            return [p.proc.pid for p in self._players if p is not None and p.proc.pid is not None]

    def alive(self) -> bool:
        return any(t.is_alive() for t in self._threads)

    def idle(self) -> bool:
        """No thread plays and no result waits: every part taken was recorded."""
        return self.pending == 0 and self._results.empty()

    def ray_pays(self, games_left: int, engine: str = "core") -> bool:
        """Whether the ``games_left`` not yet played would take longer than RAY_PAYS_S (the reference engine:
        RAY_PAYS_GIL_S) at the rate the threads have played so far."""
        elapsed = time.perf_counter() - self.t0
        if self.games == 0 or elapsed < ESTIMATE_AFTER_S:
            return False
        return games_left / (self.games / elapsed) > (RAY_PAYS_GIL_S if engine == "reference" else RAY_PAYS_S)

    def drain(self, record: Callable[[Any, Any], None], deadline: float, give_up: Callable[[], bool]) -> None:
        """After Ctrl-C: no new parts; keep the parts that finish before ``deadline`` (``record(item, result)``)."""
        self.stop()
        while self.pending and time.perf_counter() < deadline and not give_up():
            for item, result, err in self.results(timeout=0.05):
                with self.lock:
                    self.pending -= 1
                    if err is None:
                        record(item, result)


def _name(item: Any) -> str:
    """A part as CELL/BATCH (an item is (cell id, batch))."""
    return "/".join(map(str, item)) if isinstance(item, tuple) else str(item)
