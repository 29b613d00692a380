"""Driver play: an embedded sweep starts playing at once, and starts Ray only when Ray pays for itself.

Starting the embedded Ray takes seconds (about 5 s on 2 cores, CPU taken from the games) and shutting it
down another second or two; a sweep of 20,000 games plays in about 1 s. So a sweep without ``--address``
(and without a Ray runtime of the caller's) plays its parts at once on ``workers`` processes forked from
the driver (``fork``: nothing to import again, so they start in milliseconds; a batch of games holds
Python's lock, so threads would share one core). A part is the same function (``cluster.part.play_part``)
writing the same bytes whatever process runs it, so the results are byte for byte those of Ray workers.
The forked processes ignore Ctrl-C (the driver decides what to keep) and die with the driver, even on
``kill -9`` (``PR_SET_PDEATHSIG``).

Once parts have finished, the driver estimates how long the rest takes on these threads; when that is
more than :data:`RAY_PAYS_S` (the core engine: on one machine Ray adds start-up and shutdown but no speed,
only process isolation, worth it for long sweeps) or :data:`RAY_PAYS_GIL_S` (the pure-Python reference
engine, whose threads share one core), it starts Ray (the threads keep playing meanwhile), the threads
finish the part each holds and Ray's workers play the rest. ``playtest sweep --ray`` starts Ray at once.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import queue
import signal
import threading
import time
from typing import Any, Callable

RAY_PAYS_S = 600.0         # start Ray when the rest would take longer than this on the driver's threads
RAY_PAYS_GIL_S = 20.0      # ... the reference engine (pure Python: its threads share one core)
ESTIMATE_AFTER_S = 0.5     # ... judged once parts have finished and this long has passed


PR_SET_PDEATHSIG = 1


def _child_start() -> None:
    """In each forked player: Ctrl-C is the driver's to handle; the process ends when the driver does."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):      # not Linux: the pool's own pipes still end idle players
        pass


class LocalPlayers:
    """``threads`` threads that take parts (``take()``, under ``lock``) and play each on one of as many forked
    processes (``play(item)`` gives the function and its arguments).

    Results come back on the driver's thread through :meth:`results`; the driver records each (under
    ``lock``) and then calls :meth:`recorded`. ``pending`` counts the parts taken and not yet recorded.
    A thread ends when ``take()`` gives nothing while no part is pending (every part is taken, or a
    stopping policy holds the rest back: the driver decides), or after :meth:`stop`."""

    def __init__(self, threads: int, take: Callable[[], Any], play: Callable[[Any], Any], lock: threading.Lock):
        self._take, self._play, self.lock = take, play, lock
        self._results: queue.Queue = queue.Queue()
        self._stop = threading.Event()
        self.pending = 0
        self.games = 0                       # games recorded from these threads
        self.t0 = time.perf_counter()
        self._threads = [threading.Thread(target=self._work, name=f"playtest-part-{i}", daemon=True)
                         for i in range(max(1, threads))]
        self._pool = None
        self._n = max(1, threads)

    def start(self) -> "LocalPlayers":
        self.t0 = time.perf_counter()
        self._pool = multiprocessing.get_context("fork").Pool(self._n, initializer=_child_start)
        for t in self._threads:
            t.start()
        return self

    def _work(self) -> None:
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
                self._results.put((item, self._pool.apply_async(func, args).get(), None))
            except BaseException as e:       # noqa: BLE001 - handed to the driver, which fails the sweep
                self._results.put((item, None, e))
                return

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
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None

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
