"""Sweeps with [stop]: precision-driven and SPRT cells on an embedded 2-CPU Ray; prefixes, reruns, resume, refusals."""

import hashlib
import json
import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from budget import examples
from typer.testing import CliRunner

from cli.main import app
from cluster.manifest import BEYOND, DONE, load_manifest, save_manifest
from cluster.part import part_path
from cluster.spec import SpecError, parse_spec
from cluster.stopping import CAP, NARROW, PrecisionStopper, SprtStopper, StopPlan
from cluster.sweep import SweepInterrupted, run_sweep
from sim.games import get
from infra.metrics import parse_metric
from infra.sequential import share_interval

# Tales, 2 players and 2 vs. 2: first player's share to +-0.04 (about 2,300 games a cell), parts of 250 games
PRECISE = {"name": "precise", "game": "tales", "seed": 5, "batch_size": 250, "grid": {"mode": ["standard", "2v2"]},
           "stop": {"metric": "first_player_share", "half_width": 0.04, "max_games_per_cell": 20_000}}


def rows(out, cell_id) -> pa.Table:
    t = pq.read_table(out / "games" / f"cell={cell_id}", partitioning=None)
    return t.sort_by("game_index").replace_schema_metadata(None)


def digest(out, spec) -> str:
    """A digest of every cell's rows in game order (independent of how parts were written)."""
    h = hashlib.sha256()
    for cell in spec.cells:
        t = rows(out, cell.id)
        h.update(cell.id.encode())
        for batch in t.to_batches():
            sink = pa.BufferOutputStream()
            with pa.ipc.new_stream(sink, batch.schema) as w:
                w.write_batch(batch)
            h.update(sink.getvalue().to_pybytes())
    return h.hexdigest()


@pytest.fixture(scope="module")
def spec():
    return parse_spec(PRECISE, source="precise.toml")


@pytest.fixture(scope="module")
def precise(ray_local, spec, tmp_path_factory):
    out = tmp_path_factory.mktemp("precise") / "sweep"
    return out, run_sweep(spec, out, workers=2, progress=False)


def test_every_cell_stops_narrow_on_a_prefix_of_its_games(precise, spec):
    out, summary = precise
    man = load_manifest(out)
    assert man["state"] == "done" and man["stop"]["cells"] == {NARROW: 2}
    metric = parse_metric(get("tales"), "first_player_share")
    for cell, c in zip(spec.cells, man["cells"]):
        t = rows(out, cell.id)
        n = t.num_rows
        assert t.column("game_index").to_pylist() == list(range(n))           # a prefix of game indices
        done = [p for p in c["parts"] if p["state"] == DONE]
        assert [p["batch"] for p in done] == list(range(len(done))) and n == 250 * len(done)
        assert all(p["state"] == BEYOND for p in c["parts"][len(done):])
        assert not part_path(out, "games", cell.id, len(done)).exists()
        # the interval, recomputed from the files, is as narrow as asked, and the one before it was not
        total = sum(1 for w, f in zip(t.column("winner_team").to_pylist(), t.column("first_side").to_pylist())
                    if w == f)
        low, high = share_interval(n, total, 0.05)
        assert (high - low) / 2 <= 0.04
        before = cell.match.play_batch(5, 0, n - 250)["games"]
        prev = sum(1 for w, f in zip(before.column("winner_team").to_pylist(),
                                     before.column("first_side").to_pylist()) if w == f)
        lo2, hi2 = share_interval(n - 250, prev, 0.05)
        assert (hi2 - lo2) / 2 > 0.04                          # it stopped at the first look that was narrow
        st_ = c["stop"]
        assert st_["reason"] == NARROW and st_["games"] == n and st_["estimate"] == pytest.approx(total / n)
        assert st_["interval"] == pytest.approx([low, high]) and metric.name == st_["metric"]
    assert summary.games == summary.games_done + summary.games_discarded


def test_a_rerun_into_a_new_folder_is_identical(precise, spec, tmp_path):
    out, _ = precise
    again = tmp_path / "again"
    run_sweep(spec, again, workers=1, progress=False)
    assert digest(again, spec) == digest(out, spec)
    a, b = load_manifest(out), load_manifest(again)
    assert [c["stop"] for c in a["cells"]] == [c["stop"] for c in b["cells"]]
    assert sorted(p.relative_to(out) for p in out.rglob("*.parquet")) == \
        sorted(p.relative_to(again) for p in again.rglob("*.parquet"))


