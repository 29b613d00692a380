"""The replay page (infra/replay_page.py + each game's replay.js) in a real headless Chromium, and
``playtest play --html`` / ``--from DIR --cell --game-index`` with their refusals."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app
from infra.replay_page import json_for_script
from sim import games as registry
from sim.events import EventLog, replay_states

runner = CliRunner()
HOSTILE = "</script><script>document.title='pwned'</script><!--"
ROOT = Path(__file__).resolve().parent.parent


def chromium() -> str:
    """The system's Chromium: fail in CI without one, skip elsewhere (as tests/regress/test_regress.py)."""
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        path = None
    if path:
        return path
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail("headless Chromium and playwright are needed: apt-get install -y chromium; pip install playwright")
    pytest.skip("chromium or playwright is not installed")


def embedded(page: str) -> dict:
    m = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', page, re.S)
    assert m, "no data block"
    return json.loads(m.group(1))


def test_json_for_a_script_block_has_no_markup_characters():
    text = json_for_script({"name": HOSTILE + "&<>\u2028"})
    assert not set("<>&") & set(text) and "\u2028" not in text
    assert json.loads(text) == {"name": HOSTILE + "&<>\u2028"}


def test_a_card_name_cannot_break_out_of_the_page(tmp_path):
    monsters = tmp_path / "monsters.toml"
    text = (ROOT / "sim/paws/data/monsters.toml").read_text()
    names = re.findall(r'^name = "(.*)"$', text, re.M)
    for k, name in enumerate(names):           # every monster carries the hostile name, so every game shows one
        text = text.replace(f'name = "{name}"', f'name = "{HOSTILE}{k}"', 1)
    monsters.write_text(text)
    page = tmp_path / "page.html"
    res = runner.invoke(app, ["play", "paws", "--seed", "2", "--engine", "reference", "--data", f"monsters={monsters}",
                              "--html", str(page)])
    assert res.exit_code == 0, res.output
    html = page.read_text()
    assert HOSTILE in res.output                           # the log shows the name as written
    assert html.count("</script>") == 3                    # the data block, the game's script, the stepper
    data = embedded(html)
    assert any(HOSTILE in e["text"] for e in data["events"])
    assert "<script" not in html.split('id="replay-data">')[1].split("</script>")[0]


def open_page(browser_path: str, page_path: Path):
    from playwright.sync_api import sync_playwright
    pw = sync_playwright().start()
    browser = pw.chromium.launch(executable_path=browser_path, args=["--no-sandbox"])
    page = browser.new_page(viewport={"width": 1400, "height": 820})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: None if r.url.startswith(("file:", "data:")) else errors.append(f"network: {r.url}"))
    page.goto(page_path.as_uri())
    page.wait_for_function("window.playtestReplay !== undefined")
    return pw, browser, page, errors


def shown(page) -> int:
    return int(page.evaluate("document.body.dataset.seq"))


@pytest.mark.browser
def test_paws_page_steps_through_a_claim_in_chromium(tmp_path):
    browser_path = chromium()
    out = tmp_path / "paws.html"
    res = runner.invoke(app, ["play", "paws", "--seed", "7", "--game-index", "3", "--html", str(out)])
    assert res.exit_code == 0, res.output
    events = embedded(out.read_text())["events"]
    claim = next(e for e in events if e["kind"] == "claim")
    seat = int(claim["actor"].split()[1]) - 1
    cell = next(c for c, o in enumerate(claim["change"]["owner"]) if o == seat)
    pw, browser, page, errors = open_page(browser_path, out)
    try:
        tile = f'#board .tile[data-cell="{cell}"]'
        page.evaluate(f"window.playtestReplay.go({claim['seq'] - 1})")
        assert page.get_attribute(tile, "data-owner") == "-1"
        page.keyboard.press("ArrowRight")                                # keyboard: one event on
        assert shown(page) == claim["seq"]
        assert page.get_attribute(tile, "data-owner") == str(seat)
        assert page.text_content(f"{tile} .owner") == f"P{seat + 1}"
        assert page.inner_text("#now-text") == claim["text"]
        vp = replay_states(events)[claim["seq"]]["vp"][seat]
        assert page.get_attribute(f'#board .player[data-seat="{seat}"]', "data-vp") == str(vp)
        page.keyboard.press("ArrowLeft")                                 # back undoes it
        assert shown(page) == claim["seq"] - 1 and page.get_attribute(tile, "data-owner") == "-1"
        page.click("#next")                                              # the button does what the key does
        assert page.get_attribute(tile, "data-owner") == str(seat)
        page.keyboard.press("ArrowDown")                                 # a turn on: the next turn's first event
        assert events[shown(page)]["kind"] in ("turn", "round")
        page.keyboard.press("PageDown")
        assert events[shown(page)]["kind"] == "round"
        page.keyboard.press("End")
        assert shown(page) == len(events) - 1
        page.fill("#slider", "0")
        assert shown(page) == 0
        shot = tmp_path / "paws-replay.png"
        page.keyboard.press("PageDown")
        page.screenshot(path=str(shot))
        print(f"screenshot: {shot}")
        assert shot.stat().st_size > 10_000
        assert errors == []
    finally:
        browser.close()
        pw.stop()


