"""Interrupted at seeded random moments and resumed, a [stop] sweep, a tune and a ladder end byte for byte as
an uninterrupted run: the same part files, the same answers (manifest stop states, tune.json, ladder.json).

Each case runs the real command in a subprocess (its own session, SIGINT at its default disposition however
pytest was started), once uninterrupted, then once per seed: SIGINT or ``kill -9`` of the driver at a moment
drawn from the seed between the command's start of work (its results folder appears) and the end of the
uninterrupted run, then ``--resume`` until it exits 0. ``PLAYTEST_FAULT_SEEDS=N`` runs N seeds per case
(default 2: one SIGINT, one kill -9); a failure prints the seed, the signal and the moment.
"""

import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from signals import default_sigint

ROOT = Path(__file__).resolve().parents[2]
SEEDS = int(os.environ.get("PLAYTEST_FAULT_SEEDS", "2"))
ENV = {**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}

pytestmark = pytest.mark.slow

# two cells to +-0.04 on the first player's share (about 9 parts of 250 games each), far below the cap
STOP = """name = "faults-stop"
game = "tales"
seed = 5
batch_size = 250
[grid]
mode = ["standard", "2v2"]
[stop]
metric = "first_player_share"
half_width = 0.04
max_games_per_cell = 20000
"""
# three VP targets raced over two hold cells, rounds of 100 games
TUNE = """name = "faults-tune"
game = "paws"
rules = "v4"
seed = 11
batch = 100
max_games_per_candidate = 2000

[setup]
board = "beginner"
mode = "ffa"
bots = "heuristic"

[space]
vp_target = [1, 4, 8]

[hold]
players = [2, 3]

[objective]
metric = "end_share:vp"
goal = "max"
combine = "worst"
"""
LADDER = ["ladder", "paws", "--bots", "random,heuristic,heuristic:preset=tuned", "--games", "600",
          "--batch-size", "100", "--seed", "3", "--workers", "2", "--no-progress"]


def cli(*args: str) -> list[str]:
    return [sys.executable, "-c", "from cli.main import app; app()", *args]


class Part:
    """A part file as compared: its bytes' SHA-256 and the code version written into it. Two parts are the
    same when their bytes are; written by two code versions (others commit while the tests run: the
    version is also inside Arrow's encoded schema), when everything but the version is."""

    def __init__(self, path: Path):
        data = path.read_bytes()
        meta = pq.read_metadata(path).metadata
        self.version = meta[b"playtest.code_version"]
        self.sha = hashlib.sha256(data).hexdigest()
        self.rest = {k: v for k, v in meta.items() if k.startswith(b"playtest.") and k != b"playtest.code_version"}

    def __eq__(self, other) -> bool:
        return self.sha == other.sha if self.version == other.version else self.rest == other.rest

    def __repr__(self) -> str:
        return self.sha[:12]


def part_files(out: Path) -> dict[str, Part]:
    """Every part file by its relative path (the quarantine aside)."""
    return {str(p.relative_to(out)): Part(p) for p in sorted(out.rglob("part-*.parquet"))
            if ".quarantine" not in p.parts}


def stop_answers(out: Path) -> dict:
    m = json.loads((out / "manifest.json").read_text())
    return {"state": m["state"], "cells": {c["id"]: c.get("stop") for c in m["cells"]}}


def tune_answer(out: Path) -> dict:
    a = json.loads((out / "tune.json").read_text())
    return {k: a[k] for k in ("best", "candidates", "games", "finished", "indistinguishable", "rounds")}


def ladder_answer(out: Path) -> dict:
    return json.loads((out / "ladder.json").read_text())


def run(cmd: list[str], out: Path, timeout: float = 300) -> tuple[subprocess.CompletedProcess, float]:
    """Run to the end; returns the result and how long it ran after its results folder appeared."""
    proc = subprocess.Popen(cmd, cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=default_sigint)
    t_dir = None
    deadline = time.monotonic() + timeout
    while proc.poll() is None:
        if t_dir is None and out.exists():
            t_dir = time.monotonic()
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)
    stdout, stderr = proc.communicate()
    return subprocess.CompletedProcess(cmd, proc.returncode, stdout, stderr), \
        time.monotonic() - (t_dir or time.monotonic())


