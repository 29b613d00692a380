"""How many examples a Hypothesis test plays under the loaded profile (tests/conftest.py)."""

from hypothesis import settings

CI_EXAMPLES = 100          # the ``ci`` profile's default, against which a test's own count is scaled


def examples(ci: int) -> int:
    """``ci`` examples under the ``ci`` profile, the same share of it under any other (``dev``: a tenth), at least 3."""
    return max(3, ci * settings().max_examples // CI_EXAMPLES)


def thin(cases, every: int = 2) -> list:
    """A family of parametrized cases in the fast loop: every ``every``-th case (the first and the last always),
    the rest marked ``slow`` so CI still plays them all. For long families of like cases (injections, refusals,
    one per kind), where a sample catches drift and the whole list proves the guard."""
    import pytest

    cases = list(cases)
    out = []
    for i, case in enumerate(cases):
        values = case if isinstance(case, tuple) else (case,)
        keep = i % every == 0 or i == len(cases) - 1
        out.append(pytest.param(*values) if keep else pytest.param(*values, marks=pytest.mark.slow))
    return out
