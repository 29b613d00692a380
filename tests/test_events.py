"""The event stream of the reference engines (sim/events.py): determinism, the drawn state it rebuilds
against the game record, the text log rendered from it, and the log's words."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from budget import examples
from typer.testing import CliRunner

from cli.main import app
from sim import games as registry
from sim.events import FIELDS, EventLog, render, replay_states

runner = CliRunner()

MATCHES = {
    "paws 4p": ("paws", {"players": 4}),
    "paws teams": ("paws", {"mode": "teams"}),
    "paws explorer 3p": ("paws", {"board": "explorer", "players": 3}),
    "tales 1v1": ("tales", {}),
    "tales 2v2": ("tales", {"mode": "2v2"}),
}
SEEDS = st.integers(min_value=0, max_value=2**64 - 1)
INDICES = st.integers(min_value=0, max_value=10**6)


def match(label: str):
    game, setup = MATCHES[label]
    return registry.get(game).resolve(None, {}, setup, {})


def played(label: str, seed: int, index: int) -> tuple[dict, EventLog]:
    log = EventLog()
    rec = match(label).play_one(seed, index, log)
    return rec, log


def check_end_state(label: str, rec: dict, final: dict) -> None:
    """The drawn state after the last event holds the record's values."""
    assert final["over"] is True or label.startswith("tales")
    if label.startswith("paws"):
        n = rec["players"]
        assert final["vp"] == rec["vp"]
        assert final["lives"] == rec["lives_left"]
        assert [final["owner"].count(s) for s in range(n)] == rec["buildings"]
        assert final["round"] == rec["rounds"] and final["turn"] == rec["turns"]
        assert (final["winner_seat"], final["winner_team"], final["end_reason"]) == (
            rec["winner_seat"], rec["winner_team"], rec["end_reason"])
        if rec["mode"] == "teams":
            assert final["team_vp"] == [sum(rec["vp"][t::2]) for t in (0, 1)]
    else:
        assert final["over"] is True
        assert final["losses"] == rec["weighted_losses"]
        assert [sum(c is not None for c in line) for line in final["lines"]] == rec["survivors"]
        assert final["round"] == rec["rounds"] and final["end_reason"] == rec["end_reason"]
        assert final["winner_team"] == rec["winner_team"]


@pytest.mark.parametrize("label", list(MATCHES))
@settings(max_examples=examples(6), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, index=INDICES)
def test_events_are_deterministic_and_their_changes_rebuild_the_record(label, seed, index):
    rec, log = played(label, seed, index)
    again_rec, again = played(label, seed, index)
    assert again.events == log.events and again_rec == rec
    # keeping the events changes nothing in the game: the record is the one a game without a log has
    assert match(label).play_one(seed, index) == rec
    assert [e["seq"] for e in log.events] == list(range(len(log.events)))
    assert all(tuple(e) == FIELDS for e in log.events)
    states = replay_states(log.events)
    check_end_state(label, rec, states[-1])
    # the text log is the events' text, line for line (what the picture shows is what the log says)
    assert list(log) == render(log.events)
    json.dumps(log.events)                               # plain JSON all through


@pytest.mark.parametrize("label", list(MATCHES))
def test_every_event_is_in_the_rulebook_words(label):
    _, log = played(label, 5, 2)
    word = "Player" if label.startswith("paws") else "Commander"
    for e in log.events:
        assert e["actor"] is None or re.fullmatch(rf"{word} [1-4]", e["actor"]), e
        assert not re.search(r"\bP\d\b|\bcell \d|\bteam \d", e["text"]), e["text"]
        assert e["depth"] >= 0 and e["round"] >= 0 and e["turn"] >= 0


def test_a_paws_move_names_the_tile_by_kind_and_the_label_the_replay_shows():
    _, log = played("paws 4p", 7, 0)
    states = replay_states(log.events)
    moves = [e for e in log.events if e["kind"] == "move"]
    assert moves
    for e in moves:
        state = states[e["seq"]]
        cell = state["pos"][int(e["actor"].split()[1]) - 1]
        where = "the Desert" if cell == 0 else f"the {state['tile'][cell]} at {log.meta['cells'][cell]}"
        assert e["text"] == f"{e['actor']} moves to {where}"


def test_the_start_of_a_turn_shows_every_cause():
    """Desert rest, buffs coming into play, regeneration, poison ticks: each one an event with its numbers."""
    kinds = set()
    for index in range(12):
        _, log = played("paws 4p", 11, index)
        kinds |= {e["kind"] for e in log.events}
        for e in log.events:
            if e["kind"] == "rest":
                assert re.fullmatch(r"Player \d rests on the Desert: heals \d+ \(HP \d+\)", e["text"])
            if e["kind"] == "knockout":
                assert re.match(r"\*\* Player \d is knocked out", e["text"])
    assert {"rest", "buff", "claim", "knockout", "respawn", "card", "roll", "end_turn"} <= kinds, kinds


def test_teams_show_the_line_up_and_team_vp():
    _, log = played("paws teams", 3, 1)
    assert log.events[1]["kind"] == "teams"
    assert log.events[1]["text"] == "Teams: Team 1 = Player 1 & Player 3; Team 2 = Player 2 & Player 4"
    turns = [e["text"] for e in log.events if e["kind"] == "turn"]
    assert turns and all(re.search(r"Team [12] VP \d+", t) for t in turns)


def test_an_empty_turn_says_why():
    """A stalled game (no monsters to claim with) is a run of empty turns, each with its reason."""
    m = registry.get("paws").resolve(None, {"max_rounds": 12}, {"players": 2, "bots": "random"}, {})
    reasons = []
    for index in range(6):
        log = EventLog()
        m.play_one(1, index, log)
        reasons += [e["text"] for e in log.events if e["kind"] == "end_turn" and "empty" in e["text"]]
    assert reasons
    assert all(re.search(r"turn is empty: (no AP|ends it at once \(\d+ AP unused)", t) for t in reasons), reasons


def test_brief_leaves_out_the_dice_rolls_only():
    full = runner.invoke(app, ["play", "paws", "--seed", "7", "--engine", "reference"])
    brief = runner.invoke(app, ["play", "paws", "--seed", "7", "--engine", "reference", "--brief"])
    assert full.exit_code == brief.exit_code == 0, brief.output
    lines, short = full.output.splitlines(), brief.output.splitlines()
    assert [x for x in lines if not x.lstrip().startswith("roll ")] == short
    assert len(short) < len(lines)


def test_play_events_writes_one_json_object_a_line(tmp_path):
    out = tmp_path / "game.jsonl"
    res = runner.invoke(app, ["play", "tales", "--seed", "4", "--events", str(out)])
    assert res.exit_code == 0, res.output
    events = [json.loads(line) for line in out.read_text().splitlines()]
    _, log = played("tales 1v1", 4, 0)
    assert events == log.events
