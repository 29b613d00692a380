"""Results on object storage: sweeps into s3:// on a real S3-compatible server (moto) on loopback.

The parts land whole at their final keys, the manifest and the status are read from the store, the queries
read the parts in place, --resume repairs an interrupted sweep, a second driver is refused, and the same
spec gives byte-identical parts on S3 and on a local disk.
"""

import os
import re
import socket

import pytest
from typer.testing import CliRunner

from cli.main import app
import cluster.remote as remote
from cluster.manifest import ManifestError, load_manifest, save_manifest
from cluster.remote import ObjectLock, object_lock
from cluster.spec import parse_spec
from cluster.sweep import SweepError, SweepInterrupted, run_sweep
from queries import connection
from infra.storage import StorageError, open_location

SPEC = {"name": "s3-small", "game": "paws", "rules": "v4", "seed": 11, "games_per_cell": 30, "batch_size": 8,
        "setup": {"board": "beginner"}, "grid": {"players": [2, 4]}, "overrides": {"round_limit": 20}}
runner = CliRunner()


def part_hashes(manifest) -> dict:
    return {(c["id"], p["batch"]): p["files"]["games"]["sha256"] for c in manifest["cells"] for p in c["parts"]}


@pytest.fixture(scope="module")
def spec():
    return parse_spec(SPEC, source="s3-small.toml")


@pytest.fixture(scope="module")
def local(ray_local, spec, tmp_path_factory):
    out = tmp_path_factory.mktemp("local") / "sweep"
    run_sweep(spec, out, workers=2, progress=False)
    return out


@pytest.fixture(scope="module")
def on_s3(ray_local, spec, s3_server):
    """The same sweep into s3://; `playtest status` run while it plays (after its first part)."""
    uri = s3_server.uri(s3_server.bucket("sweeps"), "small")
    seen = []

    def status_mid_sweep(cell, batch):
        if not seen:
            seen.append(runner.invoke(app, ["status", uri, "--no-cells"]))
    summary = run_sweep(spec, uri, workers=2, progress=False, on_part=status_mid_sweep)
    return uri, summary, seen[0]


def test_an_s3_sweep_writes_the_same_bytes_as_a_local_one(on_s3, local, s3_server, spec):
    uri, summary, _ = on_s3
    assert (summary.games, summary.parts, summary.games_done) == (60, 8, 60)
    m, lm = load_manifest(uri), load_manifest(local)
    assert m["state"] == "done" and part_hashes(m) == part_hashes(lm)
    objects = s3_server.keys("sweeps", "small/")
    assert sorted(objects) == sorted(["small/manifest.json"] + [f"small/games/cell={c}/part-{b:05d}.parquet"
                                                                for c in [c.id for c in spec.cells] for b in range(4)])
    for key, data in objects.items():      # every part object is whole and byte-identical to the local file
        if key.endswith(".parquet"):
            assert data == (local / key.removeprefix("small/")).read_bytes(), key


def test_status_reads_the_progress_from_the_store_while_the_sweep_runs(on_s3):
    uri, _, mid = on_s3
    assert mid.exit_code == 0, mid.output
    assert "running" in mid.output and "of 60 games" in mid.output
    said = " ".join(mid.output.split())
    assert f"pid {os.getpid()}) renewed its lock" in said, said       # the driver is alive: its lock is fresh
    res = runner.invoke(app, ["status", uri, "--verify", "--no-cells"])
    assert res.exit_code == 0, res.output
    assert "parts ok 8" in res.output and "the folder is whole" in res.output and "60 of 60 games" in res.output


def test_queries_read_the_parts_in_place_with_the_same_answers(on_s3, local):
    uri = on_s3[0]
    sql = "SELECT cell, count(*), sum(game_index), min(rounds), max(rounds) FROM games GROUP BY cell ORDER BY cell"
    con_s3, con_local = connection.connect([uri]), connection.connect([str(local)])
    try:
        got, want = con_s3.execute(sql).fetchall(), con_local.execute(sql).fetchall()
    finally:
        con_s3.close(), con_local.close()
    assert got == want and [r[1] for r in got] == [30, 30]
    res, ref = (runner.invoke(app, ["query", "first_player_advantage", "--results", r, "--format", "csv"])
                for r in (uri, str(local)))
    assert res.exit_code == 0, res.output
    assert res.output == ref.output and res.output.count(",30,") == 2
    # the locked connection reads nothing else (docs/queries-security.md)
    con = connection.connect([uri])
    try:
        with pytest.raises(Exception, match="(?i)permission|disabled|external"):
            con.execute(f"SELECT * FROM read_parquet('{local}/games/*/*.parquet')").fetchall()
    finally:
        con.close()