def test_an_interrupted_sweep_resumed_ends_identical(precise, spec, tmp_path):
    out, _ = precise
    part = tmp_path / "part"
    seen = []

    def stop_after_three(cell, batch):
        seen.append((cell, batch))
        if len(seen) == 3:
            raise KeyboardInterrupt

    with pytest.raises(SweepInterrupted):
        run_sweep(spec, part, workers=2, progress=False, on_part=stop_after_three)
    assert load_manifest(part)["state"] == "interrupted"
    run_sweep(spec, part, workers=2, resume=True, progress=False)
    assert digest(part, spec) == digest(out, spec)
    assert [c["stop"] for c in load_manifest(part)["cells"]] == [c["stop"] for c in load_manifest(out)["cells"]]


def test_resume_replays_the_manifest_and_reads_lost_summaries_from_the_files(precise, spec, tmp_path):
    out, _ = precise
    work = tmp_path / "work"
    shutil.copytree(out, work)
    man = load_manifest(work)
    c0, c1 = man["cells"]
    n0 = sum(p["state"] == DONE for p in c0["parts"])
    for p in c0["parts"][n0 - 2:n0]:
        p.update(state="pending", rows=0, bytes=0, files={})      # finished after the manifest's last save
        p.pop("summary")
    for p in c0["parts"][:n0 - 2]:
        p.pop("summary")                                            # a manifest without summaries
    n1 = sum(p["state"] == DONE for p in c1["parts"])
    for p in c1["parts"][n1 - 3:n1]:
        part_path(work, "games", c1["id"], p["batch"]).unlink()    # never finished
        p.update(state="pending", rows=0, bytes=0, files={})
    for c in man["cells"]:
        c.pop("stop")
    man["state"] = "running"
    save_manifest(work, man)
    played = []
    summary = run_sweep(spec, work, workers=2, resume=True, progress=False,
                        on_part=lambda c, b: played.append((c, b)))
    lost = [(c1["id"], b) for b in range(n1 - 3, n1)]
    assert set(lost) <= set(played)                    # and perhaps a part played ahead, then cut at the stop
    assert all(b >= n1 for c, b in set(played) - set(lost))
    assert summary.games_done == sum(rows(out, c.id).num_rows for c in spec.cells)
    assert digest(work, spec) == digest(out, spec)
    assert [c["stop"] for c in load_manifest(work)["cells"]] == [c["stop"] for c in load_manifest(out)["cells"]]
    res = CliRunner().invoke(app, ["status", str(work), "--verify"])
    assert res.exit_code == 0, res.output
    assert "beyond their cell's stop" in res.output and "narrow enough" in " ".join(res.output.split())


def test_a_cell_that_cannot_get_narrow_enough_stops_at_the_cap(ray_local, tmp_path):
    spec = parse_spec({**PRECISE, "grid": {}, "setup": {"mode": "standard"},
                       "stop": {"metric": "first_player_share", "half_width": 0.01, "max_games_per_cell": 600}},
                      source="cap.toml")
    out = tmp_path / "cap"
    run_sweep(spec, out, workers=2, progress=False)
    (c,) = load_manifest(out)["cells"]
    assert c["stop"]["reason"] == CAP and c["stop"]["games"] == 600
    assert [p["rows"] for p in c["parts"]] == [250, 250, 100]
    assert rows(out, c["id"]).column("game_index").to_pylist() == list(range(600))


@pytest.mark.parametrize("op, reason", [(">=", "accept"), ("<=", "reject")])
def test_sprt_cells_stop_with_the_right_decision(ray_local, tmp_path, op, reason):
    # Player 1 wins about 57% of 2-player Tales: ">= 0.45" holds, "<= 0.45" does not
    spec = parse_spec({**PRECISE, "grid": {}, "setup": {"mode": "standard"},
                       "stop": {"test": f"win_share:player=1 {op} 0.45", "delta": 0.05, "alpha": 0.01, "beta": 0.01,
                                "max_games_per_cell": 20_000}}, source="sprt.toml")
    out = tmp_path / "sprt"
    summary = run_sweep(spec, out, workers=2, progress=False)
    (c,) = load_manifest(out)["cells"]
    assert c["stop"]["reason"] == reason and c["stop"]["claim"] == f"win_share:player=1 {op} 0.45"
    assert 0 < summary.games_done < 20_000
    n = rows(out, c["id"]).num_rows
    assert c["stop"]["games"] == n and rows(out, c["id"]).column("game_index").to_pylist() == list(range(n))


def test_sprt_against_fair_takes_each_cells_own_seats():
    s = parse_spec({"game": "paws", "rules": "v4", "seed": 1, "grid": {"players": [2, 4]},
                    "stop": {"test": "first_player_share <= fair + 0.05", "max_games_per_cell": 1000}}, source="f.toml")
    assert s.stop.thresholds == {"c000": pytest.approx(0.55), "c001": pytest.approx(0.30)}
    assert s.describe()["stop"]["test"] == "first_player_share <= fair + 0.05"


# --- the stoppers alone -------------------------------------------------------------------------------------

