"""The cluster tests' fixtures. The S3-compatible server (``s3_server``) and the Ray head node (``head_node``) live in
tests/conftest.py, shared with the service's tests; here: a module's clean sweep and the copy of it a test damages
(the module names its ``spec``), and the audit of the files a test opens."""

import shutil
import sys
from pathlib import Path

import pytest

from cluster.sweep import run_sweep


@pytest.fixture(scope="module")
def clean(spec, tmp_path_factory):
    """The module's ``spec`` swept once, for all its tests to compare with and copy (never to change)."""
    out = tmp_path_factory.mktemp("clean") / "sweep"
    run_sweep(spec, out, progress=False, driver_plays=True)
    return out


@pytest.fixture
def work(clean, tmp_path):
    """A copy of the module's clean sweep, for one test to damage."""
    out = tmp_path / "sweep"
    shutil.copytree(clean, out)
    return out


@pytest.fixture
def opened():
    """The paths this process opens from now on (an audit hook; it stays, but records only while the list is live)."""
    seen: list[str] = []
    live = [True]

    def hook(event, args):
        if live[0] and event == "open" and args and isinstance(args[0], (str, bytes, Path)):
            seen.append(str(args[0]))
    sys.addaudithook(hook)
    yield seen
    live[0] = False
