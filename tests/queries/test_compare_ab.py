"""playtest compare: A vs B per matched cell, paired on common random numbers, with adjusted p-values."""

import json
import os
import re

import numpy as np
import pytest
from typer.testing import CliRunner

from conftest import write_results
from queries import compare
from cli.main import app
from sim.games import get
from sim.output import write_parquet
from infra import stats

runner = CliRunner()
BEGINNER_3 = {"board": "beginner", "players": 3}


def _one_line_error(result, *words):
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), result.output
    for w in words:
        assert w in lines[0], result.output


@pytest.fixture(scope="module")
def desert(tmp_path_factory):
    """The same seed with desert_heal 2 (A) and 0 (B), Beginner 3 players, 4,000 games each."""
    root = tmp_path_factory.mktemp("desert")
    for side, heal in (("A", 2), ("B", 0)):
        write_results(root / side, {"c000": dict(rules="v4", overrides={"desert_heal": heal}, setup=BEGINNER_3)},
                      seed=5, games=4000, batch=2000)
    return root


@pytest.fixture(scope="module")
def hp_sweep(tmp_path_factory):
    """One sweep, a grid over mansion_monster_hp_bonus = [1, 2] (both cells on the spec seed)."""
    cells = {f"c00{i}": dict(rules="v4", overrides={"mansion_monster_hp_bonus": v}, setup=BEGINNER_3)
             for i, v in enumerate((1, 2))}
    return write_results(tmp_path_factory.mktemp("hp"), cells, seed=3, games=2000, batch=1000)


def _row(report, metric):
    return next(r for r in report.rows if r.metric == metric)


def test_desert_heal_flags_the_metrics_that_move_with_the_right_sign(desert):
    report = compare.compare_folders(str(desert / "A"), str(desert / "B"))
    assert "desert_heal 2 -> 0" in " ".join(report.header)
    assert all(r.paired and r.n_pairs == 4000 for r in report.rows)
    # without the desert's heal, fewer players are knocked out for good: games stall and run long
    expected = {"stall share": +1, "game length (mean)": +1, "knockouts per game": -1, "ends by vp": -1,
                "ends by last_alive": -1, "first player's win share": -1, "games decided": -1}
    for metric, sign in expected.items():
        r = _row(report, metric)
        assert r.differs and np.sign(r.diff) == sign and r.low <= r.diff <= r.high, (metric, r)
        assert r.verdict.startswith("B (B) raises" if sign > 0 else "B (B) lowers")
        assert r.verdict.endswith(" against A (A)")
    # fewer games decided is not a smaller edge: the share of all games says "undecided included", and the edge
    # is measured among the games somebody won, its own row
    assert _row(report, "first player's win share").verdict.startswith(
        "B (B) lowers the first player's share of all games (undecided included) by ")
    edge = _row(report, "first player's share of decided games")
    assert "the first player's edge among decided games" in edge.verdict and edge.low <= edge.diff <= edge.high
    won = [_row(report, f"Player {s}'s share of decided games") for s in (1, 2, 3)]          # 3 players
    assert abs(sum(r.a for r in won) - 1) < 1e-9 and abs(sum(r.b for r in won) - 1) < 1e-9
    draw = _row(report, "draw share")                       # no round limit: never a draw on either side
    assert not draw.differs and draw.verdict.startswith("no real difference")


@pytest.mark.slow
def test_false_alarms_across_20_seed_pairs_stay_within_the_adjusted_level(tmp_path):
    """Same rules, different seeds: Holm holds the chance of any flag per pair at 5%, so about 1 of 20
    pairs (4 or more of 20 would happen by chance with probability 1.6%)."""
    cell = {"c000": dict(rules="v4", setup=BEGINNER_3)}
    flagged, tested = 0, 0
    for pair in range(20):
        a = write_results(tmp_path / f"a{pair}", cell, seed=1000 + 2 * pair, games=1500, batch=1500)
        b = write_results(tmp_path / f"b{pair}", cell, seed=1001 + 2 * pair, games=1500, batch=1500)
        report = compare.compare_folders(str(a), str(b))
        assert not any(r.paired for r in report.rows)          # different seeds: nothing to pair
        tested += len(report.rows)
        flagged += any(r.differs for r in report.rows)
    print(f"seed pairs with any flagged metric: {flagged} of 20 ({tested} metrics tested)")
    assert flagged <= 3


