"""Victory and Defeat: a fallen Champion ends the game at once, weighted losses after the last round
(ties are draws), Survive! to the last creature, and the Survive! round cap."""

from tales_scenario import CARDS, CREATURE, Ask, Decision, both_engines, field, make_game, reference_only, script

from sim.tales.battle import battle, fight
from sim.tales.game import new_game, run
from sim.tales.rules import TalesSetup, preset
from sim.tales.victory import by_losses

pytestmark = both_engines


def test_a_destroyed_champion_ends_the_game_at_once():
    g = make_game()
    field(g, 0, "Ashpelt Rat-kin", "Moss Wolf", champion="Ashpelt Rat-kin")
    field(g, 1, "Dread Lancer", "Murk Rat", champion="Eclipse Dragon")
    # team 0 begins; the Rat-kin (P0's "Champion" here) attacks the Lancer, whose First Strike destroys it
    with script(g, 6, 1, Ask(0, Decision.ATTACKER, (0, 0)), Ask(1, Decision.DEFENDER, (1, 0))):
        battle(g)
    assert g.over and g.winner_team == 1 and g.end_reason == "champion_killed"
    assert g.fights == 1 and g.seats[0].exhausted[1] == 0          # nothing more was played


def test_both_champions_destroyed_in_one_fight_is_a_draw():
    g = make_game()
    field(g, 0, "Moss Wolf", champion="Moss Wolf")
    field(g, 1, "Hollow Wraith", champion="Hollow Wraith")
    with script(g, 1, 6):                    # the Wolf's 2 on 2 life (Shadow Form fails); the Wraith strikes
        fight(g, (0, 0), (1, 0))             # at the same time: Death Blow on 6
    assert g.over and g.winner_team == -1 and g.end_reason == "draw"


def test_fewest_weighted_losses_win():
    g = make_game()
    g.seats[0].losses, g.seats[1].losses = 2, 1
    by_losses(g)
    assert g.winner_team == 1 and g.end_reason == "losses"


def test_equal_weighted_losses_are_a_draw():
    g = make_game()
    g.seats[0].losses = g.seats[1].losses = 2
    by_losses(g)
    assert g.winner_team == -1 and g.end_reason == "draw"


def test_elite_weight_comes_from_the_tier():
    g = make_game(elite_min_tier=4, loss_elite=3)
    assert g.loss_weight(CREATURE["Cave Bear"]) == 3 and g.loss_weight(CREATURE["Horned Ram"]) == 1
    # the default: every tier above the bottom one ("Normal creature") is elite
    g = make_game()
    assert g.loss_weight(CREATURE["Moss Wolf"]) == g.loss_weight(CREATURE["Cave Bear"]) == 2
    assert g.loss_weight(CREATURE["Ashpelt Rat-kin"]) == 1
    # the old reading: the Champions only
    g = make_game(elite_min_tier=5)
    assert g.loss_weight(CREATURE["Cave Bear"]) == 1 and g.loss_weight(CREATURE["Great Mammoth King"]) == 2


def _wolf_and_wraith_fall(g):
    field(g, 0, "Moss Wolf", "Ashpelt Rat-kin")             # Moss Wolf: tier 2
    field(g, 1, "Hollow Wraith", "Murk Rat")                # Hollow Wraith: tier 1
    with script(g, 1, 6):                    # the Wolf's 2 on 2 life (Shadow Form fails); the Wraith strikes
        fight(g, (0, 0), (1, 0))             # at the same time: Death Blow on 6
    assert g.seats[0].slot[0] == g.seats[1].slot[0] == -1 and not g.over
    by_losses(g)


def test_elite_creatures_count_double_and_decide_the_game():
    # Victory and Defeat: "Normal creatures count once; Elite creatures count double"
    g = make_game()
    _wolf_and_wraith_fall(g)
    assert (g.seats[0].losses, g.seats[1].losses) == (2, 1)
    assert g.winner_team == 1 and g.end_reason == "losses"


