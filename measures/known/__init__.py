"""Known answers: every design measure checked on cases whose answer is known before it speaks
(``playtest validate``; docs/validation.md).

A measure's cases live in its own package, ``measures/<measure>/cases.py``, which registers them with
:func:`case`; this package is the framework they share (and ``_play``: a case's small sweep; ``_run``: running
them). Two kinds:

- **planted**: the property is built in and the answer known (a rigged line-up, an absurd card, a tiny
  calibration game); the measure must find it;
- **null**: the property is absent; the measure must not claim it.

Each case is either *one run* of the measure on a game (a rigged variant of a real game, or a calibration
game) that passes when the measure's answer matches the known one, or *a simulation* of the measure's
decision rule many times on data drawn with a known truth, which measures the rate at which it says the
property is there: a null case's false-positive rate must not be shown above the stated alpha, a planted
case's power not shown below the stated power (:func:`rate_check`: an exact one-sided binomial test at 1%,
so a correct measure fails it in about 1 run in 100 at the boundary, far less away from it).

A case gets a :class:`Context`: the seed, a scale for its games (``--games``), and the designer's variant
(``--rules``, ``--set``, ``--setup``, ``--data``), which the cases that play a real game play on, so a designer
can run the planted cases on their own variant. It returns an :class:`Outcome`: what it measured, in words,
with its interval, and whether that passes.

Registration is by measure: :func:`cases` imports the cases module each measure of measures/registry.py
names (``Measure.cases``), so a new measure's cases are found with its line there.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

KINDS = ("planted", "null")
ALPHA = 0.05                 # a null case's false-positive rate must not be shown above this (by default)
CHECK_LEVEL = 0.01           # the one-sided binomial test that judges a simulated rate


@dataclass(frozen=True)
class Context:
    """What a case may play on: the seed, a multiplier of its own game counts, and the designer's variant."""

    seed: int = 1
    scale: float = 1.0                               # the case's games x this (``--scale``)
    game: str | None = None                          # only cases of this game (None: every game)
    rules: str | None = None                         # a rule preset of ``game``
    overrides: Mapping[str, Any] = field(default_factory=dict)     # --set
    setup: Mapping[str, Any] = field(default_factory=dict)         # --setup (bots excluded)
    data: Mapping[str, str] = field(default_factory=dict)          # --data KEY=FILE
    workers: int | None = None                       # processes a case that sweeps may use

    def games(self, n: int, least: int = 10) -> int:
        """A case's own game count ``n`` at this scale."""
        return max(least, int(round(n * self.scale)))

    @property
    def variant(self) -> bool:
        """True when the designer gave a variant of their own (the cases then play it, not the defaults)."""
        return bool(self.rules or self.overrides or self.setup or self.data)


@dataclass(frozen=True)
class Outcome:
    """What a case measured (words, with the interval), and whether it matches the known answer."""

    measured: str
    passed: bool
    value: float | None = None                       # the number the verdict rests on, for --json
    interval: tuple[float, float] | None = None


@dataclass(frozen=True)
class Case:
    """One known-answer case of a measure."""

    measure: str                                     # the measure's name, as ``playtest validate MEASURE`` takes it
    name: str                                        # the case, unique within the measure
    kind: str                                        # "planted" or "null"
    expected: str                                    # the known answer, in words
    run: Callable[[Context], Outcome]
    game: str | None = None                          # the game it plays (None: no game, a simulation)
    slow: bool = False                               # minutes rather than seconds: run in CI, skipped by default
    variant: bool = False                            # plays the designer's --rules/--set/--setup/--data when given


_REGISTRY: dict[tuple[str, str], Case] = {}


def case(measure: str, name: str, kind: str, expected: str, *, game: str | None = None, slow: bool = False,
         variant: bool = False) -> Callable[[Callable[[Context], Outcome]], Callable[[Context], Outcome]]:
    """Register the decorated function as a known-answer case of ``measure``."""
    if kind not in KINDS:
        raise ValueError(f"case {measure}/{name}: kind {kind!r}; allowed: {', '.join(KINDS)}")

    def add(run: Callable[[Context], Outcome]) -> Callable[[Context], Outcome]:
        key = (measure, name)
        if key in _REGISTRY and _REGISTRY[key].run.__qualname__ != run.__qualname__:
            raise ValueError(f"case {measure}/{name} is registered twice")
        _REGISTRY[key] = Case(measure, name, kind, expected, run, game, slow, variant)
        return run
    return add


def cases() -> list[Case]:
    """Every registered case, measure by measure (each measure's cases module imported once)."""
    from measures.registry import MEASURES
    for m in MEASURES:
        if m.cases is not None:
            importlib.import_module(m.cases)
    return sorted(_REGISTRY.values(), key=lambda c: (c.measure, KINDS.index(c.kind), c.name))


def measures() -> list[str]:
    """The measures that have known-answer cases."""
    return sorted({c.measure for c in cases()})


def rate_check(hits: int, runs: int, *, null: bool, rate: float) -> tuple[bool, tuple[float, float]]:
    """Judge a rate measured by simulation: ``hits`` of ``runs`` said "the property is there".

    A null case (``null``) passes unless the false-positive rate is shown above ``rate`` (its alpha); a planted
    case passes unless the detection rate is shown below ``rate`` (its stated power); "shown" is an exact
    one-sided binomial test at :data:`CHECK_LEVEL`. Returns (passed, the rate's Wilson 95% interval)."""
    from scipy.stats import binomtest

    from infra.stats import wilson
    if null:
        p = binomtest(hits, runs, rate, alternative="greater").pvalue
    else:
        p = binomtest(hits, runs, rate, alternative="less").pvalue
    return bool(p >= CHECK_LEVEL), wilson(hits, runs)


def rate_outcome(hits: int, runs: int, *, null: bool, rate: float, what: str) -> Outcome:
    """A simulated rate as an Outcome: "said <what> in 4.1% [2.9, 5.7] of 1,000 runs (alpha 5%)"."""
    passed, (low, high) = rate_check(hits, runs, null=null, rate=rate)
    bound = f"alpha {100 * rate:g}%" if null else f"stated power {100 * rate:g}%"
    return Outcome(f"said {what} in {100 * hits / runs:.1f}% [{100 * low:.1f}, {100 * high:.1f}] of {runs:,} runs "
                   f"({bound})", passed, hits / runs, (low, high))


def rate_case(simulate: Callable[[Context], list[str]], said: set[str], *, null: bool, rate: float,
              what: str) -> Callable[[Context], Outcome]:
    """A case judged by :func:`rate_outcome`: ``simulate(ctx)`` gives one verdict per simulated run; a run "says
    the property is there" when its verdict is in ``said``."""
    def run(ctx: Context) -> Outcome:
        verdicts = simulate(ctx)
        return rate_outcome(sum(v in said for v in verdicts), len(verdicts), null=null, rate=rate, what=what)
    return run
