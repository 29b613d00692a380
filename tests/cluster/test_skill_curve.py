"""Answers as a skill curve (cluster/skill_ladder.py, queries/skill_page.py; docs/skill.md): a skill run also rates
its levels on one ladder (``--skill-ladder-games``), recorded in skill.json and resumed to the same bytes; the
page of an answer leads with the verdict, plots each estimate against the levels' Elo, prints the verdict with its
margin and the ratings, escapes user text and renders in headless Chromium; bad option values are one line, exit 2.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from cli.main import app
from cluster import skill_ladder as sl
from cluster.spec import SpecError, load_spec
from queries import skill_page
from queries.variants import estimates

from tests.cluster.test_skill import SPEC        # a 2-player spec over both boards, 300 games a cell

runner = CliRunner()
TEAMS = """name = "teams"
game = "paws"
rules = "v4"
seed = 3
games_per_cell = 300
[setup]
mode = "teams"
players = 4
"""
LEVELS = "random,heuristic"
LADDER_GAMES = 60


def _spec(folder: Path, text: str = SPEC, name: str = "spec.toml") -> Path:
    p = folder / name
    p.write_text(text)
    return p


def _sweep(spec: Path, out: Path, *extra: str):
    return runner.invoke(app, ["sweep", str(spec), "--out", str(out), "--skill", LEVELS, "--skill-games", "60,60",
                               "--skill-ladder-games", str(LADDER_GAMES), "--no-progress", *extra])


@pytest.fixture(scope="module")
def run(tmp_path_factory, ray_local):
    """One skill run of random and heuristic with their ladder (the module's games)."""
    folder = tmp_path_factory.mktemp("curve")
    spec = _spec(folder)
    out = folder / "out"
    res = _sweep(spec, out)
    assert res.exit_code == 0, res.output
    return spec, out


def parts(out: Path) -> dict[str, tuple]:
    """Every part file under ``out`` as compared: its playtest metadata but the code version (which names the
    commit: others commit while the tests run), and its bytes' SHA-256 with the version."""
    found = {}
    for p in sorted(out.rglob("part-*.parquet")):
        meta = pq.read_metadata(p).metadata
        rest = tuple(sorted((k, v) for k, v in meta.items() if k.startswith(b"playtest.")
                            and k != b"playtest.code_version"))
        found[str(p.relative_to(out))] = (rest, meta[b"playtest.code_version"], hashlib.sha256(p.read_bytes()).digest())
    return found


def same_parts(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(a[k][0] == b[k][0] and (a[k][1] != b[k][1] or a[k][2] == b[k][2]) for k in a)


@pytest.mark.slow
def test_the_levels_ladder_is_played_recorded_and_rates_a_planted_stronger_level_higher(run):
    spec, out = run
    plan = json.loads((out / "skill.json").read_text())
    ladder = plan["ladder"]
    assert ladder == {"folder": "ladder", "games_per_lineup": LADDER_GAMES, "seed": 2**63 + 3, "seats": 2,
                      "bots": ["random", "heuristic"], "rules": "v4", "setup": {"players": 2, "board": "beginner"},
                      "overrides": {}, "lineups": 2, "anchor": "random"}
    m = json.loads((out / "ladder" / "manifest.json").read_text())
    assert m["state"] == "done" and m["games_total"] == 2 * LADDER_GAMES and m["seed"] == 2**63 + 3
    report = json.loads((out / "ladder" / "ladder.json").read_text())
    weak, strong = report["ratings"]
    assert report["anchor"] == "random" and weak["bot"] == "random" and strong["bot"] == "heuristic"
    assert weak["elo"] == weak["ci95_low"] == weak["ci95_high"] == 0.0        # the anchor, the first level
    assert strong["elo"] > 0 and strong["ci95_low"] > weak["ci95_high"]       # heuristic beats random, 95%
    # the ladder's games are the ones its spec says: random and heuristic heads-up in both seat orders
    seated = {tuple(r) for t in (pq.read_table(p, columns=["bots"]) for p in (out / "ladder").rglob("*.parquet"))
              for r in t.column("bots").to_pylist()}
    assert seated == {("random", "heuristic"), ("heuristic", "random")}


@pytest.mark.slow
def test_resume_finishes_the_ladder_with_the_same_bytes(run, tmp_path):
    spec, done = run
    out = tmp_path / "out"
    shutil.copytree(done, out)
    want_parts, want = parts(out / "ladder"), (out / "ladder" / "ladder.json").read_bytes()
    shutil.rmtree(out / "ladder")                      # stopped after the levels, before the ladder began
    res = _sweep(spec, out, "--resume")
    assert res.exit_code == 0, res.output
    assert same_parts(parts(out / "ladder"), want_parts) and (out / "ladder" / "ladder.json").read_bytes() == want
    (out / "ladder" / "ladder.json").unlink()          # stopped inside the ladder: a part and the ratings missing
    next(iter((out / "ladder").rglob("part-*.parquet"))).unlink()
    res = runner.invoke(app, ["sweep", str(spec), "--out", str(out), "--skill", LEVELS, "--resume", "--no-progress"])
    assert res.exit_code == 0, res.output
    assert "1 parts written" in " ".join(res.output.split())
    assert same_parts(parts(out / "ladder"), want_parts) and (out / "ladder" / "ladder.json").read_bytes() == want
    other = runner.invoke(app, ["sweep", str(spec), "--out", str(out), "--skill", LEVELS, "--resume",
                                "--skill-ladder-games", "61"])
    assert other.exit_code == 2 and "started with --skill-ladder-games 60" in other.stderr


def _answer(out: Path, page: Path, *extra: str):
    res = runner.invoke(app, ["query", "first_player_advantage", "--results", str(out), "--html", str(page), *extra])
    assert res.exit_code == 0, res.output
    return res


@pytest.mark.slow
def test_the_page_leads_with_the_answer_and_plots_each_estimate_against_the_ladder(run, tmp_path):
    spec, out = run
    page = tmp_path / "page.html"
    _answer(out, page)
    text = page.read_text()
    csv = runner.invoke(app, ["query", "first_player_advantage", "--results", str(out), "--format", "csv"])
    columns = csv.stdout.splitlines()[0].split(",")
    found = estimates(columns)
    assert found and text.count("<img class=\"plot\"") == len(found) == text.count("data:image/svg+xml;base64,")
    body = text[text.index("<body>"):]
    first = re.search(r'<section id="(\w+)"><p class="verdict lead">([^<]*)</p>', body)
    assert first and first.group(1) == "answer" and body.index('id="answer"') < body.index('id="plots"')
    assert re.match(r"(The answer moves with skill from random to heuristic|The answer holds under stronger play|Not "
                    r"enough games to say whether the answer holds)", first.group(2)), first.group(2)
    assert "±2 points" in text                          # the verdict's margin
    report = json.loads((out / "ladder" / "ladder.json").read_text())
    strong = report["ratings"][1]
    assert f"<td>heuristic</td><td>heuristic</td><td>{strong['elo']:+.0f}</td>" in text
    # without the ladder's ratings (not yet finished) the page still draws, in the levels' order, and says why
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    (copy / "ladder" / "ladder.json").unlink()
    res = _answer(copy, tmp_path / "p2.html")
    p2 = (tmp_path / "p2.html").read_text()
    assert "No Elo yet" in p2 and p2.count("<img class=\"plot\"") == len(found) and "No Elo yet" in res.stderr
    (copy / "ladder" / "ladder.json").write_text('{"ratings": [{"bot": "random"}]}')
    bad = runner.invoke(app, ["query", "first_player_advantage", "--results", str(copy), "--html", str(page)])
    assert bad.exit_code == 2 and "not the ratings of this run's ladder" in bad.stderr and not bad.stdout


HOSTILE = "<blink>$\\bad$ & \"it's\""


@pytest.mark.slow
@pytest.mark.browser
def test_the_page_renders_in_chromium_and_hostile_bot_specs_stay_text(tmp_path, ray_local):
    from test_report import open_page
    models = tmp_path / "models"
    models.mkdir()
    model = models / f"{HOSTILE}.json"
    shutil.copy(Path(__file__).resolve().parents[2] / "sim/paws/bots/models/paws-2.json", model)
    spec = _spec(tmp_path, SPEC.replace('["beginner", "explorer"]', '["beginner"]'), "<i>spec&.toml")
    out = tmp_path / "out"
    levels = f"random,learned:model={model}"
    res = runner.invoke(app, ["sweep", str(spec), "--out", str(out), "--skill", levels, "--skill-games", "40,40",
                              "--skill-ladder-games", "20", "--no-progress"])
    assert res.exit_code == 0, res.output
    page = tmp_path / "page.html"
    _answer(out, page)
    text = page.read_text()
    assert "<blink>" not in text and "<i>spec" not in text and "&lt;blink&gt;" in text
    found = open_page(page, tmp_path / "page.png")
    assert not found["errors"] and not found["pwned"] and found["scripts"] == 1, found["errors"]
    assert found["sections"][:2] == ["answer", "plots"] and found["sections"][-1] == "ladder"
    assert found["images"] == found["decoded"] == 3 and found["plots"] == found["rendered"] == "3"
    assert f"learned:model={model}" in found["text"] and "<i>spec&.toml" in found["text"]
    assert "Bots, not people" in found["text"]


def test_the_page_from_hand_made_rows_names_the_verdict_and_escapes_level_names():
    """The verdict between the two strongest levels (hand-made rows: paws-2 and the search bot apart by 9 points)
    leads the page with both bots named; one plot per estimate; a level's name is text, not markup."""
    cols = ["bots", "board", "share", "share_ci95_low", "share_ci95_high", "rounds", "rounds_low", "rounds_high"]
    levels = ["heuristic", "learned:model=<b>paws-2</b>", "mcts:iterations=256"]
    rows = [(["heuristic"] * 2, "beginner", 0.5, 0.48, 0.52, 9.0, 8.5, 9.5),
            ([levels[1] + "@55a1f45255b4"] * 2, "beginner", 0.56, 0.555, 0.565, 9.1, 8.6, 9.6),
            (["mcts:iterations=256"] * 2, "beginner", 0.65, 0.63, 0.67, 12.0, 11.0, 13.0)]
    ratings = [{"bot": b, "elo": e, "ci95_low": e - 30 * (k > 0), "ci95_high": e + 30 * (k > 0), "games": 400}
               for k, (b, e) in enumerate(zip(levels, (0.0, 110.0, 300.0)))]
    record = {"games_per_lineup": 200, "seats": 2, "seed": 2**63 + 3, "lineups": 6, "setup": {"players": 2},
              "rules": "v4"}
    c = skill_page.Curve("q", "Does <it> hold?", cols, rows, cols[2:], ["bots"], levels, ratings,
                         {"games": 1200}, record, "", "/tmp/<out>", "", "")
    text = skill_page.page(c)
    head = re.search(r'<p class="verdict lead">([^<]*)</p>', text).group(1)
    assert head.startswith("The answer moves with skill from learned:model=&lt;b&gt;paws-2&lt;/b&gt; to "
                           "mcts:iterations=256: share, rounds"), head
    assert text.count("<img class=\"plot\"") == 2 and "<b>paws-2" not in text and "<it>" not in text
    assert "+9.0 [+6.9, +11.1] points" in text and "±2 points" in text
    assert "none in its units" in text                       # rounds: no margin, differs or not
    assert "<td>3</td><td>mcts:iterations=256</td><td>mcts:iterations=256</td><td>+300</td>" in text
    lines = skill_page.answer_lines(c, skill_page.verdicts(c))
    assert lines == ["share: moves with skill from learned:model=<b>paws-2</b> to mcts:iterations=256",
                     "rounds: moves with skill from learned:model=<b>paws-2</b> to mcts:iterations=256"]


def test_a_ladder_that_cannot_be_seated_is_left_out_by_default_and_refused_when_asked(tmp_path):
    spec = load_spec(_spec(tmp_path, TEAMS))
    levels = ["random", "heuristic", "heuristic:aggression=6"]
    left = sl.prepare(spec, levels, sl.DEFAULT_GAMES, tmp_path / "o", resume=False, given=False)
    assert left.plan is None and left.record["games_per_lineup"] == 0 and "seats 4" in left.record["skipped"]
    assert sl.record_ok(left.record, 3)
    with pytest.raises(SpecError, match=r"--skill-ladder-games 200: the spec's first cell \(mode=teams, players=4\) "
                                        r"seats 4 .* there are 3; --skill-ladder-games 0 plays no ladder"):
        sl.prepare(spec, levels, sl.DEFAULT_GAMES, tmp_path / "o", resume=False, given=True)
    four = sl.prepare(spec, levels + ["heuristic:aggression=2"], 10, tmp_path / "o", resume=False, given=True)
    assert four.record["seats"] == 4 and four.record["lineups"] == 24 and four.record["setup"]["mode"] == "teams"
    heads_up = sl.prepare(load_spec(_spec(tmp_path, SPEC)), levels, 10, tmp_path / "o", resume=False, given=True)
    assert heads_up.record["seats"] == 2 and heads_up.record["lineups"] == 6
    twice = sl.prepare(load_spec(_spec(tmp_path, SPEC)), ["learned:model=paws-4", "learned"], sl.DEFAULT_GAMES,
                       tmp_path / "o", resume=False, given=False)       # learned alone plays paws-4: one bot
    assert twice.plan is None and "listed already" in twice.record["skipped"] and twice.note.startswith("no ladder")
    assert not (tmp_path / "o").exists()                   # checked, nothing written


@pytest.mark.parametrize("args, message", [
    (["--skill", LEVELS, "--skill-ladder-games", "-1"], r"--skill-ladder-games -1: expected 0 \(no ladder\) to"),
    (["--skill", LEVELS, "--skill-ladder-games", "x"], r"Invalid value for '--skill-ladder-games'"),
    (["--skill-ladder-games", "10"], r"--skill-ladder-games: only with --skill"),
    (["--skill", "heuristic", "--skill-ladder-games", "10"], r"one level: a ladder rates two or more"),
    (["--skill", "heuristic,learned:model=paws-4,learned", "--skill-ladder-games", "10"], r"listed already"),
])
def test_bad_option_values_are_one_line_and_exit_2(tmp_path, args, message):
    spec = _spec(tmp_path)
    res = runner.invoke(app, ["sweep", str(spec), "--out", str(tmp_path / "o"), *args])
    lines = [x for x in res.stderr.splitlines() if x.strip()]
    assert res.exit_code == 2 and len(lines) == 1 and re.search(message, lines[0]), res.output
    assert not (tmp_path / "o").exists()


def test_a_resume_with_another_ladder_and_a_damaged_record_are_refused(tmp_path):
    spec = _spec(tmp_path)
    out = tmp_path / "o"
    out.mkdir()
    plan = {"spec": str(spec), "levels": ["random", "heuristic"], "folders": ["skill-1", "skill-2"],
            "games_per_cell": [10, 10], "digests": ["a", "b"], "ladder": {"games_per_lineup": 0}}
    (out / "skill.json").write_text(json.dumps(plan))
    res = runner.invoke(app, ["sweep", str(spec), "--out", str(out), "--skill", LEVELS, "--resume",
                              "--skill-ladder-games", "10"])
    assert res.exit_code == 2 and "started with --skill-ladder-games 0" in res.stderr, res.output
    plan["ladder"] = {"games_per_lineup": 10, "folder": "../elsewhere", "bots": ["random", "heuristic"]}
    (out / "skill.json").write_text(json.dumps(plan))
    res = runner.invoke(app, ["query", "first_player_advantage", "--results", str(out)])
    assert res.exit_code == 2 and "not a skill plan" in res.stderr


def test_html_needs_one_skill_folder_and_report_points_a_skill_folder_to_it(tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    res = runner.invoke(app, ["query", "first_player_advantage", "--results", str(plain), "--html",
                              str(tmp_path / "p.html")])
    assert res.exit_code == 2 and "give its folder alone" in res.stderr and not (tmp_path / "p.html").exists()
    out = tmp_path / "o"
    out.mkdir()
    (out / "skill.json").write_text(json.dumps({"levels": ["random", "heuristic"], "folders": ["skill-1", "skill-2"],
                                                "games_per_cell": [10, 10]}))
    res = runner.invoke(app, ["query", "first_player_advantage", "--results", str(out), "--html", str(tmp_path)])
    assert res.exit_code == 2 and "is a folder" in res.stderr and len(res.stderr.strip().splitlines()) == 1
    res = runner.invoke(app, ["report", str(out)])
    assert res.exit_code == 2 and "a skill run's folder" in res.stderr and "--html PAGE" in res.stderr


def test_the_held_out_seed_and_an_old_plan():
    assert sl.held_out(3) == 2**63 + 3 and sl.held_out(2**63 + 5) == 2**63 + 5 and sl.held_out(2**64 - 1) < 2**64
    assert sl.record_ok(None, 2)                     # a plan from before the ladder
    assert not sl.record_ok({"games_per_lineup": True}, 2) and not sl.record_ok([], 2)
