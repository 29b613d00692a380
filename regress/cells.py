"""A cell's identity across runs and its label: what the baseline, the comparison and the report match on."""

from __future__ import annotations

import json
from typing import Any


def cell_key(values: dict[str, Any]) -> str:
    """A cell's identity across runs: its varied values (ids are positions and shift when a grid changes)."""
    return json.dumps(values, sort_keys=True, default=str)


def cell_label(values: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in values.items()) or "(base)"
