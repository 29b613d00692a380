"""Every rulebook scenario runs on both engines: the reference engine (sim/tales) and the core.

The harness (tests/tales/tales_scenario.py) is made importable whatever pytest's import mode. A scenario
module says ``pytestmark = both_engines``: the ``engine`` fixture then parametrizes each of its tests over
("reference", "core"), and for "core" points the engine functions the module calls at their core twins
(tests/tales/tales_core_scenario.py). A test that can only run on the reference engine says so with
``@reference_only`` (tales_scenario.py) and why.
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from tales_scenario import ENGINES  # noqa: E402


@pytest.fixture(params=ENGINES)
def engine(request, monkeypatch):
    if request.param == "core":
        import tales_core_scenario as core_scenario
        core_scenario.use_core(request.module, monkeypatch)
        before = core_scenario.calls
        yield request.param
        assert core_scenario.calls > before, "the test ran no core function: mark it @reference_only"
    else:
        yield request.param
