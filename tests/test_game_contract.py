"""What every registered game promises playtest, checked for each one the registry lists (a new game's
package gets these tests by registering its entry point). The contract itself is shipped code,
``sim.kit.contract`` (a third game's tests call ``check_game``): it loads and declares what a game is; its
presets resolve; every result column has a meaning; unknown setup values, data files and tables are
refused in one line; every rule parameter has a value to test away from its default; both engines play
the same records; every record keeps the invariants its declaration states. Here besides: the CLI and a
sweep spec refuse unknown keys the same way, and the SQL a game brings parses and runs."""

from __future__ import annotations

from importlib import metadata

import duckdb
import pytest
from typer.testing import CliRunner

from cli.main import app
from cluster.spec import SpecError, parse_spec
from queries import sqlfiles
from regress.metrics import KINDS, families
from sim.games import ENTRY_POINT_GROUP, GAMES, EngineError, Game
from sim.kit import contract
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
    """The default configuration's games from the core (the games table; sim.kit.contract.check_records plays
    the first of them with every result table too)."""
    m = game.resolve()
    return m, m.play_batch(SEED, 0, CORE_GAMES, "core")


def test_the_registry_lists_every_game_its_entry_points_name():
    points = {ep.name: ep.value for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}
    assert NAMES == tuple(sorted(points)) and len(NAMES) >= 2
    assert sum(GAMES[n].default for n in NAMES) == 1 and GAMES.default.default
    with pytest.raises(RuleError, match=r"unknown game 'chess'; expected one of " + ", ".join(NAMES)):
        GAMES["chess"]
    assert "chess" not in GAMES and GAMES.get("chess") is None


@pytest.mark.parametrize("check", contract.CHECKS, ids=[c.__name__ for c in contract.CHECKS])
def test_the_shipped_contract(game, check):
    """sim.kit.contract: the checks a third game's own tests call (check_game), run here on every registered game."""
    check(game)


def broken(game, **changes) -> Game:
    """``game`` with class attributes changed, as a badly declared game would have them."""
    return type(f"Broken{type(game).__name__}", (type(game),), changes)()


@pytest.mark.parametrize("check, changes, needle", [
    (contract.check_declaration, {"default_preset": "nope"}, "its default preset among them"),
    (contract.check_columns, {"column_docs": {**GAMES[NAMES[0]].column_docs, "games": {
        **GAMES[NAMES[0]].column_docs["games"], "no_such_column": "x"}}}, "meanings of columns it does not"),
    (contract.check_presets, {"bench_profiled": "nope"}, "bench labels unique, profiled"),
    (contract.check_records, {"per_seat_columns": ("rounds",)}, "per-seat column rounds = .* is not a list"),
])
def test_the_contract_catches_a_badly_declared_game(check, changes, needle):
    game = broken(GAMES[NAMES[0]], **changes)
    with pytest.raises(contract.ContractError, match=needle):
        check(game) if check is not contract.check_records else check(game, games=20)


def test_a_game_missing_a_declaration_is_refused_where_the_registry_loads_it(monkeypatch):
    from sim import games as registry
    cls = type(GAMES[NAMES[0]])
    monkeypatch.delattr(cls, "core_module")
    fresh = registry.Registry()
    with pytest.raises(TypeError, match=f"game '{NAMES[0]}' .* does not declare core_module"):
        fresh[NAMES[0]]


def test_the_cli_and_a_sweep_spec_refuse_an_unknown_key_the_same_way(game):
    res = runner.invoke(app, ["play", game.name, "--data", "no_such_file=x.toml"])
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert res.exit_code == 2 and len(lines) == 1, res.output
    assert f"--data: unknown {game.name} data file 'no_such_file'; valid: {', '.join(game.data_keys)}" in lines[0]
    for key in ("setup", "data"):
        with pytest.raises(SpecError) as e:
            parse_spec({"game": game.name, "seed": 1, "games_per_cell": 10, key: {"no_such": "x"}}, source="s.toml")
        assert "\n" not in str(e.value) and str(e.value).startswith(f"s.toml: [{key}]: unknown {game.name}")


def test_its_sql_parses_and_runs_on_its_records(game, core_games):
    _, tables = core_games
    con = duckdb.connect()
    con.execute(sqlfiles.all_macros())
    con.register("games", tables["games"])
    c = game.compare_columns
    n, = con.execute(f"SELECT count(*) FROM games WHERE ({c.first_win})::TINYINT IN (0, 1) AND "
                     f"({c.winner})::INTEGER >= -1 AND ({c.draw})::TINYINT IN (0, 1) AND {c.unit} IN ('seat', 'team') "
                     f"AND ({c.units})::INTEGER >= 2 AND ({c.knockouts or '0'})::DOUBLE >= 0").fetchone()
    assert n == CORE_GAMES
    winners = con.execute(f"SELECT ({c.winner})::INTEGER FROM games ORDER BY game_index").fetchall()
    assert [w for (w,) in winners] == [game.winner(r) for r in tables["games"].to_pylist()]
    assert set(game.setup_columns) <= set(game.schemas["games"].names)
    own = [q for q in sqlfiles.available() if q.path in game.query_files()]
    assert len(own) == len(game.query_files()) and all(q.game == game.name for q in own)
    fams = families(game.name)
    assert fams and all(f.kind in KINDS and f.question for f in fams)


@pytest.mark.parametrize("game", GAMES.names())
def test_a_configuration_beyond_the_cores_capacity_is_an_engine_error_before_any_game(game, monkeypatch):
    """Card lists longer than the core's fixed arrays: an EngineError naming the capacity (one line in the
    CLI, exit 2), raised by Match.check_engine before any game is played, never a ValueError traceback."""
    import importlib
    engine = importlib.import_module(GAMES[game].core_module)
    m = GAMES[game].resolve()
    real = engine.core_inputs

    def too_many_cards(*args):
        inputs = real(*args)
        # the longest list the core is given (a deck, the creatures): every core array has a fixed capacity
        key = max((k for k, v in inputs.items() if isinstance(v, list)), key=lambda k: len(inputs[k]))
        inputs[key] = inputs[key] * 400
        return inputs

    monkeypatch.setattr(engine, "core_inputs", too_many_cards)
    with pytest.raises(EngineError, match="capacity"):
        m.check_engine("core")
    m.check_engine("reference")          # the reference engine has no fixed capacity