def test_paired_and_unpaired_intervals_cover_the_true_difference():
    """Known truth: Bernoulli pairs, P(A) = 0.35, P(B) = 0.30, B copying A's draw 70% of the time.
    Paired (on the correlated pairs) and unpaired (Newcombe on independent samples, as two seeds give)
    both cover the true -0.05 about 95% of the time; the paired interval is the narrower."""
    rng = np.random.default_rng(20240601)
    reps, n, pa, pb, share = 1000, 400, 0.35, 0.30, 0.7
    truth = pb - pa
    cover_p = cover_u = cover_u_on_pairs = 0
    width_p, width_u = [], []
    for _ in range(reps):
        u = rng.random(n)
        v = np.where(rng.random(n) < share, u, rng.random(n))     # the same dice most of the time
        a, b = (u < pa).astype(float), (v < pb).astype(float)
        _, lo, hi, _ = stats.paired_difference(b - a)
        cover_p += lo <= truth <= hi
        width_p.append(hi - lo)
        ka, kb = int((rng.random(n) < pa).sum()), int((rng.random(n) < pb).sum())   # independent samples
        _, lo, hi = stats.newcombe(ka, n, kb, n)
        cover_u += lo <= truth <= hi
        width_u.append(hi - lo)
        _, lo, hi = stats.newcombe(int(a.sum()), n, int(b.sum()), n)
        cover_u_on_pairs += lo <= truth <= hi
    print(f"coverage: paired {cover_p / reps:.3f}, unpaired {cover_u / reps:.3f}, unpaired on the pairs "
          f"{cover_u_on_pairs / reps:.3f}; mean width paired {np.mean(width_p):.4f}, unpaired {np.mean(width_u):.4f}")
    assert 0.93 <= cover_p / reps <= 0.97
    assert 0.93 <= cover_u / reps <= 0.97
    assert np.mean(width_p) < 0.8 * np.mean(width_u)
    assert cover_u_on_pairs / reps >= 0.97        # valid on matched games too, but conservative: use the paired


def test_mean_and_median_differences():
    d, lo, hi, p = stats.mean_difference(10.0, 4.0, 100, 11.0, 9.0, 100)
    assert d == 1.0 and hi - d == pytest.approx(1.959964 * np.sqrt(0.13), rel=1e-5) and p < 0.01
    d, lo, hi, p = stats.median_difference({5: 50, 6: 50, 7: 1}, {5: 50, 6: 50, 7: 1})
    assert d == 0 and p == 1.0 and lo <= 0 <= hi
    d, lo, hi, p = stats.paired_median_difference({(5, 7): 500, (6, 8): 500})
    assert (d, lo, hi) == (2, 2, 2) and p == 0.0