def test_an_interrupted_s3_sweep_resumes_and_repairs(ray_local, spec, s3_server, on_s3):
    uri = s3_server.uri(s3_server.bucket("resume"), "r/x")
    calls = []

    def stop_after_two(cell, batch):
        calls.append((cell, batch))
        if len(calls) == 2:
            raise KeyboardInterrupt
    with pytest.raises(SweepInterrupted):
        run_sweep(spec, uri, workers=1, progress=False, on_part=stop_after_two)
    m = load_manifest(uri)
    assert m["state"] == "interrupted" and 2 <= sum(p["state"] == "done" for c in m["cells"] for p in c["parts"]) < 8
    c = s3_server.client()
    assert not any(k.endswith(".sweep.lock") for k in s3_server.keys("resume"))     # released
    c.put_object(Bucket="resume", Key=f"r/x/games/cell={spec.cells[0].id}/stray.txt", Body=b"not a part")
    with pytest.raises(SweepError, match="already holds this sweep"):
        run_sweep(spec, uri, workers=1, progress=False)
    lines = []
    summary = run_sweep(spec, uri, workers=2, progress=False, resume=True, log=lines.append)
    assert summary.games_done == 60 and summary.parts_skipped >= 2
    assert any("stray 1" in line for line in lines), lines
    done = load_manifest(uri)
    assert done["state"] == "done" and part_hashes(done) == part_hashes(load_manifest(on_s3[0]))
    keys = s3_server.keys("resume")
    assert any(k.startswith("r/x/.quarantine/") and k.endswith(f"games/cell={spec.cells[0].id}/stray.txt") for k in keys)
    assert f"r/x/games/cell={spec.cells[0].id}/stray.txt" not in keys


def test_a_second_driver_is_refused_and_a_stale_lock_is_taken_over(ray_local, spec, s3_server, monkeypatch,
                                                                   tmp_path):
    uri = s3_server.uri(s3_server.bucket("locked"), "two")
    toml = tmp_path / "s.toml"
    toml.write_text('name = "x"\ngame = "paws"\nseed = 1\ngames_per_cell = 10\nbatch_size = 10\n')
    with object_lock(open_location(uri)):
        with pytest.raises(SweepError, match="another driver is running a sweep here"):
            run_sweep(spec, uri, workers=1, progress=False)
        res = runner.invoke(app, ["sweep", str(toml), "--out", uri, "--no-progress"])
        assert res.exit_code == 2 and "another driver is running a sweep here" in res.output
        assert "Traceback" not in res.output and "games/s" not in res.output
        verify = runner.invoke(app, ["status", uri, "--verify"])
        assert verify.exit_code == 2                # no manifest yet: nothing to verify
    assert s3_server.keys("locked") == {}           # refused: nothing written, the lock released
    # a driver killed without releasing: its lock is no longer renewed and goes stale
    dead = ObjectLock(open_location(uri))
    dead.acquire()
    dead._stop.set()                                # no more heartbeats, as if its process had died
    dead._thread.join()
    with pytest.raises(remote.LockHeld, match=r"renewed [0-9] s ago"):
        ObjectLock(open_location(uri)).acquire()
    monkeypatch.setattr(remote, "STALE_S", -1.0)    # (instead of waiting a minute)
    took = ObjectLock(open_location(uri))
    took.acquire()
    assert "took over the stale lock" in took.took_over
    assert not dead.renew() and "taken over" in dead.lost     # the old owner finds out at its next heartbeat
    with pytest.raises(ManifestError, match="taken over"):
        dead.check()                                # and saves no manifest
    took.release()
    assert s3_server.keys("locked") == {}


