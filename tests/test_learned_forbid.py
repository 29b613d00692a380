"""Restricted play of the learned bots (``learned:model=NAME:forbid=OPTION``; docs/restricted-play.md).

Held here, for every option of both games and the shipped models: the core's restricted learned games are the
reference engine's record for record (replayed from their decision traces, the reference checking every choice
of the restricted seat against the game's one ``forbidden`` rule); the restricted seat never takes the
forbidden kind while another option is listed, and the unrestricted bot does take it in the same games (so the
check can fail); a restricted game is the unrestricted game of the same deal until the unrestricted bot's first
forbidden choice, where the reference refuses the unrestricted trace (the other options are scored as the
unrestricted bot scores them); ``forbid=none`` plays the unrestricted bot's games bit for bit; ``playtest
restrict tales --bot learned:model=tales-2`` answers end to end (equip dominant); bad specs are refused in one
line (exit 2 from the CLI), a search bot with a model included.
"""

from __future__ import annotations

import json

import pytest
from budget import thin
from typer.testing import CliRunner

from cli.main import app
from measures.restrict import sweep as restrict
from sim.games import GAMES
from sim.kit import trace
from sim.params import RuleError

runner = CliRunner()
MODEL = {"paws": "paws-2", "tales": "tales-2"}
# the setups each option is played in (turn about: every option meets more than one)
SETUPS = {"paws": ({"board": "explorer", "players": 4}, {"players": 4}, {"mode": "teams"}, {"players": 2}),
          "tales": ({"mode": "standard"}, {"mode": "survive"}, {"mode": "2v2"})}
GAMES_EACH = {"paws": 40, "tales": 80}      # per option: 320 games of each game in all


def _cases():
    return [(name, o) for name in ("paws", "tales") for o in restrict.forbiddable(name)]


def _match(name: str, setup: dict, first: str):
    """``first`` in seat 0, the unrestricted learned bot in every other seat."""
    game = GAMES[name]
    seats = len(game.resolve(None, {}, setup).setup.bots)
    return game.resolve(None, {}, {**setup, "bots": [first] + [f"learned:model={MODEL[name]}"] * (seats - 1)})


def _core(match, seed: int, count: int):
    """The core's records and decision traces of games 0..count-1."""
    tables = trace.trace_match(match).play_batch(seed, 0, count, "core")
    return tables["games"].to_pylist(), [t.as_py() for t in tables[trace.TABLE]["trace"]]


def _spy(monkeypatch, name: str):
    """Record (spec, the kind of each option listed, the kind chosen) of every choice a learned seat takes in a
    replay, by the game's forbidden rule (the option's kind: the forbiddable option it is, else "other")."""
    from sim.paws.bots.heuristic import forbidden as paws_rule
    from sim.tales.bots.heuristic import forbidden as tales_rule
    rule = {"paws": paws_rule, "tales": tales_rule}[name]
    options_of = restrict.forbiddable(name)
    seen = []
    decide = trace.ScriptedBot.decide

    def kind_of(kind, option):
        return next((o for o in options_of if rule(o, kind, option)), "other")

    def spy(self, g, seat, kind, options):
        k = decide(self, g, seat, kind, options)
        kinds = [kind_of(kind, o) for o in options]
        seen.append((self.spec, kinds, kinds[k]))
        return k
    monkeypatch.setattr(trace.ScriptedBot, "decide", spy)
    return seen


