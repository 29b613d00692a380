"""No canned query pools two variants: results that vary in a column a query does not group by (a rule
parameter outside its fixed list, or card files: the record's data_name and data_digest) are answered
once per variant, and each variant's rows are exactly that variant's answer alone. ``--pool`` sums on
purpose and says so."""

import json
import re
from pathlib import Path

import pytest
from budget import thin
from typer.testing import CliRunner

from cli.main import app
from sim.games import get
from sim.output import write_parquet
from queries.sqlfiles import available, uses_seat_outcomes

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]
# the queries of bot against bot (bot_meetings: win_matrix, skill_depth) need games between different bots,
# which these sweeps do not have: tests/test_ladder.py checks them per variant over ladders
PAWS = [q.name for q in available() if q.game in ("paws", "any") and not uses_seat_outcomes(q)]
TALES = [q.name for q in available() if q.game in ("tales", "any") and not uses_seat_outcomes(q)]


def write_cells(root: Path, game: str, cells: dict, games: int = 240, batch: int = 120,
                tables=("games",)) -> Path:
    for cell_id, kw in cells.items():
        m = get(game).resolve(**kw, tables=tables)
        for b, lo in enumerate(range(0, games, batch)):
            out = m.play_batch(3, lo, min(batch, games - lo))
            for table in tables:
                write_parquet([out[table]], root / table / f"cell={cell_id}" / f"part-{b:05d}.parquet",
                              m.schemas[table])
    return root


def same(a, b) -> bool:
    """The same rows (in any order: a query without a full ORDER BY may list them either way; floats to 10
    significant digits, as a parallel sum may add in another order)."""
    def canon(r):
        return json.dumps({k: float(f"{v:.10g}") if isinstance(v, float) else v for k, v in r.items()}, sort_keys=True)
    return sorted(map(canon, a)) == sorted(map(canon, b))


def ask(name, results, *args):
    res = runner.invoke(app, ["query", name, "--results", str(results), "--format", "json", *args])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout), res.stderr


@pytest.fixture(scope="module")
def paws_param_sweep(tmp_path_factory):
    """A grid over mansion_monster_hp_bonus (no canned query groups by it), 2 and 4 players, ffa and Teams."""
    cells = {}
    for i, (bonus, setup) in enumerate([(b, s) for b in (1, 2) for s in
                                        ({"players": 2}, {"players": 4}, {"mode": "teams"})]):
        cells[f"c{i:03d}"] = dict(rules="v4", setup=setup, overrides={"mansion_monster_hp_bonus": bonus})
    return write_cells(tmp_path_factory.mktemp("paws-param"), "paws", cells, tables=("games", "cards"))


@pytest.fixture(scope="module")
def paws_card_sweep(tmp_path_factory):
    """Two item decks, everything else equal: only the cells tell the variants apart."""
    root = tmp_path_factory.mktemp("paws-cards")
    text = (ROOT / "sim/paws/data/items.toml").read_text()
    other = root / "items-b.toml"
    other.write_text(re.sub(r'(name = "Bandage Kit"\n(?:.*\n)*?copies = )2', r"\g<1>12", text, count=1))
    cells = {"c000": dict(rules="v4", setup={"players": 3}),
             "c001": dict(rules="v4", setup={"players": 3}, data={"items": str(other)})}
    assert get("paws").resolve(**cells["c000"]).data_digest != get("paws").resolve(**cells["c001"]).data_digest
    return write_cells(root / "res", "paws", cells, tables=("games", "cards"))


@pytest.mark.parametrize("name", thin(PAWS))
def test_every_paws_query_answers_per_rule_parameter_value(paws_param_sweep, name):
    rows, err = ask(name, paws_param_sweep)
    assert rows and all("mansion_monster_hp_bonus" in list(r)[:3] for r in rows), rows[:1]
    assert {r["mansion_monster_hp_bonus"] for r in rows} <= {1, 2}
    assert re.search(r"answered per [a-z_, ]*mansion_monster_hp_bonus", err), err
    for bonus in (1, 2):      # each variant's rows are the answer over that variant alone
        alone, _ = ask(name, paws_param_sweep, "--where", f"mansion_monster_hp_bonus = {bonus}")
        mine = [{k: v for k, v in r.items() if k != "mansion_monster_hp_bonus"} for r in rows
                if r["mansion_monster_hp_bonus"] == bonus]
        assert same(mine, alone)


@pytest.mark.parametrize("name", thin(PAWS))
def test_every_paws_query_answers_per_card_file(paws_card_sweep, name):
    rows, err = ask(name, paws_card_sweep)
    assert all("data_name" in list(r)[:3] for r in rows), rows[:1]   # (no rows: a Teams query, ffa games)
    decks = {"c000": "items=items.toml; monsters=monsters.toml", "c001": "items=items-b.toml; monsters=monsters.toml"}
    assert {r["data_name"] for r in rows} <= set(decks.values())
    for cell, deck in decks.items():
        alone, _ = ask(name, paws_card_sweep, "--where", f"cell = '{cell}'")
        assert same([{k: v for k, v in r.items() if k != "data_name"} for r in rows if r["data_name"] == deck], alone)


