"""Card data files: the packaged decks match the rulebook's counts; broken files name file, card, field."""

import shutil

import pytest

from sim.paws.cards import ITEMS_FILE, MONSTERS_FILE, CardDataError, load_cards
from sim.paws.kinds import Effect, Timing


def test_deck_sizes_are_the_rulebooks(cards):
    # Changes from V3: 62 item cards (70 copies) -> 66 item cards (78 copies)
    assert cards.deck_summary("v3", True) == (62, 70)
    assert cards.deck_summary("v4", True) == (66, 78)


def test_the_four_v4_cards_are_exactly_as_written(cards):
    by_name = {c.name: c for c in cards.items}
    want = {  # §10 table: (when, effect, amount, turns); 2 copies each, V4 deck only
        "Grenade": (Timing.ON_TURN, Effect.GRENADE, 3, 0),
        "Snare": (Timing.ON_TURN, Effect.SNARE, 2, 0),
        "Poison Dart": (Timing.ON_TURN, Effect.POISON, 1, 2),
        "Smoke Bomb": (Timing.IN_COMBAT, Effect.ESCAPE, 1, 0),
    }
    for name, (timing, effect, amount, turns) in want.items():
        c = by_name[name]
        assert (c.timing, c.effect, c.amount, c.turns, c.copies, c.decks, c.source) == \
            (timing, effect, amount, turns, 2, ("v4",), "rulebook")


def test_named_and_unruled_cards(cards):
    by_name = {c.name: c for c in cards.items}
    for name in ("Bandage Kit", "Fruit Smoothie", "Escape Rope"):
        assert by_name[name].source == "named" and not by_name[name].unruled
    unruled = {c.name for c in cards.items if c.unruled}
    assert unruled == {"Card Block", "Barricade Boost", "Doppelganger", "Golden Fist", "Revenge Strike",
                       "Teleport Trap"}
    # the switch leaves them out of the shuffled deck
    ids = set(cards.item_deck("v4", False))
    assert not ids & {by_name[n].id for n in unruled}
    assert cards.deck_summary("v4", False) == (60, 72)


def test_every_card_not_in_the_book_is_marked_stand_in(cards):
    named = {"Bandage Kit", "Fruit Smoothie", "Escape Rope", "Card Block", "Barricade Boost", "Doppelganger",
             "Golden Fist", "Revenge Strike", "Teleport Trap", "Grenade", "Snare", "Poison Dart", "Smoke Bomb"}
    for c in cards.items:
        assert (c.source == "stand-in") == (c.name not in named), c.name
    assert all(m.source == "stand-in" for m in cards.monsters)
    assert len(cards.monster_deck()) == 20


def write_items(tmp_path, body):
    p = tmp_path / "items.toml"
    p.write_text(body)
    return p


GOOD = '[[card]]\nname = "Stick"\ntiming = "in_combat"\neffect = "fight_bonus"\namount = 1\ncopies = 3\n' \
       'source = "stand-in"\n'


def test_a_designers_file_drops_in(tmp_path):
    p = write_items(tmp_path, GOOD)
    cs = load_cards(p)
    assert [c.name for c in cs.items] == ["Stick"] and cs.item_deck("v4", True) == [0, 0, 0]
    assert cs.digest != load_cards().digest


@pytest.mark.parametrize("body, needle", [
    (GOOD.replace('effect = "fight_bonus"', 'effect = "fireball"'),
     "card 1 (Stick): field 'effect' is 'fireball'; allowed: heal, fight_bonus"),
    (GOOD.replace('timing = "in_combat"', 'timing = "on_turn"'),
     "card 1 (Stick): field 'timing' is 'on_turn', which a fight_bonus card cannot use; allowed: in_combat"),
    (GOOD.replace("copies = 3\n", ""), "card 1 (Stick): field 'copies' is missing"),
    (GOOD.replace("copies = 3", "copies = 0"), "card 1 (Stick): field 'copies' is 0; allowed: 1..64"),
    (GOOD.replace("amount = 1", 'amount = "one"'), "field 'amount' must be an integer, got 'one'"),
    (GOOD + 'colour = "red"\n', "card 1 (Stick): unknown field(s) ['colour']; allowed: name, timing"),
    (GOOD + GOOD, "card 2 (Stick): field 'name' repeats an earlier card"),
    (GOOD.replace('source = "stand-in"', 'source = "guess"'),
     "field 'source' is 'guess'; allowed: rulebook, named, stand-in"),
    (GOOD + 'decks = ["v5"]\n', "field 'decks' is ['v5']; allowed: a non-empty list of v3, v4"),
    ("[[card]\nname=", "not valid TOML"),
    ("[meta]\ngame = 'x'\n", "no cards"),
])
def test_broken_item_files_name_file_card_and_field(tmp_path, body, needle):
    p = write_items(tmp_path, body)
    with pytest.raises(CardDataError) as e:
        load_cards(p)
    assert str(p) in str(e.value) and needle in str(e.value)


def test_broken_monster_file_and_missing_file(tmp_path):
    p = tmp_path / "monsters.toml"
    shutil.copy(MONSTERS_FILE, p)
    p.write_text(p.read_text().replace('buff = "regen"', 'buff = "flight"', 1))
    with pytest.raises(CardDataError, match=r"card 2 \(Grumpy Toad\): field 'buff' is 'flight'; allowed: none, "
                                            r"fight_score, regen"):
        load_cards(ITEMS_FILE, p)
    with pytest.raises(CardDataError, match="nowhere.toml: no such card file"):
        load_cards(tmp_path / "nowhere.toml")


def test_an_edited_file_is_reloaded(tmp_path):
    p = write_items(tmp_path, GOOD)
    assert load_cards(p).items[0].copies == 3
    p.write_text(GOOD.replace("copies = 3", "copies = 5") + "# longer\n")
    assert load_cards(p).items[0].copies == 5
