"""Invariants over thousands of games: checked at every bot decision (reference) and on every record (core)."""

import pytest
from budget import thin

import sim.paws.game as game_mod
from sim.paws.bots import make_bots
from sim.paws.kinds import Decision, Tile
from sim.paws.rules import PawsSetup, preset
from sim.paws.state import NOBODY


class Checked:
    """Wraps a bot: before every decision it asserts the state invariants, then lets the bot decide."""

    def __init__(self, bot, counter):
        self.bot, self.counter = bot, counter

    def decide(self, g, seat, kind, options):
        check_state(g, kind)
        self.counter[0] += 1
        return self.bot.decide(g, seat, kind, options)


def check_state(g, kind):
    r = g.rules
    total_items = len(g.cards.item_deck(r.item_deck, r.unruled_cards))
    held = sum(len(p.items) for p in g.players)
    assert len(g.item_deck) + len(g.item_discard) + held == total_items, "item cards not conserved"
    for p in g.players:
        assert 0 <= p.hp <= r.max_hp, f"P{p.seat} HP {p.hp} outside 0..{r.max_hp}"
        assert 0 <= p.lives <= r.lives
        assert len(p.monsters) == len(p.active)
        assert p.barricades >= 0 and min(p.tiles) >= 0
    for c, owner in enumerate(g.owner):
        if owner != NOBODY:
            assert g.tile[c] in (Tile.HOME, Tile.MANSION) and g.brick[c] == owner
            # a player out of lives loses their homes at the end of the knockout (§8.7)
            assert g.players[owner].alive or kind != Decision.ACTION
    for s in range(g.n):
        assert g.vp(s) == g.owner.count(s) + g.players[s].knockout_vp * r.vp_per_knockout
    if kind == Decision.ACTION:  # between actions nothing is in flight
        assert len(g.monster_deck) + sum(len(p.monsters) for p in g.players) == len(g.cards.monster_deck())
        me = g.players[g.seat]
        assert me.alive and me.hp > 0 and len(me.items) <= g.hand_limit(g.seat)
        assert not g.over


SETUPS = [
    ("v4", {}, PawsSetup()),
    ("v4", {}, PawsSetup(bots=("random",) * 4)),
    ("v4", {}, PawsSetup(board="explorer", players=3, bots=("heuristic", "random", "heuristic"))),
    ("v4", {}, PawsSetup(mode="teams", bots=("random", "heuristic") * 2)),
    ("v3", {}, PawsSetup(players=2, bots=("random", "heuristic"))),
    ("v4", {"hand_limit": 2, "round_limit": 12}, PawsSetup(board="explorer", players=2, bots=("random",) * 2)),
]


@pytest.mark.parametrize("i", thin(range(len(SETUPS))))
def test_state_invariants_hold_at_every_decision(i, cards, monkeypatch):
    rs, over, setup = SETUPS[i]
    rules = preset(rs, over)
    counter = [0]
    monkeypatch.setattr(game_mod, "make_bots", lambda specs: [Checked(b, counter) for b in make_bots(specs)])
    for k in range(60):
        rec = game_mod.play_game(setup, rules, 404, k, cards)
        assert rec["end_reason"] in ("vp", "last_alive", "round_limit", "stalled")
    assert counter[0] > 1000  # the checks really ran


@pytest.mark.slow
@pytest.mark.parametrize("i", range(len(SETUPS)))
def test_state_invariants_hold_at_every_decision_many_games(i, cards, monkeypatch):
    rs, over, setup = SETUPS[i]
    rules = preset(rs, over)
    counter = [0]
    monkeypatch.setattr(game_mod, "make_bots", lambda specs: [Checked(b, counter) for b in make_bots(specs)])
    for k in range(200):
        game_mod.play_game(setup, rules, 405, k, cards)


def check_record(rec, setup):
    n, r = setup.players, rec
    assert len(rec["vp"]) == len(rec["lives_left"]) == n
    assert rec["rounds"] == len(rec["vp_trace"]) and rec["vp_trace"][-1] == rec["vp"]
    assert 0 <= rec["idle_turns"] <= rec["turns"]
    assert all(0 <= x <= r["lives"] for x in rec["lives_left"])
    assert [r["lives"] - x for x in rec["lives_left"]] == rec["knockouts"]
    if r["vp_per_knockout"] == 0:
        assert rec["vp"] == rec["buildings"]
    alive = [s for s in range(n) if rec["lives_left"][s] > 0]
    teams = setup.mode == "teams"
    if teams:
        assert rec["winner_seat"] == -1
        team_vp = [rec["vp"][0] + rec["vp"][2], rec["vp"][1] + rec["vp"][3]]
    else:
        assert rec["winner_team"] == -1
    reason = rec["end_reason"]
    if reason == "vp":
        if teams:
            assert team_vp[rec["winner_team"]] >= r["team_vp_target"]
        else:
            goal = r["vp_target_2p_explorer"] if (setup.board == "explorer" and n == 2) else r["vp_target"]
            assert rec["vp"][rec["winner_seat"]] >= goal
            assert all(v < goal for s, v in enumerate(rec["vp"]) if s != rec["winner_seat"])
    elif reason == "last_alive":
        if teams:
            assert {s % 2 for s in alive} == {rec["winner_team"]}
        else:
            assert alive == [rec["winner_seat"]]
    elif reason == "round_limit":
        assert rec["rounds"] == r["round_limit"]
        scores = team_vp if teams else rec["vp"]
        best = max(scores)
        lead = scores.index(best) if scores.count(best) == 1 else -1
        assert (rec["winner_team"] if teams else rec["winner_seat"]) == lead
    else:
        assert reason == "stalled" and rec["rounds"] == r["max_rounds"]
        assert rec["winner_seat"] == rec["winner_team"] == -1


RECORD_SETUPS = SETUPS + [("v4", {"round_limit": 7}, PawsSetup(mode="teams")),
                          ("v3-ap3", {"max_rounds": 15}, PawsSetup(bots=("random",) * 4))]


@pytest.mark.parametrize("i", thin(range(len(RECORD_SETUPS))))
def test_record_invariants_over_thousands_of_core_games(i, cards):
    from sim.paws.batch import play_batch
    rs, over, setup = RECORD_SETUPS[i]
    rows = play_batch(setup, preset(rs, over), 77, 0, 3000, "core", cards).to_pylist()
    for rec in rows:
        check_record(rec, setup)
    reasons = {rec["end_reason"] for rec in rows}
    assert reasons & {"vp", "round_limit"}
