"""What every registered game promises playtest, checked for each one the registry lists (a new game's
package gets these tests by registering its entry point): it is found and loads; its presets resolve;
every result column has a meaning; unknown setup values, data files and tables are refused in one
line, wherever they are given; both engines play the same records; every record keeps the basic
invariants its declaration states (game index sequence, winner against end reason, one value per seat);
and the SQL it brings parses and runs."""

from __future__ import annotations

from importlib import metadata

import duckdb
import pytest
from typer.testing import CliRunner

from cli.main import app
from cluster.spec import SpecError, parse_spec
from queries import library
from regress.metrics import KINDS, families
from sim.games import ENTRY_POINT_GROUP, GAMES, WINNER_RULES, EngineError, Game, Match
from sim.params import RuleError

NAMES = GAMES.names()
SEED = 20240601
REFERENCE_GAMES = 300           # both engines; the reference engine plays a few hundred games a second
CORE_GAMES = 3000               # the invariants, over the core's records

runner = CliRunner()


@pytest.fixture(scope="module", params=NAMES)
def game(request) -> Game:
    return GAMES[request.param]


@pytest.fixture(scope="module")
def core_games(game):
    """The default configuration's games from the core, with every result table."""
    m = game.resolve(tables=tuple(game.schemas))
    return m, m.play_batch(SEED, 0, CORE_GAMES, "core")


def test_the_registry_lists_every_game_its_entry_points_name():
    points = {ep.name: ep.value for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}
    assert NAMES == tuple(sorted(points)) and len(NAMES) >= 2
    assert sum(GAMES[n].default for n in NAMES) == 1 and GAMES.default.default
    with pytest.raises(RuleError, match=r"unknown game 'chess'; expected one of " + ", ".join(NAMES)):
        GAMES["chess"]
    assert "chess" not in GAMES and GAMES.get("chess") is None


def test_it_loads_as_a_game_of_its_own_name(game):
    assert isinstance(game, Game) and game.name in NAMES and GAMES[game.name] is game
    assert game.title and game.presets and game.default_preset in game.rule_presets
    assert list(game.schemas)[0] == "games" and game.setup_keys and game.data_keys
    assert set(game.end_reasons.values()) <= set(WINNER_RULES)
    assert game.outcome_columns and set(game.outcome_columns) <= set(game.schemas["games"].names)


def test_every_preset_resolves_to_its_rule_set(game):
    for name, rules in game.rule_presets.items():
        m = game.resolve(rules=name)
        assert isinstance(m, Match) and m.game == game.name and m.rules == rules
    default = game.resolve()
    assert default.tables == ("games",) and default.describe()["setup"].keys() == set(game.setup_keys)
    assert [key for key, _ in game.data_files(default.data)] == list(game.data_keys)


def test_its_bench_presets_resolve(game):
    labels = [p.label for p in game.bench_presets]
    assert game.bench_profiled in labels and len(set(labels)) == len(labels)
    for p in game.bench_presets:
        game.resolve(p.rules, p.overrides, p.setup)


def test_every_result_column_has_a_meaning(game):
    for table, schema in game.schemas.items():
        meanings = game.column_meanings(table)
        assert list(meanings) == schema.names
        assert not [c for c, text in meanings.items() if not text.strip()], f"{table}: columns without a meaning"
        stale = set(game.column_docs.get(table, {})) - set(schema.names)
        assert not stale, f"{table}: column docs of columns it does not have: {stale}"


@pytest.mark.parametrize("kind, given, what", [
    ("setup", {"no_such_value": 1}, "setup value"),
    ("data", {"no_such_file": "x.toml"}, "data file"),
    ("tables", ("games", "no_such_table"), "result table"),
])
def test_an_unknown_key_is_refused_in_one_line(game, kind, given, what):
    with pytest.raises(RuleError) as e:
        game.resolve(**{kind: given}, where="here")
    msg = str(e.value)
    key = next(k for k in given if k.startswith("no_such"))
    valid = {"setup": game.setup_keys, "data": game.data_keys, "tables": game.schemas}[kind]
    assert msg == f"here: unknown {game.name} {what} {key!r}; valid: {', '.join(valid)}"


def test_the_cli_and_a_sweep_spec_refuse_an_unknown_key_the_same_way(game):
    res = runner.invoke(app, ["play", game.name, "--data", "no_such_file=x.toml"])
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert res.exit_code == 2 and len(lines) == 1, res.output
    assert f"--data: unknown {game.name} data file 'no_such_file'; valid: {', '.join(game.data_keys)}" in lines[0]
    for key in ("setup", "data"):
        with pytest.raises(SpecError) as e:
            parse_spec({"game": game.name, "seed": 1, "games_per_cell": 10, key: {"no_such": "x"}}, source="s.toml")
        assert "\n" not in str(e.value) and str(e.value).startswith(f"s.toml: [{key}]: unknown {game.name}")