def test_elite_as_the_champions_only_never_counts_a_destroyed_creature_double():
    g = make_game(elite_min_tier=5)
    _wolf_and_wraith_fall(g)
    assert (g.seats[0].losses, g.seats[1].losses) == (1, 1)
    assert g.winner_team == -1 and g.end_reason == "draw"


def test_2v2_team_losses_add_up():
    g = make_game("2v2")
    g.seats[0].losses, g.seats[2].losses, g.seats[1].losses, g.seats[3].losses = 1, 2, 2, 0
    by_losses(g)
    assert g.winner_team == 1


def test_survive_ends_when_a_champion_falls():
    # Survive! makes "only a few small changes"; the fallen-Champion rule is not among them
    g = make_game("survive")
    field(g, 0, "Ashpelt Rat-kin", "Moss Wolf", champion="Ashpelt Rat-kin")
    field(g, 1, "Dread Lancer", champion="Eclipse Dragon")
    with script(g):                          # First Strike 4 on 3 life: no roll
        fight(g, (1, 0), (0, 0))
    assert g.over and g.winner_team == 1 and g.end_reason == "champion_killed"


def test_survive_goes_on_after_a_champion_falls_and_ends_with_the_last_creature():
    # the old reading, kept as champion_death_ends = false
    g = make_game("survive", champion_death_ends=False)
    field(g, 0, "Ashpelt Rat-kin", "Moss Wolf", champion="Ashpelt Rat-kin")
    field(g, 1, "Dread Lancer", champion="Eclipse Dragon")
    with script(g):                          # First Strike 4 on 3 life: no roll
        fight(g, (1, 0), (0, 0))
    assert not g.over and g.seats[0].losses == 1
    with script(g):                          # the Lancer's 4 on the Wolf's 4 life: no roll; the Wolf's 2
        fight(g, (1, 0), (0, 1))             # never comes (First Strike)
    assert g.over and g.winner_team == 1 and g.end_reason == "last_standing"


@reference_only  # whole seeded games with the Python generator and bots (test_core_differential: core == reference)
def test_survive_round_cap_decides_by_losses():
    setup = TalesSetup(mode="survive", bots=("heuristic", "heuristic"))
    reasons = set()
    for i in range(20):
        g = new_game(setup, preset("survive", {"max_rounds": 1}), CARDS, 5, i)
        run(g)
        assert g.round == 1
        reasons.add(g.end_reason)
    assert reasons <= {"losses", "draw", "last_standing", "champion_killed"} and reasons & {"losses", "draw"}


def _survive_2v2_one_player_loses_his_last_creature(**overrides):
    g = make_game("survive-2v2", **overrides)
    field(g, 0, "Ashpelt Rat-kin", champion="Great Mammoth King")       # team 0: seats 0 and 2
    field(g, 2, "Moss Wolf", champion="Lion Warlord")
    field(g, 1, "Dread Lancer", champion="Eclipse Dragon")              # team 1: seats 1 and 3
    field(g, 3, "Murk Rat", champion="Twilight Sovereign")
    with script(g):                          # the Lancer's First Strike 4 on the Rat-kin's 3 life: no roll
        fight(g, (1, 0), (0, 0))
    assert g.on_field(0) == 1
    return g


def test_survive_2v2_ends_when_one_player_has_no_creatures_left():
    # Bonus Game Mode: Survive!: "Rounds are played until one player has no creatures left"
    g = _survive_2v2_one_player_loses_his_last_creature()
    assert g.over and g.winner_team == 1 and g.end_reason == "last_standing"


def test_survive_2v2_team_reading_plays_on_while_a_partner_has_creatures():
    # the old reading, kept as survive_end = team
    g = _survive_2v2_one_player_loses_his_last_creature(survive_end="team")
    assert not g.over
    with script(g):                          # the Lancer's 4 on the Wolf's 4 life; the Wolf's 2 never comes
        fight(g, (1, 0), (2, 0))
    assert g.over and g.winner_team == 1 and g.end_reason == "last_standing"
