"""A lost player (cluster/local.py): a forked player killed mid-part is replaced and its part played again,
byte for byte; one that keeps dying fails the sweep in one line. And the hand-over to Ray of a [stop] sweep
plays every part the players' last results allow."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from ray_head import start_embedded_ray
from signals import default_sigint

import cluster.local
import cluster.sweep
from cluster.local import LocalPlayers
from cluster.manifest import DONE, load_manifest
from cluster.spec import parse_spec
from cluster.sweep import run_sweep

ROOT = Path(__file__).resolve().parents[2]
# 2 cells x 8 parts of 400 games: each part ~0.1-0.3 s on one core
SPEC = 'name = "lost"\ngame = "paws"\nrules = "v4"\nseed = 7\ngames_per_cell = 3200\nbatch_size = 400\n' \
       '[setup]\nboard = "beginner"\n[grid]\nplayers = [2, 4]\n'
STOP = {"name": "handed-stop", "game": "tales", "seed": 5, "batch_size": 250, "grid": {"mode": ["standard", "2v2"]},
        "stop": {"metric": "first_player_share", "half_width": 0.04, "max_games_per_cell": 20_000}}


def files(out: Path) -> dict:
    """Every part file by its relative path, compared byte for byte (see test_resume_faults.Part)."""
    from test_resume_faults import part_files
    return part_files(out)


def children(pid: int) -> list[int]:
    """The live child processes of ``pid`` (every thread's children), zombies excluded."""
    out = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            out += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    live = []
    for c in out:
        try:
            if Path(f"/proc/{c}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                live.append(c)
        except OSError:
            continue
    return live


def ray_up() -> bool:
    ray = sys.modules.get("ray")
    return ray is not None and ray.is_initialized()


def sweep_cmd(spec: Path, out: Path, *more: str) -> list[str]:
    return [sys.executable, "-c", "from cli.main import app; app()", "sweep", str(spec), "--out", str(out),
            "--workers", "2", "--no-progress", *more]




@pytest.mark.slow
def test_a_player_killed_mid_part_is_replaced_and_the_sweep_ends_byte_identical(tmp_path):
    spec = tmp_path / "lost.toml"
    spec.write_text(SPEC)
    env = {**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}
    ref = subprocess.run(sweep_cmd(spec, tmp_path / "ref"), cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=300, preexec_fn=default_sigint)
    assert ref.returncode == 0, ref.stderr
    out = tmp_path / "out"
    proc = subprocess.Popen(sweep_cmd(spec, out), cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True, preexec_fn=default_sigint)
    killed = []
    try:
        deadline = time.monotonic() + 120
        while len(killed) < 3 and proc.poll() is None:        # one player after another, each mid-part
            assert time.monotonic() < deadline, "no player to kill"
            players = [c for c in children(proc.pid) if c not in killed]
            started = list(out.glob("*/cell=*/.part-*"))       # a part being written: its player plays
            if players and (killed or started or list(out.glob("games/*/part-*.parquet"))):
                os.kill(players[0], signal.SIGKILL)
                killed.append(players[0])
            time.sleep(0.05)
        _, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert killed and proc.returncode == 0, err
    m = load_manifest(out)
    assert m["state"] == "done" and all(p["state"] == DONE for c in m["cells"] for p in c["parts"])
    assert files(out) == files(tmp_path / "ref") and len(files(out)) == 16
    assert not list(out.rglob("*.tmp-*"))


def _die(*args):
    os.kill(os.getpid(), signal.SIGKILL)


def test_a_player_that_keeps_dying_fails_its_part_in_one_line_after_the_retries():
    """Every try of a part kills its player: it is replaced ``retries`` times, then PlayerLost names the part."""
    import threading
    lock = threading.Lock()
    items = iter([("c000", 3)])
    players = LocalPlayers(1, lambda: next(items, None), lambda item: (_die, ()), lock, retries=2).start()
    try:
        deadline = time.monotonic() + 60
        got = []
        while not got:
            assert time.monotonic() < deadline
            got = players.results(0.1)
        item, result, err = got[0]
        assert item == ("c000", 3) and result is None and isinstance(err, cluster.local.PlayerLost)
        msg = str(err)
        assert "\n" not in msg and msg.startswith("part c000/3:") and "SIGKILL" in msg and "3 times" in msg, msg
        assert players.replaced == 2
    finally:
        players.close()


def test_a_player_killed_while_idle_or_playing_is_replaced_and_every_part_comes_back(tmp_path):
    """In process: kill each player once while parts are played; every part's result still comes back."""
    import threading
    lock = threading.Lock()
    todo = iter([(i,) for i in range(12)])
    players = LocalPlayers(2, lambda: next(todo, None), lambda item: (time.sleep, (0.05,)), lock).start()
    seen, killed = [], set()
    try:
        deadline = time.monotonic() + 60
        while len(seen) < 12:
            assert time.monotonic() < deadline, seen
            for pid in players.pids():
                if pid not in killed and len(killed) < 3:
                    os.kill(pid, signal.SIGKILL)
                    killed.add(pid)
            for item, result, err in players.results(0.05):
                assert err is None, err
                with lock:
                    players.recorded(0)
                seen.append(item)
        assert sorted(seen) == [(i,) for i in range(12)] and players.replaced >= 1
    finally:
        players.close()


@pytest.mark.ray
@pytest.mark.slow
def test_a_stop_sweep_handed_to_ray_plays_every_part_its_players_last_results_allow(request, tmp_path,
                                                                                  monkeypatch):
    """Ray starts while the players finish parts (their results wait); once those are recorded the stop plan
    allows the next parts: they are played, not taken for "held back" (the resume of a [stop] sweep that
    failed with "the stopping policy holds back every part")."""
    if ray_up():
        pytest.skip("a Ray runtime of another module is still up in this process")
    spec = parse_spec(STOP, source="handed-stop.toml")
    ref = run_sweep(spec, tmp_path / "ref", workers=2, progress=False)
    assert ref.ray_start_s == 0.0
    start_embedded_ray()
    monkeypatch.setattr(cluster.sweep, "_ray_running", lambda: False)     # as if embedded: players first
    monkeypatch.setattr(cluster.local, "RAY_PAYS_S", 0.0)
    monkeypatch.setattr(cluster.local, "RAY_PAYS_GIL_S", 0.0)
    monkeypatch.setattr(cluster.local, "ESTIMATE_AFTER_S", 0.0)
    started = []
    real_start = LocalPlayers.start

    def start(self):
        started.append(self)
        return real_start(self)

    def slow_ray_start(workers, address):
        """Ray 'starts' until the players have finished every part the stop plan lets them take (each part
        they took waits in their queue, and none is taken for a while): the plan allows more only once
        those are recorded."""
        players, still = started[0], 0
        deadline = time.monotonic() + 120
        while still < 30 and time.monotonic() < deadline:
            with players.lock:
                blocked = players.pending >= 2 and players.pending == players._results.qsize()
            still = still + 1 if blocked else 0
            time.sleep(0.01)
        return False, 2, None
    monkeypatch.setattr(LocalPlayers, "start", start)
    monkeypatch.setattr(cluster.sweep, "_start_ray", slow_ray_start)
    handed = run_sweep(spec, tmp_path / "handed", workers=2, progress=False)
    keep = ("estimate", "interval", "games", "reason")
    assert {c: {k: st[k] for k in keep} for c, st in handed.stop.items()} == \
           {c: {k: st[k] for k in keep} for c, st in ref.stop.items()}
    assert files(tmp_path / "handed") == files(tmp_path / "ref")
    assert 1 <= handed.driver_parts < handed.parts
