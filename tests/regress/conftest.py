"""Regression tests: the sweep package stands in locally until it is in the tree (tests/regress/local_cluster.py)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import local_cluster  # noqa: E402

local_cluster.install()