@pytest.mark.browser
def test_tales_page_shows_a_creature_leave_for_the_graveyard_in_chromium(tmp_path):
    browser_path = chromium()
    out = tmp_path / "tales.html"
    res = runner.invoke(app, ["play", "tales", "--seed", "3", "--html", str(out)])
    assert res.exit_code == 0, res.output
    events = embedded(out.read_text())["events"]
    gone = next(e for e in events if e["kind"] == "graveyard")
    seat = int(gone["actor"].split()[1]) - 1
    before = replay_states(events)[gone["seq"] - 1]["lines"][seat]
    slot = next(k for k, c in enumerate(gone["change"]["lines"][seat]) if c is None and before[k] is not None)
    pw, browser, page, errors = open_page(browser_path, out)
    try:
        sel = f'#board .slot[data-seat="{seat}"][data-slot="{slot}"]'
        page.evaluate(f"window.playtestReplay.go({gone['seq'] - 1})")
        assert page.get_attribute(sel, "data-card") == before[slot]["card"]
        page.keyboard.press("ArrowRight")
        assert page.get_attribute(sel, "data-card") == ""
        assert before[slot]["card"] in page.text_content(f'#board .line[data-seat="{seat}"] .graveyard')
        page.keyboard.press("ArrowLeft")
        assert page.get_attribute(sel, "data-card") == before[slot]["card"]
        shot = tmp_path / "tales-replay.png"
        page.screenshot(path=str(shot))
        print(f"screenshot: {shot}")
        assert errors == []
    finally:
        browser.close()
        pw.stop()