def test_by_splits_one_sweep_each_value_against_the_first(hp_sweep):
    res = runner.invoke(app, ["compare", str(hp_sweep), "--by", "mansion_monster_hp_bonus", "--format", "json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["title"] == "A vs B" and out["a"] == "mansion_monster_hp_bonus=1"
    assert {r["comparison"] for r in out["rows"]} == {"mansion_monster_hp_bonus 1 vs 2"}
    assert all(r["paired"] and r["n_pairs"] == 2000 for r in out["rows"]) and not out["unmatched"]
    assert any("mansion_monster_hp_bonus 1 -> 2" in h for h in out["notes"])
    assert any("bot games, not people: heuristic in every seat" in h for h in out["notes"])
    first = next(r for r in out["rows"] if r["metric"] == "first player's win share")
    res = runner.invoke(app, ["compare", str(hp_sweep), "--by", "mansion_monster_hp_bonus", "--baseline", "2",
                              "--format", "json"])
    flipped = next(r for r in json.loads(res.output)["rows"] if r["metric"] == "first player's win share")
    assert flipped["diff"] == pytest.approx(-first["diff"]) and flipped["p_adj"] == pytest.approx(first["p_adj"])
    for fmt in ("table", "markdown", "csv"):
        res = runner.invoke(app, ["compare", str(hp_sweep), "--by", "mansion_monster_hp_bonus", "--format", fmt])
        assert res.exit_code == 0 and "first player's win share" in res.output, res.output


def test_unmatched_cells_are_listed_never_pooled(tmp_path):
    write_results(tmp_path / "A", {"c000": dict(rules="v4", setup=BEGINNER_3),
                                   "c001": dict(rules="v4", setup={"board": "beginner", "players": 2})},
                  seed=1, games=300, batch=300)
    write_results(tmp_path / "B", {"c000": dict(rules="v4", setup=BEGINNER_3)}, seed=1, games=300, batch=300)
    report = compare.compare_folders(str(tmp_path / "A"), str(tmp_path / "B"))
    assert report.unmatched == ["cell players=2 only in A (300 games)"]
    assert {r.cell for r in report.rows} == {"players=3"} and all(r.n_a == 300 for r in report.rows)
    assert all(not r.differs for r in report.rows)          # the same games on both sides


def test_bad_input_is_one_line_and_exit_2(hp_sweep, desert, tmp_path):
    m = get("tales").resolve()
    write_parquet([m.play_batch(1, 0, 50)["games"]], tmp_path / "tales" / "games" / "cell=c000" / "part-00000.parquet",
                  m.schemas["games"])
    cases = [
        (["compare", str(tmp_path / "missing"), str(desert / "B")], ["missing", "no such results"]),
        (["compare", str(hp_sweep), "--by", "mansion_hp"], ["--by 'mansion_hp'", "mansion_monster_hp_bonus"]),
        (["compare", str(hp_sweep), "--by", "mansion_monster_hp_bonus", "--baseline", "7"],
         ["--baseline '7'", "its values: 1, 2"]),
        (["compare", str(desert / "A"), str(tmp_path / "tales")], ["mismatched games", "paws", "tales"]),
        (["compare", str(hp_sweep), "--by", "desert_heal"], ["nothing to compare"]),
        (["compare", str(desert / "A")], ["give two results"]),
        (["compare", str(desert / "A"), str(desert / "B"), "--by", "players"], ["one results folder"]),
        (["compare", str(desert / "A"), str(desert / "B"), "--where", "1; DROP TABLE games"], ["--where"]),
        (["compare", str(desert / "A"), str(desert / "B"), "--where", "players = 4"], ["no games"]),
        (["compare", str(desert / "A"), str(desert / "B"), "--format", "xml"], ["--format"]),
    ]
    for args, words in cases:
        _one_line_error(runner.invoke(app, args), *words)


def test_html_is_a_self_contained_page_titled_a_vs_b(desert, tmp_path):
    res = runner.invoke(app, ["compare", str(desert / "A"), str(desert / "B"), "--html", str(tmp_path / "page")])
    assert res.exit_code == 0, res.output
    page = (tmp_path / "page" / "compare.html").read_text()
    assert "<title>A vs B</title>" in page and "<h1>A vs B</h1>" in page
    assert "B (B) lowers knockouts per game by" in page
    sources = re.findall(r"src=['\"]([^'\"]{0,22})", page)
    assert sources == ["data:image/png;base64,"]            # one plot per matched cell, inline
    text = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "", page)
    assert "regression" not in text.lower() and not re.search(r"https?:", text)


@pytest.mark.browser
def test_html_renders_in_headless_chromium(desert, tmp_path):
    """The page as a designer opens it: Chromium (the system's, headless) draws every plot, no console errors."""
    import shutil
    import subprocess
    browser = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)),
                   None)
    if browser is None:
        if os.environ.get("CI"):
            pytest.fail("headless Chromium is needed for the compare page test: apt-get install -y chromium")
        pytest.skip("chromium is not installed (apt-get install -y chromium)")
    res = runner.invoke(app, ["compare", str(desert / "A"), str(desert / "B"), "--html", str(tmp_path / "page")])
    assert res.exit_code == 0, res.output
    page = tmp_path / "page" / "compare.html"
    run = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=5000",
                          "--enable-logging=stderr", "--v=0", "--dump-dom", page.as_uri()],
                         capture_output=True, text=True, timeout=120)
    dom = run.stdout
    body = re.search(r"<body[^>]*>", dom).group(0)
    plots = re.search(r'data-plots="(\d+)"', body)
    assert plots and int(plots.group(1)) >= 1 and f'data-plots-rendered="{plots.group(1)}"' in body, body
    assert "<h1>A vs B</h1>" in dom and ":CONSOLE" not in run.stderr      # Chromium logs console.* as INFO:CONSOLE
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1280,1600",
                    f"--screenshot={tmp_path / 'compare.png'}", page.as_uri()], capture_output=True, timeout=120)
    assert (tmp_path / "compare.png").stat().st_size > 10_000      # a screenshot for the test log


def test_results_written_before_an_engine_option_compare_and_read_with_newer_ones(tmp_path):
    """B holds the same games as A written before the dice_stream engine option existed (no column): the
    cells match, the games are the same, and read together they are one variant, not "classic" and NULL."""
    import pyarrow.parquet as pq

    from queries.connection import connect
    write_results(tmp_path / "A", {"c000": dict(rules="v4", setup=BEGINNER_3)}, seed=1, games=300, batch=150)
    write_results(tmp_path / "B", {"c000": dict(rules="v4", setup=BEGINNER_3)}, seed=1, games=300, batch=150)
    for part in (tmp_path / "B").rglob("*.parquet"):
        pq.write_table(pq.read_table(part).drop_columns(["dice_stream"]), part)
    report = compare.compare_folders(str(tmp_path / "A"), str(tmp_path / "B"))
    assert not report.unmatched and report.rows
    assert all(r.n_a == r.n_b == 300 and not r.differs for r in report.rows)
    con = connect([tmp_path / "A", tmp_path / "B"])
    assert con.sql("SELECT dice_stream, count(*) FROM games GROUP BY ALL").fetchall() == [("classic", 600)]
    con.close()
