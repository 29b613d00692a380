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
from script_queue import both_engines

sys.path.insert(0, os.path.dirname(__file__))

from tales_scenario import ENGINES  # noqa: E402


engine = pytest.fixture(params=ENGINES, name="engine")(both_engines("tales_core_scenario"))
