"""Differential tests: the Cython core plays exactly the reference engine's games, record for record.

The fast subset runs by default; the full set (over 5,000 seeds across rule sets, boards, player
counts, Teams, the round limit and every bot) is marked slow and still runs in CI.
"""

import pytest
from budget import thin

from sim.paws.batch import iter_batches, play_batch
from sim.params import RuleError
from sim.paws.game import play_game
from sim.paws.rules import PawsSetup, preset

H4 = ("heuristic",) * 4
CONFIGS = [  # (id, rules preset, overrides, board, mode, players, bots)
    ("v4-beginner-4p", "v4", {}, "beginner", "ffa", 4, H4),
    ("v4-beginner-3p", "v4", {}, "beginner", "ffa", 3, ("heuristic",) * 3),
    ("v4-beginner-2p", "v4", {}, "beginner", "ffa", 2, ("heuristic",) * 2),
    ("v4-explorer-4p", "v4", {}, "explorer", "ffa", 4, H4),
    ("v4-explorer-2p", "v4", {}, "explorer", "ffa", 2, ("heuristic",) * 2),
    ("v4-teams", "v4", {}, "beginner", "teams", 4, H4),
    ("v4-teams-explorer", "v4", {}, "explorer", "teams", 4, H4),
    ("v4-round-limit", "v4", {"round_limit": 8}, "beginner", "ffa", 4, H4),
    ("v4-teams-round-limit", "v4", {"round_limit": 6}, "beginner", "teams", 4, H4),
    ("v4-random", "v4", {}, "beginner", "ffa", 4, ("random",) * 4),
    ("v4-random-explorer-3p", "v4", {}, "explorer", "ffa", 3, ("random",) * 3),
    ("v4-mixed", "v4", {}, "beginner", "ffa", 4,
     ("heuristic:aggression=5:heal_threshold=7", "random", "heuristic:raid_appetite=-2:step_cost=3", "heuristic")),
    ("v4-no-unruled", "v4", {"unruled_cards": False, "hand_limit": 3}, "beginner", "ffa", 4, H4),
    ("v3-beginner-4p", "v3", {}, "beginner", "ffa", 4, H4),
    ("v3-explorer-2p", "v3", {}, "explorer", "ffa", 2, ("heuristic",) * 2),
    ("v3-teams", "v3", {}, "beginner", "teams", 4, H4),
    ("v3-ap3-random", "v3-ap3", {}, "beginner", "ffa", 4, ("random", "heuristic") * 2),
    # random seats count their options instead of listing them (core/paws/actions.pxi random_action):
    # big hands of every card kind, several actions a turn, Explorer placements, teams, the v3 deck
    ("v4-random-big-hands", "v4", {"starting_items": 6, "hand_limit": 8, "ap_per_turn": 4}, "explorer",
     "teams", 4, ("random",) * 4),
    ("v3-v4-deck-random-2p", "v3", {"item_deck": "v4", "starting_items": 5}, "explorer", "ffa", 2,
     ("random",) * 2),
    # ... from the hand's count by card kind, kept wherever a hand changes: drawn, discarded down to a
    # small hand limit, played, taken by a raid or from a knocked-out player, lost at a knockout
    ("v4-random-hand-changes", "v4", {"hand_limit": 2, "starting_items": 4, "out_of_game_takes_card": True},
     "beginner", "ffa", 4, ("random",) * 4),
    ("v3-round-limit", "v3", {"round_limit": 10, "raid_rolls": 5}, "explorer", "ffa", 4, H4),
    # the old readings the book's words replaced (docs/rules-interpretation.md), still reachable
    ("v4-old-readings", "v4", {"knockout_cancels_effects_on_victim": True, "out_of_game_takes_card": True},
     "beginner", "ffa", 4, H4),
    ("v3-v4-deck-old-readings", "v3", {"item_deck": "v4", "invasion_knockout_scores": False,
                                       "knockout_cancels_effects_on_victim": True, "out_of_game_takes_card": True},
     "beginner", "ffa", 3, ("heuristic",) * 3),
    ("v3-v4-deck", "v3", {"item_deck": "v4"}, "beginner", "ffa", 3, ("heuristic",) * 3),
    # the "table" dice stream (an engine option): groups of four dice, a last group of 1 to 3, more than
    # two scored dice (the core's general path), and the search bots' copies
    ("v4-table-dice", "v4", {"dice_stream": "table"}, "beginner", "ffa", 4, H4),
    ("v4-table-dice-explorer-random", "v4", {"dice_stream": "table"}, "explorer", "ffa", 3, ("random",) * 3),
    ("v4-table-dice-odd", "v4", {"dice_stream": "table", "player_dice": 7, "monster_dice": 2, "scored_dice": 1},
     "beginner", "teams", 4, ("heuristic", "random") * 2),
    ("v3-table-dice-scored-3", "v3", {"dice_stream": "table", "player_dice": 6, "monster_dice": 5,
                                      "scored_dice": 3}, "beginner", "ffa", 4, H4),
]
IDS = [c[0] for c in CONFIGS]