def interrupt(cmd: list[str], out: Path, sig: int, after: float) -> subprocess.CompletedProcess:
    """Start ``cmd``, send ``sig`` to the driver ``after`` seconds after its results folder appears."""
    proc = subprocess.Popen(cmd, cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=default_sigint)
    try:
        deadline = time.monotonic() + 120
        while not out.exists() and proc.poll() is None:
            assert time.monotonic() < deadline, "the command never began"
            time.sleep(0.01)
        time.sleep(after)
        if proc.poll() is None:
            proc.send_signal(sig)
        stdout, stderr = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return subprocess.CompletedProcess(cmd, proc.returncode, stdout, stderr)


def faults(tmp_path: Path, name: str, command, answer) -> None:
    """The uninterrupted run, then one interrupted and resumed run per seed; each must equal the first."""
    ref = tmp_path / f"{name}-ref"
    r, took = run(command(ref, False), ref)
    assert r.returncode == 0, r.stderr
    want = (part_files(ref), answer(ref))
    assert want[0]
    for seed in range(SEEDS):
        rng = random.Random(f"{name}-{seed}")
        sig = (signal.SIGINT, signal.SIGKILL)[seed % 2]
        after = rng.uniform(0.0, took)
        out = tmp_path / f"{name}-{seed}"
        where = f"seed {seed}: {signal.Signals(sig).name} {after:.2f} s after the folder appeared"
        first = interrupt(command(out, False), out, sig, after)
        # 0 or -SIGINT: the signal came after the work (-SIGINT: while Python shut down, its handlers reset)
        assert first.returncode in (0, 130, -signal.SIGINT, -signal.SIGKILL), \
            f"{where}: exit {first.returncode}: {first.stdout[-2000:]} {first.stderr[-2000:]}"
        if first.returncode == 130:
            assert "Traceback" not in first.stderr and "--resume" in " ".join(first.stderr.split()), \
                f"{where}: {first.stderr}"
        again, _ = run(command(out, True), out)
        assert again.returncode == 0, f"{where}: the resume exited {again.returncode}: {again.stderr[-3000:]}"
        got = (part_files(out), answer(out))
        assert got == want, (f"{where}: the resumed result differs: files only there "
                             f"{sorted(set(got[0]) - set(want[0]))}, missing {sorted(set(want[0]) - set(got[0]))}, "
                             f"different {[f for f in got[0] if f in want[0] and got[0][f] != want[0][f]]}; "
                             f"answers {'equal' if got[1] == want[1] else 'differ'}")


def test_a_stop_sweep_interrupted_anywhere_resumes_to_the_same_parts_and_answers(tmp_path):
    spec = tmp_path / "stop.toml"
    spec.write_text(STOP)
    faults(tmp_path, "stop", lambda out, resume: cli("sweep", str(spec), "--out", str(out), "--workers", "2",
                                                     "--no-progress", *(["--resume"] if resume else [])),
           stop_answers)


def test_a_tune_interrupted_anywhere_resumes_to_the_same_parts_and_answer(tmp_path):
    spec = tmp_path / "tune.toml"
    spec.write_text(TUNE)
    faults(tmp_path, "tune", lambda out, resume: cli("tune", str(spec), "--out", str(out), "--workers", "2",
                                                     "--quiet", *(["--resume"] if resume else [])),
           tune_answer)


def test_a_ladder_interrupted_anywhere_resumes_to_the_same_parts_and_ratings(tmp_path):
    faults(tmp_path, "ladder", lambda out, resume: cli(*LADDER, "--out", str(out),
                                                       *(["--resume"] if resume else [])),
           ladder_answer)
