"""When the embedded Ray cannot start (a busy machine: "node timed out during startup"), a sweep plays on the
driver's forked players (cluster/local.py) with a one-line note, byte for byte the parts it would have written;
when those fail too, the command exits 1 (not 2, the code of bad input) with the resume command. Ray's failure is
simulated (``cluster.sweep._start_ray`` replaced), never provoked by loading the machine."""

from __future__ import annotations

import sys
import time
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

import cluster.local
import cluster.sweep
from cli.main import app
from cluster.manifest import load_manifest
from cluster.spec import parse_spec
from cluster.sweep import SweepError, SweepFailed, run_sweep

runner = CliRunner()
# 2 cells x 3 parts of 200 games: a second or two on one core
SPEC = 'name = "fallback"\ngame = "paws"\nrules = "v4"\nseed = 3\ngames_per_cell = 600\nbatch_size = 200\n' \
       '[setup]\nboard = "beginner"\n[grid]\nplayers = [2, 4]\n'
TIMED_OUT = ("The current node timed out during startup. This could happen because some of the Ray processes "
             "failed to startup.")


FIRST_PART: Path | None = None       # set per test before the players fork: the first part's marker


def full_disk(*args):
    """A part on a full disk (module level: the players receive it pickled, by name)."""
    raise OSError(28, "No space left on device")


