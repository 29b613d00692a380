"""Sweep specs: cells, batch sizes and digests worked out by hand; every bad spec refused naming file, key, values."""

from pathlib import Path

import pytest
from typer.testing import CliRunner

from cluster.spec import SpecError, auto_batch_size, load_spec, parse_spec
from cli.main import app

BASE = {"name": "t", "game": "paws", "rules": "v4", "seed": 1, "games_per_cell": 10, "batch_size": 4}


def spec(**changes):
    return parse_spec({**BASE, **changes}, source="t.toml")


def test_grid_is_a_cartesian_product_last_key_fastest_then_explicit_cells():
    s = spec(setup={"board": "beginner"}, grid={"players": [2, 4], "round_limit": [0, 20]},
             cells=[{"mode": "teams", "players": 4}])
    assert [c.id for c in s.cells] == ["c000", "c001", "c002", "c003", "c004"]
    assert [c.values for c in s.cells] == [{"players": 2, "round_limit": 0}, {"players": 2, "round_limit": 20},
                                           {"players": 4, "round_limit": 0}, {"players": 4, "round_limit": 20},
                                           {"mode": "teams", "players": 4}]
    m = s.cells[1].match
    assert (m.setup.players, m.setup.board, m.rules.round_limit, m.rules.ruleset) == (2, "beginner", 20, "v4")
    assert s.cells[4].match.setup.mode == "teams" and s.cells[4].match.rules.round_limit == 0


def test_rules_preset_can_vary_per_cell_and_overrides_apply_to_every_cell():
    s = spec(overrides={"round_limit": 25}, grid={"rules": ["v3", "v4"]})
    assert [c.match.rules.ruleset for c in s.cells] == ["v3", "v4"]
    assert [c.match.rules.vp_target for c in s.cells] == [5, 4]        # V3 5 VP, V4 4 VP (Changes from V3)
    assert all(c.match.rules.round_limit == 25 for c in s.cells)


def test_bot_parameters_are_swept_through_the_bots_setup_value():
    s = spec(setup={"players": 2}, grid={"bots": ["heuristic:aggression=1", "heuristic:aggression=5",
                                                  ["heuristic", "random"]]})
    assert [c.match.setup.bots for c in s.cells] == [("heuristic:aggression=1",) * 2,
                                                     ("heuristic:aggression=5",) * 2, ("heuristic", "random")]
    with pytest.raises(SpecError, match=r"cell c000 \(bots='genius'\)"):
        spec(grid={"bots": ["genius"]})


def test_no_grid_and_no_cells_is_one_cell_of_the_base_configuration():
    s = spec(setup={"players": 3})
    assert [(c.id, c.values, c.match.setup.players) for c in s.cells] == [("c000", {}, 3)]


def test_parts_cover_each_cell_once_the_last_one_shorter():
    s = spec()
    assert (s.batch_size, s.parts_per_cell) == (4, 3)
    assert [s.part_games(b) for b in range(3)] == [(0, 4), (4, 4), (8, 2)]


def test_automatic_batch_size_splits_a_cell_into_equal_parts_of_at_most_40000_core_games():
    assert auto_batch_size(20_000, "core") == 20_000
    assert auto_batch_size(100_000, "core") == 33_334            # 3 parts
    assert auto_batch_size(1_000_000, "core") == 40_000          # 25 parts
    assert auto_batch_size(1_000, "reference") == 200
    assert spec(batch_size=0, games_per_cell=100_000).batch_size == 33_334
    assert spec(batch_size=50).batch_size == 10                  # never more than a cell


def test_digest_follows_the_games_not_the_name():
    a = spec(grid={"players": [2, 3]})
    assert spec(grid={"players": [2, 3]}, name="other").digest == a.digest
    for change in ({"seed": 2}, {"games_per_cell": 11}, {"batch_size": 5}, {"grid": {"players": [3, 2]}},
                   {"grid": {"players": [2, 3]}, "overrides": {"lives": 3}}):
        assert spec(**{"grid": {"players": [2, 3]}, **change}).digest != a.digest, change


def test_examples_load():
    r = load_spec("examples/round_limit.toml")
    assert len(r.cells) == 30 and r.total_games == 600_000
    assert {c.match.rules.round_limit for c in r.cells} == {0, 15, 20, 25, 30}
    t = load_spec("examples/team_vp_target.toml")
    assert len(t.cells) == 8 and all(c.match.setup.mode == "teams" for c in t.cells)
    assert {(c.match.setup.board, c.match.rules.team_vp_target) for c in t.cells} == \
        {(b, v) for b in ("beginner", "explorer") for v in (4, 5, 6, 7)}
    assert load_spec("examples/smoke.toml").total_games == 20_000


