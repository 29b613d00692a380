"""The ladder fit test's known answers (measures/ladder_fit/cases.py): every fast case passes with its seed, and
the cases are registered as the protocol asks (a planted and a null, each deterministic for a seed)."""

import pytest
from budget import thin

from measures.known import Context, cases

LADDER = [c for c in cases() if c.measure == "ladder-fit"]


def test_the_measure_has_planted_and_null_cases():
    kinds = {c.kind for c in LADDER}
    assert kinds == {"planted", "null"} and len(LADDER) >= 8


@pytest.mark.parametrize("case", thin([c for c in LADDER if not c.slow]), ids=lambda c: c.name)
def test_each_fast_case_passes(case):
    out = case.run(Context(seed=1))
    assert out.passed, out.measured
    assert out.interval[0] <= out.value <= out.interval[1]
    if case.kind == "planted":
        assert out.value >= 0.9, out.measured          # every planted case is found in at least 90% of runs
    else:
        assert out.value <= 0.02, out.measured


def test_a_case_is_the_same_for_the_same_seed():
    run = next(c for c in LADDER if c.name == "strong-in-first-seat-4-seats").run
    small = Context(seed=3, scale=0.25)
    assert run(small) == run(small)
    # the slow case runs once, in CI, with every measure's (tests/known/test_known_answers.py)
