"""Search bots (``mcts``, ``flat``): their specs, and their games in the Paws in Peril core.

The search (core/kit/search.pxi) decides a seat's top-level decisions by simulating ahead with the real
rules on determinized copies (core/paws/search.pxi). Held here: a spec parses to its parameters or one
clear error; a search bot's game replays alone from (seed, game index); the search cannot see what its
seat cannot (re-dealing the hidden cards leaves its decision unchanged); search-bot games keep the
record invariants; engines that cannot play a search bot refuse it before any game; and (slow) mcts
beats the heuristic in 4-player Paws.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from budget import examples

from sim.games import BatchRequest, EngineError, Match, get
from sim.kit.bots import ROLLOUTS, SEARCH_FIELDS, SEARCH_KINDS, SearchBot, SearchParams
from sim.params import RuleError, fields
from sim.paws.bots import parse_bot
from sim.paws.rules import PawsSetup, preset
from tests.test_core_declarations import parse_pxd
from tests.test_paws_invariants import check_record

ROOT = Path(__file__).resolve().parent.parent
PARAMS = {f.name: f for f in fields(SearchParams)}


# -- specs ------------------------------------------------------------------------------------------------
def test_the_kit_search_struct_is_the_python_declaration():
    structs, _ = parse_pxd(ROOT / "core/kit/types.pxd")
    assert [name for _, name, _ in structs["Search"]] == list(PARAMS)
    from core.paws_engine import SEARCH_FIELDS as CORE_FIELDS
    assert CORE_FIELDS == tuple(PARAMS)
    assert ROLLOUTS == ("random", "heuristic")        # Search.rollout is the rollout policy's bot kind


def valid_value(name: str) -> st.SearchStrategy:
    f = PARAMS[name]
    if name == "rollout":
        return st.sampled_from(ROLLOUTS)
    if name == "c":
        return st.floats(f.metadata["min"], f.metadata["max"], allow_nan=False)
    return st.integers(f.metadata["min"], min(f.metadata["max"], 10**6))


@settings(max_examples=examples(200), deadline=None)
@given(data=st.data())
def test_valid_search_specs_round_trip(data):
    kind = data.draw(st.sampled_from(SEARCH_KINDS))
    names = data.draw(st.lists(st.sampled_from([n for n in SEARCH_FIELDS[kind] if n not in ("preset", "model")]), unique=True))
    values = {n: data.draw(valid_value(n)) for n in names}
    spec = ":".join([kind, *(f"{n}={v}" for n, v in values.items())])
    bot = parse_bot(spec)
    assert type(bot) is SearchBot and bot.name == kind
    assert bot.params == dataclasses.replace(SearchParams(), **values)
    again = parse_bot(bot.spec)
    assert again.params == bot.params and again.spec == bot.spec
    assert bot.w == parse_bot("heuristic").w                  # the rollouts' heuristic: the default weights


def search_spec_text() -> st.SearchStrategy[str]:
    """A search kind with items: real parameter names (of either kind) or not, values good, bad or text."""
    names = st.sampled_from(list(PARAMS) + ["preset", "aggression"]) | st.text(max_size=6)
    values = (st.integers(-3, 2_000_000).map(str) | st.floats(allow_nan=True, allow_infinity=True).map(str)
              | st.sampled_from(ROLLOUTS + ("default", "", "1e3", "0x10")) | st.text(max_size=6))
    item = st.builds(lambda n, v, eq: f"{n}={v}" if eq else f"{n}{v}", names, values,
                     st.sampled_from([True, True, True, False]))
    return st.builds(lambda k, items: ":".join([k, *items]), st.sampled_from(SEARCH_KINDS), st.lists(item, max_size=4))


@settings(max_examples=examples(400), deadline=None)
@given(spec=search_spec_text())
@example(spec="mcts:0\n0=0:0\n0=0")          # a field given twice, its name holding a newline: still one line
@example(spec="mcts:model=1e+16")             # a model named as no model can be: said of the bot spec too
def test_any_search_spec_is_a_search_bot_or_one_clear_error(spec):
    try:
        bot = parse_bot(spec)
    except RuleError as e:
        message = str(e)
        assert message.startswith(f"bot {spec!r}: ") and "\n" not in message
        return
    kind = spec.split(":")[0]
    assert type(bot) is SearchBot and bot.name == kind
    for name, f in PARAMS.items():
        value = getattr(bot.params, name)
        if name == "rollout":
            assert value in ROLLOUTS
        else:
            assert f.metadata["min"] <= value <= f.metadata["max"] and math.isfinite(value)


@pytest.mark.parametrize("spec, message", [
    ("mcts:rollouts=4", r"^bot 'mcts:rollouts=4': unknown mcts parameter 'rollouts'; valid mcts parameters: "
                        r"iterations, rollout, depth, c, preset, model$"),
    ("flat:iterations=4", r"unknown flat parameter 'iterations'; valid flat parameters: rollouts, rollout, depth, preset, "
                          r"model$"),
    ("mcts:iterations=0", r"^bot 'mcts:iterations=0': iterations = '0' is not allowed; expected an integer from 1 to"),
    ("mcts:rollout=greedy", r"rollout = 'greedy' is not allowed; expected one of random, heuristic$"),
    ("mcts:c=-1", r"^bot 'mcts:c=-1': c = '-1' is not allowed; expected a number from 0 to 100$"),
    ("mcts:c=inf", r"c = 'inf' is not allowed"),
    ("flat:depth=x", r"depth = 'x' is not allowed; expected an integer from 0 to 100000$"),
    ("mcts:preset=wild", r"unknown weight preset 'wild'"),
    ("mcts:iterations", r"'iterations' is not of the form name=value$"),
])
def test_bad_search_specs_name_the_field_and_the_allowed_values(spec, message):
    with pytest.raises(RuleError, match=message):
        parse_bot(spec)


def test_a_search_spec_takes_a_weight_preset():
    assert parse_bot("mcts:preset=default:iterations=8").params.iterations == 8


# -- refused where it cannot be played ----------------------------------------------------------------------
@pytest.mark.parametrize("game, setup, engine, message", [
    ("paws", {"bots": "mcts,heuristic,heuristic,heuristic"}, "reference",
     r"^bot 'mcts': mcts is core-only; use engine = core$"),
    ("tales", {"mode": "standard", "bots": "mcts"}, "reference", r"^bot 'mcts': mcts is core-only; use engine = core$"),
])
def test_an_engine_without_search_bots_refuses_them_before_any_game(game, setup, engine, message):
    match = get(game).resolve(None, {}, setup)
    with pytest.raises(EngineError, match=message):
        match.check_engine(engine)
    with pytest.raises(EngineError, match=message):
        match.play_batch(1, 0, 3, engine)


@pytest.mark.parametrize("name", ["paws", "tales"])
def test_a_game_says_truly_whether_its_core_plays_search_bots(name):
    g = get(name)
    match = g.resolve(None, {}, {"bots": "mcts:iterations=2:depth=2", **({"mode": "standard"} if name == "tales" else {})})
    if g.search_bots:
        assert match.play_batch(1, 0, 2, "core")["games"].num_rows == 2
    else:
        with pytest.raises(EngineError, match="cannot play mcts yet"):
            match.check_engine("core")


def test_playtest_run_refuses_a_search_bot_on_the_reference_engine_in_one_line(tmp_path):
    from typer.testing import CliRunner
    from cli.main import app
    out = tmp_path / "r.parquet"
    res = CliRunner().invoke(app, ["run", "paws", "--games", "5", "--engine", "reference", "--bots", "mcts",
                                   "--out", str(out)])
    assert res.exit_code == 2, res.output
    assert "mcts is core-only; use engine = core" in res.output and "Traceback" not in res.output
    assert not out.exists()


def test_playtest_play_refuses_a_search_bot_on_the_reference_engine_in_one_line():
    """``play`` replays a search bot's game from the core's decision trace (tests/test_decision_trace.py);
    the reference engine alone cannot play one."""
    from typer.testing import CliRunner
    from cli.main import app
    res = CliRunner().invoke(app, ["play", "paws", "--bots", "mcts", "--seed", "3", "--engine", "reference"])
    assert res.exit_code == 2, res.output
    assert "mcts is core-only" in res.output and "unexpected" not in res.output


def test_playtest_bench_measures_bot_levels(tmp_path):
    import json
    from typer.testing import CliRunner
    from cli.main import app
    out = tmp_path / "bench.json"
    res = CliRunner().invoke(app, ["bench", "--game", "paws", "--bots", "heuristic", "--bots",
                                   "mcts:iterations=3:depth=4", "--bot-games", "3", "--out", str(out)])
    assert res.exit_code == 0, res.output
    levels = json.loads(out.read_text())["bot_levels"]
    assert [r["bots"] for r in levels] == ["heuristic", "mcts:iterations=3:depth=4"]
    assert levels[0]["rollouts_per_s"] == 0 < levels[1]["rollouts_per_s"]
    assert all(r["games"] == 3 and r["games_per_s"] > 0 and r["decisions_per_s"] > 0 for r in levels)
    res = CliRunner().invoke(app, ["bench", "--game", "tales", "--bots", "flat:rollouts=2:depth=4", "--bot-games", "3",
                                   "--out", str(out)])
    assert res.exit_code == 0, res.output
    levels = json.loads(out.read_text())["bot_levels"]
    assert [r["bots"] for r in levels] == ["flat:rollouts=2:depth=4"] and levels[0]["rollouts_per_s"] > 0


# -- games ----------------------------------------------------------------------------------------------
def core_games(bots, seed, start, count, counts=None, rules="v4", **setup):
    from sim.paws.cards import load_cards
    from sim.paws.core_engine import play_batch_core
    s = PawsSetup(bots=tuple(bots), **setup)
    return play_batch_core(BatchRequest(Match("paws", s, preset(rules), load_cards()), seed, start, count), counts)


MIXED = ("mcts:iterations=6:rollout=random", "heuristic", "flat:rollouts=2:depth=8", "mcts:iterations=4:depth=5:c=1.5")


def test_a_search_bots_game_replays_alone_from_seed_and_game_index():
    batch = core_games(MIXED, 31, 10, 6).to_pylist()
    for k in (0, 3, 5):
        alone = core_games(MIXED, 31, 10 + k, 1).to_pylist()
        assert alone == [batch[k]]


def test_the_core_counts_decisions_searches_and_rollouts():
    counts: dict = {}
    table = core_games(("mcts:iterations=7",) + ("heuristic",) * 3, 5, 0, 4, counts=counts)
    assert counts["searches"] > 0 and counts["rollouts"] == 7 * counts["searches"]   # one per iteration
    assert counts["decisions"] > counts["searches"]
    assert counts["decisions"] >= sum(table.column("turns").to_pylist())              # one End turn at least
    plain: dict = {}
    core_games(("heuristic",) * 4, 5, 0, 4, counts=plain)
    assert plain["searches"] == plain["rollouts"] == 0


# -- no cheating ----------------------------------------------------------------------------------------
def paused_search_positions(spec, n_positions, seed=8):
    """PausedGames stopped at decisions of seat 0 (a search bot) with a choice and hidden cards to re-deal."""
    from core.paws_scenario import PausedGame
    from sim.paws.cards import load_cards
    from sim.paws.core_engine import core_inputs
    setup = PawsSetup(bots=(spec, "heuristic", "heuristic", "heuristic"))
    inputs = core_inputs(setup, preset("v4"), load_cards())
    found = []
    for index in range(40):
        for stop in range(3, 200, 13):
            pg = PausedGame(inputs, seed, index, stop)
            if not pg.paused:
                break
            hidden = pg.hidden(0)
            if pg.seat == 0 and len(pg.options()) >= 3 and any(hidden["hands"].values()):
                found.append(pg)
                break
        if len(found) == n_positions:
            return found
    raise AssertionError("too few positions")


@pytest.mark.parametrize("spec", ["mcts:iterations=48:depth=6", "flat:rollouts=4:depth=6"])
def test_re_dealing_what_the_seat_cannot_see_does_not_change_its_decision(spec):
    changed = 0
    for i, pg in enumerate(paused_search_positions(spec, 6)):
        before = pg.hidden(0)
        choice = pg.search_choice(1000 + i)
        assert pg.hidden(0) == before                            # the search left the game as it was
        for redeal_seed in (1, 2):
            other = pg.copy()
            other.redeal(0, redeal_seed)
            after = other.hidden(0)
            assert sorted(sum(after["hands"].values(), []) + after["item_deck"]) == \
                sorted(sum(before["hands"].values(), []) + before["item_deck"])
            assert {s: len(h) for s, h in after["hands"].items()} == {s: len(h) for s, h in before["hands"].items()}
            changed += after != before
            assert other.options() == pg.options()
            assert other.search_choice(1000 + i) == choice
    assert changed >= 10                                         # the re-deals did move hidden cards


def test_the_search_is_not_blind_its_own_stream_decides_among_close_options():
    """The control for the test above: the same positions with other bot streams do not all decide alike,
    so equal decisions after a re-deal are not a search that ignores its simulations."""
    differs = 0
    for pg in paused_search_positions("mcts:iterations=8:depth=3", 6):
        choices = {pg.search_choice(seed) for seed in range(6)}
        differs += len(choices) > 1
    assert differs >= 1


# -- invariants ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("bots, setup, rules", [
    (("mcts:iterations=4:depth=10",) * 4, {}, "v4"),
    (("flat:rollouts=1:depth=6:rollout=random", "heuristic", "mcts:iterations=6:rollout=random:depth=12"),
     {"board": "explorer", "players": 3}, "v4"),
    (("mcts:iterations=5", "heuristic") * 2, {"mode": "teams"}, "v3"),
])
def test_record_invariants_over_search_bot_games(bots, setup, rules):
    s = PawsSetup(bots=tuple(bots), **setup)
    rows = core_games(bots, 77, 0, 80, rules=rules, **setup).to_pylist()
    for rec in rows:
        check_record(rec, s)
    assert {rec["end_reason"] for rec in rows} & {"vp", "last_alive"}


@pytest.mark.slow
@pytest.mark.parametrize("setup", [{}, {"board": "explorer", "players": 2}, {"mode": "teams"}])
def test_record_invariants_over_a_thousand_small_budget_search_games(setup):
    bots = ("mcts:iterations=2:depth=4", "flat:rollouts=1:depth=4", "heuristic", "mcts:iterations=3:depth=6")
    s = PawsSetup(bots=bots[:setup.get("players", 4)], **setup)
    rows = core_games(s.bots, 78, 0, 1000, **setup).to_pylist()
    for rec in rows:
        check_record(rec, s)
    assert len(rows) == 1000 and {rec["end_reason"] for rec in rows} & {"vp", "last_alive"}


# -- strength (slow) --------------------------------------------------------------------------------------------
def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    p = wins / n
    mid, half = p + z * z / (2 * n), z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (mid - half) / (1 + z * z / n), (mid + half) / (1 + z * z / n)


@pytest.mark.slow
def test_mcts_beats_the_heuristic_in_four_player_paws_seat_rotated():
    """mcts in each seat in turn against three heuristics, 20 games a seat: its win share's 95% Wilson
    interval lies above the fair share 1/4 (a false pass needs a 2.5% tail with a fair bot)."""
    spec, per_seat = STRONG, 20
    wins = n = 0
    for seat in range(4):
        bots = ["heuristic"] * 4
        bots[seat] = spec
        winners = core_games(bots, 2026, 0, per_seat).column("winner_seat").to_pylist()
        wins += winners.count(seat)
        n += per_seat
    lo, hi = wilson(wins, n)
    assert lo > 0.25, f"{spec}: {wins}/{n} wins, 95% interval [{lo:.3f}, {hi:.3f}]"


STRONG = "mcts:iterations=256:depth=20"