def full_disk_after_first(*args):
    """The first part (over every forked player) plays; the next ones find a full disk, a second later (the
    driver has recorded the first part and tried Ray by then)."""
    import os
    try:
        os.close(os.open(FIRST_PART, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        time.sleep(1.0)
        full_disk()
    from cluster.part import play_part
    return play_part(*args)


def part_bytes(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*.parquet"))}


def ray_up() -> bool:
    ray = sys.modules.get("ray")
    return ray is not None and ray.is_initialized()


@pytest.fixture
def ray_will_not_start(monkeypatch):
    """``_start_ray`` raises as Ray does on a loaded machine (a plain Exception); the calls are counted."""
    if ray_up():
        pytest.skip("a Ray runtime of another module is up in this process: no embedded start is tried")
    calls = []

    def fail(workers, address):
        calls.append((workers, address))
        raise Exception(TIMED_OUT)            # noqa: TRY002 - what ray.init raises
    monkeypatch.setattr(cluster.sweep, "_start_ray", fail)
    return calls


def test_ray_at_once_that_cannot_start_plays_on_the_forked_players(tmp_path, ray_will_not_start):
    """``--ray`` (driver_plays=False): Ray fails at once; every part is played on the driver's players, the same
    bytes as a sweep that never tried Ray, and one line says so."""
    spec = parse_spec(tomllib.loads(SPEC), source="fallback.toml")
    ref = run_sweep(spec, tmp_path / "ref", workers=2, progress=False)
    assert ray_will_not_start == []                      # a small sweep: the players, Ray never tried
    lines: list[str] = []
    got = run_sweep(spec, tmp_path / "got", workers=2, progress=False, driver_plays=False, log=lines.append)
    assert ray_will_not_start == [(2, None)]
    assert got.parts == ref.parts == 6 and got.driver_parts == 6 and got.games == 1200
    assert part_bytes(tmp_path / "got") == part_bytes(tmp_path / "ref")
    assert load_manifest(tmp_path / "got")["state"] == "done"
    notes = [x for x in lines if "Ray could not start" in x]
    assert len(notes) == 1 and "\n" not in notes[0] and "timed out during startup" in notes[0], lines
    assert "2 forked local player(s)" in notes[0]


def test_ray_that_cannot_start_midway_leaves_the_players_playing(tmp_path, ray_will_not_start, monkeypatch):
    """The players start, judge that Ray pays (RAY_PAYS_S 0) and try it once: it fails, they play the rest."""
    monkeypatch.setattr(cluster.local, "RAY_PAYS_S", 0.0)
    monkeypatch.setattr(cluster.local, "ESTIMATE_AFTER_S", 0.0)
    spec = parse_spec(tomllib.loads(SPEC), source="fallback.toml")
    lines: list[str] = []
    got = run_sweep(spec, tmp_path / "got", workers=2, progress=False, log=lines.append)
    assert len(ray_will_not_start) == 1                  # tried once, never again
    assert got.parts == got.driver_parts == 6 and got.games_done == 1200
    assert sum("Ray could not start" in x for x in lines) == 1


def test_a_named_cluster_that_fails_is_not_replaced_by_local_players(tmp_path, ray_will_not_start):
    """With --address the user named a cluster: its failure ends the sweep (no silent local play)."""
    spec = parse_spec(tomllib.loads(SPEC), source="fallback.toml")
    with pytest.raises(SweepError, match="could not join Ray at 127.0.0.1:1"):
        run_sweep(spec, tmp_path / "got", workers=2, progress=False, address="127.0.0.1:1")
    assert not list((tmp_path / "got").rglob("*.parquet"))


def test_players_that_fail_too_raise_sweep_failed(tmp_path, ray_will_not_start, monkeypatch):
    """Ray cannot start and every part raises on the players: SweepFailed (a run that began), not a refusal."""
    monkeypatch.setattr(cluster.sweep, "play_part", full_disk)
    spec = parse_spec(tomllib.loads(SPEC), source="fallback.toml")
    with pytest.raises(SweepFailed, match="sweep failed: OSError.*No space left on device"):
        run_sweep(spec, tmp_path / "got", workers=2, progress=False, driver_plays=False)
    assert load_manifest(tmp_path / "got")["state"] == "failed"


def test_sweep_command_falls_back_and_finishes(tmp_path, ray_will_not_start):
    spec = tmp_path / "s.toml"
    spec.write_text(SPEC)
    res = runner.invoke(app, ["sweep", str(spec), "--out", str(tmp_path / "o"), "--ray", "--workers", "2",
                              "--no-progress"])
    assert res.exit_code == 0, res.output
    assert "note: Ray could not start (The current node timed out during startup." in res.output
    assert "1,200 games" in res.output


def test_card_worth_whose_ray_and_players_both_fail_exits_1_with_the_resume_command(tmp_path, ray_will_not_start,
                                                                                     monkeypatch):
    """The issue's case: card-worth on a busy machine. Ray is forced (RAY_PAYS_S 0), cannot start, the players
    then fail: exit 1 (not 2), no traceback, the error in one line and the command that resumes it."""
    monkeypatch.setattr(cluster.local, "RAY_PAYS_S", 0.0)
    monkeypatch.setattr(cluster.local, "ESTIMATE_AFTER_S", 0.0)
    monkeypatch.setattr(sys.modules[__name__], "FIRST_PART", tmp_path / "first-part")
    out = tmp_path / "w"
    monkeypatch.setattr(sys, "argv", ["playtest", "card-worth", "tales", "--deck", "equipment", "--cards",
                                      "Bone Knife", "--games", "40", "--workers", "1", "--out", str(out), "--quiet"])
    monkeypatch.setattr(cluster.sweep, "play_part", full_disk_after_first)
    res = runner.invoke(app, sys.argv[1:])
    text = res.stderr
    print(text)
    assert res.exit_code == 1, text
    assert "Traceback" not in text
    assert len(ray_will_not_start) == 1 and sum("note: Ray could not start" in x for x in text.splitlines()) == 1
    errors = [x for x in text.splitlines() if x.startswith("error:")]
    assert len(errors) == 1 and "No space left on device" in errors[0], text
    resume = [x for x in text.splitlines() if "resume with:" in x]
    assert len(resume) == 1 and resume[0].endswith(
        f"playtest card-worth tales --deck equipment --cards 'Bone Knife' --games 40 --workers 1 --out {out} --quiet --resume"), text
    assert load_manifest(out)["state"] == "failed"
