"""Restricted play (measures/restrict/, ``playtest restrict``; docs/restricted-play.md).

Held here: a heuristic bot forbidden an option plays identically on both engines (every option of both
games, in every bench configuration); the reference bot never takes the forbidden kind while it has another,
and the unrestricted bot does take it in the same games (so the check can fail); an option the bot never
takes costs exactly nothing on common random numbers (every paired game is the same game), an option the
game cannot be played without (Paws: moving) is dominant; the sweep's base cell pairs as the re-played
unrestricted bot did; the folder is a real sweep (status --verify, --resume after a deleted part gives the same
answer byte for byte, a damaged part refused), the answer from the folder is the one printed, any sweep laid
out this way is answered; the verdicts at their borders; bad input is one line, exit 2, before any game.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from budget import thin
from typer.testing import CliRunner

from cli.main import app
from measures.restrict import sweep as restrict
from sim.games import GAMES
from sim.kit.contract import both_engines, contexts, first_difference

runner = CliRunner()


def _cases():
    return [(name, o) for name in ("paws", "tales") for o in restrict.forbiddable(name)]


@pytest.mark.parametrize("name, option", thin(_cases(), every=4))
def test_a_restricted_bot_plays_the_same_games_on_both_engines(name, option):
    game = GAMES[name]
    checked = 0
    for i, (label, preset, base, setup) in enumerate(contexts(game)):
        if setup.get("bots") == "random":
            continue
        probe = game.resolve(rules=preset, overrides=base, setup=setup)
        seats = len(probe.setup.bots)
        bots = [f"heuristic:forbid={option}"] + ["heuristic"] * (seats - 1)
        match = game.resolve(rules=preset, overrides=base, setup={**setup, "bots": bots}, tables=both_engines(game))
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


def _sweep(tmp_path, *args):
    """``playtest restrict ARGS --out DIR --quiet``: the result's exit code checked, (DIR, result, the answer)."""
    out = tmp_path / "sweep"
    res = runner.invoke(app, ["restrict", *args, "--out", str(out), "--quiet"])
    assert res.exit_code == 0, res.output
    return out, res, json.loads((out / "restrict.json").read_text())


def test_an_option_the_bot_never_takes_costs_exactly_nothing_and_moving_is_dominant(tmp_path):
    """The Tales heuristic never takes a card back off a creature (it scores -1 against passing's 0): forbidding
    it leaves every game as it was, so each paired difference is 0 and the verdict is useless. A Paws bot that
    may not move never leaves its start: forbidding moves is dominant."""
    _, _, r = _sweep(tmp_path / "t", "tales", "--forbid", "take_off", "--games", "200", "--seed", "5")
    row = r["options"][0]
    assert row["cost"] == 0 and row["cost_95"] == [0, 0] and row["games"] == 800 and row["verdict"] == "useless"
    _, _, r = _sweep(tmp_path / "p", "paws", "--forbid", "move", "--games", "100", "--seed", "5")
    row = r["options"][0]
    assert row["verdict"] == "dominant" and row["cost_95"][0] > 0.1, row


def test_the_sweep_pairs_as_the_bare_tasks_did():
    """The base cell serves every option: the same numbers as re-playing the unrestricted bot per option
    (cluster.train.gains, the paired estimate of tune-bot), from the sweep's rows."""
    from cluster.spec import parse_spec
    from cluster.train import gains
    spec = parse_spec(restrict.sweep_raw("tales", "heuristic", ["equip"], 3, 40))
    assert [c.values["bots"] for c in spec.cells[:3]] == [["heuristic"] * 2, ["heuristic:forbid=equip", "heuristic"],
                                                          ["heuristic", "heuristic:forbid=equip"]]
    assert len(spec.cells) == 6 and restrict.games_to_play("tales", "heuristic", ["equip"], 40) == 240
    import duckdb
    from measures.restrict import answer as qr
    con = duckdb.connect()
    tables = [c.match.play_batch(3, 0, 40)["games"] for c in spec.cells]
    import pyarrow as pa
    con.register("games", pa.concat_tables([t.append_column("cell", pa.array([c.id] * t.num_rows))
                                            for c, t in zip(spec.cells, tables)]))
    edges = qr.seat_edges(con, GAMES["tales"], [])
    old = gains("tales", "heuristic:forbid=equip", "heuristic", "heuristic", 3, 40)
    r0, b0 = edges["c001"][1][:, 0], edges["c000"][1][:, 0]
    r1, b1 = edges["c002"][1][:, 1], edges["c000"][1][:, 1]
    from cluster.train import paired_gain
    assert paired_gain("x", np.concatenate([r0, r1]), np.concatenate([b0, b1])).diff == old[0].diff


