"""``playtest report``: the page for a real sweep of each game and for a ``playtest run`` file, opened in a real
headless Chromium (Playwright driving the system's browser: no download); user text on the page stays
text; bad input is one line and exit code 2."""

from __future__ import annotations

import json
import os
from collections import Counter
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from typer.testing import CliRunner

from cli.main import app
from cli.report import parse_target
from queries import report as rep

runner = CliRunner()
SCRIPT = "<script>window.__pwned = 1</script>"
SECTIONS = ("summary", "wins", "length", "end-reasons", "standings", "metrics", "cards")


def write_results(out: Path, cells: dict[str, dict], seed: int, games: int, batch: int) -> Path:
    """Core games of each cell (resolve() keyword arguments) in the sweep layout, without a manifest."""
    from sim.games import get
    from sim.output import write_parquet
    for cell_id, kw in cells.items():
        m = get("paws").resolve(**kw)
        for b, lo in enumerate(range(0, games, batch)):
            t = m.play_batch(seed, lo, min(batch, games - lo))["games"]
            write_parquet([t], out / "games" / f"cell={cell_id}" / f"part-{b:05d}.parquet", m.schemas["games"])
    return out


def invoke(*args) -> tuple[int, str]:
    res = runner.invoke(app, [str(a) for a in args])
    return res.exit_code, res.output


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    if os.environ.get("CI"):
        pytest.fail("headless Chromium is needed for the report test: apt-get install -y chromium")
    pytest.skip("chromium is not installed (apt-get install -y chromium)")


