"""3. Battle, hits and damage: shields, Evade, Death Blow, the reduction order, Shadow Form, Regeneration,
Area Damage and First Strike, each with scripted dice (sim/tales/damage.py, abilities.py)."""

from tales_scenario import CREATURE, Ask, Decision, both_engines, field, gear_names, hand, make_game, script

from sim.tales.battle import fight

pytestmark = both_engines


def test_reduction_order_is_equipment_then_creature_then_people():
    # Lion Warlord 5 + War Hammer 4 = 9 on Abyss Walker (Guard Blade armor 1, Armor 1, Shadow Form 5+):
    # 9 - 1 (gear) - 1 (ability) = 7, halved = 3. Halving first would give 9 // 2 - 2 = 2.
    g = make_game()
    field(g, 0, "Lion Warlord", gear={0: ["War Hammer"]})
    field(g, 1, "Abyss Walker", gear={0: ["Guard Blade"]})
    with script(g, 5, 6):               # Shadow Form succeeds on 5; Lion Warlord's Regeneration on 6
        fight(g, (0, 0), (1, 0))
    assert g.seats[1].damage[0] == 3
    assert g.seats[0].damage[0] == 0    # took 4 + 2 = 6, then regenerated fully (6+)
    assert g.seats[0].exhausted[0] == g.seats[1].exhausted[0] == 1


def test_shadow_form_fails_below_its_chance():
    g = make_game()
    field(g, 0, "Lion Warlord", gear={0: ["War Hammer"]})
    field(g, 1, "Abyss Walker", gear={0: ["Guard Blade"]})
    with script(g, 4, 5):               # Shadow Form needs 5+: fails; Regeneration needs 6+: fails
        fight(g, (0, 0), (1, 0))
    assert g.seats[1].slot[0] == -1     # 7 damage on 6 life: destroyed
    assert g.seats[1].destroyed == 1 and g.seats[1].losses == 2     # tier 4: elite, counts double
    # 3. Determine damage: the commander places "the creature card, as well as its equipment card(s)" on the
    # graveyard
    assert g.seats[1].graveyard == [CREATURE["Abyss Walker"]] and gear_names(g.seats[1].equipment_graveyard) == [
        "Guard Blade"]
    assert g.seats[1].gear[0] == [] and g.seats[0].graveyard == []
    assert g.seats[0].damage[0] == 6    # the Walker still struck back (simultaneous)
    assert g.seats[0].kills[CREATURE["Lion Warlord"]] == 1


def test_no_regeneration_roll_after_lethal_damage():
    g = make_game()
    field(g, 0, "Ashpelt Rat-kin")
    field(g, 1, "Veil Hound")
    with script(g, 3):                  # only the Hound's Shadow Form is rolled (4+: fails)
        fight(g, (1, 0), (0, 0))
    assert g.seats[0].slot[0] == -1 and g.seats[0].graveyard == [CREATURE["Ashpelt Rat-kin"]]
    assert g.seats[1].damage[0] == 1


def test_area_damage_hits_direct_neighbours_unreduced_and_without_people_abilities():
    g = make_game()
    field(g, 0, "Ashpelt Rat-kin", None, "Great Mammoth King", "Swamp Newt", "Moss Wolf", damage={3: 1})
    field(g, 1, "Eclipse Dragon", "Murk Rat")
    # Dragon hits the Mammoth for 5 (Regeneration 6+: rolls 1); area 2 on slot 3 only (slot 1 is empty):
    # the Newt (1 damage already) dies, no roll. The Mammoth hits back for 5 (Shadow Form 5+: rolls 2) and
    # its area damage 2 hits the Murk Rat, with no Shadow Form roll.
    with script(g, 1, 2):
        fight(g, (1, 0), (0, 2))
    s0, s1 = g.seats
    assert s0.damage[2] == 5 and s0.damage[0] == 0 and s0.damage[4] == 0
    assert s0.slot[3] == -1 and s0.destroyed == 1
    assert s1.damage[0] == 5 and s1.damage[1] == 2
    assert s1.kills[CREATURE["Eclipse Dragon"]] == 1