@pytest.mark.parametrize("name, option", thin(_cases(), every=4))
def test_restricted_learned_games_are_the_reference_engines_and_never_take_the_forbidden_kind(monkeypatch, name,
                                                                                              option):
    seen = _spy(monkeypatch, name)
    setups = SETUPS[name]
    i = restrict.forbiddable(name).index(option)
    checked = 0
    for setup in (setups[0], setups[1 + i % (len(setups) - 1)]):     # Explorer (place_tile) or standard, and another
        for first in (f"learned:model={MODEL[name]}:forbid={option}", f"learned:model={MODEL[name]}"):
            match = _match(name, setup, first)
            records, blobs = _core(match, 17, GAMES_EACH[name] // 2)
            for index, (record, blob) in enumerate(zip(records, blobs)):
                replayed = trace.replay(match, 17, index, blob)
                assert {k: replayed[k] for k in record} == record, (name, option, setup, index)
                checked += 1
    assert checked == 2 * GAMES_EACH[name]
    restricted = [s for s in seen if s[0].endswith(f":forbid={option}")]
    free = [s for s in seen if ":forbid=" not in s[0]]
    assert restricted and all(chosen != option for _, kinds, chosen in restricted if set(kinds) != {option})
    # the unrestricted bot takes it in these games, where it has another option (so the check can fail); the
    # Tales model never swaps nor takes a card off: those two are checked by the cost test below
    if (name, option) not in (("tales", "swap"), ("tales", "take_off")):
        assert any(chosen == option and set(kinds) != {option} for _, kinds, chosen in free), (name, option)


@pytest.mark.parametrize("name, option", [("paws", "invade"), ("paws", "move"), ("paws", "buy"), ("tales", "equip"),
                                          ("tales", "potion")])
def test_a_restricted_game_is_the_unrestricted_one_until_its_first_forbidden_choice(name, option):
    """The same deal (seed, game index): the traces agree until the unrestricted bot's first choice of the
    forbidden kind, and the reference engine refuses the unrestricted trace for the restricted seat at exactly
    that decision. So the other options are scored as the unrestricted bot scores them (the heuristic's pick, a
    feature, is the unrestricted heuristic's)."""
    setup = SETUPS[name][0]
    free = _match(name, setup, f"learned:model={MODEL[name]}")
    tied = _match(name, setup, f"learned:model={MODEL[name]}:forbid={option}")
    _, free_blobs = _core(free, 23, 60)
    _, tied_blobs = _core(tied, 23, 60)
    differed = 0
    for index, (a, b) in enumerate(zip(free_blobs, tied_blobs)):
        if a == b:
            continue
        ca, cb = trace.decode(a), trace.decode(b)
        first = next(i for i, (x, y) in enumerate(zip(ca, cb)) if x != y)
        with pytest.raises(trace.TraceMismatch, match=rf"^decision {first + 1} \(.*a kind it is forbidden, while "
                                                      r"another option was listed$"):
            trace.replay(tied, 23, index, a)
        differed += 1
    assert differed >= 10, differed


@pytest.mark.parametrize("name", ["paws", "tales"])
def test_forbid_none_is_the_unrestricted_learned_bot_bit_for_bit(name):
    for setup in SETUPS[name][:2]:
        plain = trace.trace_match(_match(name, setup, f"learned:model={MODEL[name]}")).play_batch(5, 0, 300, "core")
        none = trace.trace_match(_match(name, setup, f"learned:model={MODEL[name]}:forbid=none")).play_batch(
            5, 0, 300, "core")
        assert plain[trace.TABLE].equals(none[trace.TABLE])
        for table in plain:
            if table != trace.TABLE:
                a, b = plain[table], none[table]
                assert (a.drop(["bots"]) if "bots" in a.schema.names else a).equals(
                    b.drop(["bots"]) if "bots" in b.schema.names else b), table


def test_playtest_restrict_answers_for_the_learned_bot_end_to_end(tmp_path):
    """``playtest restrict tales --bot learned:model=tales-2 --games 100``: a sweep like the heuristic's, named by
    the model's digest; equip is dominant; the folder passes status --verify and answers again with --from."""
    out = tmp_path / "lt"
    res = runner.invoke(app, ["restrict", "tales", "--bot", "learned:model=tales-2", "--games", "100", "--out",
                              str(out), "--workers", "1", "--quiet"])
    assert res.exit_code == 0, res.output
    assert "18 cells x 100 games = 1,800 games to play" in " ".join(res.stderr.split())
    r = json.loads((out / "restrict.json").read_text())
    assert r["bot"].startswith("learned:model=tales-2@") and r["line_ups"] == ["tales standard", "tales survive"]
    by = {o["option"]: o for o in r["options"]}
    assert set(by) == set(restrict.forbiddable("tales")) and all(o["games"] == 400 for o in by.values())
    assert by["equip"]["verdict"] == "dominant" and by["equip"]["cost_95"][0] > 0.2, by["equip"]
    assert by["equip"]["restricted"] == r["bot"] + ":forbid=equip"
    assert "forbid equip: dominant" in res.stdout
    status = runner.invoke(app, ["status", str(out), "--verify"])
    assert status.exit_code == 0 and "the folder is whole" in status.output, status.output
    again = runner.invoke(app, ["restrict", "tales", "--from", str(out)])
    assert again.exit_code == 0 and again.stdout == res.stdout


@pytest.mark.parametrize("args, message", [
    (["paws", "--bot", "learned:model=paws-2:forbid=invade"], r"without forbid="),
    (["paws", "--bot", "mcts:iterations=4:model=paws-2"], r"forbids options of a heuristic or learned bot"),
    (["paws", "--bot", "flat:rollouts=2:model=paws-2"], r"forbids options of a heuristic or learned bot"),
    (["paws", "--bot", "random"], r"forbids options of a heuristic or learned bot"),
    (["paws", "--bot", "learned:model=no-such-model"], r"no model 'no-such-model'"),
    (["tales", "--bot", "learned:model=tales-2", "--forbid", "invade"], r"tales has no such option"),
])
def test_bad_learned_specs_are_one_line_and_exit_2_before_any_game(tmp_path, args, message):
    import re
    res = runner.invoke(app, ["restrict", *args, "--out", str(tmp_path / "out")])
    lines = [x for x in res.stderr.splitlines() if x.strip()]
    assert res.exit_code == 2 and len(lines) == 1 and re.search(message, lines[0]), res.output
    assert not (tmp_path / "out" / "manifest.json").exists()


@pytest.mark.parametrize("spec, message", [
    ("learned:model=paws-2:forbid=fly", r"forbid"),
    ("mcts:iterations=8:model=paws-2:forbid=invade", r"unknown mcts parameter 'forbid'"),
    ("flat:rollouts=2:model=paws-2:forbid=invade", r"unknown flat parameter 'forbid'"),
])
def test_a_spec_with_a_bad_forbid_or_a_search_with_forbid_is_refused(spec, message):
    with pytest.raises(RuleError, match=message):
        GAMES["paws"].resolve(None, {}, {"players": 2, "bots": [spec, "heuristic"]}, {})
    res = runner.invoke(app, ["play", "paws", "--bots", f"{spec},heuristic", "--seed", "1"])
    lines = [x for x in res.stderr.splitlines() if x.strip()]
    assert res.exit_code == 2 and len(lines) == 1, res.output