def test_stoppers_observe_in_batch_order_and_refuse_anything_else():
    m = parse_metric(get("tales"), "first_player_share")
    p = PrecisionStopper(m, ["a"], 10, half_width=0.1, lookahead=1)
    assert p.may_start("a", 1) and not p.may_start("a", 2)
    with pytest.raises(ValueError, match="observed after part -1"):
        p.observe("a", 1, {m.name: (10, 5.0)})
    p.observe("a", 0, {m.name: (100, 50.0)})
    assert p.stopped("a") is None and p.may_start("a", 2)
    p.observe("a", 1, {m.name: (400, 200.0)})
    assert p.stopped("a") == NARROW and not p.may_start("a", 2)
    s = SprtStopper(m, ["a"], 3, op="<=", thresholds={"a": 0.5}, delta=0.1)
    with pytest.raises(ValueError, match="needs per-game values 0 or 1"):
        s.observe("a", 0, {m.name: (10, 5.5)})
    for b in range(3):
        s.observe("a", b, {m.name: (10, 5.0)})
    assert s.stopped("a") == CAP
    json.dumps(s.state()) and json.dumps(p.state())


# --- refusals -----------------------------------------------------------------------------------------------

BAD = [
    ({"metric": "first_player_share", "half_width": 0.5, "max_games_per_cell": 10}, "half_width = 0.5"),
    ({"metric": "first_player_share", "relative": 1.0, "max_games_per_cell": 10}, "relative = 1.0"),
    ({"metric": "first_player_share", "max_games_per_cell": 10}, "neither given"),
    ({"metric": "nope", "half_width": 0.1, "max_games_per_cell": 10}, "unknown metric"),
    ({"metric": "first_player_share", "half_width": 0.1}, "missing key 'max_games_per_cell'"),
    ({"test": "first_player_share < 0.3", "max_games_per_cell": 10}, "test = 'first_player_share < 0.3'"),
    ({"test": "first_player_share <= 0.3", "alpha": 0.5, "max_games_per_cell": 10}, "alpha = 0.5"),
    ({"test": "first_player_share <= 0.3", "half_width": 0.1, "max_games_per_cell": 10}, "mixes"),
    ({"metric": "first_player_share", "half_width": 0.1, "max_games_per_cell": 10, "games": 3}, "unknown key 'games'"),
    ({"metric": "sql: (SELECT 1)", "half_width": 0.1, "max_games_per_cell": 10}, "subqueries are not allowed"),
]


@pytest.mark.parametrize("stop, problem", BAD)
def test_cli_refuses_a_bad_stop_in_one_line_before_any_game(tmp_path, stop, problem):
    f = tmp_path / "s.toml"
    lines = ['game = "tales"', "seed = 1", "[stop]"]
    lines += [f"{k} = {json.dumps(v)}" for k, v in stop.items()]
    f.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["sweep", str(f), "--out", str(out)])
    assert res.exit_code == 2, res.output
    text = " ".join(res.output.split())
    assert "s.toml: " in text and problem in text and "Traceback" not in text and not out.exists()


def test_games_per_cell_and_stop_together_are_refused():
    with pytest.raises(SpecError, match="games_per_cell and \\[stop\\] together"):
        parse_spec({"game": "tales", "seed": 1, "games_per_cell": 10,
                    "stop": {"metric": "first_player_share", "half_width": 0.1, "max_games_per_cell": 10}})


VALUES = st.one_of(st.integers(-3, 10**6), st.floats(allow_nan=True), st.text(max_size=12), st.booleans(),
                   st.sampled_from(["first_player_share", "mean_rounds", "first_player_share <= fair",
                                    "win_share:player=1 >= 0.4", "sql: rounds > 3"]))
KEYS = st.sampled_from(["metric", "half_width", "relative", "max_games_per_cell", "confidence", "test", "alpha",
                        "beta", "delta", "lookahead", "games_per_cell"])


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(KEYS, VALUES, max_size=5))
def test_any_stop_table_is_a_spec_or_one_line_naming_the_stop(stop):
    try:
        s = parse_spec({"game": "tales", "seed": 1, "batch_size": 100, "stop": stop}, source="h.toml")
    except SpecError as e:
        msg = str(e)
        assert "\n" not in msg and msg.startswith("h.toml: [stop]"), msg
        return
    assert s.stop is not None and 1 <= s.games_per_cell == stop["max_games_per_cell"]
    assert s.describe()["stop"] == s.stop.describe()


def test_stop_plan_round_robins_by_batch_across_cells(spec, tmp_path):
    from cluster.manifest import new_manifest
    from cluster.stopping import make_stopper
    plan = StopPlan(spec, new_manifest(spec, "x", "y"), make_stopper(spec, lookahead=1), tmp_path)
    order = [plan.next_part() for _ in range(5)]
    assert order == [("c000", 0), ("c001", 0), ("c000", 1), ("c001", 1), None]


