"""Tales are Real: the Cython core plays exactly the reference engine's games, record for record.

Both tables (``games`` and ``cards``) are compared in every mode, with both bots and mixed bots, with
rule overrides and with drop-in card files that reach the dice paths the stand-in cards never take.
The fast subset runs by default; the full set (5,040 seeds) is marked slow and still runs in CI.
"""

from pathlib import Path

import pytest

from sim.games import BatchOptions, get
from sim.tales.cards import CREATURES_FILE, EQUIPMENT_FILE
from sim.tales.core_engine import core_inputs
from sim.tales.game import card_rows, new_game, record, run
from sim.tales.kinds import END_REASONS
from sim.tales.record import CARD_SCHEMA, SCHEMA, cards_table, to_table

TALES = get("tales")


def variant(tmp: Path, source: Path, edits: dict[str, tuple[str, str]], every: tuple[str, str] | None = None) -> str:
    """A copy of a packaged card file: in each card whose text holds a key of ``edits``, replace
    old -> new; ``every`` is a replacement made in every card."""
    blocks = source.read_text().split("\n[[card]]\n")
    done = set()
    for i in range(1, len(blocks)):
        for key, (old, new) in edits.items():
            if key in blocks[i] and old in blocks[i]:
                blocks[i] = blocks[i].replace(old, new)
                done.add(key)
        if every:
            assert every[0] in blocks[i], every
            blocks[i] = blocks[i].replace(*every)
    assert done == set(edits), f"edits that matched no card: {set(edits) - done}"
    path = tmp / source.name
    path.write_text("\n[[card]]\n".join(blocks))
    return str(path)


@pytest.fixture(scope="module")
def rolled_cards(tmp_path_factory) -> dict:
    """Creatures whose First Strike, Armor and Area Damage need a roll; every equipment card twice
    (80 copies: the core's full deck capacity)."""
    tmp = tmp_path_factory.mktemp("cards")
    creatures = variant(tmp, CREATURES_FILE, {
        'ability = "first_strike"': ("ability_chance = 0", "ability_chance = 3"),
        'ability = "armor"': ("ability_chance = 0", "ability_chance = 4"),
        'ability = "area_damage"': ("ability_chance = 0", "ability_chance = 2"),
        'ability = "provoke"': ("ability_chance = 0", "ability_chance = 3")})
    equipment = variant(tmp, EQUIPMENT_FILE, {}, every=("copies = 1", "copies = 2"))
    return {"creatures": creatures, "equipment": equipment}


CONFIGS = [  # (id, setup values, overrides, rolled card files)
    ("standard", {"mode": "standard"}, {}, False),
    ("standard-schatten-random", {"mode": "standard", "people": "schatten", "bots": "random"}, {}, False),
    ("standard-mixed-rolled", {"mode": "standard", "bots": "random,heuristic:caution=0:kill_bonus=40"}, {}, True),
    ("2v2", {"mode": "2v2"}, {}, False),
    ("2v2-mixed", {"mode": "2v2", "people": "animalis,schatten,schatten,animalis",
                   "bots": "heuristic:aggression=0:potion_eagerness=0,random,heuristic:champion_guard=0,"
                           "heuristic:swap_min_useless=0"},
     {"team_attackers": 3}, False),
    ("2v2-random-rolled", {"mode": "2v2", "bots": "random"}, {"hands": 4}, True),
    ("survive", {"mode": "survive"}, {}, False),
    ("survive-mixed-rolled", {"mode": "survive", "bots": "heuristic:potion_eagerness=3,random"},
     {"potions_per_fight": 3}, True),
    ("survive-2v2", {"mode": "survive-2v2"}, {}, False),
    ("survive-2v2-random", {"mode": "survive-2v2", "bots": "random,random,heuristic,heuristic"},
     {"champion_death_ends": False, "survive_end": "team"}, False),
    ("standard-swaps", {"mode": "standard", "bots": "heuristic:swap_min_useless=0"},
     {"swap_cost": 1, "swap_gain": 2, "equipment_draw": 8, "max_equip_actions": 6}, False),
    ("standard-threshold-points", {"mode": "standard", "people": "animalis,animalis"},
     {"points_budget": False, "army_size": 8, "first_draw": 9, "first_place": 7, "game_rounds": 9}, True),
    ("survive-capped", {"mode": "survive", "bots": "random"}, {"max_rounds": 2, "loss_elite": 0}, False),
    ("2v2-long", {"mode": "2v2", "people": "schatten"},
     {"game_rounds": 12, "elite_min_tier": 3, "loss_normal": 2, "equipment_draw": 1}, False),
]
IDS = [c[0] for c in CONFIGS]