def test_a_blocked_hit_deals_no_damage_and_no_area_damage():
    g = make_game()
    field(g, 0, "Moss Wolf", "Swamp Newt", gear={1: ["Round Shield"]})
    field(g, 1, "Grave Howler")
    with script(g, 5, 4):               # Round Shield blocks on 5+; the Newt's 1 on the Howler: Shadow Form 5+
        fight(g, (1, 0), (0, 1))        # fails on 4
    assert g.seats[0].damage == [0, 0, 0, 0, 0]
    assert g.seats[1].damage[0] == 1


def test_shield_roll_below_block_chance_lets_the_hit_through():
    g = make_game()
    field(g, 0, "Swamp Newt", gear={0: ["Round Shield"]})
    field(g, 1, "Murk Rat")
    with script(g, 4, 3, 1):            # block fails (4 < 5); Regeneration 4+ fails on 3; Shadow Form fails on 1
        fight(g, (1, 0), (0, 0))
    assert g.seats[0].damage[0] == 1 and g.seats[1].damage[0] == 1


def test_evade_wards_off_a_hit():
    g = make_game()
    field(g, 0, "Horned Ram")
    field(g, 1, "Mist Weaver")
    with script(g, 5, 1):               # Mist Weaver evades on 5+; its 1 on the Ram: Regeneration 6+ fails
        fight(g, (0, 0), (1, 0))
    assert g.seats[1].damage[0] == 0 and g.seats[0].damage[0] == 1


def test_death_blow_destroys_whatever_the_life_and_both_strike_at_once():
    g = make_game()
    field(g, 0, "Elder Direwolf")
    field(g, 1, "Soul Reaper")
    # Reaper's Death Blow 5+ succeeds; the Direwolf strikes at the same time: its Death Blow 6+ fails on 3,
    # 4 damage, Shadow Form 5+ halves it to 2.
    with script(g, 5, 3, 5):
        fight(g, (1, 0), (0, 0))
    assert g.seats[0].slot[0] == -1
    assert g.seats[0].losses == 2       # tier 5: elite, loss_elite = 2
    assert g.seats[1].damage[0] == 2


def test_first_strike_destroys_before_the_other_can_strike():
    g = make_game()
    field(g, 0, "Storm Eagle")
    field(g, 1, "Veil Hound")
    with script(g, 1):                  # the Hound's Shadow Form fails; it is destroyed and never strikes
        fight(g, (0, 0), (1, 0))
    assert g.seats[1].slot[0] == -1 and g.seats[0].damage[0] == 0


def test_first_striker_on_the_defending_side_strikes_first_too():
    g = make_game()
    field(g, 0, "Ashpelt Rat-kin")
    field(g, 1, "Dread Lancer")
    with script(g):                     # 4 damage kills the Rat-kin (3 life): no roll at all
        fight(g, (0, 0), (1, 0))
    assert g.seats[0].slot[0] == -1 and g.seats[1].damage[0] == 0


def test_ranged_weapon_gives_first_strike_and_two_first_strikers_are_simultaneous():
    g = make_game()
    field(g, 0, "Moss Wolf", gear={0: ["Short Bow"]})
    field(g, 1, "Dusk Imp")
    with script(g, 4, 2):               # Wolf 4 on the Imp: Shadow Form 4+ halves to 2; Imp 1 on the Wolf,
        fight(g, (0, 0), (1, 0))        # Regeneration 5+ fails on 2
    assert g.seats[1].damage[0] == 2 and g.seats[0].damage[0] == 1


