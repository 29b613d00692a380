"""Every rulebook scenario runs on both engines: the reference engine (sim/paws) and the core.

The harness (tests/paws/scenario.py) is made importable whatever pytest's import mode. The ``engine``
fixture parametrizes each test over ("reference", "core"); for "core" it points the engine functions the
test module calls at their core twins (tests/paws/core_scenario.py). A test that can only run on the
reference engine says so with ``@reference_only`` (scenario.py) and why.
"""

import os
import sys

import pytest
from script_queue import both_engines

sys.path.insert(0, os.path.dirname(__file__))

from scenario import ENGINES  # noqa: E402


engine = pytest.fixture(params=ENGINES, autouse=True, name="engine")(both_engines("core_scenario"))