@pytest.mark.browser
@pytest.mark.parametrize("mode, seed", [("2v2", 5), ("survive-2v2", 2), ("standard", 3)])
def test_tales_lines_never_overlap_and_no_text_runs_off_the_board_in_chromium(tmp_path, mode, seed):
    """Once each commander's graveyard line was drawn over the next commander's heading (2 vs. 2) and a long hand
    ran off the board: at every event, each commander's block (heading, cards, graveyard, each wrapped) ends
    above the next one's start, and no text is wider than the board."""
    browser_path = chromium()
    out = tmp_path / "tales.html"
    res = runner.invoke(app, ["play", "tales", "--mode", mode, "--seed", str(seed), "--html", str(out)])
    assert res.exit_code == 0, res.output
    n = len(embedded(out.read_text())["events"])
    pw, browser, page, errors = open_page(browser_path, out)
    try:
        for k in sorted({0, n // 3, 2 * n // 3, n - 1}):
            page.evaluate(f"window.playtestReplay.go({k})")
            found = page.evaluate("""() => {
                const width = document.getElementById('board').viewBox.baseVal.width;
                const blocks = Array.from(document.querySelectorAll('#board .line')).map(g => g.getBBox())
                    .map(r => [r.y, r.y + r.height]).sort((a, b) => a[0] - b[0]);
                const wide = Array.from(document.querySelectorAll('#board .line > text'))
                    .map(t => t.getBBox()).filter(r => r.x + r.width > width).length;
                return {blocks, wide};
            }""")
            blocks = found["blocks"]
            assert all(a[1] <= b[0] for a, b in zip(blocks, blocks[1:])), (k, blocks)
            assert found["wide"] == 0, k
        assert errors == []
    finally:
        browser.close()
        pw.stop()


# ---- --from DIR --cell --game-index: any game of a sweep ---------------------------------------------------
SPEC = {"name": "replay", "game": "paws", "rules": "v4", "seed": 5, "games_per_cell": 12, "batch_size": 6,
        "setup": {"board": "beginner"}, "grid": {"players": [2, 3]}}


@pytest.fixture(scope="module")
def sweep(ray_local, tmp_path_factory):
    from cluster.spec import parse_spec
    from cluster.sweep import run_sweep
    out = tmp_path_factory.mktemp("replay") / "sweep"
    run_sweep(parse_spec(SPEC, source="replay.toml"), out, workers=2, progress=False)
    return out


@pytest.mark.slow
def test_from_a_sweep_replays_the_stored_game(sweep, tmp_path):
    page = tmp_path / "c001-7.html"
    res = runner.invoke(app, ["play", "--from", str(sweep), "--cell", "c001", "--game-index", "7", "--html", str(page)])
    assert res.exit_code == 0, res.output
    assert "the replayed record equals the stored row" in res.stderr
    log = EventLog()
    rec = registry.get("paws").resolve("v4", {}, {"board": "beginner", "players": 3}, {}).play_one(5, 7, log)
    data = embedded(page.read_text())
    assert data["events"] == log.events and data["record"]["vp"] == rec["vp"]


@pytest.mark.slow
@pytest.mark.parametrize("args, needle", [
    (["--cell", "c009", "--game-index", "1"], "--cell 'c009' is not a cell of"),
    (["--cell", "c000", "--game-index", "12"], "--game-index 12 is out of range; expected an integer from 0 to 11"),
    (["--game-index", "1"], "--cell: which cell of"),
    (["--cell", "c000", "--board", "explorer"], "the sweep's spec decides the game; leave out --board"),
])
def test_from_a_sweep_refuses_bad_input_in_one_line(sweep, args, needle):
    res = runner.invoke(app, ["play", "--from", str(sweep)] + args)
    lines = [x for x in res.stderr.splitlines() if x.strip()]
    assert res.exit_code == 2 and len(lines) == 1 and needle in lines[0], res.output


@pytest.mark.parametrize("folder, needle", [
    ("missing", "not a folder"),
    ("empty", "no sweep here (no manifest.json)"),
    ("broken", "manifest"),
])
def test_from_a_folder_that_is_no_sweep_is_refused(tmp_path, folder, needle):
    d = tmp_path / folder
    if folder != "missing":
        d.mkdir()
    if folder == "broken":
        (d / "manifest.json").write_text("{not json")
    res = runner.invoke(app, ["play", "--from", str(d), "--cell", "c000"])
    lines = [x for x in res.stderr.splitlines() if x.strip()]
    assert res.exit_code == 2 and len(lines) == 1 and needle in lines[0] and "Traceback" not in res.output, res.output


def test_play_without_a_game_or_with_a_stray_cell_is_refused():
    res = runner.invoke(app, ["play"])
    assert res.exit_code == 2 and "missing the game" in res.stderr
    res = runner.invoke(app, ["play", "paws", "--cell", "c000"])
    assert res.exit_code == 2 and "--cell: only with --from" in res.stderr


# -- games with core-only bots: the reference engine replays the core's decision trace ---------------------
SEARCH_SPEC = {"name": "watch", "game": "paws", "rules": "v4", "seed": 3, "games_per_cell": 6, "batch_size": 3,
               "setup": {"board": "beginner", "mode": "teams", "bots": "mcts:iterations=8:depth=6"},
               "grid": {"round_limit": [0, 20]}}


@pytest.fixture(scope="module")
def search_sweeps(ray_local, tmp_path_factory):
    """The same search-bot sweep twice: with its decisions table, and without (the replay re-plays the core)."""
    from cluster.spec import parse_spec
    from cluster.sweep import run_sweep
    out = {}
    for name, tables in (("traced", ["games", "decisions"]), ("plain", ["games"])):
        out[name] = tmp_path_factory.mktemp("search") / name
        run_sweep(parse_spec({**SEARCH_SPEC, "tables": tables}, source=f"{name}.toml"), out[name], workers=2,
                  progress=False)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("which", ["traced", "plain"])
def test_from_a_search_bot_sweep_replays_with_what_the_search_saw(search_sweeps, which, tmp_path):
    page = tmp_path / "g.html"
    res = runner.invoke(app, ["play", "--from", str(search_sweeps[which]), "--cell", "c001", "--game-index", "4",
                              "--html", str(page)])
    assert res.exit_code == 0, res.output
    assert "the replayed record equals the stored row of sweep 'watch', cell c001, game 4" in res.stderr
    assert "core-only; the log is the reference engine's replay" in res.stderr and "all agreed" in res.stderr
    events = embedded(page.read_text())["events"]
    notes = [e for e in events if e["kind"] == "search"]
    assert notes and all(re.match(r"Player \d \(mcts\) weighs: .+ \d+%.* \(share of 8 simulations\)$", e["text"])
                         for e in notes)


@pytest.mark.slow
@pytest.mark.parametrize("manifest_too", [False, True])
def test_a_broken_stored_trace_is_refused_in_one_line(search_sweeps, tmp_path, manifest_too):
    """A decision trace cut in half: refused for its bytes (the manifest's SHA-256), or, where the forger also
    wrote the new size and SHA-256 into the manifest, by the replay itself; one line either way."""
    import hashlib
    import pyarrow as pa
    import pyarrow.parquet as pq
    folder = tmp_path / "broken"
    shutil.copytree(search_sweeps["traced"], folder)
    part = folder / "decisions" / "cell=c001" / "part-00001.parquet"
    table = pq.read_table(part)
    blobs = table["trace"].to_pylist()
    blobs[1] = blobs[1][:len(blobs[1]) // 2]                       # game 4: the trace cut in half
    pq.write_table(table.set_column(2, "trace", pa.array(blobs, pa.large_binary())), part)
    if manifest_too:
        path = folder / "manifest.json"
        m = json.loads(path.read_text())
        entry = next(c for c in m["cells"] if c["id"] == "c001")["parts"][1]["files"]["decisions"]
        entry.update(bytes=part.stat().st_size, sha256=hashlib.sha256(part.read_bytes()).hexdigest())
        path.write_text(json.dumps(m))
    res = runner.invoke(app, ["play", "--from", str(folder), "--cell", "c001", "--game-index", "4"])
    lines = [x for x in res.stderr.splitlines() if x.strip() and not x.startswith("warning: ")]
    assert res.exit_code == 2 and len(lines) == 1, res.output
    if not manifest_too:
        assert re.fullmatch(rf"error: --from {re.escape(str(folder))}: decisions/cell=c001/part-00001\.parquet: "
                            r"([\d,]+ bytes; the manifest records [\d,]+|its bytes differ from what the sweep wrote "
                            r"\(the manifest's SHA-256\)); the stored decision trace is not the one the sweep wrote",
                            lines[0]), lines[0]
        return
    assert re.match(r"error: sweep 'watch', cell c001, game 4: the stored decision trace does not replay: "
                    r"(decision \d+ \(round \d+, Player \d, [a-z ]+\): the trace has only \d+ decisions; the game asks "
                    r"for more|byte \d+: .+)$", lines[0]), lines[0]


@pytest.mark.slow
def test_a_stored_games_part_that_is_not_the_sweeps_is_not_trusted(sweep, tmp_path):
    """A games part rewritten after the sweep (same rows, other bytes): the replay goes on, says the stored row
    is not checked, and names the part."""
    import pyarrow.parquet as pq
    folder = tmp_path / "copy"
    shutil.copytree(sweep, folder)
    part = folder / "games" / "cell=c001" / "part-00001.parquet"
    pq.write_table(pq.read_table(part), part, compression="gzip")
    res = runner.invoke(app, ["play", "--from", str(folder), "--cell", "c001", "--game-index", "7"])
    assert res.exit_code == 0, res.output
    assert "games/cell=c001/part-00001.parquet: " in res.stderr and "replaying without the check" in res.stderr
    assert "the replayed record equals the stored row" not in res.stderr


def test_play_replays_a_search_bot_game_with_its_reasons(tmp_path):
    page, events_out = tmp_path / "game.html", tmp_path / "game.jsonl"
    res = runner.invoke(app, ["play", "paws", "--bots", "mcts:iterations=64:depth=20,heuristic,heuristic,heuristic",
                              "--seed", "7", "--html", str(page), "--events", str(events_out)])
    assert res.exit_code == 0, res.output
    assert re.search(r"^note: Player 1 \(mcts:iterations=64:depth=20\): core-only; the log is the reference engine's "
                     r"replay of the core's [\d,]+ decisions \([\d,]+ searched, with what the search saw\), every "
                     r"other seat's checked: all agreed$", res.stderr, re.M), res.stderr
    assert re.search(r"^  Player 1 \(mcts\) weighs: .+ \(share of 64 simulations\)$", res.stdout, re.M)
    written = [json.loads(x) for x in events_out.read_text().splitlines()]
    assert embedded(page.read_text())["events"] == written
    assert any(e["kind"] == "search" and e["actor"] == "Player 1" for e in written)
    rec = json.loads(runner.invoke(app, ["play", "paws", "--bots", "mcts:iterations=64:depth=20,heuristic,heuristic,"
                                         "heuristic", "--seed", "7", "--json"]).stdout)
    from sim.kit.trace import core_game
    m = registry.get("paws").resolve(None, {}, {"bots": "mcts:iterations=64:depth=20,heuristic,heuristic,heuristic"}, {})
    assert rec == core_game(m, 7, 0)[0]                        # the record printed is the core's


def test_play_replays_a_tales_search_game(tmp_path):
    res = runner.invoke(app, ["play", "tales", "--bots", "flat:rollouts=4:depth=6,heuristic", "--seed", "2"])
    assert res.exit_code == 0, res.output
    assert re.search(r"^  Commander 1 \(flat\) weighs: .+ \d\.\d\d.* \(expected reward, 4 rollouts each\)$",
                     res.stdout, re.M), res.stdout


@pytest.mark.browser
def test_the_page_shows_what_the_search_saw_beside_each_decision_in_chromium(tmp_path):
    browser_path = chromium()
    out = tmp_path / "search.html"
    res = runner.invoke(app, ["play", "paws", "--bots", "mcts:iterations=32:depth=10,heuristic,heuristic,heuristic",
                              "--seed", "7", "--html", str(out)])
    assert res.exit_code == 0, res.output
    events = embedded(out.read_text())["events"]
    k = next(i for i, e in enumerate(events) if e["kind"] == "search")
    pw, browser, page, errors = open_page(browser_path, out)
    try:
        assert page.is_hidden("#why")                                    # the setup line: no search before it
        page.evaluate(f"window.playtestReplay.go({k + 1})")              # the decision the search took
        assert page.is_visible("#why") and page.inner_text("#why") == events[k]["text"]
        assert page.inner_text("#now-text") == events[k + 1]["text"]
        assert page.is_visible(f'#events li.kind-search[data-seq="{events[k]["seq"]}"]')
        turn = next(i for i in range(k + 1, len(events)) if events[i]["kind"] in ("turn", "round"))
        page.evaluate(f"window.playtestReplay.go({turn})")
        assert page.is_hidden("#why")                                    # a new turn: no reason carried over
        shot = tmp_path / "search-replay.png"
        page.evaluate(f"window.playtestReplay.go({k + 1})")
        page.screenshot(path=str(shot))
        print(f"screenshot: {shot}")
        assert errors == []
    finally:
        browser.close()
        pw.stop()