@pytest.fixture(scope="module")
def tales_param_sweep(tmp_path_factory):
    """Tales with a grid over loss_elite and two creature files, games and cards tables."""
    root = tmp_path_factory.mktemp("tales")
    creatures = (ROOT / "sim/tales/data/creatures.toml").read_text()
    other = root / "creatures-b.toml"
    other.write_text(re.sub(r"(\ncopies = )(\d+)", lambda m: m.group(1) + str(int(m.group(2)) + 1), creatures,
                            count=1))
    cells = {"c000": dict(rules="standard", overrides={"loss_elite": 2}),
             "c001": dict(rules="standard", overrides={"loss_elite": 1}),
             "c002": dict(rules="standard", overrides={"loss_elite": 1}, data={"creatures": str(other)})}
    return write_cells(root / "res", "tales", cells, tables=("games", "cards"))


@pytest.mark.parametrize("name", TALES)
def test_every_tales_query_answers_per_variant(tales_param_sweep, name):
    rows, err = ask(name, tales_param_sweep)
    assert rows and list(rows[0])[:2] == ["loss_elite", "data_name"], rows[:1]
    a, b = "creatures=creatures.toml; equipment=equipment.toml", "creatures=creatures-b.toml; equipment=equipment.toml"
    for value, deck, cell in ((2, a, "c000"), (1, a, "c001"), (1, b, "c002")):
        alone, _ = ask(name, tales_param_sweep, "--where", f"cell = '{cell}'")
        mine = [{k: v for k, v in r.items() if k not in ("loss_elite", "data_name")} for r in rows
                if r["data_name"] == deck and r["loss_elite"] == value]
        assert same(mine, alone)


def test_pool_sums_on_purpose_and_says_so(paws_param_sweep):
    rows, err = ask("stall_rate", paws_param_sweep, "--pool", "mansion_monster_hp_bonus")
    assert "mansion_monster_hp_bonus" not in rows[0]
    assert "pooled on purpose over mansion_monster_hp_bonus (2 values: 1, 2)" in err
    split, _ = ask("stall_rate", paws_param_sweep)
    assert sum(r["games"] for r in rows) == sum(r["games"] for r in split) == 6 * 240


def test_a_column_that_follows_another_is_not_split(tmp_path):
    """bots lists change length with players: a sweep over players alone is answered per players only."""
    root = write_cells(tmp_path, "paws", {"c000": dict(setup={"players": 2}), "c001": dict(setup={"players": 4})},
                       games=120)
    rows, err = ask("stall_rate", root)
    assert list(rows[0])[0] == "ruleset" and "answered per" not in err and len(rows) == 2


def test_pool_names_only_columns_that_can_be_pooled(paws_param_sweep):
    res = runner.invoke(app, ["query", "stall_rate", "--results", str(paws_param_sweep), "--pool", "winner_seat"])
    assert res.exit_code == 2 and "the columns that vary here: " in res.stderr
    assert "mansion_monster_hp_bonus" in res.stderr


def test_a_sweep_over_two_decks_is_answered_per_deck(tmp_path, ray_local):
    """[grid] items = [a, b] in a real sweep: no query sums the two decks; each cell's answer is its own."""
    from cluster.spec import load_spec
    from cluster.sweep import run_sweep
    items = (ROOT / "sim/paws/data/items.toml").read_text()
    (tmp_path / "a.toml").write_text(items)
    (tmp_path / "b.toml").write_text(re.sub(r"(\ncopies = )2", r"\g<1>6", items, count=1))
    (tmp_path / "s.toml").write_text('game = "paws"\nseed = 4\ngames_per_cell = 300\nbatch_size = 150\n'
                                     '[setup]\nplayers = 3\n[grid]\nitems = ["a.toml", "b.toml"]\n')
    run_sweep(load_spec(tmp_path / "s.toml"), tmp_path / "res", progress=False)
    rows, err = ask("seat_advantage", tmp_path / "res")
    decks = {"c000": "items=a.toml; monsters=monsters.toml", "c001": "items=b.toml; monsters=monsters.toml"}
    assert {r["data_name"] for r in rows} == set(decks.values()) and "answered per data_name" in err
    for cell, deck in decks.items():
        alone, _ = ask("seat_advantage", tmp_path / "res", "--where", f"cell = '{cell}'")
        assert same([{k: v for k, v in r.items() if k != "data_name"} for r in rows if r["data_name"] == deck], alone)
        assert sum(r["games"] for r in alone if r["who"] == "first player") == 300


