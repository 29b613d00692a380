"""Sweeps on a real (embedded, 2-CPU) Ray runtime shared by this module: rows, layout, manifest, resume, refusals."""

import json
import shutil

import duckdb
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from cluster.manifest import load_manifest, save_manifest
from cluster.part import part_path
from cluster.spec import parse_spec
from cluster.sweep import SweepError, run_sweep
from cli.main import app

SPEC = {"name": "small", "game": "paws", "rules": "v4", "seed": 11, "games_per_cell": 30, "batch_size": 8,
        "setup": {"board": "beginner"}, "grid": {"players": [2, 4]}, "overrides": {"round_limit": 20}}


@pytest.fixture(scope="module")
def spec():
    return parse_spec(SPEC, source="small.toml")


@pytest.fixture(scope="module")
def two_workers(ray_local, spec, tmp_path_factory):
    out = tmp_path_factory.mktemp("two") / "sweep"
    summary = run_sweep(spec, out, workers=2, progress=False)
    return out, summary


def same_part(a, b) -> bool:
    """Two part files hold the same rows and metadata (the code version aside: others commit meanwhile)."""
    ta, tb = pq.read_table(a, partitioning=None), pq.read_table(b, partitioning=None)
    strip = [{k: v for k, v in t.schema.metadata.items() if k != b"playtest.code_version"} for t in (ta, tb)]
    return strip[0] == strip[1] and ta.replace_schema_metadata(None).equals(tb.replace_schema_metadata(None))


def cell_rows(out, cell_id) -> pa.Table:
    t = pq.read_table(out / "games" / f"cell={cell_id}", partitioning=None)
    return t.sort_by("game_index").replace_schema_metadata(None)


def test_rows_equal_the_engines_batch_output_for_the_same_seeds(two_workers, spec):
    out, summary = two_workers
    assert (summary.games, summary.parts, summary.games_done, summary.parts_total) == (60, 8, 60, 8)
    for cell in spec.cells:
        want = cell.match.play_batch(11, 0, 30)["games"].replace_schema_metadata(None)
        assert cell_rows(out, cell.id).select(want.column_names).equals(want), cell.id   # + per-game query columns
    # parts hold game indices [batch * 8, (batch + 1) * 8): the last one 6 games
    last = pq.read_table(part_path(out, "games", "c001", 3))
    assert last.column("game_index").to_pylist() == list(range(24, 30))
    assert set(last.column("players").to_pylist()) == {4}


def test_layout_is_hive_partitioned_and_every_part_carries_its_provenance(two_workers, spec):
    out, summary = two_workers
    rows = duckdb.sql(f"SELECT cell, count(*), count(DISTINCT game_index), min(players), max(round_limit) "
                      f"FROM read_parquet('{out}/games/*/*.parquet', hive_partitioning = true) "
                      "GROUP BY cell ORDER BY cell").fetchall()
    assert rows == [("c000", 30, 30, 2, 20), ("c001", 30, 30, 4, 20)]
    assert ds.dataset(out / "games", partitioning="hive").count_rows() == 60
    assert not [p for p in out.rglob("*") if ".tmp" in p.name]
    man = load_manifest(out)
    md = pq.read_metadata(part_path(out, "games", "c000", 1)).metadata
    meta = {k.decode(): v.decode() for k, v in md.items() if k.startswith(b"playtest.")}
    m = spec.cells[0].match
    assert meta["playtest.spec_digest"] == spec.digest and meta["playtest.code_version"] == man["code_version"]
    assert (meta["playtest.rules_digest"], meta["playtest.cards_digest"]) == (m.rules_digest, m.data_digest)
    assert (meta["playtest.cell"], meta["playtest.batch"], meta["playtest.first_game"], meta["playtest.games"],
            meta["playtest.seed"]) == ("c000", "1", "8", "8", "11")
    assert man["state"] == "done" and man["spec_digest"] == spec.digest and man["code_version"]
    assert [c["values"] for c in man["cells"]] == [{"players": 2}, {"players": 4}]
    assert [[(p["state"], p["rows"]) for p in c["parts"]] for c in man["cells"]] == \
        [[("done", 8), ("done", 8), ("done", 8), ("done", 6)]] * 2
    assert summary.bytes == sum(p["bytes"] for c in man["cells"] for p in c["parts"]) > 0