def test_damage_persists_and_destroys_when_life_runs_out():
    g = make_game()
    field(g, 0, "Moss Wolf", damage={0: 3})
    field(g, 1, "Murk Rat", damage={0: 2})
    with script(g, 6):                  # Wolf 2 on the Rat: Shadow Form halves to 1 (4 life, 3 taken); Rat 1
        fight(g, (0, 0), (1, 0))        # on the Wolf (4 life, 3 taken): destroyed, no Regeneration roll
    assert g.seats[0].slot[0] == -1 and g.seats[1].damage[0] == 3


def test_strength_potion_adds_damage_for_this_fight_only():
    g = make_game()
    field(g, 0, "Moss Wolf")
    field(g, 1, "Murk Rat")
    hand(g, 0, "Troll Blood", "Potion of Might")
    might = 1
    with script(g, Ask(0, Decision.POTION, might, options=[-1, 0, 1]), 1, 1):
        fight(g, (0, 0), (1, 0))        # 2 + 2 = 4 on the Rat's 4 life: destroyed; the Rat's 1: regen fails
    assert g.seats[1].slot[0] == -1
    assert [g.cards.equipment[e].name for e in g.seats[0].hand] == ["Troll Blood"]
    assert g.seats[0].potion[0] == [0, 0, 0]
    assert g.cards.equipment[g.seats[0].equipment_graveyard[0]].name == "Potion of Might"


def test_a_potion_remains_until_the_creatures_turn_is_finished():
    # 1. Use potions: "They remain there until the creature's turn is finished" (potion_lasts = turn), even
    # a card whose stand-in duration is 2 fights
    g = make_game()
    field(g, 0, "Moss Wolf", "Ashpelt Rat-kin")
    field(g, 1, "Mist Weaver")
    hand(g, 1, "Ironbark Elixir")       # armor 1; the card says 2 fights
    # Wolf on the Weaver: Evade fails (1), 2 - 1 = 1, Shadow Form fails (1); the Weaver's 1: Regeneration fails
    with script(g, Ask(1, Decision.POTION, 0), 1, 1, 1):
        fight(g, (0, 0), (1, 0))
    assert g.seats[1].damage[0] == 1 and g.seats[1].potion[0] == [0, 0, 0]
    # a second fight of the Weaver (a later round): no armor, the Rat-kin's 1 lands; Shadow Form fails (1)
    with script(g, 1, 1, 1):            # Evade fails, Shadow Form fails, the Rat-kin's Regeneration fails
        fight(g, (0, 1), (1, 0))
    assert g.seats[1].damage[0] == 2


def test_lasting_potion_wears_off_after_its_duration():
    # the old reading, kept as potion_lasts = card: the card's duration in fights of the creature
    g = make_game(potion_lasts="card")
    field(g, 0, "Moss Wolf", "Ashpelt Rat-kin")
    field(g, 1, "Mist Weaver")
    hand(g, 1, "Ironbark Elixir")       # armor 1 for 2 fights
    # Wolf on the Weaver: Evade fails (1), 2 - 1 = 1, Shadow Form fails (1); the Weaver's 1: Regeneration fails
    with script(g, Ask(1, Decision.POTION, 0), 1, 1, 1):
        fight(g, (0, 0), (1, 0))
    assert g.seats[1].damage[0] == 1 and g.seats[1].potion[0][2] == 1
    # second fight: the Rat-kin's 1 - 1 = 0 (no Shadow Form roll); then the potion is gone
    with script(g, 1, 1):
        fight(g, (0, 1), (1, 0))
    assert g.seats[1].damage[0] == 1 and g.seats[1].potion[0] == [0, 0, 0]


def test_heal_potion_removes_damage_before_the_hits():
    g = make_game()
    field(g, 0, "Cave Bear", damage={0: 5})
    field(g, 1, "Murk Rat")
    hand(g, 0, "Healing Draught")
    with script(g, Ask(0, Decision.POTION, 0), 1):         # Bear 4 on the Rat: Shadow Form fails; Rat's 1 is
        fight(g, (0, 0), (1, 0))                           # absorbed by the Bear's Armor 1: no roll
    assert g.seats[0].damage[0] == 2 and g.seats[1].slot[0] == -1
