"""The Paws in Peril cards table (sim/paws/record.py CARD_COLUMNS): the core's rows equal the reference
engine's on many seeds of every setup; invariants against the games table; hand-worked counters (an item
card played; a monster card fought, defended, invaded, taken and kept) on both engines; the table comes
out only when asked for; the paws_cards query against plain Python over the same rows, and by hand.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from scenario import Ask, item, item_deck, make_game, monster, monster_deck, own, place, reference_only, script

from queries import connection, errors, sqlfiles
from sim.games import BatchOptions, get
from sim.paws import invade, knockout, loot
from sim.paws.actions import apply_action
from sim.paws.kinds import Action, Decision
from sim.paws.knockout import MONSTER
from sim.paws.record import CARD_SCHEMA, MONSTER_COUNTERS

# The hand-worked scenarios run on both engines (the engine fixture of conftest.py); the other tests play
# whole games on both engines themselves, so they take the fixture's first value only.
whole_games = reference_only

# both boards, 2-4 players, Teams, v3 and v4
SETUPS = [(rules, setup) for rules in ("v4", "v3") for setup in (
    {"board": "beginner", "players": 4}, {"board": "beginner", "players": 2}, {"board": "explorer", "players": 3},
    {"board": "explorer", "players": 2}, {"board": "beginner", "mode": "teams"})]
SETUP_IDS = [f"{r}-{s.get('board')}-{s.get('mode', s.get('players'))}" for r, s in SETUPS]


def match(rules, setup, tables=("games", "cards")):
    return get("paws").resolve(rules, {}, setup, tables=tables)


def counters(row: dict) -> list[int]:
    return [row["plays"]] + [row[c] for c in MONSTER_COUNTERS]


# ---- both engines, record for record --------------------------------------------------------------------
@whole_games
@pytest.mark.parametrize("rules,setup", SETUPS, ids=SETUP_IDS)
def test_core_cards_table_is_the_reference_engines(rules, setup):
    m = match(rules, setup)
    core, ref = m.play_batch(11, 100, 25, "core"), m.play_batch(11, 100, 25, "reference")
    assert core["cards"].schema == CARD_SCHEMA == ref["cards"].schema
    assert core["cards"].num_rows > 0
    assert core["cards"].to_pylist() == ref["cards"].to_pylist()
    assert core["games"].equals(ref["games"])


@whole_games
@pytest.mark.slow
@pytest.mark.parametrize("rules,setup", SETUPS, ids=SETUP_IDS)
def test_core_cards_table_is_the_reference_engines_on_more_seeds(rules, setup):
    m = match(rules, setup)
    for seed in (1, 2024):
        core, ref = m.play_batch(seed, 0, 80, "core"), m.play_batch(seed, 0, 80, "reference")
        assert core["cards"].to_pylist() == ref["cards"].to_pylist(), seed


@whole_games
def test_a_batch_split_anywhere_gives_the_same_rows():
    m = match("v4", {"players": 4})
    whole = m.play_batch(3, 0, 300, "core")["cards"]
    parts = pa.concat_tables([m.play_batch(3, lo, n, "core")["cards"] for lo, n in ((0, 1), (1, 170), (171, 129))])
    assert whole.equals(parts)


# ---- only when asked; the games table does not change --------------------------------------------------
@whole_games
def test_the_cards_table_comes_only_when_asked_and_leaves_the_games_table_as_it_was():
    with_cards, without = match("v4", {}), match("v4", {}, tables=("games",))
    for engine in ("core", "reference"):
        a, b = with_cards.play_batch(5, 0, 20, engine), without.play_batch(5, 0, 20, engine)
        assert set(a) == {"games", "cards"} and set(b) == {"games"}
        assert a["games"].equals(b["games"])
    from core.paws_engine import CARD_ROW_DTYPE, play_batch
    from sim.paws.core_engine import core_inputs
    inputs = core_inputs(with_cards.setup, with_cards.rules, with_cards.data)
    assert "cards" not in play_batch(inputs, BatchOptions(5, 0, 3))
    rows = play_batch(inputs, BatchOptions(5, 0, 3, cards=True))["cards"]
    assert rows.dtype == CARD_ROW_DTYPE and len(rows) > 0 and set(rows["game"]) == {0, 1, 2}


# ---- invariants against the games table -----------------------------------------------------------------
@whole_games
@pytest.mark.parametrize("rules,setup", SETUPS[::2] + [SETUPS[3]], ids=SETUP_IDS[::2] + [SETUP_IDS[3]])
def test_invariants_against_the_games_table(rules, setup):
    m = match(rules, setup)
    out = m.play_batch(21, 0, 1500, "core")
    games, cards = out["games"].to_pylist(), out["cards"].to_pylist()
    mansion = m.rules.mansion_monsters
    per_game = defaultdict(Counter)
    seen = set()
    kept = defaultdict(int)
    for c in cards:
        key = (c["game_index"], c["seat"], c["kind"], c["card"])
        assert key not in seen                                    # one row per game, seat and card
        seen.add(key)
        g = games[c["game_index"]]
        teams = g["mode"] == "teams"
        assert c["won"] == (g["winner_team"] == c["seat"] % 2 if teams else g["winner_seat"] == c["seat"])
        assert c["team"] == (c["seat"] % 2 if teams else -1) and c["mode"] == g["mode"] and c["seed"] == 21
        assert any(counters(c))                                   # a row only for a card the seat met
        if c["kind"] == "item":
            assert not any(c[k] for k in MONSTER_COUNTERS) and c["plays"] > 0
        else:
            assert c["plays"] == 0 and c["beaten"] <= c["fights"] and c["held"] <= c["defended"]
            kept[(c["game_index"], c["seat"])] += c["kept"]
        per_game[c["game_index"]].update({k: c[k] for k in ("plays", "fights", "invaded", "defended", "held")})
    for i, g in enumerate(games):
        s = per_game[i]
        assert s["plays"] == g["items_played"]                     # every item card played, by whom it was
        assert s["invaded"] == s["defended"] == g["invasions"]     # each invasion: one invader, one defender
        claims = g["building_fights"] - g["invasions"]             # §5 fights for homes and mansions
        assert claims <= s["fights"] <= mansion * claims
        for seat in range(g["players"]):                           # keep one monster a knockout at most
            assert kept[(i, seat)] <= g["knockouts"][seat]
    if not m.rules.keep_one_monster:
        assert sum(kept.values()) == 0
    else:
        assert sum(kept.values()) > 0


# ---- hand-worked, on both engines (the engine fixture of conftest.py) -----------------------------------
def stats(g, seat, name):
    return dict(zip(MONSTER_COUNTERS, g.players[seat].monster_stats.get(monster(name), [0] * len(MONSTER_COUNTERS))))


def test_an_item_card_played_counts_for_its_player():
    """P0 plays a Grenade on tile 1 (P1 stands there, 10 -> 7): one play of Grenade, by P0, and the game's
    items_played is 1."""
    g = make_game()
    place(g, 0, pos=0, hand=["Grenade"])
    place(g, 1, pos=1)
    g.ap = 5
    apply_action(g, 0, (Action.PLAY_ITEM, 0, 1))
    assert g.players[1].hp == 7
    assert g.players[0].item_plays == {item("Grenade"): 1} and g.players[1].item_plays == {}
    assert g.items_played == 1


def test_a_mansion_fight_counts_each_monster_fought_and_beaten():
    """P0 (5 HP) loots mansion 3: Field Mouse, beaten in one roll (12 vs 3); Grumpy Toad, which knocks P0
    out (§5, test_s05_monsters). Field Mouse: fought and beaten; Grumpy Toad: fought, not beaten."""
    g = make_game()
    place(g, 0, pos=3, hp=5)
    monster_deck(g, "Field Mouse", "Grumpy Toad", "Badger")
    item_deck(g, "Tailwind", "Shortcut", "Scavenge")
    g.building_fights_left = 1
    with script(g, [6, 6, 1, 1], [2, 1, 1, 1], [1, 1, 1, 1], [3, 3, 1, 1], [6, 6, 1, 1], [1, 1, 1, 1]):
        loot.claim_building(g, 0, 3)
    assert stats(g, 0, "Field Mouse") == dict.fromkeys(MONSTER_COUNTERS, 0) | {"fights": 1, "beaten": 1}
    assert stats(g, 0, "Grumpy Toad") == dict.fromkeys(MONSTER_COUNTERS, 0) | {"fights": 1}
    assert stats(g, 0, "Badger") == dict.fromkeys(MONSTER_COUNTERS, 0)


def test_an_invasion_counts_for_the_invader_and_the_defender():
    """§6 (test_s06_invasion): P1 defends home 2 with Field Mouse, which P0 beats in three rolls and takes.
    Field Mouse: P0 invaded it and captured it; P1 defended with it and did not hold."""
    g = make_game()
    own(g, 0, 1)
    own(g, 1, 2)
    place(g, 0, pos=2, hp=10)
    place(g, 1, pos=5, hp=10, beasts=["Wild Boar", "Field Mouse"], active=[True, True])
    g.ap, g.building_fights_left = 5, 1
    with script(g, Ask(1, Decision.DEFENDER, monster("Field Mouse")),
                [5, 4, 1, 1], [4, 4, 1, 1], [3, 3, 1, 1], [3, 2, 1, 1], [6, 6, 1, 1], [2, 1, 1, 1]):
        invade.invade(g, 0)
    zero = dict.fromkeys(MONSTER_COUNTERS, 0)
    assert stats(g, 0, "Field Mouse") == zero | {"invaded": 1, "captured": 1}
    assert stats(g, 1, "Field Mouse") == zero | {"defended": 1}
    assert stats(g, 1, "Wild Boar") == zero and g.invasions == 1


def test_a_defender_that_holds_and_knocks_the_invader_out():
    """P1 defends home 2 with Field Mouse against P0 (1 HP): roll 1 P0 1+1 = 2 vs 2+2 +1 (edge) = 5, nothing;
    roll 2 mouse 3+3 +1 = 7 vs 1+1 = 2, P0 at 0. Field Mouse held home 2 (defended and held, for P1);
    P0 invaded it and is knocked out by P1 (§6.4), with no card to take and no monster to keep."""
    g = make_game()
    own(g, 0, 1)
    own(g, 1, 2)
    place(g, 0, pos=2, hp=1)
    place(g, 1, pos=5, hp=10, beasts=["Field Mouse"], active=[True])
    item_deck(g, "Tailwind", "Shortcut", "Scavenge")
    g.building_fights_left = 1
    with script(g, [1, 1, 1, 1], [2, 2, 1, 1], [3, 3, 1, 1], [1, 1, 1, 1]):    # one defender: no choice to ask
        invade.invade(g, 0)
    zero = dict.fromkeys(MONSTER_COUNTERS, 0)
    assert g.players[0].knockouts == 1 and g.owner[2] == 1
    assert stats(g, 0, "Field Mouse") == zero | {"invaded": 1}
    assert stats(g, 1, "Field Mouse") == zero | {"defended": 1, "held": 1}


def test_a_knockout_counts_the_monster_kept_and_the_monster_taken():
    """§8 (test_s08_knockout): P1 keeps Badger, then P0 takes Old Owl. Badger: kept by P1; Old Owl: captured
    by P0; Angry Crow, to the bottom of the deck, counts nothing."""
    g = make_game(players=3)
    place(g, 0, pos=6, hand=["Log Pile"])
    place(g, 1, pos=6, hp=0, hand=["Tailwind"], beasts=["Angry Crow", "Old Owl", "Badger"],
          active=[True, True, False])
    item_deck(g, "Pack Rat", "Treasure Map", "Magpie Trade", "Beaver Dam")
    crow, owl, badger = monster("Angry Crow"), monster("Old Owl"), monster("Badger")
    with script(g, Ask(1, Decision.KEEP_MONSTER, badger), Ask(0, Decision.TAKE_CARD, (MONSTER, owl))):
        knockout.knock_out(g, 1, 0, scores=True)
    zero = dict.fromkeys(MONSTER_COUNTERS, 0)
    assert stats(g, 1, "Badger") == zero | {"kept": 1}
    assert stats(g, 0, "Old Owl") == zero | {"captured": 1}
    assert stats(g, 1, "Angry Crow") == zero == stats(g, 0, "Angry Crow")


# ---- the paws_cards query ---------------------------------------------------------------------------------
Z = 1.959963984540054


def wilson(k: int, n: int) -> tuple[float, float]:
    """The textbook Wilson score interval, independent of the SQL macro."""
    p = k / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z / (1 + Z * Z / n) * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def answer(name, results, params=None):
    cols, rows = connection.run(name, [str(r) for r in results], params)
    assert cols == sqlfiles.expected_columns(sqlfiles.load(name), cols), name   # the header tells the truth
    return [dict(zip(cols, r)) for r in rows]


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    """Core games and cards of two cells (4 and 2 players), in the sweep layout, parts of 200 games."""
    from sim.output import write_parquet
    root = tmp_path_factory.mktemp("paws-cards")
    games, cards = [], []
    for cell, setup in (("c000", {"players": 4}), ("c001", {"players": 2, "bots": "heuristic,random"})):
        m = match("v4", setup)
        for b, lo in enumerate(range(0, 600, 200)):
            batch = m.play_batch(8, lo, 200, "core")
            for table, t in batch.items():
                write_parquet([t], root / table / f"cell={cell}" / f"part-{b:05d}.parquet", m.schemas[table])
            games += [g | {"cell": cell} for g in batch["games"].to_pylist()]
            cards += [c | {"cell": cell} for c in batch["cards"].to_pylist()]
    return root, games, cards


@whole_games
def test_paws_cards_on_real_games(real):
    root, games, cards = real
    rows = answer("paws_cards", [root])
    seats = {}
    for g in games:
        for s in range(g["players"]):
            seats[(g["cell"], g["game_index"], s)] = (g["bots"][s], g["winner_seat"] == s)
    totals, wins = Counter(), Counter()
    for (cell, _, _), (bot, won) in seats.items():
        totals[(cell, bot)] += 1
        wins[(cell, bot)] += won
    want = defaultdict(lambda: [0, 0, 0, 0, 0])
    for c in cards:
        bot, won = seats[(c["cell"], c["game_index"], c["seat"])]
        assert c["won"] == won
        w = want[(c["cell"], bot, c["kind"], c["card"])]
        w[0] += 1
        w[1] += won
        w[2] += c["plays"]
        w[3] += c["defended"]
        w[4] += c["held"]
    got = {(x["cell"], x["bot"], x["kind"], x["card"]): x for x in rows}
    assert set(got) == set(want)                       # never pooled: each cell and bot its own rows
    for k, x in got.items():
        present, won, plays, defended, held = want[k]
        n, nw = totals[k[:2]], wins[k[:2]]
        assert (x["present"], x["wins"], x["plays"], x["defended"], x["held"]) == (present, won, plays, defended, held)
        assert (x["seat_games"], x["others"], x["others_wins"]) == (n, n - present, nw - won)
        assert (x["ci95_low"], x["ci95_high"]) == pytest.approx(wilson(won, present), abs=1e-12)
        if n > present:
            lo2, hi2 = wilson(nw - won, n - present)
            lo1, hi1 = wilson(won, present)
            p1, p2 = won / present, (nw - won) / (n - present)
            assert x["impact"] == pytest.approx(p1 - p2, abs=1e-12)
            assert x["impact_ci95_low"] == pytest.approx(p1 - p2 - math.hypot(p1 - lo1, hi2 - p2), abs=1e-12)
            assert x["impact_ci95_high"] == pytest.approx(p1 - p2 + math.hypot(hi1 - p1, p2 - lo2), abs=1e-12)
            assert x["impact_ci95_low"] <= x["impact"] <= x["impact_ci95_high"]
        if defended:
            assert (x["held_ci95_low"], x["held_ci95_high"]) == pytest.approx(wilson(held, defended), abs=1e-12)
    monsters = answer("paws_cards", [root], {"kind": "monster", "min_games": 100})
    assert monsters and all(x["kind"] == "monster" and x["present"] >= 100 for x in monsters)


@whole_games
def test_paws_cards_by_hand(tmp_path):
    """Four 2-player games in one cell, heuristic seats: seat 0 wins games 0 and 1, seat 1 game 2, nobody
    game 3. Seat 0 plays Grenade in games 0 and 2 (twice in game 2); seat 1 in game 1. Grenade: present in
    3 of 8 seat-games, 1 won (game 0); the other 5 seat-games won 2 (game 1 seat 0, game 2 seat 1)."""
    m = match("v4", {"players": 2})
    games = m.play_batch(1, 0, 4, "core")["games"].to_pylist()
    for g, winner in zip(games, (0, 0, 1, -1)):
        g["winner_seat"] = winner
    played = [(0, 0, 1), (1, 1, 1), (2, 0, 2)]
    rows = [{"seed": 1, "game_index": i, "mode": "ffa", "seat": s, "team": -1,
             "won": games[i]["winner_seat"] == s, "kind": "item", "card": "Grenade", "plays": n,
             **dict.fromkeys(MONSTER_COUNTERS, 0)} for i, s, n in played]
    rows.append({"seed": 1, "game_index": 3, "mode": "ffa", "seat": 1, "team": -1, "won": False, "kind": "monster",
                 "card": "Badger", "plays": 0, **dict.fromkeys(MONSTER_COUNTERS, 0), "defended": 3, "held": 2,
                 "kept": 1})
    for table, data, schema in (("games", games, m.schemas["games"]), ("cards", rows, CARD_SCHEMA)):
        path = tmp_path / table / "cell=c000" / "part-00000.parquet"
        path.parent.mkdir(parents=True)
        pq.write_table(pa.Table.from_pylist(data, schema=schema), path)
    got = {x["card"]: x for x in answer("paws_cards", [tmp_path])}
    g = got["Grenade"]
    assert (g["seat_games"], g["present"], g["plays"], g["wins"], g["others"], g["others_wins"]) == (8, 3, 4, 1, 5, 2)
    assert g["win_rate"] == pytest.approx(1 / 3) and g["others_win_rate"] == pytest.approx(2 / 5)
    assert g["impact"] == pytest.approx(1 / 3 - 2 / 5)
    b = got["Badger"]
    assert (b["present"], b["wins"], b["defended"], b["held"], b["kept"]) == (1, 0, 3, 2, 1)
    assert b["held_share"] == pytest.approx(2 / 3) and b["fights"] == 0 and b["beaten_share"] is None
    assert (b["held_ci95_low"], b["held_ci95_high"]) == pytest.approx(wilson(2, 3), abs=1e-12)
    assert [x["card"] for x in answer("paws_cards", [tmp_path], {"kind": "item"})] == ["Grenade"]
    assert answer("paws_cards", [tmp_path], {"min_games": 2})[0]["card"] == "Grenade"
    with pytest.raises(errors.QueryError, match="expected item, monster or any"):
        answer("paws_cards", [tmp_path], {"kind": "creature"})


@whole_games
def test_core_refuses_a_card_file_beyond_its_counters():
    from core.paws_engine import LIMITS, play_batch
    from sim.paws.core_engine import core_inputs
    m = match("v4", {})
    inputs = core_inputs(m.setup, m.rules, m.data)
    inputs["monsters"] = inputs["monsters"] * (LIMITS["monster_cards"] // len(inputs["monsters"]) + 1)
    with pytest.raises(ValueError, match="capacity"):
        play_batch(inputs, BatchOptions(1, 0, 1))