@pytest.mark.parametrize("changes, expected", [
    ({"colour": "red"}, ["unknown key 'colour'", "games_per_cell"]),
    ({"seed": "one"}, ["seed = 'one'", "an integer"]),
    ({"seed": -1}, ["seed = -1", "0 to"]),
    ({"games_per_cell": 0}, ["games_per_cell = 0", "1 to"]),
    ({"batch_size": 100_001}, ["batch_size = 100001", "100000"]),
    ({"game": "chess"}, ["game = 'chess'", "paws"]),
    ({"rules": "v5"}, ["rules = 'v5'", "v3, v3-ap3, v4"]),
    ({"engine": "gpu"}, ["engine = 'gpu'", "core, reference"]),
    ({"tables": ["moves"]}, ["tables", "'moves'", "games"]),
    ({"setup": {"seats": 4}}, ["[setup]", "'seats'", "board, mode, players, bots"]),
    ({"setup": {"board": "moon"}}, ["[setup]", "board 'moon'", "beginner, explorer"]),
    ({"overrides": {"round_lmit": 20}}, ["[overrides]", "'round_lmit'", "round_limit"]),
    ({"overrides": {"round_limit": -1}}, ["[overrides]", "round_limit = -1", "0 to 500"]),
    ({"grid": {"colour": [1]}}, ["[grid]", "'colour'", "round_limit"]),
    ({"grid": {"players": []}}, ["[grid] players", "non-empty list"]),
    ({"grid": {"players": [2, 2]}}, ["[grid] players", "twice"]),
    ({"grid": {"players": [2, 5]}}, ["cell c001 (players=5)", "2, 3 or 4"]),
    ({"grid": {"rules": ["v4", "v9"]}}, ["cell c001 (rules='v9')", "v3, v3-ap3, v4"]),
    ({"cells": [{"mode": "teams", "players": 2}]}, ["cell c000", "teams needs players = 4"]),
    ({"cells": [{"lives": 3}, {"lives": 3}]}, ["cell c001", "same games as cell c000"]),
    ({"cells": [{"colour": 1}]}, ["cells[0]", "'colour'"]),
    ({"data": {"items": "nowhere.toml"}}, ["[data] items", "no such file"]),
    ({"data": {"decks": "x.toml"}}, ["[data]", "'decks'", "items, monsters"]),
    ({"games_per_cell": 10**8, "batch_size": 999}, ["100101 parts", "at most 100000", "raise batch_size"]),
])
def test_bad_specs_are_refused_naming_file_key_and_allowed_values(changes, expected):
    with pytest.raises(SpecError) as e:
        spec(**changes)
    msg = str(e.value)
    assert msg.startswith("t.toml"), msg
    for part in expected:
        assert part in msg, msg


