"""Driver play (cluster/local.py): an embedded sweep plays on the driver's threads at once and starts Ray only
when Ray pays; the parts are byte for byte those of Ray workers, with or without a hand-over, and with [stop]."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from part_bytes import parts as files
from ray_head import start_embedded_ray
from signals import default_sigint

import cluster.local
import cluster.sweep
from cluster.manifest import DONE, load_manifest
from cluster.spec import parse_spec
from cluster.sweep import run_sweep

ROOT = Path(__file__).resolve().parents[2]
SPEC = {"name": "driver", "game": "paws", "rules": "v4", "seed": 3, "games_per_cell": 600, "batch_size": 150,
        "setup": {"board": "beginner"}, "grid": {"players": [2, 4]}}
STOP = {"name": "driver-stop", "game": "tales", "seed": 5, "batch_size": 250, "grid": {"mode": ["standard", "2v2"]},
        "stop": {"metric": "first_player_share", "half_width": 0.06, "max_games_per_cell": 5_000}}


def ray_up() -> bool:
    ray = sys.modules.get("ray")
    return ray is not None and ray.is_initialized()


@pytest.fixture(scope="module")
def driver_only(tmp_path_factory):
    """The sweep played on the driver's threads alone (no Ray in this process yet)."""
    if ray_up():
        pytest.skip("a Ray runtime of another module is still up in this process")
    out = tmp_path_factory.mktemp("driver") / "sweep"
    summary = run_sweep(parse_spec(SPEC, source="driver.toml"), out, workers=2, progress=False)
    return out, summary


def test_a_small_sweep_plays_on_the_driver_and_never_starts_ray(driver_only):
    out, s = driver_only
    assert not ray_up() and s.ray_start_s == 0.0 and s.driver_parts == 8
    assert (s.games, s.parts, s.games_done, s.parts_total) == (1200, 8, 1200, 8)
    m = load_manifest(out)
    assert m["state"] == "done" and all(p["state"] == DONE for c in m["cells"] for p in c["parts"])
    assert len(files(out)) == 8 and not list(out.rglob("*.tmp-*"))


@pytest.mark.ray
@pytest.mark.slow
def test_a_stop_sweep_on_the_driver_stops_where_it_stops_on_ray(request, tmp_path):
    if ray_up():
        pytest.skip("a Ray runtime of another module is still up in this process")
    spec = parse_spec(STOP, source="driver-stop.toml")
    local = run_sweep(spec, tmp_path / "local", workers=2, progress=False)
    assert local.ray_start_s == 0.0 and not ray_up()
    start_embedded_ray()
    on_ray = run_sweep(spec, tmp_path / "ray", workers=2, progress=False)
    keep = ("estimate", "interval", "games", "reason")
    assert {c: {k: st[k] for k in keep} for c, st in local.stop.items()} == \
           {c: {k: st[k] for k in keep} for c, st in on_ray.stop.items()}
    assert files(tmp_path / "local") == files(tmp_path / "ray")


@pytest.mark.ray
def test_driver_parts_are_byte_identical_to_ray_workers_parts(driver_only, request, tmp_path):
    out, _ = driver_only
    start_embedded_ray()         # a caller's Ray runtime: every part on its workers
    workers = tmp_path / "workers"
    s = run_sweep(parse_spec(SPEC, source="driver.toml"), workers, workers=2, progress=False)
    assert s.parts == 8
    assert files(workers) == files(out)


@pytest.mark.ray
@pytest.mark.slow
def test_hand_over_to_ray_mid_sweep_writes_the_same_bytes(driver_only, request, tmp_path, monkeypatch):
    """Ray pays at once: the driver's threads play the first parts, Ray's workers the rest."""
    out, _ = driver_only
    start_embedded_ray()
    monkeypatch.setattr(cluster.sweep, "_ray_running", lambda: False)     # as if embedded: driver plays first
    monkeypatch.setattr(cluster.local, "RAY_PAYS_S", 0.0)
    monkeypatch.setattr(cluster.local, "RAY_PAYS_GIL_S", 0.0)
    monkeypatch.setattr(cluster.local, "ESTIMATE_AFTER_S", 0.0)
    handed = tmp_path / "handed"
    s = run_sweep(parse_spec(SPEC, source="driver.toml"), handed, workers=2, progress=False)
    assert s.parts == 8 and s.games_done == 1200
    assert 1 <= s.driver_parts < 8, s.driver_parts     # some parts in the driver, the rest on Ray
    assert files(handed) == files(out)


@pytest.mark.slow
def test_ctrl_c_while_the_driver_plays_keeps_finished_parts_and_resume_finishes(tmp_path):
    spec, out = tmp_path / "big.toml", tmp_path / "out"
    spec.write_text('name = "big"\ngame = "paws"\nseed = 5\ngames_per_cell = 100000\nbatch_size = 5000\n'
                    '[grid]\nplayers = [3, 4]\n')
    cmd = [sys.executable, "-c", "from cli.main import app; app()", "sweep", str(spec), "--out", str(out),
           "--workers", "2", "--no-progress"]
    env = {**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, env=env, preexec_fn=default_sigint)
    try:
        deadline = time.monotonic() + 120
        while not list(out.glob("games/*/part-*.parquet")):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.02)
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    text = " ".join(err.split())
    assert proc.returncode == 130 and "Traceback" not in err, err
    assert "interrupted:" in text and f"--out {out} --resume" in text, err
    m = load_manifest(out)
    done = [(c["id"], p["batch"]) for c in m["cells"] for p in c["parts"] if p["state"] == DONE]
    assert m["state"] == "interrupted" and 1 <= len(done) < 40
    assert not list(out.rglob("*.tmp-*"))
    r = subprocess.run(cmd + ["--resume"], cwd=ROOT, capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr
    m = load_manifest(out)
    assert m["state"] == "done" and sum(p["state"] == DONE for c in m["cells"] for p in c["parts"]) == 40
    v = subprocess.run([sys.executable, "-c", "from cli.main import app; app()", "status", str(out), "--verify"],
                       cwd=ROOT, capture_output=True, text=True, env=env, timeout=300)
    assert v.returncode == 0, v.stdout + v.stderr


@pytest.mark.slow
def test_kill_9_of_the_driver_ends_its_players(tmp_path):
    from test_clean_exit import alive, assert_all_gone, descendants
    spec, out = tmp_path / "big.toml", tmp_path / "out"
    spec.write_text('name = "big"\ngame = "paws"\nseed = 5\ngames_per_cell = 100000\nbatch_size = 5000\n'
                    '[grid]\nplayers = [3, 4]\n')
    cmd = [sys.executable, "-c", "from cli.main import app; app()", "sweep", str(spec), "--out", str(out),
           "--workers", "2", "--no-progress"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, env={**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"},
                            preexec_fn=default_sigint)
    try:
        deadline = time.monotonic() + 120
        while not list(out.glob("games/*/part-*.parquet")):
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.02)
        players = descendants(proc.pid)
        assert len(players) >= 2 and not any("raylet" in n for n, _ in players.values()), players
        t = time.monotonic()
        proc.kill()
        proc.wait(timeout=30)
        assert_all_gone(players, t)
        assert not alive(players)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()
