"""playtest regress end to end on a small suite (2 cells x 1,500 games), through the sweep machinery on Ray.

One baseline; then an unchanged run, the same games split differently on one worker, Desert heal 2 -> 0,
other seeds, and bad inputs. The report page is opened in headless Chromium.
"""

import json
import re
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app
from regress import baseline
from regress.compare import compare
from regress.suite import load_suite
from tests.test_report import _chromium

pytestmark = pytest.mark.slow

SUITE = """
name = "tiny"
seeds = [1]
[sweep]
game = "paws"
rules = "v4"
games_per_cell = 1500
[sweep.setup]
board = "beginner"
players = 4
[sweep.grid]
mode = ["ffa", "teams"]
[thresholds]
method = "bh"
level = 0.01
"""
runner = CliRunner()


def regress(*args):
    return runner.invoke(app, ["regress", *map(str, args), "--quiet"])


@pytest.fixture(scope="module")
def runs(tmp_path_factory, ray_local):
    """The suite, its baseline, and the result of every run: {name: (exit code, output, report dir)}."""
    root = tmp_path_factory.mktemp("regress")
    suites = {"plain": SUITE,
              "split": SUITE.replace("games_per_cell = 1500", "games_per_cell = 1500\nbatch_size = 250"),
              "heal0": SUITE.replace("[sweep.grid]", "[sweep.overrides]\ndesert_heal = 0\n[sweep.grid]")}
    for name, text in suites.items():
        (root / f"{name}.toml").write_text(text)
    base = root / "baseline.json"
    res = regress(root / "plain.toml", "--baseline", base, "--report", root / "r-base", "--update-baseline")
    assert res.exit_code == 0, res.output
    out = {}
    for name, suite, extra in (("unchanged", "plain", []), ("split", "split", ["--workers", "1"]),
                               ("heal0", "heal0", []), ("seeds", "plain", ["--seeds", "2"])):
        rep = root / f"r-{name}"
        res = regress(root / f"{suite}.toml", "--baseline", base, "--report", rep, *extra)
        out[name] = (res.exit_code, res.output, rep)
    return root, base, out


def result(runs, name):
    return json.loads((runs[2][name][2] / "result.json").read_text())


def flagged(r):
    return {(t["cell"], t["name"]) for t in r["tests"] if t["flagged"]}


def test_baseline_is_small_and_complete(runs):
    root, base, _ = runs
    b = baseline.load(base)
    assert b["seeds"] == [1] and b["games_per_cell"] == 1500 and len(b["cells"]) == 2
    ffa, teams = b["cells"]
    assert ffa["values"] == {"mode": "ffa"} and teams["values"] == {"mode": "teams"}
    assert ffa["games"] == {"1": 1500} and len(ffa["records"]["1"]) == 64
    assert sum(ffa["metrics"]["end_reasons"].values()) == 1500
    assert ffa["metrics"]["stall_rate"]["stalled"][1] == 1500
    assert set(ffa["metrics"]["seat_win_rate"]) == {"seat 0", "seat 1", "seat 2", "seat 3", "first player"}
    assert set(teams["metrics"]["team_win_rate"]) == {"team 0", "team 1"} and "seat_win_rate" not in teams["metrics"]
    # the k of the seat rates add up to the games with a winner
    assert sum(ffa["metrics"]["seat_win_rate"][f"seat {s}"][0] for s in range(4)) == \
        1500 - ffa["metrics"]["end_reasons"].get("stalled", 0)
    assert base.stat().st_size < 20_000


def test_unchanged_run_passes(runs):
    code, output, rep = runs[2]["unchanged"]
    assert code == 0, output
    assert "PASS" in output
    r = result(runs, "unchanged")
    assert r["verdict"] == "pass" and [c["status"] for c in r["cells"]] == ["same", "same"]
    assert flagged(r) == set() and len(r["tests"]) > 10
    assert all(t["p"] == 1.0 for t in r["tests"])          # identical counts
    assert (rep / "report.md").read_text().startswith("# Balance regression `tiny`: **PASS**")


def test_same_games_split_into_other_parts_on_one_worker_are_identical(runs):
    code, output, _ = runs[2]["split"]
    assert code == 0, output
    r = result(runs, "split")
    assert [c["status"] for c in r["cells"]] == ["same", "same"]
    assert r["suite_changes"] == ["batch_size: (unset) -> 250"]


def test_desert_heal_0_is_changed_behaviour_and_drift_on_the_right_metrics(runs):
    code, output, rep = runs[2]["heal0"]
    assert code == 1, output
    assert "REGRESSION" in output
    r = result(runs, "heal0")
    assert r["suite_changes"] == ["overrides.desert_heal: (unset) -> 0"]
    assert [(c["status"], c["detail"]) for c in r["cells"]] == [("changed", "seed 1: rules changed")] * 2
    got = flagged(r)
    # no heal: players cannot recover, games stall at the round cap, last longer, and every seat/team wins less
    for cell in ("c000", "c001"):
        assert {(cell, "stall_rate stalled"), (cell, "end_reasons"), (cell, "game_length")} <= got
    assert {("c000", f"seat_win_rate seat {s}") for s in range(4)} <= got
    assert {("c001", "team_win_rate team 0"), ("c001", "team_win_rate team 1")} <= got
    stall = {t["cell"]: t for t in r["tests"] if t["family"] == "stall_rate"}
    assert stall["c000"]["effect"] > 0.1 and stall["c001"]["effect"] > 0.05
    md = (rep / "report.md").read_text()
    assert md.startswith("# Balance regression `tiny`: **REGRESSION**")
    assert md.index("## Flagged metrics") < md.index("## Changed behaviour") < md.index("All ")