def test_missing_key_and_bad_toml_and_missing_file(tmp_path):
    with pytest.raises(SpecError, match=r"missing key 'games_per_cell'"):
        parse_spec({"game": "paws", "seed": 1}, source="t.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("game = paws\n")
    with pytest.raises(SpecError, match=r"bad\.toml: not valid TOML"):
        load_spec(bad)
    with pytest.raises(SpecError, match=r"nope\.toml: no such spec file"):
        load_spec(tmp_path / "nope.toml")


def test_data_paths_are_relative_to_the_spec(tmp_path):
    import shutil

    from sim.paws.cards import ITEMS_FILE
    shutil.copy(ITEMS_FILE, tmp_path / "my-items.toml")
    f = tmp_path / "s.toml"
    f.write_text('game = "paws"\nseed = 1\ngames_per_cell = 5\n[data]\nitems = "my-items.toml"\n')
    s = load_spec(f)
    assert s.data == {"items": str(tmp_path / "my-items.toml")}
    assert s.cells[0].match.data_digest == load_spec("examples/smoke.toml").cells[0].match.data_digest


def test_cli_refuses_a_bad_spec_in_one_line_before_any_work(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text('game = "paws"\nseed = 1\ngames_per_cell = 5\n[grid]\nboard = ["beginner", "moon"]\n')
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["sweep", str(f), "--out", str(out)])
    assert res.exit_code == 2, res.output
    text = " ".join(res.output.split())          # the console wraps long lines
    assert "s.toml: cell c001 (board='moon')" in text and "beginner, explorer" in text
    assert "Traceback" not in text and not out.exists()


def test_without_rules_each_cell_takes_its_games_default_preset():
    s = parse_spec({"game": "tales", "seed": 1, "games_per_cell": 10, "grid": {"mode": ["standard", "survive"]}},
                   source="t.toml")
    assert s.rules is None
    assert [(c.match.setup.mode, c.match.rules.ruleset) for c in s.cells] == [("standard", "standard"),
                                                                              ("survive", "survive")]
    p = parse_spec({"game": "paws", "seed": 1, "games_per_cell": 10}, source="t.toml")
    assert p.cells[0].match.rules.ruleset == "v4"


def test_bounded_inputs_are_refused_before_they_are_built(tmp_path):
    big = tmp_path / "big.toml"
    big.write_text('game = "paws"\nseed = 1\ngames_per_cell = 5\n' + "# padding\n" * 120_000)
    with pytest.raises(SpecError, match=r"big\.toml: 1,[0-9,]+ bytes; a spec file is at most 1,048,576 bytes"):
        load_spec(big)
    with pytest.raises(SpecError, match="is a folder, not a spec file"):
        load_spec(tmp_path)
    # 10^10 cells: counted, never expanded (expanding them would not end)
    grid = {"round_limit": list(range(100)), "lives": list(range(1, 101)), "vp_target": list(range(1, 101)),
            "bots": [f"heuristic:aggression={i}" for i in range(100)], "players": list(range(100))}
    with pytest.raises(SpecError, match=r"10000000000 cells \(100 x 100 x 100 x 100 x 100 from \[grid\]\); at most"):
        spec(grid=grid)
    with pytest.raises(SpecError, match=r"\[grid\] round_limit lists 10001 values; at most 10000"):
        spec(grid={"round_limit": list(range(10_001))})
    with pytest.raises(SpecError, match=r"10001 cells \(100 x 100 from \[grid\] \+ 1 \[\[cells\]\]\)"):
        spec(grid={"round_limit": list(range(100)), "lives": list(range(1, 101))}, cells=[{"players": 2}])


def test_the_documented_games_per_cell_limit_is_reachable():
    s = spec(games_per_cell=10**10, batch_size=0)          # automatic batch: grows to fit the part cap
    assert (s.batch_size, s.parts_per_cell, s.total_parts) == (100_000, 100_000, 100_000)
    assert spec(games_per_cell=10**10, batch_size=100_000).total_parts == 100_000
    with pytest.raises(SpecError, match="games_per_cell = 10000000001 is out of range; expected an integer from 1 to "
                                        "10000000000"):
        spec(games_per_cell=10**10 + 1)
    two = spec(games_per_cell=5 * 10**9, batch_size=0, grid={"players": [2, 4]})     # 2 cells share the cap
    assert (two.batch_size, two.total_parts) == (100_000, 100_000)
    with pytest.raises(SpecError, match=r"200000 parts \(2 cells x 100000\)"):
        spec(games_per_cell=10**10, batch_size=100_000, grid={"players": [2, 4]})


def test_a_card_file_is_a_sweep_axis(tmp_path):
    """[grid] items = [...] (or [[cells]] items = ...): each cell plays its own deck; paths are relative to
    the spec; a missing file names the cell and the key."""
    import re
    items = (Path(__file__).resolve().parents[2] / "sim" / "paws" / "data" / "items.toml").read_text()
    (tmp_path / "decks").mkdir()
    (tmp_path / "decks" / "a.toml").write_text(items)
    (tmp_path / "decks" / "b.toml").write_text(re.sub(r"(\ncopies = )2", r"\g<1>5", items, count=1))
    spec = parse_spec({"game": "paws", "seed": 1, "games_per_cell": 10,
                       "grid": {"items": ["decks/a.toml", "decks/b.toml"], "players": [2, 4]}},
                      source="s.toml", base_dir=tmp_path)
    assert [c.values for c in spec.cells][:2] == [{"items": "decks/a.toml", "players": 2},
                                                  {"items": "decks/a.toml", "players": 4}]
    digests = {c.match.data_digest for c in spec.cells}
    assert len(digests) == 2 and len({c.match.digest for c in spec.cells}) == 4
    with pytest.raises(SpecError, match=r"cell c001 \(items='decks/none.toml'\): items = 'decks/none.toml': "
                                        r"no such file"):
        parse_spec({"game": "paws", "seed": 1, "games_per_cell": 10,
                    "grid": {"items": ["decks/a.toml", "decks/none.toml"]}}, source="s.toml", base_dir=tmp_path)
    with pytest.raises(SpecError, match=r"items = 7 has the wrong type; expected a string"):
        parse_spec({"game": "paws", "seed": 1, "games_per_cell": 10, "cells": [{"items": 7}]},
                   source="s.toml", base_dir=tmp_path)
    with pytest.raises(SpecError, match="plays the same games as cell c000"):   # the same deck twice
        parse_spec({"game": "paws", "seed": 1, "games_per_cell": 10,
                    "grid": {"items": ["decks/a.toml", str(tmp_path / "decks" / "a.toml")]}},
                   source="s.toml", base_dir=tmp_path)
