"""``playtest rules``, ``bots`` and ``columns``: the vocabulary a designer needs, read from the declarations."""

import json

import pytest
from typer.testing import CliRunner

from cli.main import app
from sim.games import GAMES, get
from sim.kit.bots import preset_notes
from sim.params import fields

runner = CliRunner()


def listing(*args) -> list[dict]:
    res = runner.invoke(app, [*args, "--format", "json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


@pytest.mark.parametrize("game", GAMES.names())
def test_rules_lists_every_parameter_with_default_section_and_meaning(game):
    g = get(game)
    rows = listing("rules", game)
    base = g.rule_presets[g.default_preset]
    assert [r["parameter"] for r in rows] == [f.name for f in fields(base)]
    for r, f in zip(rows, fields(base)):
        assert r[f"default ({g.default_preset})"] == getattr(base, f.name)
        assert r["meaning"] == f.metadata["help"] and r["section"] == f.metadata["cite"]
        assert r["allowed"]


def test_rules_shows_a_presets_values_beside_the_default():
    rows = {r["parameter"]: r for r in listing("rules", "paws", "--preset", "v3")}
    assert rows["monster_dice"]["default (v4)"] == 4 and rows["monster_dice"]["v3"] == 3      # Changes from V3
    assert rows["raid_rolls"]["v3"] == 0 and rows["desert_heal"]["v3"] == 0
    res = runner.invoke(app, ["rules", "paws", "--preset", "v9"])
    assert res.exit_code == 2 and "expected one of v3, v3-ap3, v4" in res.stderr


@pytest.mark.parametrize("game", GAMES.names())
def test_bots_lists_kinds_and_every_weight_with_its_default(game):
    g = get(game)
    rows = listing("bots", game)
    assert [r["bot"] for r in rows[:4]] == ["random", "heuristic", "mcts", "flat"]
    weights = {r["bot"].split(":", 1)[1]: r for r in rows[4:] if r["kind"] == "weight"}
    assert list(weights) == [f.name for f in fields(g.bot_weights)]
    # every named weight set of the game is listed, and is a bot spec the game takes
    presets = [r["bot"] for r in rows if r["kind"] == "weights"]
    assert presets == [f"heuristic:preset={name}" for name in preset_notes(g.bot_presets_path)] and presets
    for spec in presets:
        g.resolve(setup={"bots": spec})
    for f in fields(g.bot_weights):
        assert weights[f.name]["default"] == getattr(g.bot_weights(), f.name)
        # every listed weight is accepted as a bot spec with its default value
        g.resolve(setup={"bots": f"heuristic:{f.name}={getattr(g.bot_weights(), f.name)}"})


@pytest.mark.parametrize("game", GAMES.names())
def test_columns_lists_every_column_of_every_table_with_a_meaning(game):
    g = get(game)
    for table, schema in g.schemas.items():
        rows = listing("columns", game, "--table", table)
        assert [r["column"] for r in rows] == schema.names
        assert [r["type"] for r in rows] == [str(t) for t in schema.types]
        assert all(r["meaning"] for r in rows), [r["column"] for r in rows if not r["meaning"]]


def test_columns_explains_the_one_based_lists_once():
    res = runner.invoke(app, ["columns", "paws"])
    assert res.exit_code == 0
    assert res.stdout.count("vp[winner_seat + 1]") == 1 and "seat 0 first" in res.stdout
    res = runner.invoke(app, ["columns", "paws", "--table", "heroes"])
    assert res.exit_code == 2 and "expected one of games, cards" in res.stderr


@pytest.mark.parametrize("width", [80, 120])
@pytest.mark.parametrize("game", ["paws", "tales"])
def test_the_rules_list_reads_at_80_and_120_columns(game, width, monkeypatch):
    """Once 636 lines at 120 columns (a meaning column 5 characters wide): now every line fits the terminal,
    a few lines a parameter, and every parameter's name, default and meaning is there whole."""
    from sim.games import GAMES
    from sim.params import fields
    monkeypatch.setenv("COLUMNS", str(width))
    res = runner.invoke(app, ["rules", game])
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    params = fields(GAMES[game].resolve().rules)
    assert all(len(line) <= width for line in lines[1:]), max(lines, key=len)
    assert len(lines) <= 6 * len(params) + 2                 # was 12 a parameter at 120 columns
    text = " ".join(" ".join(lines).split())
    for f in params:
        assert f"{f.name} (default" in text and " ".join(f.metadata["help"].split()) in text, f.name