def test_report_reads_the_bucket_and_names_a_damaged_part(on_s3, s3_server, tmp_path):
    res = runner.invoke(app, ["report", on_s3[0], "--out", str(tmp_path / "page.html")])
    assert res.exit_code == 0, res.output
    assert "60 games" in " ".join(res.output.split()) and (tmp_path / "page.html").stat().st_size > 10_000
    c = s3_server.client()                  # a copy of the sweep with one part damaged in place (same size)
    s3_server.bucket("damaged")
    for key, data in s3_server.keys("sweeps", "small/").items():
        if key.endswith("cell=c000/part-00001.parquet"):
            data = data[:len(data) // 2] + bytes(64) + data[len(data) // 2 + 64:]
            damaged = key.removeprefix("small/")
        c.put_object(Bucket="damaged", Key=key, Body=data)
    res = runner.invoke(app, ["report", s3_server.uri("damaged", "small"), "--out", str(tmp_path / "bad.html")])
    said = " ".join(res.output.split())
    assert res.exit_code == 2 and "Traceback" not in res.output, res.output
    assert f"error: s3://damaged/small: 1 corrupt or missing part(s) ({damaged}) (" in said, said
    assert "playtest status --verify s3://damaged/small" in said and not (tmp_path / "bad.html").exists()


def test_status_of_a_running_sweep_says_whether_its_driver_still_holds_the_lock(on_s3, s3_server, monkeypatch):
    m = load_manifest(on_s3[0])
    m["state"] = "running"                            # a sweep whose driver ... is it still there?
    uri = s3_server.uri(s3_server.bucket("alive"), "s")
    save_manifest(uri, m)

    def said() -> str:
        res = runner.invoke(app, ["status", uri, "--no-cells"])
        assert res.exit_code == 0, res.output
        return " ".join(res.output.split())
    assert "no driver holds its lock: the driver was stopped or killed; --resume finishes it" in said()
    lock = ObjectLock(open_location(uri))
    lock.acquire()
    try:
        # ages by the server's clock, whole seconds (HTTP dates): 0 or 1 s just after taking the lock
        assert re.search(rf"its driver \(host {re.escape(socket.gethostname())}, pid {os.getpid()}\) renewed its "
                         r"lock [01] s ago", said())
        monkeypatch.setattr(remote, "STALE_S", -1.0)
        assert re.search(r"last renewed its lock [0-9]+ s ago, so it is gone; --resume finishes it", said())
    finally:
        lock.release()


@pytest.mark.parametrize("out, says", [
    ("s3:///prefix", "no bucket"),
    ("nosuch://bucket/prefix", "unknown storage scheme 'nosuch'"),
    ("s3://no-such-bucket/p", "no bucket 'no-such-bucket'"),
    ("s3://b/p?endpoint_override=127.0.0.1:1&scheme=http", "the storage does not answer"),
    ("s3://b/p?colour=blue", "unknown query parameter 'colour'"),
    ("s3://key:secret@b/p", "credentials in the URI are refused"),
])
def test_bad_uris_are_one_line_and_exit_2_before_any_game(out, says, s3_server, tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text('name = "x"\ngame = "paws"\nseed = 1\ngames_per_cell = 10\nbatch_size = 10\n')
    if "no-such-bucket" in out:
        out = s3_server.uri("no-such-bucket", "p")
    res = runner.invoke(app, ["sweep", str(spec), "--out", out])
    assert res.exit_code == 2, res.output
    assert says in res.output and "Traceback" not in res.output and "games/s" not in res.output
    assert "secret" not in res.output
    assert runner.invoke(app, ["status", out]).exit_code == 2


def test_open_location_refuses_without_touching_the_store():
    with pytest.raises(StorageError, match="no bucket"):
        open_location("s3://")


def test_a_manifest_read_while_the_driver_replaces_it_is_read_again(on_s3, monkeypatch):
    """An object store reads an object's size, then its bytes: a manifest replaced in between arrives cut at
    the old size. The reader tries again (a running sweep's status); a manifest that stays cut is one line."""
    import cluster.manifest as manifest_mod
    from cluster.manifest import ManifestError
    uri = on_s3[0]
    loc_cls = type(open_location(uri))
    real = loc_cls.read_bytes
    reads = []

    def cut_first(self, rel, limit):
        data = real(self, rel, limit)
        reads.append(rel)
        return data[: len(data) // 2] if rel == "manifest.json" and len(reads) == 1 else data
    monkeypatch.setattr(loc_cls, "read_bytes", cut_first)
    monkeypatch.setattr(manifest_mod.time, "sleep", lambda s: None)
    assert load_manifest(uri)["state"] == "done" and reads.count("manifest.json") == 2

    def always_cut(self, rel, limit):
        data = real(self, rel, limit)
        return data[: len(data) // 2] if rel == "manifest.json" else data
    monkeypatch.setattr(loc_cls, "read_bytes", always_cut)
    with pytest.raises(ManifestError, match="unreadable sweep manifest"):
        load_manifest(uri)


# ---- URIs and object names that would leave their bucket or folder (docs/sweeps.md, object storage) ----
ESCAPING_URIS = [
    ("s3://playtest/../other/pwn", "'.' or '..' segment"),
    ("s3://playtest/x/../../other/pwn", "'.' or '..' segment"),
    ("s3://playtest/./x", "'.' or '..' segment"),
    ("s3://playtest/..", "'.' or '..' segment"),
    ("s3://playtest/%2e%2e/other/pwn", "percent-encoded dot, slash or backslash"),
    ("s3://playtest/%2E%2e/other", "percent-encoded dot, slash or backslash"),
    ("s3://playtest/x%2f..%2fother", "percent-encoded dot, slash or backslash"),
    ("s3://playtest/x%5c..%5cother", "percent-encoded dot, slash or backslash"),
    ("s3://playtest/x\\..\\other", "backslash"),
    ("s3://playtest//other", "empty segment"),
    ("s3://playtest/a//b", "empty segment"),
    ("s3://playtest/a\x00b", "control character"),
    ("s3://playtest/a\nb", "control character"),
    ("s3://playtest/a\x1b[2Jb", "control character"),
    ("s3://playtest/p#/../../other", "'#' is not allowed"),
    ("s3://../other", "is not a name"),
    ("s3://./other", "is not a name"),
    ("s3://playtest%2f..%2fother/x", "is not a name"),
    ("s3://play\\test/x", "is not a name"),
    ("gs://playtest/../other/pwn", "'.' or '..' segment"),
    ("hdfs://namenode/a/../b", "'.' or '..' segment"),
]


@pytest.mark.parametrize("uri, says", ESCAPING_URIS)
def test_a_uri_that_could_leave_its_bucket_is_refused_without_touching_the_store(uri, says):
    with pytest.raises(StorageError, match=re.escape(says)) as e:
        open_location(uri, probe=False)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("uri", ["s3://playtest", "s3://playtest/", "s3://playtest/sweeps/a-1/b.c/", "s3://p/x..y/.z",
                                 "s3://playtest/p?endpoint_override=127.0.0.1:9&scheme=http"])
def test_plain_uris_still_open(uri):
    loc = open_location(uri, probe=False)
    assert loc.root == uri.split("://")[1].split("?")[0].rstrip("/")


@pytest.mark.parametrize("rel, says", [("../other/pwn", "'.' or '..' segment"), ("games/../../x", "'.' or '..' segment"),
                                       ("/other/pwn", "is absolute"), ("a//b", "empty segment"),
                                       ("./manifest.json", "'.' or '..' segment"), ("a\\..\\b", "backslash"),
                                       ("a/%2e%2e/b", "percent-encoded"), ("a\rb", "control character")])
def test_no_object_name_leaves_the_folder(rel, says):
    loc = open_location("s3://playtest/sweeps/one", probe=False)
    assert loc.path("games/cell=c000/part-00000.parquet") == "playtest/sweeps/one/games/cell=c000/part-00000.parquet"
    assert loc.path(".quarantine/x/stray.txt") == "playtest/sweeps/one/.quarantine/x/stray.txt"
    with pytest.raises(StorageError, match=re.escape(says)):
        loc.path(rel)
    for call in (lambda: loc.read_bytes(rel, 10), lambda: loc.write_bytes(rel, b"x"), lambda: loc.delete(rel),
                 lambda: loc.move("a", rel), lambda: loc.exists(rel)):
        with pytest.raises(StorageError, match="it must stay inside the folder"):
            call()


@pytest.mark.parametrize("escape", ["../other/pwn", "%2e%2e/other/pwn", "x/%2E%2E/%2e%2e/other/pwn", "/other/pwn",
                                    "x\\..\\..\\other/pwn"])
def test_a_sweep_into_another_bucket_is_refused_before_anything_is_written(escape, ray_local, s3_server, tmp_path):
    """``--out s3://playtest/../other/pwn`` once checked bucket playtest and wrote the parts into bucket other
    (Ray on loopback is up, so that a sweep that got through would not start one of its own)."""
    home, other = s3_server.bucket("playtest"), s3_server.bucket("other")
    spec = tmp_path / "s.toml"
    spec.write_text('name = "x"\ngame = "paws"\nseed = 1\ngames_per_cell = 10\nbatch_size = 10\n')
    out = f"s3://{home}/{escape}?{s3_server.query}"
    res = runner.invoke(app, ["sweep", str(spec), "--out", out, "--no-progress", "--workers", "1"])
    assert res.exit_code == 2, res.output
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in res.output, res.output
    assert "games/s" not in res.output
    assert s3_server.keys(other) == {} and s3_server.keys(home) == {}
    for args in (["status", out], ["report", out, "--out", str(tmp_path / "r.html")],
                 ["query", "seat_advantage", "--results", out]):
        res = runner.invoke(app, args)
        assert res.exit_code == 2 and "Traceback" not in res.output, (args, res.output)
