"""Card data: the packaged stand-ins are valid and complete; a broken file names file, card and field;
a designer's own file drops in."""

import pytest

from sim.tales.cards import CardDataError, load_cards
from sim.tales.kinds import Kind, People

GOOD_CREATURE = '''
[[card]]
name = "{name}"
people = "{people}"
damage = 2
life = 4
people_chance = 5
tier = {tier}
ability = "none"
points = 2
source = "stand-in"
'''
GOOD_EQUIPMENT = '''
[[card]]
name = "Stick"
kind = "melee"
hand = "main"
damage = 1
points = 1
copies = 12
source = "stand-in"
'''


def creature_file(tmp_path, extra: str = "", per_people: int = 6):
    text = ""
    for people in ("animalis", "schatten"):
        for i in range(per_people):
            text += GOOD_CREATURE.format(name=f"{people} {i}", people=people, tier=5 if i == 0 else 1)
    p = tmp_path / "creatures.toml"
    p.write_text(text + extra)
    return p


def test_packaged_cards_are_complete_stand_ins():
    cards = load_cards()
    for people in People:
        mine = [c for c in cards.creatures if c.people == people]
        assert len(mine) == 20 and len(cards.champions(people)) == 3
        assert {c.tier for c in mine} == {1, 2, 3, 4, 5}
    kinds = [c.kind for c in cards.equipment]
    assert len(cards.equipment_deck()) == 40
    assert all(kinds.count(k) >= 8 for k in Kind)
    assert {c.source for c in cards.creatures + cards.equipment} == {"stand-in"}
    abilities = {c.ability.name.lower() for c in cards.creatures}
    assert {"first_strike", "death_blow", "area_damage", "provoke"} <= abilities


@pytest.mark.parametrize("bad,field,message", [
    ('people = "elves"', "people", "allowed: animalis, schatten"),
    ("life = 0", "life", "allowed: 1..50"),
    ("people_chance = 7", "people_chance", "allowed: 1..6"),
    ('ability = "flying"', "ability", "allowed: none, first_strike"),
    ("damage = \"two\"", "damage", "must be an integer"),
])
def test_broken_creature_names_file_card_and_field(tmp_path, bad, field, message):
    card = GOOD_CREATURE.format(name="Broken", people="animalis", tier=1)
    key = bad.split(" =")[0]
    card = "\n".join(bad if line.startswith(key + " =") else line for line in card.splitlines())
    if key not in GOOD_CREATURE:
        card += "\n" + bad
    p = creature_file(tmp_path, card)
    with pytest.raises(CardDataError) as e:
        load_cards(p, None)
    msg = str(e.value)
    assert str(p) in msg and "card 13 (Broken)" in msg and f"field '{field}'" in msg and message in msg


def test_ability_rules_are_checked(tmp_path):
    card = GOOD_CREATURE.format(name="Reaper", people="schatten", tier=2) + 'ability = "death_blow"\n'
    card = card.replace('ability = "none"\n', "")
    with pytest.raises(CardDataError, match=r"card 13 \(Reaper\): field 'ability_chance' is 0; allowed for "
                                            r"death_blow: 1..6"):
        load_cards(creature_file(tmp_path, card), None)


def test_missing_field_unknown_field_and_repeated_name(tmp_path):
    p = creature_file(tmp_path, GOOD_CREATURE.format(name="animalis 1", people="animalis", tier=1))
    with pytest.raises(CardDataError, match=r"card 13 \(animalis 1\): field 'name' repeats"):
        load_cards(p, None)
    p = creature_file(tmp_path, GOOD_CREATURE.format(name="X", people="animalis", tier=1).replace("life = 4\n", ""))
    with pytest.raises(CardDataError, match=r"card 13 \(X\): field 'life' is missing"):
        load_cards(p, None)
    p = creature_file(tmp_path, GOOD_CREATURE.format(name="X", people="animalis", tier=1) + "wings = 2\n")
    with pytest.raises(CardDataError, match=r"unknown field\(s\) \['wings'\]"):
        load_cards(p, None)


def test_each_people_needs_a_champion(tmp_path):
    p = tmp_path / "c.toml"
    p.write_text(GOOD_CREATURE.format(name="A", people="animalis", tier=5)
                 + GOOD_CREATURE.format(name="S", people="schatten", tier=4))
    with pytest.raises(CardDataError, match="no schatten Champion"):
        load_cards(p, None)


@pytest.mark.parametrize("change,message", [
    (('hand = "main"', 'hand = "off"'), "field 'hand' is 'off', which a melee cannot use; allowed: both, main"),
    (('kind = "melee"', 'kind = "shield"'), "field 'hand' is 'main', which a shield cannot use"),
    (('kind = "melee"\nhand = "main"', 'kind = "potion"\nhand = "none"'), "field 'effect' is 'none'; allowed for "
                                                                          "a potion"),
    (("copies = 12", "copies = 90"), "field 'copies' is 90; allowed: 1..20"),
])
def test_broken_equipment_names_file_card_and_field(tmp_path, change, message):
    p = tmp_path / "equipment.toml"
    p.write_text(GOOD_EQUIPMENT.replace(*change))
    with pytest.raises(CardDataError) as e:
        load_cards(None, p)
    assert str(p) in str(e.value) and "card 1 (Stick)" in str(e.value) and message in str(e.value)


def test_shield_needs_a_block_chance_and_no_life(tmp_path):
    p = tmp_path / "equipment.toml"
    p.write_text(GOOD_EQUIPMENT.replace('kind = "melee"\nhand = "main"', 'kind = "shield"\nhand = "off"'))
    with pytest.raises(CardDataError, match="field 'block' is 0; allowed for a shield: 1..6"):
        load_cards(None, p)
    p.write_text(p.read_text() + "block = 4\nlife = 2\n")
    with pytest.raises(CardDataError, match="field 'life' is 2; allowed for a shield: 0"):
        load_cards(None, p)


def test_unreadable_and_invalid_files(tmp_path):
    with pytest.raises(CardDataError, match="nope.toml: no such card file"):
        load_cards(tmp_path / "nope.toml", None)
    p = tmp_path / "bad.toml"
    p.write_text("[[card]\nname=")
    with pytest.raises(CardDataError, match="not valid TOML"):
        load_cards(p, None)


def test_a_designers_files_drop_in_and_change_the_games(tmp_path):
    from sim.games import get
    cp = creature_file(tmp_path)
    ep = tmp_path / "equipment.toml"
    ep.write_text(GOOD_EQUIPMENT)
    m = get("tales").resolve(data={"creatures": str(cp), "equipment": str(ep)})
    assert m.data_digest != get("tales").resolve().data_digest
    rows = m.play_batch(1, 0, 5, engine="reference")["games"].to_pylist()
    assert all(r["champion"] == ["animalis 0", "schatten 0"] for r in rows)
    # too few non-Champion cards for the first draw is refused before any game
    small = creature_file(tmp_path, per_people=4)
    with pytest.raises(CardDataError, match="3 animalis non-Champion cards; first_draw = 5"):
        get("tales").resolve(data={"creatures": str(small)})
