"""Invariants over ~1,000 reference games in every mode: checked at every bot decision and on every record."""

import pytest
from budget import thin

import sim.tales.game as game_mod
from sim.tales.bots import make_bots
from sim.tales.cards import load_cards
from sim.tales.kinds import Decision, Kind
from sim.tales.rules import TalesSetup, people_of, preset
from sim.tales.state import EMPTY

CARDS = load_cards()


class Checked:
    """Wraps a bot: before every decision it asserts the state invariants, then lets the bot decide."""

    def __init__(self, bot, counter):
        self.bot, self.counter = bot, counter

    def decide(self, g, seat, kind, options):
        check_state(g, kind, options)
        self.counter[kind] = self.counter.get(kind, 0) + 1
        return self.bot.decide(g, seat, kind, options)


def check_state(g, kind, options):
    r = g.rules
    assert len(options) > 1 and len(set(map(str, options))) == len(options), "options must be distinct"
    setting_up = kind in (Decision.CHAMPION, Decision.RETURN)   # decks not shuffled / cards being drawn
    if kind != Decision.CHAMPION:
        total_equipment = len(CARDS.equipment_deck()) * len(g.equipment_deck)
        held = sum(len(d) for d in g.equipment_deck)
        for st in g.seats:
            held += len(st.hand) + len(st.equipment_graveyard) + sum(len(x) for x in st.gear)
        assert held == total_equipment, "equipment cards not conserved"
    for st in g.seats:
        on_field = [c for c in st.slot if c != EMPTY]
        assert len(set(on_field)) == len(on_field)
        if not setting_up:
            pool = CARDS.creature_deck(st.people) + [st.champion]
            assert sorted(st.deck + on_field + st.graveyard) == sorted(pool), "creature cards not conserved"
            assert st.losses == sum(g.loss_weight(c) for c in st.graveyard)
            assert st.destroyed == len(st.graveyard)
            assert len(on_field) <= r.army_size
        for k, c in enumerate(st.slot):
            if c == EMPTY:
                assert st.gear[k] == [] and st.damage[k] == 0
                continue
            pos = (st.seat, k)
            assert g.life_left(pos) > 0, "a creature on the field has life left"
            assert not st.doomed[k]
            gear = g.gear_cards(pos)
            assert all(e.kind != Kind.POTION for e in gear)
            used, main, off = g.hands_free(pos)
            assert used <= r.hands and main <= 1 and off <= r.hands - 1
            if r.points_budget:
                assert sum(e.points for e in gear) <= g.card(pos).points
        if kind in (Decision.ATTACKER, Decision.DEFENDER, Decision.PROVOKE):
            for s, k in options:
                assert g.seats[s].slot[k] != EMPTY and not g.seats[s].exhausted[k]
    assert not g.over


MODES = [  # (mode, bots, overrides)
    ("standard", "heuristic", {}),
    ("standard", "random", {}),
    ("2v2", "heuristic", {}),
    ("2v2", "random", {"hands": 3, "points_budget": False}),
    ("survive", "heuristic", {}),
    ("survive", "random", {}),
    ("survive-2v2", "heuristic", {}),
    ("survive-2v2", "random", {"potions_per_fight": 2}),
    # the old readings: Survive! to the last creature, 2 vs. 2 to the last creature of a team
    ("survive", "heuristic", {"champion_death_ends": False}),
    ("survive-2v2", "heuristic", {"champion_death_ends": False, "survive_end": "team"}),
    ("survive-2v2", "random", {"champion_death_ends": False, "survive_end": "player"}),
]


@pytest.mark.parametrize("mode,bots,over", thin(MODES), ids=[f"{m}-{b}" + "".join(f"-{k}={v}" for k, v in o.items())
                                                 for m, b, o in MODES])
def test_invariants_hold_at_every_decision_and_in_every_record(mode, bots, over, monkeypatch):
    counter = {}
    monkeypatch.setattr(game_mod, "make_bots", lambda specs: [Checked(b, counter) for b in make_bots(specs)])
    seats = 4 if "2v2" in mode else 2
    setup = TalesSetup(mode=mode, people=people_of(None, seats), bots=(bots,) * seats)
    rules = preset(mode, over)
    games = 120
    reasons = set()
    for i in range(games):
        rec = game_mod.play_game(setup, rules, 2026, i, CARDS)
        check_record(rec, rules, seats)
        reasons.add(rec["end_reason"])
    # every kind of decision came up, so the checks above ran where they matter
    assert {Decision.CHAMPION, Decision.RETURN, Decision.EQUIP, Decision.ATTACKER, Decision.DEFENDER,
            Decision.POTION} <= set(counter)
    expected = {"last_standing"} if rules.survive and not rules.champion_death_ends else {"champion_killed"}
    assert expected <= reasons


def check_record(rec, rules, seats):
    assert rec["game"] == "tales" and len(rec["weighted_losses"]) == seats
    assert 1 <= rec["rounds"] <= rules.last_round()
    assert rec["fights"] >= rec["turns"] - 2 * rec["rounds"]
    assert all(w >= d for w, d in zip(rec["weighted_losses"], rec["destroyed"]))
    team_loss = [sum(rec["weighted_losses"][s] for s in range(seats) if s % 2 == t) for t in (0, 1)]
    w, reason = rec["winner_team"], rec["end_reason"]
    assert (w == -1) == (reason == "draw")
    if reason == "losses":
        assert team_loss[w] < team_loss[1 - w]
    if reason == "draw" and not rules.survive and all(rec["champion_alive"]):
        assert team_loss[0] == team_loss[1]
    if reason == "champion_killed":
        assert not all(rec["champion_alive"][s] for s in range(seats) if s % 2 != w)
        assert all(rec["champion_alive"][s] for s in range(seats) if s % 2 == w)
    if reason == "last_standing":
        # a player out of creatures (survive_end = team: the whole team) ends Survive!
        out = all if rules.survive_end == "team" else any
        assert out(rec["survivors"][s] == 0 for s in range(seats) if s % 2 != w)
        assert not out(rec["survivors"][s] == 0 for s in range(seats) if s % 2 == w)
        # a player's last creature falls after (or with) his Champion, so the fallen-Champion rule comes first
        assert not rules.champion_death_ends
    if not rules.survive:
        assert reason != "last_standing"
    assert rec["winner_side"] == (w if seats == 2 else -1)
