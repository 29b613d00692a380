"""Tales are Real through the whole pipeline on Ray: ``playtest sweep`` (games and the per-card table) ->
``playtest query`` -> ``playtest regress``, which passes unchanged and flags a rule change.

The regression's baseline holds the same games as the sweep (same seed: equal record digests) and its
people counts are the tales_people query's. The rule change: a destroyed Champion no longer ends the game
("Victory and Defeat" says it does), so games go to the last round and end by losses.
"""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from queries import connection
from cli.main import app
from regress import baseline
from regress.digest import parts_digest

ROOT = Path(__file__).resolve().parents[2]

GAMES, SEED = 2000, 3
SWEEP = f"""
game = "tales"
games_per_cell = {GAMES}
engine = "core"
cells = [
    {{ rules = "standard", mode = "standard", people = "schatten" }},
    {{ rules = "2v2", mode = "2v2", people = "animalis" }},
]
"""
SPEC = f'name = "tales-tiny"\nseed = {SEED}\nbatch_size = 500\ntables = ["games", "cards"]\n' + SWEEP
SUITE = f'name = "tales-tiny"\nseeds = [{SEED}]\n[thresholds]\nmethod = "bh"\nlevel = 0.01\n[sweep]\n' + SWEEP
RULE_CHANGE = SUITE.replace("[sweep]\n", "[sweep]\noverrides = { champion_death_ends = false }\n")
runner = CliRunner()


def cli(*args):
    return runner.invoke(app, [*map(str, args)])


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory, ray_local):
    root = tmp_path_factory.mktemp("tales-pipeline")
    for name, text in (("spec", SPEC), ("suite", SUITE), ("changed", RULE_CHANGE)):
        (root / f"{name}.toml").write_text(text)
    res = cli("sweep", root / "spec.toml", "--out", root / "sweep", "--no-progress")
    assert res.exit_code == 0, res.output
    base = root / "baseline.json"
    runs = {}
    for name, suite, extra in (("baseline", "suite", ["--update-baseline"]), ("unchanged", "suite", []),
                               ("changed", "changed", [])):
        res = cli("regress", root / f"{suite}.toml", "--baseline", base, "--report", root / f"r-{name}", "--quiet",
                  *extra)
        runs[name] = (res.exit_code, res.output, root / f"r-{name}")
    return root, base, runs


def answer(name, root, params=None):
    cols, rows = connection.run(name, [str(root / "sweep")], params)
    return [dict(zip(cols, r)) for r in rows]


@pytest.mark.slow
def test_sweep_writes_games_and_cards_for_every_game(pipeline):
    root = pipeline[0]
    m = json.loads((root / "sweep" / "manifest.json").read_text())
    assert m["state"] == "done" and m["tables"] == ["games", "cards"]
    con = connection.connect([str(root / "sweep")])
    per_cell = con.execute("SELECT cell, count(*), count(DISTINCT game_index) FROM games GROUP BY 1 ORDER BY 1").fetchall()
    assert per_cell == [("c000", GAMES, GAMES), ("c001", GAMES, GAMES)]
    cards = con.execute("SELECT cell, count(DISTINCT game_index), count(DISTINCT (game_index, seat)) FROM cards "
                        "GROUP BY 1 ORDER BY 1").fetchall()
    assert cards == [("c000", GAMES, 2 * GAMES), ("c001", GAMES, 4 * GAMES)]     # every seat fields a Champion


@pytest.mark.slow
def test_queries_answer_over_the_sweep(pipeline):
    root = pipeline[0]
    people = {(x["mode"], x["people"], x["side"]): x for x in answer("tales_people", root)}
    assert {k: x["games"] for k, x in people.items()} == {
        ("standard", "schatten", "either"): GAMES, ("standard", "schatten", "team 0"): GAMES,
        ("standard", "animalis", "either"): GAMES, ("standard", "animalis", "team 1"): GAMES,
        ("2v2", "animalis", "either"): GAMES, ("2v2", "animalis", "team 0"): GAMES,
        ("2v2", "schatten", "either"): GAMES, ("2v2", "schatten", "team 1"): GAMES}
    ends = {(x["mode"], x["end_reason"]): x["games"] for x in answer("end_reasons", root)}
    for mode in ("standard", "2v2"):    # every game is a win of one people or a draw, and the draws agree
        a, s = people[(mode, "animalis", "either")], people[(mode, "schatten", "either")]
        assert a["wins"] + s["wins"] + a["draws"] == GAMES and a["draws"] == s["draws"] == ends.get((mode, "draw"), 0)
    champions = answer("tales_champions", root)
    assert sum(x["seat_games"] for x in champions) == GAMES * (2 + 4)
    cards = answer("tales_cards", root, {"min_games": 50})
    assert {x["kind"] for x in cards} == {"creature", "equipment"}
    assert all(x["ci95_low"] <= x["win_rate"] <= x["ci95_high"] and x["present"] >= 50 for x in cards)
    length = {x["mode"]: x for x in answer("game_length", root)}
    assert set(length) == {"standard", "2v2"} and all(1 <= x["rounds_p50"] <= 5 for x in length.values())