def test_other_seeds_without_a_change_do_not_flag(runs):
    code, output, _ = runs[2]["seeds"]
    assert code == 0, output
    r = result(runs, "seeds")
    assert flagged(r) == set()
    assert [c["status"] for c in r["cells"]] == ["not compared"] * 2   # other seeds: other games
    assert any(t["p"] < 1.0 for t in r["tests"])                        # real tests were run on other games


def test_code_change_is_named_as_the_cause(runs):
    """Same configuration, other games: what a change in engine code looks like (digest altered by hand)."""
    root, base, _ = runs
    suite = load_suite(root / "plain.toml")
    b = baseline.load(base)
    tampered = json.loads(json.dumps(b))
    tampered["cells"][1]["records"]["1"] = "f" * 64
    r = compare(suite, tampered, b)
    assert r.verdict == "regression" and r.reasons == ["1 cell(s) changed behaviour"]
    assert [c.status for c in r.cells] == ["same", "changed"]
    assert "same rules, data and setup: the code plays these games differently" in r.cells[1].detail
    assert "engine core unchanged" in r.cells[1].detail
    dropped = dict(b, cells=b["cells"][:1])
    r = compare(suite, dropped, b)
    assert r.verdict == "regression" and r.unmatched == ["cell c001 (mode=teams) is not in the baseline"]


def test_missing_or_corrupt_baseline_and_bad_suite_are_errors_before_any_game(runs, tmp_path):
    root, base, _ = runs
    res = regress(root / "plain.toml", "--baseline", tmp_path / "none.json", "--report", tmp_path / "a")
    assert res.exit_code == 2 and "no such baseline file" in res.output and "--update-baseline" in res.output
    bad = tmp_path / "bad.json"
    bad.write_text(base.read_text().replace('"cells"', '"cels"'))
    res = regress(root / "plain.toml", "--baseline", bad, "--report", tmp_path / "b")
    assert res.exit_code == 2 and f"{bad}: corrupt baseline: missing key cells" in " ".join(res.output.split())
    suite = tmp_path / "s.toml"
    suite.write_text(SUITE.replace("level = 0.01", "level = 0.01\nfdr = 0.1"))
    res = regress(suite, "--baseline", base, "--report", tmp_path / "c")
    assert res.exit_code == 2 and "unknown key thresholds.fdr" in res.output
    assert not any((tmp_path / d).exists() for d in "abc")   # refused before any game was played
    res = regress(root / "plain.toml", "--baseline", base, "--report", tmp_path / "d", "--seeds", "x")
    assert res.exit_code == 2 and "--seeds 'x' is not allowed" in res.output
    res = regress(root / "plain.toml", "--baseline", base, "--report", tmp_path / "e", "--workers", "0")
    assert res.exit_code == 2 and "--workers 0 is not allowed; expected at least 1" in res.output
    assert not any((tmp_path / d).exists() for d in "de")


@pytest.mark.browser
def test_report_page_renders_in_headless_chromium(runs):
    browser = _chromium()
    page = runs[2]["heal0"][2] / "report.html"
    text = page.read_text()
    assert "src='http" not in text and "href='http" not in text          # one self-contained file
    dom = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=5000",
                          "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120).stdout
    body = re.search(r"<body[^>]*>", dom).group(0)
    # the page's script counts the images that decoded with a size: every plot rendered
    assert 'data-plots="2"' in body and 'data-plots-rendered="2"' in body, body
    flagged_section = re.search(r'<section id="flagged">(.*?)</section>', dom, re.S).group(1)
    assert "Flagged metrics" in flagged_section and "stall_rate stalled" in flagged_section
    assert dom.index('id="flagged"') < dom.index('id="plots"')


def test_a_tales_suite_runs_on_its_own_metrics(ray_local, tmp_path):
    from sim.games import GAMES
    if "tales" not in GAMES.names():
        pytest.skip("Tales are Real is not in this tree")
    suite = tmp_path / "tales.toml"
    suite.write_text('seeds = [1]\n[sweep]\ngame = "tales"\ngames_per_cell = 400\n'
                     '[sweep.grid]\nmode = ["standard", "2v2"]\n')
    base = tmp_path / "b.json"
    res = regress(suite, "--baseline", base, "--report", tmp_path / "r0", "--update-baseline")
    assert res.exit_code == 0, res.output
    res = regress(suite, "--baseline", base, "--report", tmp_path / "r1")
    assert res.exit_code == 0, res.output
    r = json.loads((tmp_path / "r1" / "result.json").read_text())
    assert [c["status"] for c in r["cells"]] == ["same", "same"]
    assert {t["family"] for t in r["tests"]} == {"team_win_rate", "people_win_rate", "end_reasons", "draw_rate",
                                                 "game_length"}


@pytest.mark.parametrize("name", ["nightly", "tales-nightly"])
def test_shipped_nightly_suites_reproduce_their_baselines_exactly(name, tmp_path, ray_local):
    # the README's nightly command must pass on a fresh clone: a change in games or record layout
    # ships with its rewritten baseline (--update-baseline), as docs/regress.md asks
    examples = Path(__file__).resolve().parents[2] / "examples"
    res = regress(examples / f"{name}.toml", "--baseline", examples / f"{name}-baseline.json",
                  "--report", tmp_path / "report")
    r = json.loads((tmp_path / "report" / "result.json").read_text())
    assert res.exit_code == 0 and r["verdict"] == "pass", [c["detail"] for c in r["cells"]]
    assert {c["status"] for c in r["cells"]} == {"same"} and flagged(r) == set()