def match(cfg, rolled_cards):
    _, setup, over, rolled = cfg
    return TALES.resolve(overrides=over, setup=setup, data=rolled_cards if rolled else None,
                         tables=("games", "cards"))


def reference(m, seed, start, count):
    """The reference engine's games and card tables (as its play_batch builds them) and, per game, its
    generator's state after the game."""
    records, rows, states = [], [], []
    for i in range(start, start + count):
        g = new_game(m.setup, m.rules, m.data, seed, i)
        run(g)
        records.append(record(g, seed, i))
        rows.extend(card_rows(g, seed, i))
        states.append(g.rng.state)
    return to_table(records), cards_table(rows), states


def core_states(m, seed, start, count) -> list[int]:
    from core.tales_engine import play_batch
    out = play_batch(core_inputs(m.setup, m.rules, m.data), BatchOptions(seed, start, count))
    return out["rng_state"].tolist()


def assert_same(cfg, rolled_cards, seed, start, count):
    """Same records, same card rows, and the same number of draws in every game (the generators end in
    the same state, so no die or random pick was rolled on one side only)."""
    m = match(cfg, rolled_cards)
    core = m.play_batch(seed, start, count, "core")
    ref_games, ref_cards, ref_states = reference(m, seed, start, count)
    from sim.record_schema import DATA_DOCS       # the card data columns the Match adds to the engine's record
    core_games = core["games"].drop_columns(list(DATA_DOCS))
    assert core_games.schema == SCHEMA and core["cards"].schema == CARD_SCHEMA
    for a, b in zip(core_games.to_pylist(), ref_games.to_pylist()):
        if a != b:
            diff = {k: (a[k], b[k]) for k in a if a[k] != b[k]}
            pytest.fail(f"{cfg[0]} seed {seed} game {a['game_index']}: core != reference on {diff}")
    assert core["games"].num_rows == ref_games.num_rows == count
    if not core["cards"].equals(ref_cards):
        for a, b in zip(core["cards"].to_pylist(), ref_cards.to_pylist()):
            assert a == b, f"{cfg[0]} seed {seed}: card rows differ"
        pytest.fail(f"{cfg[0]} seed {seed}: {core['cards'].num_rows} core card rows, {ref_cards.num_rows} reference")
    states = core_states(m, seed, start, count)
    drift = [start + k for k in range(count) if states[k] != ref_states[k]]
    assert not drift, f"{cfg[0]} seed {seed}: the engines drew a different number of random numbers in games {drift[:5]}"


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_core_equals_reference_fast(cfg, rolled_cards):
    assert_same(cfg, rolled_cards, 5, 0, 8)
    m = match(cfg, rolled_cards)      # the same through the engine switch of the game interface
    core, ref = m.play_batch(5, 0, 8, "core"), m.play_batch(5, 0, 8, "reference")
    assert core["games"].equals(ref["games"]) and core["cards"].equals(ref["cards"])


@pytest.mark.slow
@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_core_equals_reference_full(cfg, rolled_cards):
    # 14 configurations x 360 games = 5,040 seeds, at scattered game indices
    assert_same(cfg, rolled_cards, 20261203, 7_000_003 * (IDS.index(cfg[0]) + 1), 360)


def test_game_k_replays_alone():
    m = TALES.resolve(setup={"mode": "2v2", "bots": "random,heuristic,heuristic,random"})
    batch = m.play_batch(42, 100, 40, "core")["games"].to_pylist()
    for k in (100, 117, 139):
        assert m.play_batch(42, k, 1, "core")["games"].to_pylist()[0] == batch[k - 100]
        assert m.play_one(42, k) == batch[k - 100]