@pytest.mark.slow
def test_regress_baseline_holds_the_sweeps_games(pipeline):
    root, base, runs = pipeline
    code, output, _ = runs["baseline"]
    assert code == 0, output
    b = baseline.load(base)
    assert b["game"] == "tales" and [c["values"]["mode"] for c in b["cells"]] == ["standard", "2v2"]
    from sim.games import get
    schema = get("tales").schemas["games"]
    people = {(x["mode"], x["people"]): x for x in answer("tales_people", root) if x["side"] == "either"}
    for cell in b["cells"]:
        digest, games = parts_digest((root / "sweep" / "games" / f"cell={cell['id']}").glob("part-*.parquet"), schema)
        assert cell["records"][str(SEED)] == digest and games == GAMES    # same games, other part sizes
        mode = cell["values"]["mode"]
        for p in ("animalis", "schatten"):                                 # regress SQL == query SQL
            assert cell["metrics"]["people_win_rate"][p] == [people[(mode, p)]["wins"], GAMES]


@pytest.mark.slow
def test_unchanged_suite_passes(pipeline):
    code, output, rep = pipeline[2]["unchanged"]
    assert code == 0, output
    r = json.loads((rep / "result.json").read_text())
    assert r["verdict"] == "pass" and [c["status"] for c in r["cells"]] == ["same", "same"]
    assert not [t for t in r["tests"] if t["flagged"]]
    assert {t["family"] for t in r["tests"]} == {"team_win_rate", "people_win_rate", "end_reasons", "draw_rate",
                                                 "game_length"}


@pytest.mark.slow
def test_a_rule_change_is_flagged(pipeline):
    code, output, rep = pipeline[2]["changed"]
    assert code == 1, output
    r = json.loads((rep / "result.json").read_text())
    assert r["verdict"] == "regression" and r["suite_changes"] == ["overrides.champion_death_ends: (unset) -> False"]
    assert [(c["status"], c["detail"]) for c in r["cells"]] == [("changed", f"seed {SEED}: rules changed")] * 2
    flagged = {(t["cell"], t["family"]) for t in r["tests"] if t["flagged"]}
    # no Champion kill ends the game: every game runs all five rounds and is decided by losses (or drawn)
    for cell in ("c000", "c001"):
        assert {(cell, "end_reasons"), (cell, "game_length")} <= flagged
    length = {t["cell"]: t for t in r["tests"] if t["family"] == "game_length"}
    assert all(t["effect"] > 1.0 for t in length.values())
    assert (rep / "report.md").read_text().startswith("# Balance regression `tales-tiny`: **REGRESSION**")


def test_example_sweep_plays_every_mode_with_its_own_rules():
    from cluster.spec import load_spec
    spec = load_spec(ROOT / "examples" / "tales.toml")
    assert spec.game == "tales" and spec.engine == "core" and spec.tables == ("games", "cards")
    got = {(c.match.rules.ruleset, c.match.setup.mode, c.match.setup.people[0], c.match.setup.bots[0])
           for c in spec.cells}
    assert got == {(m, m, p, b) for m in ("standard", "2v2", "survive", "survive-2v2")
                   for p in ("animalis", "schatten") for b in ("heuristic", "random")}
    survive = [c.match.rules for c in spec.cells if c.match.setup.mode.startswith("survive")]
    assert all(r.survive and r.equipment_draw == 7 and r.champion_death_ends for r in survive)


def test_tales_nightly_suite_and_baseline_agree():
    from regress.suite import load_suite
    suite = load_suite(ROOT / "examples" / "tales-nightly.toml")
    b = baseline.load(ROOT / "examples" / "tales-nightly-baseline.json")
    assert b["suite"] == suite.name and b["game"] == suite.game == "tales" and b["spec_digest"] == suite.digest
    assert b["seeds"] == list(suite.seeds) and b["games_per_cell"] == suite.games_per_cell
    spec = suite.spec(suite.seeds[0])
    assert [c["values"] for c in b["cells"]] == [c.values for c in spec.cells]
    assert [c["config"] for c in b["cells"]] == [c.match.digest for c in spec.cells]
    assert {c.match.rules.ruleset for c in spec.cells} == {"standard", "2v2", "survive", "survive-2v2"}
    for cell in b["cells"]:
        assert set(cell["records"]) == {str(s) for s in suite.seeds}
        assert sum(cell["metrics"]["end_reasons"].values()) == len(suite.seeds) * suite.games_per_cell
