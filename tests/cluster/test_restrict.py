"""Restricted play (cluster/restrict.py, ``playtest restrict``; docs/restricted-play.md).

Held here: a heuristic bot forbidden an option plays identically on both engines (every option of both
games, in every bench configuration); the reference bot never takes the forbidden kind while it has another,
and the unrestricted bot does take it in the same games (so the check can fail); an option the bot never
takes costs exactly nothing on common random numbers (every paired game is the same game), an option the
game cannot be played without (Paws: moving) is dominant; the verdicts at their borders; bad input is one
line, exit 2, before any game.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from cli.main import app
from cluster import restrict
from sim.games import GAMES
from sim.kit.contract import contexts, first_difference

runner = CliRunner()


def _cases():
    return [(name, o) for name in ("paws", "tales") for o in restrict.forbiddable(name)]


@pytest.mark.parametrize("name, option", _cases())
def test_a_restricted_bot_plays_the_same_games_on_both_engines(name, option):
    game = GAMES[name]
    checked = 0
    for i, (label, preset, base, setup) in enumerate(contexts(game)):
        if setup.get("bots") == "random":
            continue
        probe = game.resolve(rules=preset, overrides=base, setup=setup)
        seats = len(probe.setup.bots)
        bots = [f"heuristic:forbid={option}"] + ["heuristic"] * (seats - 1)
        match = game.resolve(rules=preset, overrides=base, setup={**setup, "bots": bots}, tables=tuple(game.schemas))
        assert first_difference(match, 41, 100 * i, 12) is None, (label, option)
        checked += 1
    assert checked >= 2


def _spy_choices(monkeypatch, cls, kinds_of):
    """Record (seat, the kind of each option listed, the kind chosen) of every decision a reference heuristic
    bot takes whose options ``kinds_of(kind, options)`` classifies (None: not recorded)."""
    seen = []
    decide = cls.decide

    def spy(self, g, seat, kind, options):
        choice = decide(self, g, seat, kind, options)
        kinds = kinds_of(kind, options)
        if kinds is not None:
            seen.append((seat, self.w.forbid, kinds, kinds[choice]))
        return choice
    monkeypatch.setattr(cls, "decide", spy)
    return seen


@pytest.mark.parametrize("option", ["move", "invade", "buy", "play_item"])
def test_paws_a_forbidden_action_is_never_taken_while_another_is_listed(monkeypatch, option):
    from sim.paws.bots.heuristic import FORBID, HeuristicBot
    from sim.paws.kinds import Action, Decision
    seen = _spy_choices(monkeypatch, HeuristicBot, lambda kind, options: [FORBID[a[0]] if a[0] != Action.END_TURN
                                                                          else "end_turn" for a in options]
                        if kind == Decision.ACTION else None)
    for bots in ([f"heuristic:forbid={option}", "heuristic", "heuristic", "heuristic"],
                 ["heuristic"] * 4):
        GAMES["paws"].resolve(None, {}, {"players": 4, "bots": bots}, {}).play_batch(3, 0, 25, "reference")
    restricted = [s for s in seen if s[0] == 0 and s[1] == option]
    free = [s for s in seen if s[1] == "none"]
    assert restricted and all(chosen != option for _, _, kinds, chosen in restricted if set(kinds) != {option})
    assert any(chosen == option for _, _, _, chosen in free)            # the unrestricted bot does take it


@pytest.mark.parametrize("option", ["equip", "swap", "potion"])
def test_tales_a_forbidden_option_is_never_taken_while_another_is_listed(monkeypatch, option):
    from sim.tales.bots.heuristic import FORBID, HeuristicBot
    from sim.tales.kinds import Act, Decision

    def kinds_of(kind, options):
        if kind == Decision.EQUIP:
            return ["pass" if a[0] == Act.PASS else FORBID[a[0]] for a in options]
        if kind == Decision.POTION:
            return ["none" if h < 0 else "potion" for h in options]
        return None
    seen = _spy_choices(monkeypatch, HeuristicBot, kinds_of)
    for mode in ("standard", "2v2"):
        for first in (f"heuristic:forbid={option}", "heuristic"):
            bots = [first] + ["heuristic"] * (3 if mode == "2v2" else 1)
            GAMES["tales"].resolve(None, {}, {"mode": mode, "bots": bots}, {}).play_batch(3, 0, 40, "reference")
    restricted = [s for s in seen if s[1] == option]
    free = [s for s in seen if s[1] == "none"]
    assert restricted and all(chosen != option for _, _, kinds, chosen in restricted if set(kinds) != {option})
    assert any(chosen == option for _, _, _, chosen in free)


def test_an_option_the_bot_never_takes_costs_exactly_nothing_and_moving_is_dominant():
    """The Tales heuristic never takes a card back off a creature (it scores -1 against passing's 0): forbidding
    it leaves every game as it was, so each paired difference is 0 and the verdict is useless. A Paws bot that
    may not move never leaves its start: forbidding moves is dominant."""
    row = restrict.option_row("tales", "heuristic", "take_off", 5, 200)
    assert row["cost"] == 0 and row["cost_95"] == [0, 0] and row["games"] == 800
    assert restrict.verdict(row["cost"], *row["cost_95"]) == "useless"
    row = restrict.option_row("paws", "heuristic", "move", 5, 100)
    assert restrict.verdict(row["cost"], *row["cost_95"]) == "dominant", row
    assert row["cost_95"][0] > 0.1


@pytest.mark.parametrize("cost, low, high, want", [
    (0.08, 0.051, 0.1, "dominant"), (0.06, 0.049, 0.07, "matters"), (0.0, -0.01, 0.01, "useless"),
    (0.0, -0.011, 0.01, "unclear"), (-0.02, -0.03, -0.001, "overused"), (0.01, 0.001, 0.02, "matters"),
])
def test_verdicts_at_their_borders(cost, low, high, want):
    assert restrict.verdict(cost, low, high) == want


def test_the_command_runs_end_to_end_and_writes_its_answer_and_page(tmp_path, ray_local):
    from tests.test_report import open_page
    out, page = tmp_path / "r.json", tmp_path / "r.html"
    res = runner.invoke(app, ["restrict", "tales", "--forbid", "take_off,equip", "--games", "50", "--out", str(out),
                              "--html", str(page)])
    assert res.exit_code == 0, res.output
    found = open_page(page, tmp_path / "r.png")
    assert not found["errors"] and found["sections"] == ["answer", "table"]
    assert found["images"] == found["decoded"] == 1 and found["rendered"] == "1"
    assert "forbid equip: dominant" in found["text"] and "Bots, not people" in found["text"]
    result = json.loads(out.read_text())
    by = {r["option"]: r for r in result["options"]}
    assert set(by) == {"take_off", "equip"} and by["take_off"]["verdict"] == "useless"
    assert by["equip"]["cost"] > 0.2 and by["equip"]["verdict"] == "dominant"
    assert "forbid equip: dominant" in res.stdout and "800 games to play" in res.stderr
    assert np.isclose(by["equip"]["cost"], np.mean([lu["cost"] for lu in by["equip"]["line_ups"]]))


@pytest.mark.parametrize("args, message", [
    (["paws", "--forbid", "fly"], r"--forbid 'fly': paws has no such option; allowed: move, loot"),
    (["tales", "--forbid", "invade"], r"--forbid 'invade': tales has no such option; allowed: swap, equip"),
    (["paws", "--bot", "mcts:iterations=4"], r"restricted play forbids options of a heuristic bot"),
    (["paws", "--bot", "heuristic:forbid=move"], r"without forbid="),
    (["paws", "--bot", "heuristic:aggression=99"], r"aggression"),
    (["paws", "--threshold", "2"], r"--threshold 2.0 is not allowed; expected a share from 0 to 1"),
    (["paws", "--margin", "nan"], r"--margin nan is not allowed"),
    (["paws", "--games", "1"], r"--games 1 is out of range"),
    (["chess"], r"chess"),
])
def test_bad_input_is_one_line_and_exit_2_before_any_game(args, message):
    import re
    res = runner.invoke(app, ["restrict", *args])
    lines = [x for x in res.stderr.splitlines() if x.strip()]
    assert res.exit_code == 2 and len(lines) == 1 and re.search(message, lines[0]), res.output


@pytest.mark.parametrize("spec", ["learned:model=paws-2:forbid=invade", "mcts:iterations=8:forbid=invade"])
def test_forbid_is_the_heuristics_alone(spec):
    from sim.params import RuleError
    with pytest.raises(RuleError, match="forbid|unknown mcts parameter"):
        GAMES["paws"].resolve(None, {}, {"players": 2, "bots": [spec, "heuristic"]}, {})