def test_chunking_does_not_change_the_games():
    m = TALES.resolve(setup={"mode": "survive"}, tables=("games", "cards"))
    whole = m.play_batch(3, 0, 400, "core")
    parts = list(m.iter_batches(3, 0, 400, "core", chunk=37))
    assert [p["games"].num_rows for p in parts][:2] == [37, 37]
    for name in ("games", "cards"):
        joined = parts[0][name].__class__.from_batches([b for p in parts for b in p[name].to_batches()])
        assert joined.equals(whole[name])


def test_master_seed_changes_the_games():
    m = TALES.resolve(setup={"mode": "standard"})
    a = m.play_batch(1, 0, 200, "core")["games"]
    b = m.play_batch(2, 0, 200, "core")["games"]
    assert a.column("seed").to_pylist() == [1] * 200
    assert a.drop_columns(["seed"]).to_pylist() != b.drop_columns(["seed"]).to_pylist()


@pytest.mark.parametrize("mode", ["standard", "2v2", "survive", "survive-2v2"])
def test_invariants_over_many_core_games(mode):
    """Facts every record must satisfy (Victory and Defeat; our readings in docs/rules-interpretation.md)."""
    m = TALES.resolve(setup={"mode": mode, "bots": "heuristic,random" if "2v2" not in mode else "heuristic"},
                      tables=("games", "cards"))
    out = m.play_batch(9, 0, 3000, "core")
    games, cards = out["games"].to_pylist(), out["cards"]
    r = m.rules
    seats = 4 if "2v2" in mode else 2
    reasons = set()
    for g in games:
        reasons.add(g["end_reason"])
        assert g["end_reason"] in END_REASONS
        assert 1 <= g["rounds"] <= (r.max_rounds if r.survive else r.game_rounds)
        assert g["fights"] >= g["turns"] >= 1      # a turn starts only when both teams have a ready creature
        team_losses = [sum(g["weighted_losses"][s] for s in range(seats) if s % 2 == t) for t in (0, 1)]
        team_alive = [sum(g["survivors"][s] for s in range(seats) if s % 2 == t) for t in (0, 1)]
        w = g["winner_team"]
        assert (w == -1) == (g["end_reason"] == "draw") == (g["winner_people"] == "")
        assert g["winner_side"] == (w if seats == 2 else -1)
        for s in range(seats):
            assert r.loss_normal * g["destroyed"][s] <= g["weighted_losses"][s] <= r.loss_elite * g["destroyed"][s]
            assert 0 <= g["survivors"][s] <= r.army_size
            if not g["champion_alive"][s]:
                assert g["destroyed"][s] >= 1
        if g["end_reason"] == "champion_killed":
            assert r.champion_death_ends
            assert any(not g["champion_alive"][s] for s in range(seats) if s % 2 != w)
            assert all(g["champion_alive"][s] for s in range(seats) if s % 2 == w)
        # Survive!: a team is out when one of its players (survive_end = team: all of them) has no creature left
        out = [(all if r.survive_end == "team" else any)(g["survivors"][s] == 0 for s in range(seats) if s % 2 == t)
               for t in (0, 1)]
        fell = [r.champion_death_ends and not all(g["champion_alive"][s] for s in range(seats) if s % 2 == t)
                for t in (0, 1)]
        if g["end_reason"] == "last_standing":
            assert out[1 - w] and not out[w] and team_alive[w] > 0
        elif g["end_reason"] == "losses":
            assert team_losses[w] < team_losses[1 - w]
        if r.survive and g["end_reason"] in ("losses", "draw") and not (all(out) or all(fell)):
            assert g["rounds"] == r.max_rounds
    assert reasons >= {"draw", "champion_killed" if r.champion_death_ends else "last_standing"}
    # the card table agrees with the records: creature rows lost = destroyed, kills = the other side's losses
    n = len(games)
    rows = cards.group_by(["game_index", "seat", "kind", "survived"]).aggregate([("kills", "sum"), ("card", "count")])
    lost = {(x["game_index"], x["seat"]): x["card_count"] for x in rows.to_pylist()
            if x["kind"] == "creature" and not x["survived"]}
    kills = {}
    for x in rows.to_pylist():
        if x["kind"] == "creature":
            kills[(x["game_index"], x["seat"] % 2)] = kills.get((x["game_index"], x["seat"] % 2), 0) + x["kills_sum"]
    for g in games:
        i = g["game_index"]
        for s in range(seats):
            assert lost.get((i, s), 0) == g["destroyed"][s]
        for t in (0, 1):
            assert kills.get((i, t), 0) == sum(g["destroyed"][s] for s in range(seats) if s % 2 != t)
    assert n == 3000