def setup_of(cfg):
    _, rs, over, board, mode, players, bots = cfg
    return PawsSetup(board=board, mode=mode, players=players, bots=bots), preset(rs, over)


def assert_same(cfg, seed, start, count, cards):
    setup, rules = setup_of(cfg)
    core = play_batch(setup, rules, seed, start, count, "core", cards).to_pylist()
    ref = play_batch(setup, rules, seed, start, count, "reference", cards).to_pylist()
    for a, b in zip(core, ref):
        if a != b:
            diff = {k: (a[k], b[k]) for k in a if a[k] != b[k]}
            pytest.fail(f"{cfg[0]} seed {seed} game {a['game_index']}: core != reference on {diff}")
    assert len(core) == len(ref) == count


@pytest.mark.parametrize("cfg", thin([(c,) for c in CONFIGS]), ids=IDS)
def test_core_equals_reference_fast(cfg, cards):
    assert_same(cfg, 11, 0, 12, cards)


@pytest.mark.slow
@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_core_equals_reference_full(cfg, cards):
    # 28 configurations x 290 games = 8,120 seeds, at scattered game indices
    assert_same(cfg, 20261202, 1_000_000 * IDS.index(cfg[0]), 290, cards)


def data_columns(record: dict) -> dict:
    """The card data columns the Match adds to the engine's record (sim/record_schema.py)."""
    from sim.record_schema import DATA_DOCS
    return {k: record[k] for k in DATA_DOCS}


def test_game_k_replays_alone(cards):
    setup, rules = PawsSetup(), preset("v4")
    batch = play_batch(setup, rules, 99, 40, 30, "core", cards).to_pylist()
    for k in (40, 57, 69):
        alone = play_batch(setup, rules, 99, k, 1, "core", cards).to_pylist()[0]
        assert alone == batch[k - 40]
        assert {**play_game(setup, rules, 99, k, cards), **data_columns(alone)} == alone


def test_chunking_does_not_change_the_games(cards):
    setup, rules = PawsSetup(players=3, bots=("heuristic", "random", "heuristic")), preset("v4")
    whole = play_batch(setup, rules, 3, 0, 500, "core", cards)
    parts = list(iter_batches(setup, rules, 3, 0, 500, "core", cards, chunk=37))
    assert [len(p) for p in parts][:2] == [37, 37] and sum(len(p) for p in parts) == 500
    import pyarrow as pa
    assert pa.concat_tables(parts).equals(whole)


def test_different_seeds_give_different_games(cards):
    setup, rules = PawsSetup(), preset("v4")
    a = play_batch(setup, rules, 1, 0, 50, "core", cards).column("vp_trace").to_pylist()
    b = play_batch(setup, rules, 2, 0, 50, "core", cards).column("vp_trace").to_pylist()
    assert sum(x != y for x, y in zip(a, b)) > 40


def test_bad_parameters_never_reach_the_core(cards):
    # validation happens in the frozen objects, before core_inputs is built
    with pytest.raises(RuleError):
        preset("v4", {"monster_dice": 0})
    with pytest.raises(RuleError):
        PawsSetup(players=4, bots=("heuristic",) * 3)
    with pytest.raises(ValueError, match="engine 'gpu' is not available; expected one of core, reference"):
        play_batch(PawsSetup(), preset("v4"), 1, 0, 1, "gpu", cards)


def test_table_dice_are_the_digits_of_one_draw_per_four_dice():
    from collections import Counter

    from sim.paws.combat import table_dice
    from sim.rng import Rng
    a, b = Rng(7, 3), Rng(7, 3)
    # 6 dice: a draw below 6**4 (four dice, lowest base-6 digit first), then one below 6**2
    x, y = b.below(1296), b.below(36)
    assert table_dice(a, 6) == [x % 6 + 1, x // 6 % 6 + 1, x // 36 % 6 + 1, x // 216 + 1, y % 6 + 1, y // 6 + 1]
    assert (a.state, a.inc) == (b.state, b.inc)       # one draw per group, nothing else
    # every face equally likely in every position of a group
    rng = Rng(11)
    counts = Counter((i, v) for _ in range(6000) for i, v in enumerate(table_dice(rng, 4)))
    assert all(880 <= counts[(i, v)] <= 1120 for i in range(4) for v in range(1, 7))


def test_the_dice_stream_is_a_versioned_option_classic_by_default(cards):
    setup = PawsSetup()
    classic = play_batch(setup, preset("v4"), 5, 0, 40, "core", cards)
    same = play_batch(setup, preset("v4", {"dice_stream": "classic"}), 5, 0, 40, "core", cards)
    table = play_batch(setup, preset("v4", {"dice_stream": "table"}), 5, 0, 40, "core", cards)
    assert classic.equals(same)
    assert set(classic.column("dice_stream").to_pylist()) == {"classic"}
    assert set(table.column("dice_stream").to_pylist()) == {"table"}
    # other games from the same seeds (the same fair dice drawn another way)
    a, b = classic.column("vp_trace").to_pylist(), table.column("vp_trace").to_pylist()
    assert sum(x != y for x, y in zip(a, b)) > 30
    with pytest.raises(RuleError, match="dice_stream"):
        preset("v4", {"dice_stream": "fast"})
