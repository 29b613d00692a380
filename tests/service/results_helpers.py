"""A real sweep's results for the tests of the console, the canned queries and the downloads: TINY played once per
test session (about 3 s), copied into a job's results folder on demand."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from service_helpers import TINY

from service.runner import layout


@pytest.fixture(scope="session")
def sweep_folder(tmp_path_factory) -> Path:
    """TINY's results (2 cells, 400 games), played by playtest sweep in a child process."""
    base = tmp_path_factory.mktemp("sweep")
    (base / "tiny.toml").write_text(TINY)
    out = base / "out"
    r = subprocess.run([sys.executable, "-c", "from cli.main import app; app()", "sweep", str(base / "tiny.toml"),
                        "--out", str(out), "--no-progress", "--workers", "1"], capture_output=True, text=True,
                       timeout=300, check=False)
    assert r.returncode == 0, r.stderr
    return out


def give_results(app, job: str, folder: Path) -> Path:
    """The job's results folder, a copy of ``folder``."""
    out = layout(app.state.root, job)["out"]
    shutil.copytree(folder, out)
    return out
