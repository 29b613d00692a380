"""A bad model file (of Paws, or of the game whose features are given) is refused in one line: by the reader, and
by the CLI with exit 2 (no traceback)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app
from sim.kit.learned import read_model
from sim.params import RuleError
from sim.paws.bots.features import FEATURES


def assert_refused_in_one_line(bad: Path, message: str, features=FEATURES) -> None:
    with pytest.raises(RuleError, match=message):
        read_model(bad, features)
    res = CliRunner().invoke(app, ["play", features.game, "--bots", f"learned:model={bad}", "--seed", "1"])
    lines = [x for x in res.stderr.splitlines() if x.strip()]
    assert res.exit_code == 2 and len(lines) == 1 and re.search(message, lines[0]), res.output
    assert "Traceback" not in res.output