def test_core_and_reference_play_the_same_records(game):
    m = game.resolve(tables=tuple(game.schemas))
    core = m.play_batch(SEED, 0, REFERENCE_GAMES, "core")
    reference = m.play_batch(SEED, 0, REFERENCE_GAMES, "reference")
    assert list(core) == list(reference) == list(game.schemas)
    for table in game.schemas:
        assert core[table].schema == reference[table].schema == game.schemas[table], table
        assert core[table].to_pylist() == reference[table].to_pylist(), table
    assert m.play_one(SEED, 17) == core["games"].slice(17, 1).to_pylist()[0]


def test_the_game_index_runs_in_order_and_every_record_is_of_this_game(game, core_games):
    m, tables = core_games
    games = tables["games"]
    assert games.num_rows == CORE_GAMES and games.schema == game.schemas["games"]
    assert games.column("game_index").to_pylist() == list(range(CORE_GAMES))
    assert set(games.column("seed").to_pylist()) == {SEED}
    assert set(games.column("game").to_pylist()) == {game.name}
    assert set(games.column("data_digest").to_pylist()) == {m.data_digest}


def test_the_winner_agrees_with_the_end_reason(game, core_games):
    _, tables = core_games
    seen = set()
    for rec in tables["games"].to_pylist():
        rule = game.end_reasons.get(rec["end_reason"])
        assert rule is not None, f"game {rec['game_index']}: undeclared end reason {rec['end_reason']!r}"
        w = game.winner(rec)
        ok = {"winner": w >= 0, "none": w == -1, "either": w >= -1}[rule]
        assert ok, f"game {rec['game_index']}: end reason {rec['end_reason']} ({rule}) with winner {w}"
        assert w < rec[game.seats_column]
        assert game.result_line(rec).startswith(f"{rec['end_reason']}, ")
        seen.add(rec["end_reason"])
    assert seen, "no games"


def test_every_per_seat_list_has_one_value_per_seat(game, core_games):
    _, tables = core_games
    columns = game.per_seat_columns
    assert columns and set(columns) <= set(game.schemas["games"].names)
    for rec in tables["games"].to_pylist():
        seats = rec[game.seats_column]
        for c in columns:
            values = rec[c]
            per_round = values and isinstance(values[0], list)     # a list of lists: per round, then per seat
            lengths = {len(v) for v in values} if per_round else {len(values)}
            assert lengths <= {seats}, f"game {rec['game_index']}: {c} = {values} for {seats} seats"


def test_its_sql_parses_and_runs_on_its_records(game, core_games):
    _, tables = core_games
    con = duckdb.connect()
    con.execute(library.all_macros())
    con.register("games", tables["games"])
    c = game.compare_columns
    n, = con.execute(f"SELECT count(*) FROM games WHERE ({c.first_win})::TINYINT IN (0, 1) AND "
                     f"({c.winner})::INTEGER >= -1 AND ({c.draw})::TINYINT IN (0, 1) AND {c.unit} IN ('seat', 'team') "
                     f"AND ({c.units})::INTEGER >= 2 AND ({c.knockouts or '0'})::DOUBLE >= 0").fetchone()
    assert n == CORE_GAMES
    winners = con.execute(f"SELECT ({c.winner})::INTEGER FROM games ORDER BY game_index").fetchall()
    assert [w for (w,) in winners] == [game.winner(r) for r in tables["games"].to_pylist()]
    assert set(game.setup_columns) <= set(game.schemas["games"].names)
    own = [q for q in library.available() if q.path in game.query_files()]
    assert len(own) == len(game.query_files()) and all(q.game == game.name for q in own)
    fams = families(game.name)
    assert fams and all(f.kind in KINDS and f.question for f in fams)


@pytest.mark.parametrize("game", GAMES.names())
def test_a_configuration_beyond_the_cores_capacity_is_an_engine_error_before_any_game(game, monkeypatch):
    """Card lists longer than the core's fixed arrays: an EngineError naming the capacity (one line in the
    CLI, exit 2), raised by Match.check_engine before any game is played, never a ValueError traceback."""
    import importlib
    engine = importlib.import_module(f"sim.{game}.core_engine")
    m = GAMES[game].resolve()
    real = engine.core_inputs

    def too_many_cards(*args):
        inputs = real(*args)
        key = next(k for k in inputs if k in ("item_deck", "creatures"))   # a card list of fixed capacity
        inputs[key] = inputs[key] * 400
        return inputs

    monkeypatch.setattr(engine, "core_inputs", too_many_cards)
    with pytest.raises(EngineError, match="capacity"):
        m.check_engine("core")
    m.check_engine("reference")          # the reference engine has no fixed capacity