@pytest.mark.parametrize("cost, low, high, want", [
    (0.08, 0.051, 0.1, "dominant"), (0.06, 0.049, 0.07, "matters"), (0.0, -0.02, 0.02, "useless"),
    (0.0, -0.023, 0.023, "useless"), (0.0, -0.025, 0.025, "unclear"), (-0.04, -0.06, -0.02, "overused"),
    (0.03, 0.021, 0.039, "matters"), (0.005, 0.003, 0.008, "negligible"), (-0.005, -0.008, -0.003, "negligible"),
])
def test_verdicts_at_their_borders(cost, low, high, want):
    """Useless and negligible by two one-sided tests against the 2-point margin: the 90% interval (0.84 of the 95%
    half-width) inside +-2 points; buy's +0.5 [+0.3, +0.8] of the issue is negligible, not useless."""
    from measures.restrict.answer import verdict
    said, needed = verdict(cost, low, high, 1000)
    assert said == want
    assert (needed is not None) == (want == "unclear")


@pytest.mark.browser
def test_the_command_runs_a_sweep_and_answers_from_its_folder(tmp_path):
    """The folder is an ordinary sweep: status --verify passes; the answer read back from the folder (--from,
    restricted_play) is the one the command printed and wrote; a deleted part is played again by --resume,
    the answer the same byte for byte; the cost is said before any game."""
    from tests.test_report import open_page
    from measures.restrict.answer import restricted_play
    page, also = tmp_path / "r.html", tmp_path / "r.json"
    out, res, result = _sweep(tmp_path, "tales", "--forbid", "take_off,equip", "--games", "50", "--html", str(page),
                              "--json", str(also))
    assert "10 cells x 50 games = 500 games to play" in " ".join(res.stderr.split())
    assert res.stderr.index("games to play") < res.stderr.index("500 games in")
    found = open_page(page, tmp_path / "r.png")
    assert not found["errors"] and found["sections"] == ["answer", "table"]
    assert found["images"] == found["decoded"] == 1 and found["rendered"] == "1"
    assert "forbid equip: dominant" in found["text"] and "Bots, not people" in found["text"]
    by = {r["option"]: r for r in result["options"]}
    assert set(by) == {"take_off", "equip"} and by["take_off"]["verdict"] == "useless"
    assert by["equip"]["cost"] > 0.2 and by["equip"]["verdict"] == "dominant" and by["equip"]["games"] == 200
    assert "forbid equip: dominant" in res.stdout
    assert np.isclose(by["equip"]["cost"], np.mean([lu["cost"] for lu in by["equip"]["line_ups"]]))
    text = (out / "restrict.json").read_text()
    assert also.read_text() == text and json.loads(text) == restricted_play(out)
    again = runner.invoke(app, ["restrict", "tales", "--from", str(out), "--json", str(tmp_path / "from.json")])
    assert again.exit_code == 0 and (tmp_path / "from.json").read_text() == text and again.stdout == res.stdout

    status = runner.invoke(app, ["status", str(out), "--verify"])
    assert status.exit_code == 0 and "the folder is whole" in status.output, status.output
    (out / "games" / "cell=c003" / "part-00000.parquet").unlink()
    resumed = runner.invoke(app, ["restrict", "tales", "--forbid", "take_off,equip", "--games", "50", "--out",
                                  str(out), "--resume", "--quiet"])
    assert resumed.exit_code == 0 and "1 parts written, 9 already done" in " ".join(resumed.stderr.split())
    assert (out / "restrict.json").read_text() == text and resumed.stdout == res.stdout