def open_page(page: Path, shot: Path) -> dict:
    """The page in headless Chromium: console errors, sections, images (and how many decoded), the text, and
    whether any script planted by user text ran; a screenshot of its top is written to ``shot``."""
    browser = _chromium()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("playwright is needed for the report test: pip install -e '.[test]'")
        pytest.skip("playwright is not installed (pip install playwright)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=browser, args=["--no-sandbox", "--disable-gpu"])
        try:
            tab = b.new_page(viewport={"width": 1300, "height": 900})
            errors: list[str] = []
            tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            tab.on("pageerror", lambda e: errors.append(str(e)))
            tab.on("request", lambda r: errors.append(f"request {r.url}") if not r.url.startswith(("file:", "data:"))
                   else None)
            tab.goto(page.resolve().as_uri())
            tab.wait_for_load_state("load")
            found = tab.evaluate("""() => ({
                sections: Array.from(document.querySelectorAll('section')).map(s => s.id),
                images: document.images.length,
                decoded: Array.from(document.images).filter(i => i.complete && i.naturalWidth > 0).length,
                text: document.body.innerText,
                pwned: window.__pwned === 1,
                scripts: document.scripts.length,
                plots: document.body.dataset.plots, rendered: document.body.dataset.plotsRendered})""")
            # the page's top (the summary and the first plots): a full-page capture of a tall page can
            # exceed what headless Chromium captures in one go ("Unable to capture screenshot")
            tab.set_viewport_size({"width": 1300, "height": 2400})
            tab.screenshot(path=str(shot))
        finally:
            b.close()
    print(f"screenshot: {shot}")
    found["errors"] = errors
    return found


def check_page(found: dict, plots: int) -> None:
    assert not found["errors"], found["errors"]
    assert [s for s in SECTIONS if s in found["sections"]] == list(SECTIONS), found["sections"]
    assert found["images"] == plots and found["decoded"] == plots, found
    assert found["plots"] == str(plots) and found["rendered"] == str(plots)
    assert "Bots, not people" in found["text"] and not found["pwned"] and found["scripts"] == 1


# ---------------------------------------------------------------------------------------------------
# A playtest run file, and user text on the page
# ---------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def run_file(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("run") / "r.parquet"
    code, text = invoke("run", "paws", "--players", "3", "--games", "600", "--seed", "5", "--out", out)
    assert code == 0, text
    flat = " ".join(text.split())
    assert "600 games of Paws in Peril in 1 cell" in flat and "the first player wins" in flat and "ends: vp" in flat
    assert f"the page: playtest report {out}" in flat
    return out


@pytest.mark.browser
def test_the_report_of_a_run_file_in_a_browser(run_file, tmp_path):
    page = tmp_path / "r.html"
    code, text = invoke("report", run_file, "--out", page, "--target", "4-10")
    assert code == 0, text
    html = page.read_text()
    assert "src='http" not in html and "href='http" not in html and "<link" not in html   # one self-contained file
    found = open_page(page, tmp_path / "run.png")
    check_page(found, plots=4)
    assert "Nothing varied: one cell." in found["text"] and "4-10 rounds" in found["text"]
    assert "these results have no cards table" in found["text"]       # Paws keeps one when asked
    games = pq.read_table(run_file, columns=["turns", "idle_turns"])    # Paws counts idle turns (§3)
    share = pc.sum(games["idle_turns"]).as_py() / pc.sum(games["turns"]).as_py()
    assert f"{100 * share:.1f}% of turns end with no action taken (95%: " in found["text"]
    assert "the record lacks it" not in found["text"]


@pytest.mark.browser
def test_user_text_in_cells_shows_as_text(tmp_path):
    """Two cells told apart only by their card data's name, one of them a script tag: it is a cell's label,
    shown as text in the summary, the tables and the plots' titles, never run."""
    root = write_results(tmp_path / "sweep", {"c000": dict(rules="v4", setup={"players": 2}),
                                              "c001": dict(rules="v4", setup={"players": 2})},
                         seed=3, games=200, batch=200)
    bad = root / "games" / "cell=c001" / "part-00000.parquet"
    t = pq.read_table(bad)
    t = t.set_column(t.schema.get_field_index("data_name"), "data_name", pa.array([SCRIPT] * t.num_rows))
    pq.write_table(t, bad)
    (root / "manifest.json").write_text(json.dumps({"format": 1, "name": f"x{SCRIPT}", "state": "done",
                                                    "tables": ["games"], "cells": [
        {"id": c, "parts": [{"batch": 0, "state": "done"}]} for c in ("c000", "c001")]}))
    code, text = invoke("report", root)
    assert code == 0, text
    html = (root / "report.html").read_text()
    assert SCRIPT not in html and "&lt;script&gt;window.__pwned = 1&lt;/script&gt;" in html
    found = open_page(root / "report.html", tmp_path / "script.png")
    check_page(found, plots=4)
    assert f"data_name={SCRIPT}" in found["text"] and "What varied: data_name" in found["text"]
    assert f"playtest report: x{SCRIPT}" in found["text"]


def test_a_tales_run_with_its_cards_file(tmp_path):
    games, cards = tmp_path / "t.parquet", tmp_path / "t-cards.parquet"
    code, text = invoke("run", "tales", "--games", "400", "--seed", "2", "--out", games, "--cards-out", cards)
    assert code == 0, text
    assert f"the page: playtest report {games} --cards {cards}" in " ".join(text.split())
    code, text = invoke("report", games, "--cards", cards)
    assert code == 0, text
    html = (tmp_path / "t.parquet.report.html").read_text()
    names = {r["card"] for r in pq.read_table(cards).to_pylist()}
    assert "seat-games present" in html and sum(f"<td>{n}</td>" in html for n in names) >= min(10, len(names))
    code, text = invoke("report", games)          # without the file: says where card statistics come from
    assert code == 0 and "--cards FILE reads it" in (tmp_path / "t.parquet.report.html").read_text()
    other = tmp_path / "o.parquet"
    assert invoke("run", "tales", "--games", "50", "--seed", "9", "--out", other, "--cards-out", tmp_path / "o-c.parquet")[0] == 0
    one_line_error([games, "--cards", tmp_path / "o-c.parquet"], "rows belong to games that are not in")
    one_line_error([games, "--cards", games], "not a per-card table (no card, won column)")


# ---------------------------------------------------------------------------------------------------
# Bad input: one line, exit code 2, never a traceback
# ---------------------------------------------------------------------------------------------------

def one_line_error(args, *wanted: str) -> None:
    code, text = invoke("report", *args)
    assert code == 2, text
    lines = [line for line in text.splitlines() if line.strip()]
    assert "Traceback" not in text and len(" ".join(lines)) > 0
    flat = " ".join(text.split())
    assert flat.startswith("error:") and all(w in flat for w in wanted), text


def test_bad_input_is_one_line_and_exit_2(tmp_path, run_file):
    empty = tmp_path / "empty"
    empty.mkdir()
    one_line_error([empty], "no manifest.json here", "not a sweep's results folder")
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.txt").write_text("hello")
    one_line_error([tmp_path / "notes"], "not a sweep's results folder")
    one_line_error([tmp_path / "missing"], "no such results folder or Parquet file")
    (tmp_path / "x.parquet").write_text("not parquet")
    one_line_error([tmp_path / "x.parquet"], "not a Parquet file")
    one_line_error([run_file, "--target", "9-3"], "--target", "SHORTEST <= LONGEST")
    one_line_error([run_file, "--target", "ten"], "--target")
    one_line_error([run_file, "--behind-after", "0"], "--behind-after")
    one_line_error([run_file, "--out", tmp_path], "--out")
    one_line_error([str(tmp_path / "*.parquet")], "not a pattern")


@settings(max_examples=examples(200), deadline=None)
@given(st.text(max_size=20) | st.from_regex(r"\s*\d{1,7}-\d{1,7}\s*", fullmatch=True))
def test_any_target_text_is_a_window_or_one_line_naming_the_flag(text):
    try:
        shortest, longest = parse_target(text)
    except ValueError as e:
        assert str(e).startswith("--target ") and "\n" not in str(e) and "SHORTEST <= LONGEST" in str(e)
    else:
        a, b = text.strip().split("-")
        assert 1 <= shortest <= longest and (shortest, longest) == (int(a), int(b))


def test_a_sweep_with_a_missing_manifest_or_a_corrupt_part(tmp_path):
    root = write_results(tmp_path / "sweep", {"c000": dict(rules="v4", setup={"players": 2})}, seed=3, games=100,
                         batch=50)
    one_line_error([root], "no manifest.json here", "the manifest is missing", "--resume")
    part = root / "games" / "cell=c000" / "part-00001.parquet"
    manifest = {"format": 1, "name": "t", "state": "done", "spec_file": "t.toml", "tables": ["games"],
                "cells": [{"id": "c000", "parts": [
                    {"batch": b, "state": "done", "files": {"games": {"bytes": (
                        root / "games" / "cell=c000" / f"part-{b:05d}.parquet").stat().st_size}}} for b in (0, 1)]}]}
    (root / "manifest.json").write_text(json.dumps(manifest))
    data = bytearray(part.read_bytes())                      # the same size, its middle overwritten
    data[len(data) // 3: len(data) // 3 + 200] = b"\xff" * 200
    part.write_bytes(bytes(data))
    one_line_error([root], "part-00001.parquet", "playtest status --verify")
    part.write_bytes(bytes(data[:100]))                      # cut short: the manifest's size no longer fits
    one_line_error([root], "1 corrupt or missing part(s)", "games/cell=c000/part-00001.parquet")
    (root / "manifest.json").write_text("{not json")
    one_line_error([root], "unreadable sweep manifest")


# ---------------------------------------------------------------------------------------------------
# A real sweep of each game (Ray), its summary, and the page in a browser
# ---------------------------------------------------------------------------------------------------

PAWS_SPEC = """name = "report-paws"
game = "paws"
rules = "v4"
seed = 4
games_per_cell = 300
batch_size = 150
[setup]
board = "beginner"
bots = "heuristic"
[grid]
players = [2, 4]
"""
TALES_SPEC = """name = "report-tales"
game = "tales"
seed = 4
games_per_cell = 300
batch_size = 300
tables = ["games", "cards"]
cells = [
    { rules = "standard", mode = "standard", people = "animalis", bots = "heuristic" },
    { rules = "2v2", mode = "2v2", people = "animalis", bots = "random" },
]
"""


def sweep(tmp_path: Path, spec: str) -> Path:
    f = tmp_path / "spec.toml"
    f.write_text(spec)
    out = tmp_path / "out"
    code, text = invoke("sweep", f, "--out", out, "--no-progress")
    assert code == 0, text
    flat = " ".join(text.split())
    assert "600 games of" in flat and "in 2 cell(s)" in flat and "the first player" in flat and "ends:" in flat
    assert f"the page: playtest report {out}" in flat
    return out


@pytest.mark.browser
@pytest.mark.slow
def test_the_report_of_a_paws_sweep_in_a_browser(ray_local, tmp_path):
    out = sweep(tmp_path, PAWS_SPEC)
    code, text = invoke("report", out)
    assert code == 0, text
    assert "page:" in text and "report.html" in text
    found = open_page(out / "report.html", tmp_path / "paws.png")
    check_page(found, plots=4)                 # wins, length, end reasons, standings per round
    t = found["text"]
    assert "What varied: players (2 cells" in t and "players=2" in t and "players=4" in t
    assert "heuristic in every seat" in t and "lead changes a game" in t
    assert "these results have no cards table" in t
    # never pooled: each cell's numbers are its own games', counted here from its Parquet parts
    report = rep.read(str(out))
    assert len(report.cells) == 2 and report.varying == ["players"]
    for cell in report.cells:
        games = pq.read_table(out / "games" / f"cell={cell.id}").to_pylist()
        seats = games[0]["players"]
        assert cell.label == f"players={seats}" and cell.games == len(games) == 300
        assert cell.first_wins == sum(g["winner_seat"] == g["first_seat"] for g in games)
        assert cell.side_wins == [sum(g["winner_seat"] == s for g in games) for s in range(seats)]
        assert cell.no_winner == sum(g["winner_seat"] == -1 for g in games)
        assert cell.lengths == Counter(g["rounds"] for g in games)
        assert dict(cell.ends) == Counter(g["end_reason"] for g in games)
        first = cell.metrics["first_player_advantage"][0]
        assert first["games"] == 300 and first["first_wins"] == cell.first_wins


@pytest.mark.browser
@pytest.mark.slow
def test_the_report_of_a_tales_sweep_with_its_cards_in_a_browser(ray_local, tmp_path):
    out = sweep(tmp_path, TALES_SPEC)
    code, text = invoke("report", out, "--out", tmp_path / "t.html")
    assert code == 0, text
    found = open_page(tmp_path / "t.html", tmp_path / "tales.png")
    check_page(found, plots=3)                 # no standings trace in a Tales record: no standings plot
    t = found["text"]
    assert "keep no per-round standings trace" in t and "seat-games present" in t
    assert "random in every seat" in t and "heuristic in every seat" in t and "ruleset=2v2" in t
    assert "(300 games; random in every seat)" in t           # each cell's bots beside its numbers


def test_the_closing_summary_skips_results_too_large_to_hold(run_file, monkeypatch):
    """Above BRIEF_MAX_GAMES the closing summary of run/sweep reads nothing and says how to ask instead;
    at the limit it answers (the count comes from the Parquet footer, not the records)."""
    from cli.report import summary_lines
    from queries import report as rep
    monkeypatch.setattr(rep, "BRIEF_MAX_GAMES", 599)
    lines = summary_lines(str(run_file))
    assert lines == [f"summary: not available (600 games, more than the 599 a closing summary reads into memory; "
                     f"ask a question instead: playtest query first_player_advantage --results {run_file})"]
    monkeypatch.setattr(rep, "BRIEF_MAX_GAMES", 600)
    assert summary_lines(str(run_file))[0].startswith("600 games of Paws in Peril in 1 cell(s)")


LIMIT_SPEC = """name = "report-limit"
game = "paws"
rules = "v4"
seed = 4
games_per_cell = 1000
[setup]
players = 4
[grid]
round_limit = [0, 6, 12]
"""


@pytest.mark.browser
def test_the_page_leads_with_the_answer_against_the_varied_rule_in_a_browser(tmp_path):
    """A sweep over a rule parameter: the page draws the answer against it (the first player's share of decided
    games and how games end, per round limit, with intervals) right after the summary; shares are of the decided
    games, and small end-reason shares are on a log scale with their numbers."""
    (tmp_path / "spec.toml").write_text(LIMIT_SPEC)
    out = tmp_path / "out"
    code, text = invoke("sweep", tmp_path / "spec.toml", "--out", out, "--no-progress")
    assert code == 0 and "of the decided games the first player wins" in " ".join(text.split()), text
    code, text = invoke("report", out)
    assert code == 0, text
    found = open_page(out / "report.html", tmp_path / "limit.png")
    check_page(found, plots=5)                 # the answer, wins, length, end reasons, standings per round
    assert found["sections"][:2] == ["summary", "answer"], found["sections"]
    t = found["text"]
    assert "The answer against round_limit" in t and "Of the games somebody won" in t
    report = rep.read(str(out))
    assert rep.answer_axis(report) == "round_limit"
    html = (out / "report.html").read_text()
    assert "share of games (log scale)" not in html          # the plot's words are inside its PNG, not the page
    for cell in report.cells:                                   # the headline is the share of decided games
        first = cell.metrics["first_player_advantage"][0]
        assert first["decided"] == cell.games - cell.no_winner
        assert abs(first["first_share"] - cell.first_wins / first["decided"]) < 1e-12


@pytest.mark.browser
def test_a_ladders_page_leads_with_its_ratings_fit_and_head_to_head_in_a_browser(tmp_path):
    """Once a ladder's page showed its line-up panels and no rating: now its ratings (worked out from the games,
    not read from ladder.json), the Bradley-Terry fit and the win matrix come right after the summary."""
    out = tmp_path / "ladder"
    code, text = invoke("ladder", "paws", "--bots", "random,heuristic", "--games", "100", "--out", out)
    assert code == 0, text
    (out / "ladder.json").write_text('{"ratings": "<script>window.__pwned = 1</script>"}')     # never read
    code, text = invoke("report", out)
    assert code == 0, text
    found = open_page(out / "report.html", tmp_path / "ladder.png")
    assert not found["errors"] and not found["pwned"]
    assert found["sections"][:2] == ["summary", "ladder"], found["sections"]
    t = found["text"]
    assert "heuristic is rated" in t and "Elo above random" in t and "it would win" in t
    assert "Head to head" in t and ("Bradley-Terry fit" in t or "head-to-head results themselves" in t)
    # two bots make no cycle; the heuristic beats random, so the equilibrium is the heuristic alone
    assert "Which bots matter" in t and "no cycle" in t and "heuristic 1.00" in t and "random gets no weight" in t


def test_a_tunes_page_leads_with_the_best_candidate_and_the_ones_tied_with_it(tmp_path):
    """A tune's answer (tune.json, read bounded and shape-checked, every text escaped): the best candidate, the
    candidates that cannot be told apart from it marked when their constraints are not yet shown to hold, and
    the reasons the others were dropped; a malformed answer is one note, never a traceback."""
    out = write_results(tmp_path / "tune", {"c000": dict(rules="v4", setup={"players": 4})}, seed=2, games=200,
                        batch=200)
    (out / "manifest.json").write_text(json.dumps({"format": 1, "name": "t", "state": "done", "tables": ["games"],
                                                   "cells": [{"id": "c000", "parts": [{"state": "done"}]}]}))
    hold = {"hold": "players=4", "estimate": 0.012, "interval": [0.008, 0.016]}
    entry = {"label": "round_limit=20", "reason": "", "certified": True, "objective": {"per_hold": [hold]}}
    tied = {**entry, "label": "round_limit=<b>25</b>", "certified": False}
    dropped = {**entry, "label": "round_limit=10", "reason": "worse than the best (p 0.001)"}
    (out / "tune.json").write_text(json.dumps({"best": entry, "objective": {"metric": "stall share"},
                                               "indistinguishable": [entry, tied], "games": 12345,
                                               "candidates": [entry, tied, dropped, {"label": 5}, "junk"]}))
    report = rep.read(str(out))
    html = rep.page(report)
    assert "Best candidate: round_limit=20" in html and "1.2% (0.8% to 1.6%)" in html
    assert "round_limit=&lt;b&gt;25&lt;/b&gt;" in html and "NOT yet shown to hold (more games needed)" in html
    assert "worse than the best (p 0.001)" in html and "12,345 games in the race" in html
    (out / "tune.json").write_text("[" * 5000)
    assert "unreadable tune answer (lists and objects nest more than 32 deep" in rep.page(rep.read(str(out)))


STOP_SPEC = """name = "report-stop"
game = "paws"
rules = "v4"
seed = 1
batch_size = 500
[setup]
players = 4
[grid]
round_limit = [0, 8]
[stop]
metric = "end_share:round_limit"
half_width = 0.04
max_games_per_cell = 20000
"""


def test_a_stop_sweeps_page_says_each_cell_stopped_with_its_confidence_sequence(tmp_path):
    """A [stop] sweep's page once showed only fixed-size (Wilson) intervals, invalid after stopping on the metric,
    and never said the cells stopped when precise: now each cell's stopping line, with the confidence sequence the
    sweep stopped on, leads its summary, the same words as the sweep's last lines and playtest status."""
    (tmp_path / "spec.toml").write_text(STOP_SPEC)
    out = tmp_path / "out"
    code, text = invoke("sweep", tmp_path / "spec.toml", "--out", out, "--no-progress")
    assert code == 0, text
    manifest = json.loads((out / "manifest.json").read_text())
    report = rep.read(str(out))
    html = rep.page(report)
    assert "played until its answer was precise enough" in html
    for cell, entry in zip(report.cells, manifest["cells"]):
        assert cell.stop == entry["stop"]
        line = rep.stop_line(entry["stop"])
        assert "confidence sequence" in line and "stopped: interval narrow enough" in line
        assert f"Stopped: {line}." in html
        assert line in " ".join(text.split()) or line.replace(" ", "") in text.replace(" ", "").replace("\n", "")
    assert rep.answer_axis(report) == "round_limit"
