"""Rule presets, setup validation, the registry's Match, the batch API (reproducibility, card table) and
the CLI for Tales are Real."""

import json

import pyarrow as pa
import pytest
from typer.testing import CliRunner

from cli.main import app
from sim.games import get
from sim.params import RuleError, fields
from sim.tales.game import play_game
from sim.tales.record import CARD_SCHEMA, SCHEMA
from sim.tales.rules import PRESETS, TalesSetup, people_of, preset

TALES = get("tales")


def test_presets_match_the_rulebook():
    std, surv = preset("standard"), preset("survive")
    assert (std.game_rounds, std.army_size, std.first_draw, std.first_place, std.equipment_draw) == (5, 5, 5, 4, 3)
    assert (std.swap_cost, std.swap_gain, std.loss_normal, std.loss_elite, std.hands) == (3, 1, 1, 2, 2)
    # Survive!'s "only a few small changes": the fallen-Champion rule stays, one player out ends the game
    assert surv.survive and surv.equipment_draw == 7 and surv.champion_death_ends and surv.survive_end == "player"
    assert preset("2v2").team_attackers == 2 and preset("survive-2v2").survive
    # the literal readings are the defaults everywhere (docs/rules-interpretation.md)
    for r in PRESETS.values():
        assert (r.potion_lasts, r.elite_min_tier, r.champion_death_ends, r.survive_end) == ("turn", 2, True, "player")


def test_old_readings_are_reachable_by_their_parameters():
    old = preset("survive-2v2", {"potion_lasts": "card", "elite_min_tier": "5", "champion_death_ends": "false",
                                 "survive_end": "team"})
    assert (old.potion_lasts, old.elite_min_tier, old.champion_death_ends, old.survive_end) == \
        ("card", 5, False, "team")
    with pytest.raises(RuleError, match="potion_lasts = 'fight' is not allowed; expected one of turn, card"):
        preset("standard", {"potion_lasts": "fight"})
    with pytest.raises(RuleError, match="survive_end = 'side' is not allowed; expected one of player, team"):
        preset("survive", {"survive_end": "side"})
    assert set(PRESETS) == {"standard", "2v2", "survive", "survive-2v2"}


def test_overrides_are_validated_with_allowed_values():
    with pytest.raises(RuleError, match=r"army_size = 9 is not allowed; expected an integer from 2 to 8"):
        preset("standard", {"army_size": 9})
    with pytest.raises(RuleError, match="unknown rule parameter 'lives'"):
        preset("standard", {"lives": 3})
    with pytest.raises(RuleError, match=r"first_place \(5\) must not exceed first_draw \(4\)"):
        preset("standard", {"first_draw": 4, "first_place": 5})
    with pytest.raises(RuleError, match="unknown Tales are Real rule set 'v4'"):
        preset("v4")


def test_setup_values_are_validated():
    assert people_of("schatten", 4) == ("schatten", "animalis", "schatten", "animalis")
    assert people_of("animalis,animalis", 2) == ("animalis", "animalis")
    with pytest.raises(RuleError, match="people 'elves' is not allowed; expected animalis or schatten"):
        people_of("elves", 2)
    with pytest.raises(RuleError, match="mode 'ffa' is not allowed; expected one of standard, 2v2"):
        TALES.resolve(setup={"mode": "ffa"})
    with pytest.raises(RuleError, match="unknown weight 'greed'"):
        TALES.resolve(setup={"bots": "heuristic:greed=2"})
    with pytest.raises(RuleError, match="3 given for 4 seats"):
        TALES.resolve(setup={"mode": "2v2", "bots": "random,random,random"})
    with pytest.raises(RuleError, match="unknown tales data file 'items'"):
        TALES.resolve(data={"items": "x"})


def test_mode_picks_the_preset_and_rules_override_it():
    assert TALES.resolve(setup={"mode": "survive-2v2"}).rules.ruleset == "survive-2v2"
    m = TALES.resolve(rules="standard", setup={"mode": "2v2"}, overrides={"game_rounds": 3})
    assert m.rules.ruleset == "standard" and m.rules.game_rounds == 3 and m.setup.seats == 4


