"""The scripted random stream of the hand-worked rulebook tests (tests/paws/scenario.py,
tests/tales/tales_scenario.py): ONE ordered queue shared by the dice, the random picks and the bots'
decisions.

* an int 1..6 is the next ``rng.die()``;
* ``Pick(n, k)`` is the next ``rng.below(n)`` and returns ``k`` (``n`` must match);
* ``Ask(seat, Decision.X, value)`` is the next bot decision: that seat, that kind, and the option
  equal to ``value`` is chosen (``options=[...]`` additionally asserts the full option list);
* lists and tuples are flattened, so a roll of four dice is written ``[6, 5, 2, 1]``.

Any draw or decision that is not the next scripted entry fails at once, and leaving a ``with script(g,
...)`` block with entries not consumed fails too. A game under test carries its queue as ``g.script``
and draws through :class:`ScriptedRng` and :class:`ScriptedBot`.
"""

from __future__ import annotations

import contextlib
from collections import deque
from dataclasses import dataclass
from typing import Any


class ScriptError(AssertionError):
    """The engine drew a die, a random number or a decision the scenario did not script."""


@dataclass(frozen=True)
class Pick:
    """The next ``rng.below(n)`` returns ``k``."""
    n: int
    k: int


@dataclass(frozen=True)
class Ask:
    """The next bot decision: ``seat`` decides ``kind`` and picks the option equal to ``value``."""
    seat: int
    kind: Any
    value: Any
    options: list | None = None


def flatten(entries) -> list:
    out = []
    for e in entries:
        if isinstance(e, (list, tuple)) and not isinstance(e, (Pick, Ask)):
            out.extend(flatten(e))
        else:
            out.append(e)
    return out


class Script:
    """The ordered queue of dice, picks and decisions a scenario expects, and what was consumed."""

    def __init__(self):
        self.queue: deque = deque()
        self.used: list = []

    def _next(self, what: str):
        if not self.queue:
            raise ScriptError(f"unscripted {what}: the script is exhausted (consumed so far: {self.used})")
        return self.queue.popleft()

    def die(self) -> int:
        e = self._next("die()")
        if not isinstance(e, int) or isinstance(e, bool) or not 1 <= e <= 6:
            raise ScriptError(f"engine rolled a die but the script expects {e!r} (consumed: {self.used})")
        self.used.append(e)
        return e

    def below(self, n: int) -> int:
        e = self._next(f"below({n})")
        if not isinstance(e, Pick) or e.n != n:
            raise ScriptError(f"engine drew below({n}) but the script expects {e!r} (consumed: {self.used})")
        assert 0 <= e.k < n, f"bad script entry {e!r}"
        self.used.append(e)
        return e.k

    def decide(self, seat: int, kind, options: list) -> int:
        e = self._next(f"decision {kind!r} of seat {seat} among {options}")
        if not isinstance(e, Ask) or e.seat != seat or e.kind != kind:
            raise ScriptError(f"engine asked seat {seat} for {kind!r} among {options} but the script expects "
                              f"{e!r} (consumed: {self.used})")
        if e.options is not None and list(options) != list(e.options):
            raise ScriptError(f"seat {seat} {kind!r}: options {options}, expected {e.options}")
        if e.value not in options:
            raise ScriptError(f"seat {seat} {kind!r}: scripted choice {e.value!r} is not among {options}")
        self.used.append(e)
        return list(options).index(e.value)


class ScriptedRng:
    """Stands in for sim.rng.Rng: die(), below(n) and shuffle() come from the script."""

    def __init__(self, script: Script):
        self.script = script

    def die(self) -> int:
        return self.script.die()

    def below(self, n: int) -> int:
        return self.script.below(n)

    def shuffle(self, items: list) -> None:
        """Fisher-Yates from the last position down, exactly as sim.rng.Rng.shuffle (one Pick per swap)."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def next32(self) -> int:
        raise ScriptError("engine called next32() directly")


class ScriptedBot:
    def __init__(self, script: Script):
        self.script = script

    def decide(self, g, seat: int, kind, options: list) -> int:
        return self.script.decide(seat, kind, options)


def no_shuffle(n: int) -> list[Pick]:
    """Picks that make a shuffle of ``n`` items leave them in place (every swap is i with i)."""
    return [Pick(i + 1, i) for i in range(n - 1, 0, -1)]


@contextlib.contextmanager
def script(g, *entries):
    """Run the block with exactly these dice, picks and decisions, in this order; all must be used."""
    s: Script = g.script
    assert not s.queue, f"a previous script was not consumed: {list(s.queue)}"
    s.queue.extend(flatten(entries))
    start = len(s.used)
    yield s
    left = list(s.queue)
    s.queue.clear()
    if left:
        raise ScriptError(f"the engine did not use all of the script: left over {left} "
                          f"(consumed: {s.used[start:]})")


# -- the cores' scenario modules (core/<game>_scenario.pyx) take a script as int tuples ----------------
S_DIE, S_PICK, S_ASK = 0, 1, 2        # ScriptEntry.kind in both cores' script.pxi


def encode_entry(entry, core_option, width: int) -> tuple[int, ...]:
    """One scenario entry as a core's (kind, x, y, option...): ``core_option(kind, value)`` gives an Ask's
    option as the core's tuple of ``width`` ints."""
    pad = (0,) * width
    if isinstance(entry, Pick):
        assert 0 <= entry.k < entry.n, f"bad script entry {entry!r}"
        return (S_PICK, entry.n, entry.k, *pad)
    if isinstance(entry, Ask):
        return (S_ASK, entry.seat, int(entry.kind), *core_option(entry.kind, entry.value))
    if isinstance(entry, int) and not isinstance(entry, bool) and 1 <= entry <= 6:
        return (S_DIE, entry, 0, *pad)
    raise ScriptError(f"script entry {entry!r} is not a die (1..6), a Pick or an Ask")


def core_failure(report: dict, queue: list, used: list, decision, reference_option) -> str:
    """The harness's ScriptError text for the first draw or decision of a core that did not match.
    ``decision``: the game's Decision enum; ``reference_option(kind, option)``: the inverse of the
    game's core_option."""
    f = report["failed"]
    e = queue[0] if queue else None
    if f["kind"] == S_DIE:
        what = "die()"
    elif f["kind"] == S_PICK:
        what = f"below({f['x']})"
    else:
        kind = decision(f["y"])
        options = ("(too many to list)" if f["options"] is None
                   else [reference_option(kind, o) for o in f["options"]])
        what = f"decision {kind!r} of seat {f['x']} among {options}"
        if isinstance(e, Ask) and e.seat == f["x"] and e.kind == kind:
            return f"seat {e.seat} {kind!r}: scripted choice {e.value!r} is not among {options}"
    if e is None:
        return f"unscripted {what}: the script is exhausted (consumed so far: {used})"
    return f"core drew {what} but the script expects {e!r} (consumed: {used})"


def both_engines(core_module: str):
    """The body of a game's ``engine`` fixture (its tests/<game>/conftest.py): the reference engine as it
    is, and the core, with the engine functions the test module calls pointed at their core twins in
    ``core_module`` (its ``use_core(module, monkeypatch)``); a core run that calls no core function fails,
    because such a test belongs on the reference engine only (``@reference_only``)."""
    import importlib

    def engine(request, monkeypatch):
        if request.param != "core":
            yield request.param
            return
        core = importlib.import_module(core_module)
        core.use_core(request.module, monkeypatch)
        before = core.calls
        yield request.param
        assert core.calls > before, "the test ran no core function: mark it @reference_only"
    return engine