def test_core_refuses_inputs_beyond_its_capacity():
    from core.tales_engine import play_batch
    m = TALES.resolve(setup={"mode": "standard"})
    inputs = core_inputs(m.setup, m.rules, m.data)
    inputs["rules"] = {**inputs["rules"], "army_size": 9}
    with pytest.raises(ValueError, match="beyond the core's capacity.*'army_size': 8"):
        play_batch(inputs, BatchOptions(1, 0, 1))


def test_batches_in_parallel_threads_equal_batches_one_by_one():
    """The core keeps no global state: batches played at once in threads (the game loop releases the
    GIL) are the batches played one after the other."""
    from concurrent.futures import ThreadPoolExecutor
    m = TALES.resolve(setup={"mode": "survive-2v2", "bots": "heuristic,random,random,heuristic"}, tables=("games", "cards"))
    ranges = [(11, 0, 300), (11, 300, 300), (12, 0, 300), (11, 150, 300)]
    alone = [m.play_batch(seed, start, count, "core") for seed, start, count in ranges]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(lambda r: m.play_batch(*r, "core"), ranges))
    for a, b in zip(alone, together):
        assert a["games"].equals(b["games"]) and a["cards"].equals(b["cards"])
    assert alone[0]["games"].slice(150).equals(alone[3]["games"].slice(0, 150))


def test_core_knows_every_rule_parameter_and_bot_weight():
    """A parameter the core lacked would be silently ignored by the struct conversion: core_inputs refuses it."""
    import dataclasses

    from core.tales_engine import RULE_FIELDS, WEIGHT_FIELDS
    from sim.params import fields, param
    from sim.tales.bots.heuristic import HeuristicWeights
    from sim.tales.core_engine import CoreError
    from sim.tales.rules import TalesRules
    assert set(RULE_FIELDS) == {f.name for f in fields(TalesRules)} - {"ruleset"}
    assert set(WEIGHT_FIELDS) == {f.name for f in fields(HeuristicWeights)}
    m = TALES.resolve(setup={"mode": "standard"})
    Newer = dataclasses.make_dataclass("Newer", [("reshuffle", int, param(1, "a rule the core lacks"))], bases=(TalesRules,), frozen=True)
    with pytest.raises(CoreError, match="does not know the rule parameter.s. reshuffle; use --engine reference"):
        core_inputs(m.setup, Newer(), m.data)


def test_core_enumerations_are_the_reference_kinds():
    from core.tales_engine import END_REASONS as CORE_END_REASONS, KINDS
    from sim.tales import kinds
    for name, values in KINDS.items():
        assert values == {m.name: int(m) for m in getattr(kinds, name)}, name
    assert [CORE_END_REASONS[k] for k in sorted(CORE_END_REASONS)] == list(END_REASONS)


def test_core_gets_every_card_field_that_plays():
    import dataclasses

    from sim.tales.cards import Creature, Equipment
    from sim.tales.core_engine import CREATURE_FIELDS, EQUIPMENT_FIELDS
    not_played = {"id", "name", "source", "text"}
    assert {f.name for f in dataclasses.fields(Creature)} - not_played == set(CREATURE_FIELDS)
    assert {f.name for f in dataclasses.fields(Equipment)} - not_played - {"copies"} == set(EQUIPMENT_FIELDS)
