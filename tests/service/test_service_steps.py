"""The job steps as the runner starts them, ``python -m service.steps STEP ARGS`` (service/steps.py), refusing bad
input the way the matching command does: one ``error:`` line on stderr, exit code 2, no traceback, nothing written.
The steps played to the end are the kinds' tests' (test_service_jobs.py and the others, slow)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.service

PROJECT = Path(__file__).resolve().parents[2]
CHESS = "name = \"x\"\ngame = \"chess\"\nseed = 1\ngames_per_cell = 10\n"


def step(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
           "PYTHONPATH": os.pathsep.join(p for p in (str(PROJECT), os.environ.get("PYTHONPATH", "")) if p)}
    return subprocess.run([sys.executable, "-m", "service.steps", *args], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL)


def one_error(r: subprocess.CompletedProcess) -> str:
    """The one ``error:`` line of a refused step (exit 2), without its prefix."""
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert r.returncode == 2 and len(lines) == 1 and lines[0].startswith("error: "), (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr + r.stdout
    return lines[0].removeprefix("error: ")


def test_no_step_or_an_unknown_one_names_the_steps(tmp_path):
    for args in ((), ("play",), ("--help",)):
        said = one_error(step(tmp_path, *args))
        assert said == ("usage: python -m service.steps STEP ARGS...; STEP one of sweep, report, re-report, compare, "
                        "ladder, ladder-page, regress, tune, tune-answer, replay")


def test_a_spec_that_no_longer_resolves_is_the_sweep_steps_one_line_and_nothing_is_written(tmp_path):
    (tmp_path / "spec.toml").write_text(CHESS)
    said = one_error(step(tmp_path, "sweep", "spec.toml", "--out", "runs/x", "--workers", "2"))
    assert said.startswith("spec.toml: ") and "game = 'chess' is not allowed" in said
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("args, said", [
    (("sweep", "spec.toml", "--out", "o", "--bogus"), "python -m service.steps sweep: unrecognized arguments: --bogus"),
    (("sweep", "spec.toml", "--out", "o", "--workers", "many"),
     "python -m service.steps sweep: argument --workers: invalid int value: 'many'"),
    (("sweep", "spec.toml", "--out", "o", "--workers", "0"), "--workers 0 is out of range; expected an integer from 1 "),
    (("regress", "suite.toml"), "regress: --baseline, --report and --work are required"),
    (("re-report", "runs/x", "own", "5", "x", "3"), "re-report: SHORTEST, LONGEST and BEHIND are whole numbers"),
    (("replay", "runs/x", "c000", "-1", "page.html"), "--game-index '-1': expected a whole number"),
    (("ladder", "chess", "--bots", "random,heuristic", "--out", "o"), "game 'chess': expected one of "),
])
def test_bad_arguments_are_one_line(tmp_path, args, said):
    (tmp_path / "spec.toml").write_text(CHESS)
    assert one_error(step(tmp_path, *args)).startswith(said)


def test_a_replay_of_a_folder_without_a_sweep_is_refused_as_play_from_refuses_it(tmp_path):
    (tmp_path / "runs" / "x").mkdir(parents=True)
    said = one_error(step(tmp_path, "replay", "runs/x", "c000", "0", "page.html"))
    assert said == "--from runs/x: no sweep here (no manifest.json)"
    assert not (tmp_path / "page.html").exists()


def test_a_bad_tune_spec_and_a_ladder_field_are_the_libraries_own_lines(tmp_path):
    (tmp_path / "tune.toml").write_text("name = \"t\"\ngame = \"paws\"\n")
    assert one_error(step(tmp_path, "tune", "tune.toml", "--out", "o")).startswith("tune.toml: ")
    said = one_error(step(tmp_path, "ladder", "paws", "--bots", "random,random", "--games", "10", "--seed", "1",
                          "--out", "o"))
    assert said == "--bots: 'random' is listed twice; every bot of a ladder is a different spec"
    assert not (tmp_path / "o").exists()