def test_two_folders_of_one_configuration_are_answered_per_folder(tmp_path):
    """Nothing in the record tells two runs of one configuration apart (another seed, another code version):
    each folder gets its own answer, and --pool results sums them on purpose."""
    a = write_cells(tmp_path / "a", "paws", {"c000": dict(setup={"players": 2})}, games=120)
    b = write_cells(tmp_path / "b", "paws", {"c000": dict(setup={"players": 2})}, games=120)
    res = runner.invoke(app, ["query", "stall_rate", "--results", str(a), "--results", str(b), "--format", "json"])
    rows = json.loads(res.stdout)
    assert res.exit_code == 0 and [r["results"] for r in rows] == [str(a), str(b)] and "answered per results" in res.stderr
    res = runner.invoke(app, ["query", "stall_rate", "--results", str(a), "--results", str(b), "--format", "json",
                              "--pool", "results"])
    assert res.exit_code == 0 and [r["games"] for r in json.loads(res.stdout)] == [240]
    assert "pooled on purpose over results (2 values" in res.stderr


# -- --by bots: does the answer hold under the other bots? ---------------------------------------------------
def test_skill_lines_say_which_estimates_hold_and_which_change_with_the_bot():
    from queries.variants import estimates, skill_lines
    cols = ["bots", "board", "games", "first_share", "ci95_low", "ci95_high", "advantage", "advantage_low",
            "advantage_high"]
    assert [e[0] for e in estimates(cols)] == ["first_share", "advantage"]
    rows = [("heuristic", "explorer", 100, 0.56, 0.55, 0.57, 0.06, 0.05, 0.07),
            ("learned", "explorer", 100, 0.47, 0.45, 0.49, -0.03, -0.05, -0.01),
            ("heuristic", "beginner", 100, 0.26, 0.25, 0.27, 0.01, 0.00, 0.02),
            ("learned", "beginner", 100, 0.255, 0.24, 0.265, 0.005, -0.01, 0.015)]
    lines = skill_lines(cols, rows, ["game", "board?", "games", "first_share"], ["bots"])
    assert lines == [
        "board=explorer: changes with the bot (some two differ, 95%, Bonferroni over the pairs): first_share: "
        "heuristic 0.56 [0.55, 0.57]; learned 0.47 [0.45, 0.49]",
        "board=explorer: changes with the bot (some two differ, 95%, Bonferroni over the pairs): advantage: "
        "heuristic 0.06 [0.05, 0.07]; learned -0.03 [-0.05, -0.01]",
        "board=beginner: the same across these bots within +-2 points for shares (two one-sided tests, every pair): "
        "first_share, advantage"]
    wide = [("heuristic", "beginner", 100, 0.26, 0.22, 0.30, 0.01, -0.03, 0.05),
            ("learned", "beginner", 100, 0.255, 0.21, 0.30, 0.005, -0.04, 0.05)]
    assert skill_lines(cols, wide, ["board?"], ["bots"]) == [           # overlap is not sameness
        "these results: not enough games to say whether it changes with the bot: first_share: heuristic 0.26 "
        "[0.22, 0.3]; learned 0.255 [0.21, 0.3]",
        "these results: not enough games to say whether it changes with the bot: advantage: heuristic 0.01 "
        "[-0.03, 0.05]; learned 0.005 [-0.04, 0.05]"]
    assert skill_lines(cols, rows, ["board?"], ["board"]) == []          # not split by bots: nothing to say
    twice = rows + [("learned", "beginner", 50, 0.2, 0.1, 0.3, 0.0, -0.1, 0.1)]
    assert len(skill_lines(cols, twice, ["board?"], ["bots"])) == 2      # beginner: two rows of one bot, no verdict


def test_query_by_bots_says_where_the_answer_changes_with_the_bot(tmp_path):
    root = write_cells(tmp_path / "r", "paws", {
        "c000": dict(rules="v4", setup={"players": 2, "board": "explorer", "bots": "random"}),
        "c001": dict(rules="v4", setup={"players": 2, "board": "explorer", "bots": "heuristic"})}, games=2000,
        batch=1000)
    res = runner.invoke(app, ["query", "first_player_advantage", "--results", str(root), "--by", "bots"])
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert "Bots are not people: does the answer hold under the other bots?" in out
    verdicts = [x.strip() for x in out.splitlines() if "with the bot" in x or "holds across" in x]
    assert verdicts and all(v.startswith("these results: ") for v in verdicts), out
    # the numbers in each verdict line are the table's own: re-derive them from the JSON answer
    rows, _ = ask("first_player_advantage", root, "--by", "bots")
    by_bot = {f"{r['bots'][0]} (every seat)": r for r in rows}
    apart = max(r["ci95_low"] for r in rows) > min(r["ci95_high"] for r in rows)
    line = next((v for v in verdicts if "first_share:" in v), None)
    if apart:
        assert line is not None and all(f"{b} {by_bot[b]['first_share']:.4g}" in line for b in by_bot)
    else:
        assert line is None and any("first_share" in v and "holds" in v for v in verdicts)
