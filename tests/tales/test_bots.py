"""Bots: spec strings, the random bot's draws, the heuristic's choices in hand-set positions, its weights,
and that it beats random play."""

import pytest
from tales_scenario import CREATURE, Pick, both_engines, field, hand, make_game, reference_only, script

import sim.tales.potions as potions_mod
from sim.games import get
from sim.kit.bots import RandomBot
from sim.params import RuleError
from sim.tales.bots import parse_bot
from sim.tales.bots.heuristic import HeuristicBot, HeuristicWeights
from sim.tales.equipment import PASS, options
from sim.tales.kinds import Act, Decision

pytestmark = both_engines


@reference_only  # bot spec parsing (sim.tales.bots): no engine function to run
def test_bot_specs():
    assert isinstance(parse_bot("random"), RandomBot)
    assert parse_bot("heuristic:aggression=4:potion_eagerness=0").w == HeuristicWeights(aggression=4,
                                                                                          potion_eagerness=0)
    with pytest.raises(RuleError, match="unknown bot 'greedy'; valid bots: random, heuristic"):
        parse_bot("greedy")
    with pytest.raises(RuleError, match="caution = '11' is not allowed; expected an integer from 0 to 10"):
        parse_bot("heuristic:caution=11")
    with pytest.raises(RuleError, match="the random bot takes no weights"):
        parse_bot("random:aggression=1")


# the core's random bot is the below(options) of the engine's ask() (core/tales/draws.pxi), which the
# scenario module's ask() replaces with the script
@reference_only
def test_random_bot_draws_one_number_from_the_game_stream():
    g = make_game()
    with script(g, Pick(3, 2)):
        assert RandomBot().decide(g, 0, Decision.ATTACKER, [(0, 0), (0, 1), (0, 2)]) == 2


def test_heuristic_defends_with_a_creature_that_survives_and_never_offers_the_champion():
    g = make_game()
    field(g, 0, "Sabre Cat")                                           # 4 damage
    field(g, 1, "Murk Rat", "Void Knight", "Twilight Sovereign", champion="Twilight Sovereign")
    g.attacker = (0, 0)
    bot = HeuristicBot()
    # the Rat (4 life) dies; the Knight (5) and the Champion (8) survive: the Knight, sparing the Champion
    assert bot.decide(g, 1, Decision.DEFENDER, [(1, 0), (1, 1), (1, 2)]) == 1
    g.seats[1].damage[1] = 3                                           # now the Knight would die too
    # only the Sovereign (Champion, 8 life) survives: rather some damage on it than a loss
    assert bot.decide(g, 1, Decision.DEFENDER, [(1, 0), (1, 1), (1, 2)]) == 2
    g.seats[1].damage[2] = 5                                           # the Champion would die: never it
    assert bot.decide(g, 1, Decision.DEFENDER, [(1, 0), (1, 1), (1, 2)]) == 0


def test_heuristic_provokes_what_it_can_destroy():
    g = make_game()
    field(g, 0, "Lion Warlord")                                        # 5 damage, Provoke
    field(g, 1, "Abyss Walker", "Nightmare Rider", "Gloom Wisp")
    g.attacker = (0, 0)
    # Walker: 5 - Armor 1 = 4 < 6 life; Rider 5 on 5 life: destroyed; Wisp too, but the Rider is worth more
    assert HeuristicBot().decide(g, 0, Decision.PROVOKE, [(1, 0), (1, 1), (1, 2)]) == 1


def test_heuristic_equips_the_best_card_first_and_then_passes():
    g = make_game()
    field(g, 0, "Lion Warlord")
    hand(g, 0, "Buckler", "Great Axe", "Troll Blood")
    opts = options(g, 0)
    assert opts[HeuristicBot().decide(g, 0, Decision.EQUIP, opts)] == (Act.EQUIP, 1, 0, 0)
    g.seats[0].gear[0] = [g.seats[0].hand.pop(1)]
    assert options(g, 0) == [PASS, (Act.UNEQUIP, 0, 0, 0)]
    assert HeuristicBot().decide(g, 0, Decision.EQUIP, options(g, 0)) == 0


def test_heuristic_chooses_its_best_champion():
    g = make_game()
    champs = [CREATURE[n] for n in ("Great Mammoth King", "Lion Warlord", "Elder Direwolf")]
    assert HeuristicBot().decide(g, 0, Decision.CHAMPION, champs) == 0


@reference_only  # counts the reference's drink() calls over whole games (test_core_differential: core == reference)
def test_potion_eagerness_zero_never_uses_a_potion(monkeypatch):
    used = []
    real = potions_mod.drink
    monkeypatch.setattr(potions_mod, "drink", lambda g, pos, h: used.append(pos) or real(g, pos, h))
    for spec, expect_any in (("heuristic:potion_eagerness=0", False), ("heuristic", True)):
        used.clear()
        get("tales").resolve(setup={"bots": spec}).play_batch(9, 0, 30, engine="reference")
        assert bool(used) == expect_any


@reference_only  # whole seeded games through sim.games (test_core_differential: core == reference)
@pytest.mark.parametrize("mode", ["standard", "survive"])
def test_heuristic_beats_random_play(mode):
    wins = games = 0
    for bots, seat in (("heuristic,random", 0), ("random,heuristic", 1)):
        rows = get("tales").resolve(setup={"mode": mode, "bots": bots}).play_batch(
            13, 0, 50, engine="reference")["games"].to_pylist()
        wins += sum(r["winner_team"] == seat for r in rows)
        games += len(rows)
    assert wins >= 0.7 * games
