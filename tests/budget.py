"""How many examples a Hypothesis test plays under the loaded profile (tests/conftest.py)."""

from hypothesis import settings

CI_EXAMPLES = 100          # the ``ci`` profile's default, against which a test's own count is scaled


def examples(ci: int) -> int:
    """``ci`` examples under the ``ci`` profile, the same share of it under any other (``dev``: a tenth), at least 3."""
    return max(3, ci * settings().max_examples // CI_EXAMPLES)