def test_record_schema_has_every_rule_parameter():
    names = set(SCHEMA.names)
    assert {f.name for f in fields(preset("standard"))} - {"ruleset"} <= names
    for col in ("people", "champion", "first_side", "winner_side", "winner_team", "end_reason", "rounds", "turns",
                "weighted_losses", "destroyed"):
        assert col in names


def test_game_k_replays_alone_and_chunks_do_not_matter():
    m = TALES.resolve(setup={"mode": "2v2", "bots": "random,heuristic,heuristic,random"})
    whole = m.play_batch(42, 10, 12, engine="reference")["games"]
    assert whole.schema == m.schemas["games"] and whole.schema.names[:len(SCHEMA)] == SCHEMA.names and whole.num_rows == 12
    rows = whole.to_pylist()
    for k in (10, 15, 21):
        assert m.play_batch(42, k, 1, engine="reference")["games"].to_pylist()[0] == rows[k - 10]
        assert m.play_one(42, k, None) == rows[k - 10]
    parts = list(m.iter_batches(42, 10, 12, engine="reference", chunk=5))
    assert [p["games"].num_rows for p in parts] == [5, 5, 2]
    assert pa.concat_tables([p["games"] for p in parts]).to_pylist() == rows
    assert len({(r["winner_team"], r["fights"], r["rounds"]) for r in rows}) > 3     # the games differ


def test_fixed_seed_gives_fixed_games():
    a = play_game(TalesSetup(), preset("standard"), 7, 3)
    assert a == play_game(TalesSetup(), preset("standard"), 7, 3)
    assert a != play_game(TalesSetup(), preset("standard"), 8, 3)


def test_card_table_matches_the_games():
    m = TALES.resolve(setup={"mode": "standard"}, tables=("games", "cards"))
    out = m.play_batch(3, 0, 20, engine="reference")
    games, cards = out["games"].to_pylist(), out["cards"]
    assert cards.schema == CARD_SCHEMA
    rows = cards.to_pylist()
    for g in games:
        mine = [r for r in rows if r["game_index"] == g["game_index"]]
        for seat in (0, 1):
            creatures = [r for r in mine if r["seat"] == seat and r["kind"] == "creature"]
            assert sum(1 for r in creatures if not r["survived"]) == g["destroyed"][seat]
            assert sum(1 for r in creatures if r["survived"]) == g["survivors"][seat]
            assert [r["card"] for r in creatures if r["champion"]] == [g["champion"][seat]]
            assert all(r["won"] == (g["winner_team"] == seat) for r in mine if r["seat"] == seat)
        kills = [sum(r["kills"] for r in mine if r["seat"] == s and r["kind"] == "creature") for s in (0, 1)]
        assert kills == [g["destroyed"][1], g["destroyed"][0]]


def test_cli_play_prints_a_log_and_run_writes_parquet(tmp_path):
    runner = CliRunner()
    res = runner.invoke(app, ["play", "tales", "--mode", "2v2", "--seed", "3", "--engine", "reference"])
    assert res.exit_code == 0, res.output
    assert "== Tales are Real, 2v2" in res.output and "Fight 1:" in res.output and "result:" in res.output
    res = runner.invoke(app, ["play", "tales", "--mode", "survive", "--seed", "3", "--engine", "reference", "--json"])
    rec = json.loads(res.stdout)
    assert rec["mode"] == "survive" and rec["survive"] is True
    out = tmp_path / "t.parquet"
    res = runner.invoke(app, ["run", "tales", "--mode", "standard", "--games", "30", "--engine", "reference",
                              "--out", str(out), "--set", "game_rounds=3"])
    assert res.exit_code == 0, res.output
    import pyarrow.parquet as pq
    t = pq.read_table(out)
    assert t.num_rows == 30 and set(t.column("game_rounds").to_pylist()) == {3}
    assert max(t.column("rounds").to_pylist()) <= 3
    res = runner.invoke(app, ["play", "tales", "--mode", "duel", "--engine", "reference"])
    assert res.exit_code == 2 and "mode 'duel' is not allowed" in res.output