def test_a_damaged_part_is_refused_and_resume_plays_it_again(tmp_path):
    out, _, result = _sweep(tmp_path, "tales", "--forbid", "equip", "--games", "30")
    part = out / "games" / "cell=c001" / "part-00000.parquet"
    data = bytearray(part.read_bytes())
    data[len(data) // 2] ^= 0xFF
    part.write_bytes(bytes(data))
    bad = runner.invoke(app, ["restrict", "tales", "--from", str(out)])
    lines = [x for x in bad.stderr.splitlines() if x.strip()]
    assert bad.exit_code == 2 and len(lines) == 1 and "cell=c001/part-00000.parquet" in lines[0], bad.output
    assert "playtest status --verify" in lines[0]
    resumed = runner.invoke(app, ["restrict", "tales", "--forbid", "equip", "--games", "30", "--out", str(out),
                                  "--resume", "--quiet"])
    assert resumed.exit_code == 0 and "corrupt 1" in " ".join(resumed.stderr.split()), resumed.output
    assert json.loads((out / "restrict.json").read_text()) == result


def test_any_sweep_laid_out_as_restricted_play_gets_the_answer_and_others_none(tmp_path):
    """The layout comes from the cells' bots: a sweep written by hand with a base cell and a forbid= cell is
    answered; a sweep of other cells is not a restricted-play layout (None; --from refuses it in one line)."""
    from measures.restrict.answer import restricted_play
    spec = tmp_path / "s.toml"
    spec.write_text('game = "tales"\nseed = 4\ngames_per_cell = 30\n[setup]\nmode = "standard"\n'
                    '[[cells]]\nbots = ["heuristic", "heuristic"]\n'
                    '[[cells]]\nbots = ["heuristic", "heuristic:forbid=equip"]\n')
    res = runner.invoke(app, ["sweep", str(spec), "--out", str(tmp_path / "a"), "--no-progress"])
    assert res.exit_code == 0, res.output
    r = restricted_play(tmp_path / "a")
    assert [o["option"] for o in r["options"]] == ["equip"] and r["options"][0]["games"] == 30
    assert r["line_ups"] == ["tales standard"]
    spec.write_text('game = "tales"\nseed = 4\ngames_per_cell = 10\n[grid]\nmode = ["standard", "survive"]\n')
    res = runner.invoke(app, ["sweep", str(spec), "--out", str(tmp_path / "b"), "--no-progress"])
    assert res.exit_code == 0 and restricted_play(tmp_path / "b") is None
    bad = runner.invoke(app, ["restrict", "tales", "--from", str(tmp_path / "b")])
    assert bad.exit_code == 2 and "not a restricted-play sweep" in bad.stderr


@pytest.mark.parametrize("args, message", [
    (["paws", "--forbid", "fly"], r"--forbid 'fly': paws has no such option; allowed: move, loot"),
    (["tales", "--forbid", "invade"], r"--forbid 'invade': tales has no such option; allowed: swap, equip"),
    (["paws", "--bot", "mcts:iterations=4"], r"restricted play forbids options of a heuristic or learned bot"),
    (["paws", "--bot", "heuristic:forbid=move"], r"without forbid="),
    (["paws", "--bot", "learned:model=paws-2:forbid=move"], r"without forbid="),
    (["paws", "--bot", "heuristic:aggression=99"], r"aggression"),
    (["paws", "--threshold", "2"], r"--threshold 2.0 is not allowed; expected a share from 0 to 1"),
    (["paws", "--margin", "nan"], r"--margin nan is not allowed"),
    (["paws", "--games", "1"], r"--games 1 is out of range"),
    (["chess"], r"chess"),
    (["paws", "NO-OUT"], r"give --out DIR .* or --from DIR"),
    (["paws", "--out", "OUT", "--from", "OUT"], r"not both"),
    (["paws", "--out", "OTHER"], r"holds a sweep that is not a restricted-play sweep"),
    (["paws", "--out", "FILE"], r"not a folder"),
    (["paws", "--from", "EMPTY"], r"not a restricted-play sweep|no game records"),
])
def test_bad_input_is_one_line_and_exit_2_before_any_game(tmp_path, args, message):
    import re
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "manifest.json").write_text('{"format": 1, "spec_digest": "x"}')
    (tmp_path / "file").write_text("x")
    (tmp_path / "empty").mkdir()
    where = {"OUT": tmp_path / "out", "OTHER": tmp_path / "other", "FILE": tmp_path / "file", "EMPTY": tmp_path / "empty"}
    if "--out" not in args and "--from" not in args and "NO-OUT" not in args:
        args = [*args, "--out", "OUT"]
    args = [str(where.get(a, a)) for a in args if a != "NO-OUT"]
    res = runner.invoke(app, ["restrict", *args])
    lines = [x for x in res.stderr.splitlines() if x.strip()]
    assert res.exit_code == 2 and len(lines) == 1 and re.search(message, lines[0]), res.output


@pytest.mark.parametrize("spec", ["mcts:iterations=8:forbid=invade", "mcts:iterations=8:model=paws-2:forbid=invade",
                                  "flat:rollouts=2:forbid=invade"])
def test_forbid_is_the_heuristics_and_the_learned_bots_alone(spec):
    """The search bots refuse it (a search with a model too); the learned bot takes it
    (tests/test_learned_forbid.py)."""
    from sim.params import RuleError
    with pytest.raises(RuleError, match="unknown (mcts|flat) parameter 'forbid'"):
        GAMES["paws"].resolve(None, {}, {"players": 2, "bots": [spec, "heuristic"]}, {})
    GAMES["paws"].resolve(None, {}, {"players": 2, "bots": ["learned:model=paws-2:forbid=invade", "heuristic"]}, {})