def test_one_worker_writes_the_same_parts_as_two(two_workers, spec, tmp_path):
    out2, _ = two_workers
    out1 = tmp_path / "one"
    run_sweep(spec, out1, workers=1, progress=False)
    parts = sorted(p.relative_to(out2) for p in out2.rglob("*.parquet"))
    assert len(parts) == 8 and parts == sorted(p.relative_to(out1) for p in out1.rglob("*.parquet"))
    for p in parts:
        assert same_part(out1 / p, out2 / p), p
        if load_manifest(out1)["code_version"] == load_manifest(out2)["code_version"]:
            assert (out1 / p).read_bytes() == (out2 / p).read_bytes(), p     # bit for bit


def test_resume_plays_only_missing_parts_and_keeps_parts_finished_after_the_last_manifest_save(
        two_workers, spec, tmp_path):
    out = tmp_path / "resume"
    shutil.copytree(two_workers[0], out)
    lost = part_path(out, "games", "c001", 2)
    original = part_path(two_workers[0], "games", "c001", 2)
    lost.unlink()                                        # a part that never finished
    man = load_manifest(out)
    man["cells"][0]["parts"][1].update(state="pending", rows=0, bytes=0)   # finished, manifest not saved
    man["cells"][1]["parts"][2].update(state="pending", rows=0, bytes=0)
    man["state"] = "running"
    save_manifest(out, man)
    (out / "games" / "cell=c000" / ".part-00003.parquet.tmp-999").write_bytes(b"half")   # a killed task's
    played = []
    summary = run_sweep(spec, out, resume=True, progress=False, on_part=lambda c, b: played.append((c, b)))
    assert played == [("c001", 2)]
    assert (summary.games, summary.parts, summary.parts_skipped, summary.games_done) == (8, 1, 7, 60)
    assert same_part(lost, original)
    assert not [p for p in out.rglob("*") if ".tmp" in p.name]
    assert load_manifest(out)["state"] == "done"
    assert len(load_manifest(out)["runs"]) == 2


def test_a_dir_holding_a_sweep_is_refused_unless_resuming_the_same_spec(two_workers, spec, tmp_path):
    out, _ = two_workers
    with pytest.raises(SweepError, match="already holds this sweep .* pass --resume"):
        run_sweep(spec, out, progress=False)
    other = parse_spec({**SPEC, "seed": 12}, source="other.toml")
    with pytest.raises(SweepError, match="holds a different sweep .*small.*other.toml has digest"):
        run_sweep(other, out, resume=True, progress=False)
    import fcntl
    with open(out / ".sweep.lock", "a") as held:              # a driver running this sweep right now
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(SweepError, match="another driver is running a sweep here"):
            run_sweep(spec, out, resume=True, progress=False)
    (tmp_path / "stuff.txt").write_text("x")
    with pytest.raises(SweepError, match="not empty and holds no sweep manifest"):
        run_sweep(spec, tmp_path, progress=False)


def test_cli_sweep_then_status(ray_local, tmp_path):
    f = tmp_path / "s.toml"
    f.write_text('name = "cli"\ngame = "paws"\nseed = 3\ngames_per_cell = 12\nbatch_size = 5\n'
                 '[grid]\nround_limit = [0, 15]\n')
    out = tmp_path / "out"
    runner = CliRunner()
    res = runner.invoke(app, ["sweep", str(f), "--out", str(out), "--no-progress"])
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert "2 cells x 12 games = 24 games in 6 parts of 5" in text and "24 games in" in text
    assert "6 parts written; sweep 24/24 games" in text
    res = runner.invoke(app, ["status", str(out)])
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert "sweep 'cli'" in text and "done" in text and "24 of 24 games (100.0%), 6 of 6 parts" in text
    assert "c001 │ round_limit=15 │ 3/3 │ 12" in text
    res = runner.invoke(app, ["status", str(tmp_path)])
    assert res.exit_code == 2 and "no sweep here" in res.output
    res = runner.invoke(app, ["sweep", str(f), "--out", str(out)])
    assert res.exit_code == 2 and "--resume" in res.output
    assert json.loads((out / "manifest.json").read_text())["games_total"] == 24


def test_joining_an_address_where_nothing_listens_fails_fast():
    import socket

    from cluster.sweep import _check_reachable
    with socket.create_server(("127.0.0.1", 0)) as server:
        _check_reachable(f"127.0.0.1:{server.getsockname()[1]}")      # something listens: no error
        port = server.getsockname()[1]
    with pytest.raises(ConnectionError, match=f"nothing answers at 127.0.0.1:{port}"):
        _check_reachable(f"127.0.0.1:{port}")
