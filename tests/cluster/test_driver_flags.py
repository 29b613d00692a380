"""The numbers and places the sweep driver's commands take (sweep, tune, ladder) are bounded before any work:
one line naming the flag and the range, exit 2, nothing written."""

import os

import pytest
from typer.testing import CliRunner

from cli.main import app
from cluster.spec import parse_spec
from cluster.sweep import SweepError, run_sweep

runner = CliRunner()
LOCAL_MAX = max(4 * (os.cpu_count() or 1), 64)     # 4 players per core, at least 64
MAX_CLUSTER_WORKERS = 2**16                         # with --address
SPEC = 'name = "flags"\ngame = "paws"\nseed = 1\ngames_per_cell = 100\nbatch_size = 100\n'
TUNE = """name = "flags-tune"
game = "paws"
seed = 1
batch = 10
max_games_per_candidate = 20
[space]
vp_target = [1, 4]
[objective]
metric = "end_share:vp"
goal = "max"
"""


def one_line(res) -> str:
    text = " ".join((res.output or "").split())
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output and len([ln for ln in res.output.splitlines() if ln.strip()]) == 1, \
        res.output
    return text


@pytest.fixture
def files(tmp_path):
    (tmp_path / "s.toml").write_text(SPEC)
    (tmp_path / "t.toml").write_text(TUNE)
    return tmp_path


def commands(files, *more):
    out = str(files / "out")
    return {"sweep": ["sweep", str(files / "s.toml"), "--out", out, *more],
            "tune": ["tune", str(files / "t.toml"), "--out", out, *more],
            "ladder": ["ladder", "paws", "--bots", "random,heuristic", "--games", "10", "--out", out, *more]}


@pytest.mark.parametrize("command", ["sweep", "tune", "ladder"])
@pytest.mark.parametrize("workers", [0, -3, LOCAL_MAX + 1, 10**20])
def test_workers_out_of_range_is_one_line_and_exit_2_before_any_work(files, command, workers):
    res = runner.invoke(app, commands(files, "--workers", str(workers))[command])
    text = one_line(res)
    assert f"--workers {workers} is out of range; expected an integer from 1 to {LOCAL_MAX:,}" in text, text
    assert not (files / "out").exists()


@pytest.mark.parametrize("command", ["sweep", "tune", "ladder"])
def test_with_address_the_cluster_decides_up_to_a_bound(files, command):
    res = runner.invoke(app, commands(files, "--workers", str(10**20), "--address", "127.0.0.1:1")[command])
    text = one_line(res)
    assert f"expected an integer from 1 to {MAX_CLUSTER_WORKERS:,} (with --address)" in text, text
    assert not (files / "out").exists()


def test_the_library_refuses_the_same_workers():
    spec = parse_spec({"name": "f", "game": "paws", "seed": 1, "games_per_cell": 10, "batch_size": 10},
                      source="f.toml")
    with pytest.raises(SweepError, match=r"--workers 100000000000000000000 is out of range"):
        run_sweep(spec, "unused-folder", workers=10**20, progress=False)
    from cluster.sweep import max_workers
    assert max_workers() == LOCAL_MAX and max_workers("10.0.0.1:6379") == MAX_CLUSTER_WORKERS


@pytest.mark.parametrize("command", ["tune", "ladder"])
def test_tune_and_ladder_refuse_object_storage_in_one_line(files, command, monkeypatch):
    monkeypatch.chdir(files)
    args = commands(files)[command]
    args[args.index("--out") + 1] = "s3://bucket/prefix"
    text = one_line(runner.invoke(app, args))
    assert "--out s3://bucket/prefix: a" in text and "writes a local folder only" in text, text
    assert not (files / "s3:").exists()
