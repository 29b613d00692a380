"""A sweep's parts carry the per-game query columns (infra.derived) when its manifest says so; an older sweep keeps
its schema when resumed, and ``playtest upgrade DIR`` gives it the columns without changing a record, with
``status --verify`` and the answers unchanged."""

from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

import cluster.sweep
import cluster.verify
from cli.main import app
from cluster.manifest import load_manifest
from cluster.spec import parse_spec
from cluster.sweep import run_sweep
from queries import connection
from regress.digest import parts_digest
from infra import derived
from sim.games import GAMES

SPEC = {"name": "derived", "game": "paws", "rules": "v4", "seed": 4, "games_per_cell": 400, "batch_size": 200,
        "setup": {"board": "beginner", "players": 2, "bots": "heuristic,random"}, "grid": {"round_limit": [0, 15]}}
runner = CliRunner()


def old_manifest(real):
    """new_manifest as before the derived columns: no "derived" key."""
    def make(*a, **kw):
        m = real(*a, **kw)
        m.pop("derived")
        return m
    return make


def columns(out: Path) -> dict[str, bool]:
    return {str(p.relative_to(out)): "lead_rounds" in pq.read_schema(p).names
            for p in sorted(out.glob("games/cell=*/part-*.parquet"))}


def answers(out: Path) -> list:
    return [connection.run(q, [str(out)], p)[1] for q, p in (("lead_changes", {"behind_after": 2}),
                                                           ("bot_matchups", None), ("win_matrix", None),
                                                           ("knockouts", None), ("round_limit_effect", None))]


def digests(out: Path) -> list:
    schema = GAMES["paws"].schemas["games"]
    return [parts_digest(sorted(c.glob("part-*.parquet")), schema) for c in sorted(out.glob("games/cell=*"))]


def test_a_new_sweep_writes_the_columns(tmp_path):
    out = tmp_path / "new"
    run_sweep(parse_spec(SPEC, source="d.toml"), out, workers=1, progress=False)
    assert load_manifest(out)["derived"] == derived.VERSION
    assert set(columns(out).values()) == {True}
    assert pq.read_metadata(next(out.rglob("part-*.parquet"))).metadata[b"playtest.derived"] == derived.VERSION.encode()


def test_an_old_sweep_resumed_keeps_its_schema_and_upgrade_adds_the_columns(tmp_path, monkeypatch):
    out = tmp_path / "old"
    spec = parse_spec(SPEC, source="d.toml")
    with monkeypatch.context() as mp:
        mp.setattr(cluster.verify, "new_manifest", old_manifest(cluster.verify.new_manifest))
        mp.setattr(cluster.sweep, "new_manifest", old_manifest(cluster.sweep.new_manifest), raising=False)
        run_sweep(spec, out, workers=1, progress=False)
    assert "derived" not in load_manifest(out) and set(columns(out).values()) == {False}
    # a lost part, replayed by today's code on resume: still without the columns (one schema per sweep)
    lost = sorted(out.glob("games/cell=*/part-*.parquet"))[-1]
    lost.unlink()
    run_sweep(spec, out, workers=1, progress=False, resume=True)
    assert "derived" not in load_manifest(out) and set(columns(out).values()) == {False}
    before, digest = answers(out), digests(out)

    res = runner.invoke(app, ["upgrade", str(out)])
    assert res.exit_code == 0, res.output
    assert "4 of 4 parts" in res.output
    assert load_manifest(out)["derived"] == derived.VERSION and set(columns(out).values()) == {True}
    assert digests(out) == digest                            # the records are the same games
    after = answers(out)
    assert after[1:] == before[1:] and len(after[0]) == len(before[0])
    for a, b in zip(after[0], before[0]):
        assert [x == pytest.approx(y, rel=1e-12) if isinstance(x, float) else x == y for x, y in zip(a, b)] \
            == [True] * len(a)
    res = runner.invoke(app, ["status", str(out), "--verify", "--no-cells"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["upgrade", str(out)])          # again: nothing to do
    assert res.exit_code == 0 and "0 of 4 parts" in res.output and "4 had them" in res.output
    # a resumed upgraded sweep writes the columns in a replayed part
    sorted(out.glob("games/cell=*/part-*.parquet"))[0].unlink()
    run_sweep(spec, out, workers=1, progress=False, resume=True)
    assert set(columns(out).values()) == {True}


@pytest.mark.parametrize("args, says", [
    (["upgrade", "{tmp}/nothing"], "no such results directory"),
    (["upgrade", "{tmp}"], "no sweep here"),
    (["upgrade", "s3://bucket/x"], "local results folder"),
])
def test_upgrade_refuses_what_is_not_a_local_sweep_in_one_line(tmp_path, args, says):
    res = runner.invoke(app, [a.replace("{tmp}", str(tmp_path)) for a in args])
    assert res.exit_code == 2 and says in res.output and "Traceback" not in res.output