def test_the_stop_is_part_of_the_digest_and_a_fixed_spec_keeps_its_own():
    a = parse_spec(PRECISE, source="a.toml")
    b = parse_spec({**PRECISE, "stop": {**PRECISE["stop"], "half_width": 0.05}}, source="a.toml")
    fixed = parse_spec({k: v for k, v in PRECISE.items() if k != "stop"} | {"games_per_cell": 20_000},
                       source="a.toml")
    assert len({a.digest, b.digest, fixed.digest}) == 3
    assert "stop" not in fixed.describe() and fixed.stop is None
    assert a.games_per_cell == fixed.games_per_cell and a.parts_per_cell == fixed.parts_per_cell == 80


def test_cli_sweep_and_status_print_each_cells_answer_and_why_it_stopped(precise, spec, tmp_path):
    out, _ = precise
    res = CliRunner().invoke(app, ["status", str(out)])
    text = " ".join(res.output.split())
    assert res.exit_code == 0, res.output
    assert "[stop]: cells narrow 2" in text and text.count("stopped: interval narrow enough") == 2
    f = tmp_path / "tiny.toml"
    f.write_text('game = "tales"\nseed = 2\nbatch_size = 200\n[stop]\nmetric = "win_share:player=2"\n'
                 'relative = 0.5\nmax_games_per_cell = 4000\n')
    res = CliRunner().invoke(app, ["sweep", str(f), "--out", str(tmp_path / "tiny"), "--no-progress"])
    text = " ".join(res.output.split())
    assert res.exit_code == 0, res.output
    assert "each until win_share:player=2 is known to +-50% of the estimate" in text
    assert "c000: win_share:player=2 = " in text and "stopped: interval narrow enough" in text


def test_a_damaged_kept_part_is_found_by_verify_and_played_again_on_resume(precise, spec, tmp_path):
    out, _ = precise
    work = tmp_path / "damaged"
    shutil.copytree(out, work)
    victim = part_path(work, "games", "c001", 1)
    victim.write_bytes(victim.read_bytes()[:200])                       # truncated
    res = CliRunner().invoke(app, ["status", str(work), "--verify"])
    assert res.exit_code == 1, res.output
    assert "corrupt (1)" in res.output and load_manifest(work)["state"] == "incomplete"
    assert load_manifest(work)["cells"][1]["parts"][1]["state"] == "pending"
    played = []
    run_sweep(spec, work, workers=2, resume=True, progress=False, on_part=lambda c, b: played.append((c, b)))
    assert ("c001", 1) in played and digest(work, spec) == digest(out, spec)
    assert [c["stop"] for c in load_manifest(work)["cells"]] == [c["stop"] for c in load_manifest(out)["cells"]]


def test_a_mean_metric_stops_on_a_half_width_in_its_own_units():
    m = parse_metric(get("paws"), "mean_rounds")                  # rounds, scaled by 500
    p = PrecisionStopper(m, ["a"], 100, half_width=5.0)              # +-5 rounds = +-0.01 of the range
    p.observe("a", 0, {m.name: (1000, 1000 * 0.02)})                 # mean 10 rounds; too few games yet
    assert p.stopped("a") is None and p.state()["a"]["half_width"] > 5.0
    p.observe("a", 1, {m.name: (20_000, 20_000 * 0.02)})
    st_ = p.state()["a"]
    assert p.stopped("a") == NARROW and st_["half_width"] <= 5.0
    assert st_["estimate"] == pytest.approx(10.0) and st_["interval"][0] < 10.0 < st_["interval"][1] < 15.0


def test_resume_reads_only_the_part_files_there_not_every_part_up_to_the_cap(precise, spec, tmp_path,
                                                                             monkeypatch):
    """A [stop] sweep's cells hold their parts up to the stop, not up to the cap (here 80 parts a cell):
    verification on resume reads the part files that are there, and says so (not "verifying 160 ...")."""
    import cluster.verify
    out, _ = precise
    work = tmp_path / "work"
    shutil.copytree(out, work)
    there = len(list(work.glob("*/cell=*/part-*.parquet")))
    read, lines = [], []
    real = cluster.verify.check_file

    def counted(*args, **kw):
        read.append(args[2:5])
        return real(*args, **kw)
    monkeypatch.setattr(cluster.verify, "check_file", counted)
    summary = run_sweep(spec, work, workers=2, resume=True, progress=False, log=lines.append)
    assert summary.parts == 0 and summary.verify is not None and summary.verify.whole
    assert len(read) == there < spec.total_parts * len(spec.tables), (len(read), there)
    assert not any(f"verifying {spec.total_parts * len(spec.tables):,}" in ln for ln in lines), lines
    assert digest(work, spec) == digest(out, spec)
