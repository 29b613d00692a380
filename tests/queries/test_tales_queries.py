"""The Tales are Real queries (tales_people, tales_champions, tales_cards; game_length and end_reasons per
mode) on a hand-made result set with answers worked out by hand, and on real core games of every mode
checked against plain Python over the same records."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from queries import connection, errors, sqlfiles
from sim.params import as_dict
from sim.tales.record import CARD_SCHEMA, SCHEMA
from sim.tales.rules import PRESETS

Z = 1.959963984540054
GMK, LW, TS, ED = "Great Mammoth King", "Lion Warlord", "Twilight Sovereign", "Eclipse Dragon"
A, S = "animalis", "schatten"


def wilson(k: int, n: int) -> tuple[float, float]:
    """The textbook Wilson score interval, independent of the SQL macro."""
    p = k / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z / (1 + Z * Z / n) * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


# ---- the hand-made result set -------------------------------------------------------------------------
# A game: (winner_team, end_reason, rounds, champion per seat, champion_alive per seat)
CELLS = {
    "c000": ("standard", [A, S], ["heuristic"] * 2, [
        (0, "champion_killed", 2, [GMK, TS], [True, False]),     # G0
        (1, "champion_killed", 3, [GMK, TS], [False, True]),     # G1
        (-1, "draw", 5, [GMK, TS], [True, True]),                # G2
        (0, "losses", 5, [LW, ED], [True, True]),                # G3
    ]),
    "c001": ("standard", [S, A], ["heuristic"] * 2, [            # the peoples swap seats
        (0, "champion_killed", 1, [TS, GMK], [True, False]),     # H0
        (0, "losses", 5, [ED, GMK], [True, True]),               # H1
        (1, "champion_killed", 4, [TS, LW], [False, True]),      # H2
    ]),
    "c002": ("2v2", [A, S, A, S], ["heuristic"] * 4, [
        (0, "champion_killed", 3, [GMK, TS, LW, ED], [True, False, False, False]),   # K0
        (1, "losses", 5, [LW, TS, GMK, TS], [True, True, False, True]),              # K1
    ]),
    "c003": ("2v2", [A, A, S, S], ["heuristic"] * 4, [           # both teams mixed: seats 0+2 and 1+3
        (0, "champion_killed", 2, [GMK, LW, TS, ED], [True, False, True, True]),     # M0
    ]),
    "c004": ("standard", [A, S], ["random", "heuristic"], [
        (1, "champion_killed", 2, [GMK, TS], [False, True]),     # R0
    ]),
}
# The per-card table: (cell, game_index, seat, kind, card, tier, survived, kills); every seat fields its Champion.
SWORD, RHINO = "Short Sword", "Rhino Charger"
EXTRA_CARDS = [
    ("c000", 0, 0, "creature", RHINO, 4, True, 2), ("c000", 0, 0, "equipment", SWORD, 0, True, 2),
    ("c000", 1, 0, "creature", RHINO, 4, False, 0),
    ("c000", 2, 0, "equipment", SWORD, 0, False, 0),
    ("c000", 3, 0, "creature", RHINO, 4, True, 1), ("c000", 3, 0, "equipment", SWORD, 0, True, 1),
    ("c000", 0, 1, "equipment", SWORD, 0, False, 0),
    ("c004", 0, 0, "creature", RHINO, 4, False, 0),
    ("c004", 0, 1, "equipment", SWORD, 0, True, 2),
]
CHAMPION_KILLS = {("c000", 0, 0): 1, ("c000", 2, 0): 1, ("c000", 3, 0): 3, ("c004", 0, 1): 2}


def game_rows(mode, people, bots, games) -> list[dict]:
    params = {k: v for k, v in as_dict(PRESETS[mode]).items() if k != "ruleset"}
    n = len(people)
    out = []
    for i, (winner, reason, rounds, champion, alive) in enumerate(games):
        teams = {0: {people[s] for s in range(0, n, 2)}, 1: {people[s] for s in range(1, n, 2)}}
        out.append({
            "game": "tales", "ruleset": mode, "mode": mode, "players": n, "people": people, "bots": bots,
            "seed": 7, "game_index": i, "champion": champion, "first_side": i % 2,
            "winner_side": winner if n == 2 else -1, "winner_team": winner,
            "winner_people": "" if winner < 0 else (teams[winner].pop() if len(teams[winner]) == 1 else "mixed"),
            "end_reason": reason, "rounds": rounds, "turns": 3 * rounds, "fights": 3 * rounds,
            "weighted_losses": [0] * n, "destroyed": [0] * n, "survivors": [1] * n, "champion_alive": alive,
            **params,
        })
    return out


def card_rows(cell: str) -> list[dict]:
    mode, people, _, games = CELLS[cell]
    out = []
    for i, (winner, _, _, champion, alive) in enumerate(games):
        for seat, name in enumerate(champion):
            out.append((i, seat, "creature", name, 5, alive[seat], CHAMPION_KILLS.get((cell, i, seat), 0)))
    out += [c[1:] for c in EXTRA_CARDS if c[0] == cell]
    rows = []
    for i, seat, kind, card, tier, survived, kills in out:
        winner = games[i][0]
        rows.append({"seed": 7, "game_index": i, "mode": mode, "seat": seat, "team": seat % 2,
                     "people": people[seat], "won": winner == seat % 2, "draw": winner == -1, "kind": kind,
                     "card": card, "tier": tier, "champion": tier == 5, "survived": survived, "kills": kills})
    return rows


def write_synthetic_tales(root: Path) -> Path:
    for cell, (mode, people, bots, games) in CELLS.items():
        for table, rows, schema in (("games", game_rows(mode, people, bots, games), SCHEMA),
                                    ("cards", card_rows(cell), CARD_SCHEMA)):
            path = root / table / f"cell={cell}" / "part-00000.parquet"
            path.parent.mkdir(parents=True, exist_ok=True)
            pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)
    return root


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    return write_synthetic_tales(tmp_path_factory.mktemp("tales"))


def answer(name, results, params=None, where=None):
    cols, rows = connection.run(name, [str(r) for r in results], params, where)
    assert cols == sqlfiles.expected_columns(sqlfiles.load(name), cols), name   # the header tells the truth
    return [dict(zip(cols, r)) for r in rows]


def check(row: dict, **expected):
    for k, v in expected.items():
        assert row[k] == (pytest.approx(v, abs=1e-12) if isinstance(v, float) else v), (k, row)


def check_ci(row, k, n, low="ci95_low", high="ci95_high"):
    assert (row[low], row[high]) == pytest.approx(wilson(k, n), abs=1e-12)


def by(rows, *keys):
    return {tuple(r[k] for k in keys): r for r in rows}


# ---- hand-worked answers --------------------------------------------------------------------------------
def test_tales_people_by_mode_people_and_side(synthetic):
    r = by(answer("tales_people", [synthetic]), "mode", "bots", "people", "side")
    hh = "heuristic,heuristic"
    # standard hh: 2 peoples x (either, team 0, team 1); random/heuristic: one side each; 2v2: Animalis only
    # as team 0, Schatten only as team 1, mixed on both sides
    assert len(r) == 6 + 4 + 7
    # standard, both heuristic: Animalis is team 0 in G0..G3 (won G0, G3; G2 drawn), team 1 in H0..H2 (won H2)
    check(r[("standard", hh, A, "either")], games=7, wins=3, draws=1, win_rate=3 / 7)
    check(r[("standard", hh, A, "team 0")], games=4, wins=2, draws=1, win_rate=0.5)
    check(r[("standard", hh, A, "team 1")], games=3, wins=1, draws=0)
    check(r[("standard", hh, S, "either")], games=7, wins=3, draws=1)
    check(r[("standard", hh, S, "team 0")], games=3, wins=2, draws=0)
    check(r[("standard", hh, S, "team 1")], games=4, wins=1, draws=1)
    check_ci(r[("standard", hh, A, "either")], 3, 7)
    check_ci(r[("standard", hh, S, "team 0")], 2, 3)
    # a random bot against a heuristic one is its own matchup
    check(r[("standard", "random,heuristic", A, "either")], games=1, wins=0, win_rate=0.0)
    check(r[("standard", "random,heuristic", S, "team 1")], games=1, wins=1, win_rate=1.0)
    # 2 vs. 2: K0 Animalis (seats 0+2) win, K1 Schatten win; M0 has two mixed teams, team 0 wins
    h4 = ",".join(["heuristic"] * 4)
    check(r[("2v2", h4, A, "either")], games=2, wins=1, draws=0, win_rate=0.5)
    check(r[("2v2", h4, S, "team 1")], games=2, wins=1)
    check(r[("2v2", h4, "mixed", "either")], games=2, wins=1)
    check(r[("2v2", h4, "mixed", "team 0")], games=1, wins=1, win_rate=1.0)
    check_ci(r[("2v2", h4, "mixed", "team 1")], 0, 1)


def test_tales_champions(synthetic):
    r = by(answer("tales_champions", [synthetic]), "mode", "people", "bot", "champion")
    assert len(r) == 5 + 4                    # standard: GMK, LW, GMK (random bot), TS, ED; 2v2: GMK, LW, TS, ED
    # standard, heuristic Animalis seats: GMK in G0 (won), G1, G2 (draw), H0, H1; LW in G3 (won), H2 (won)
    check(r[("standard", A, "heuristic", GMK)], seat_games=5, chosen_share=5 / 7, wins=1, draws=1, win_rate=0.2,
          people_win_rate=3 / 7, alive_share=0.6)           # alive in G0, G2, H1
    check(r[("standard", A, "heuristic", LW)], seat_games=2, wins=2, win_rate=1.0, alive_share=1.0)
    check_ci(r[("standard", A, "heuristic", GMK)], 1, 5)
    # R0: the random seat 0 lost with GMK; its heuristic opponent's TS counts with the other heuristic seats
    check(r[("standard", A, "random", GMK)], seat_games=1, wins=0, chosen_share=1.0, people_win_rate=0.0)
    check(r[("standard", S, "heuristic", TS)], seat_games=6, wins=3, draws=1, chosen_share=0.75,
          people_win_rate=0.5, alive_share=4 / 6)
    check(r[("standard", S, "heuristic", ED)], seat_games=2, wins=1, alive_share=1.0)
    # 2 vs. 2 (K0, K1, M0): every seat has its own Champion; the team of the seat wins or not
    check(r[("2v2", A, "heuristic", GMK)], seat_games=3, wins=2, people_win_rate=0.5, alive_share=2 / 3)
    check(r[("2v2", A, "heuristic", LW)], seat_games=3, wins=1, alive_share=1 / 3)
    check(r[("2v2", S, "heuristic", TS)], seat_games=4, wins=3, chosen_share=4 / 6, alive_share=0.75)
    check(r[("2v2", S, "heuristic", ED)], seat_games=2, wins=0, win_rate=0.0, alive_share=0.5)
    check_ci(r[("2v2", S, "heuristic", TS)], 3, 4)


def test_tales_cards(synthetic):
    r = by(answer("tales_cards", [synthetic], where="mode = 'standard'"), "people", "bot", "card")
    assert {k[2] for k in r} == {GMK, LW, TS, ED, SWORD, RHINO} and all(x["mode"] == "standard" for x in r.values())
    # Animalis, heuristic: 7 seat-games, 3 won. Rhino Charger in G0 (won), G1, G3 (won); kills 2, 0, 1
    rhino = r[(A, "heuristic", RHINO)]
    check(rhino, kind="creature", tier=4, present=3, seat_games=7, present_share=3 / 7, wins=2, win_rate=2 / 3,
          people_win_rate=3 / 7, impact=2 / 3 - 3 / 7, survived_share=2 / 3, kills_per_game=1.0,
          kills_ci95_low=0.0, kills_ci95_high=1 + Z / math.sqrt(3))          # sd of 2, 0, 1 is 1
    check_ci(rhino, 2, 3)
    check_ci(rhino, 2, 3, "survived_ci95_low", "survived_ci95_high")
    # the sword in G0 (won), G2 (draw: no win), G3 (won) for Animalis; Schatten carried it in G0 (lost)
    check(r[(A, "heuristic", SWORD)], kind="equipment", tier=0, present=3, wins=2, survived_share=2 / 3)
    check(r[(S, "heuristic", SWORD)], present=2, seat_games=8, wins=1, win_rate=0.5, people_win_rate=0.5,
          impact=0.0, survived_share=0.5, kills_per_game=1.0)
    check(r[(A, "heuristic", GMK)], present=5, wins=1, kills_per_game=0.4, survived_share=0.6)   # kills in G0, G2
    check(r[(A, "random", RHINO)], present=1, seat_games=1, wins=0, kills_per_game=0.0)
    assert r[(A, "random", RHINO)]["kills_ci95_low"] is None        # one seat-game: no spread, no interval


def test_tales_cards_parameters(synthetic):
    kinds = answer("tales_cards", [synthetic], {"kind": "equipment"})
    assert {(x["mode"], x["people"], x["bot"], x["card"]) for x in kinds} == {
        ("standard", A, "heuristic", SWORD), ("standard", S, "heuristic", SWORD)}
    common = answer("tales_cards", [synthetic], {"min_games": 4})
    assert {(x["mode"], x["people"], x["card"], x["present"]) for x in common} == {
        ("standard", A, GMK, 5), ("standard", S, TS, 6), ("2v2", S, TS, 4)}
    with pytest.raises(errors.QueryError, match=r"kind = 'creatures' is not allowed; expected creature, "
                                                 r"equipment or any"):
        answer("tales_cards", [synthetic], {"kind": "creatures"})
    with pytest.raises(errors.QueryError, match="min_games = 'x' is not allowed; expected an integer"):
        answer("tales_cards", [synthetic], {"min_games": "x"})


def test_game_length_and_end_reasons_per_mode(synthetic):
    r = by(answer("game_length", [synthetic]), "mode")
    assert list(r) == [("2v2",), ("standard",)]
    # standard rounds: 2 3 5 5 | 1 5 4 | 2 -> sorted 1 2 2 3 4 5 5 5; 2 vs. 2: 3 5 2
    check(r[("standard",)], game="tales", ruleset="standard", players=2, games=8, rounds_mean=27 / 8, rounds_p10=1,
          rounds_p50=3, rounds_p90=5, rounds_max=5, turns_mean=81 / 8)
    check(r[("2v2",)], players=4, games=3, rounds_mean=10 / 3, rounds_p50=3, rounds_max=5)
    ends = {(x["mode"], x["end_reason"]): x for x in answer("end_reasons", [synthetic])}
    assert {k: x["games"] for k, x in ends.items()} == {
        ("2v2", "champion_killed"): 2, ("2v2", "losses"): 1,
        ("standard", "champion_killed"): 5, ("standard", "draw"): 1, ("standard", "losses"): 2}
    check_ci(ends[("standard", "champion_killed")], 5, 8)


def test_tales_query_on_paws_records_says_so(tmp_path):
    from sim.games import get
    from sim.output import write_parquet
    m = get("paws").resolve(rules="v4", setup={"players": 2})
    write_parquet([m.play_batch(1, 0, 5)["games"]], tmp_path / "games" / "cell=c000" / "part-00000.parquet",
                  m.schemas["games"])
    with pytest.raises(errors.QueryError, match="this query is for tales records; these hold paws"):
        answer("tales_people", [tmp_path])


# ---- real games of every mode ---------------------------------------------------------------------------
REAL = {   # mode picks its preset; seats swap peoples; a random cell shows every Champion
    "c000": dict(rules="standard", setup={"mode": "standard", "people": A}),
    "c001": dict(rules="standard", setup={"mode": "standard", "people": S, "bots": "random"}),
    "c002": dict(rules="2v2", setup={"mode": "2v2", "people": S}),
    "c003": dict(rules="survive", setup={"mode": "survive", "people": A}),
    "c004": dict(rules="survive-2v2", setup={"mode": "survive-2v2", "people": A, "bots": "random,heuristic,random,heuristic"}),
}


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    """300 core games per cell, games and cards, parts of 120 games, in the sweep layout."""
    from sim.games import get
    from sim.output import write_parquet
    root = tmp_path_factory.mktemp("tales-real")
    games, cards = [], []
    for cell, kw in REAL.items():
        m = get("tales").resolve(**kw, tables=("games", "cards"))
        for b, lo in enumerate(range(0, 300, 120)):
            batch = m.play_batch(5, lo, min(120, 300 - lo))
            for table, t in batch.items():
                write_parquet([t], root / table / f"cell={cell}" / f"part-{b:05d}.parquet", m.schemas[table])
            games += [g | {"cell": cell} for g in batch["games"].to_pylist()]
            cards += [c | {"cell": cell} for c in batch["cards"].to_pylist()]
    return root, games, cards


def seat_rows(games):
    for g in games:
        for seat in range(g["players"]):
            yield g, seat, g["people"][seat], g["bots"][seat], g["winner_team"] == seat % 2


def test_tales_people_on_real_games(real):
    root, games, _ = real
    rows = answer("tales_people", [root])
    want = Counter()
    for g in games:
        for team in (0, 1):
            ps = set(g["people"][team::2])
            p = ps.pop() if len(ps) == 1 else "mixed"
            for side in ("either", f"team {team}"):
                k = (g["ruleset"], g["mode"], ",".join(g["bots"]), p, side)
                want[k + ("games",)] += 1
                want[k + ("wins",)] += g["winner_team"] == team
                want[k + ("draws",)] += g["winner_team"] == -1
    assert len(rows) == len(want) // 3
    for x in rows:
        k = (x["ruleset"], x["mode"], x["bots"], x["people"], x["side"])
        assert (x["games"], x["wins"], x["draws"]) == (want[k + ("games",)], want[k + ("wins",)], want[k + ("draws",)])
        check_ci(x, x["wins"], x["games"])
    modes = {x["ruleset"] for x in rows}
    assert modes == {"standard", "2v2", "survive", "survive-2v2"}
    assert all(x["games"] == 300 for x in rows if x["side"] == "either")     # one cell per setup; a people a game


def test_tales_champions_on_real_games(real):
    root, games, _ = real
    rows = by(answer("tales_champions", [root]), "mode", "people", "bot", "champion")
    want = defaultdict(lambda: [0, 0, 0])
    for g, seat, people, bot, won in seat_rows(games):
        w = want[(g["mode"], people, bot, g["champion"][seat])]
        w[0] += 1
        w[1] += won
        w[2] += g["champion_alive"][seat]
    assert {k: [x["seat_games"], x["wins"], round(x["alive_share"] * x["seat_games"])] for k, x in rows.items()} \
        == dict(want)
    assert len([k for k in rows if k[:3] == ("standard", S, "random")]) == 3    # random bots choose all three


def test_tales_cards_on_real_games(real):
    root, games, cards = real
    rows = answer("tales_cards", [root])
    seats = {(g["cell"], g["game_index"], seat): (g["mode"], people, bot, won)
             for g, seat, people, bot, won in seat_rows(games)}
    totals = Counter(v[:3] for v in seats.values())
    want = defaultdict(lambda: [0, 0, 0, 0])
    for c in cards:
        mode, people, bot, won = seats[(c["cell"], c["game_index"], c["seat"])]
        assert c["won"] == won and c["people"] == people               # the card table agrees with the games
        w = want[(mode, people, bot, c["kind"], c["card"])]
        w[0] += 1
        w[1] += won
        w[2] += c["survived"]
        w[3] += c["kills"]
    got = {(x["mode"], x["people"], x["bot"], x["kind"], x["card"]): x for x in rows}
    assert set(got) == set(want)
    for k, x in got.items():
        n, wins, survived, kills = want[k]
        assert (x["present"], x["wins"], x["seat_games"]) == (n, wins, totals[k[:3]])
        assert x["survived_share"] == pytest.approx(survived / n) and x["kills_per_game"] == pytest.approx(kills / n)
    kinds = {x["kind"] for x in rows}
    assert kinds == {"creature", "equipment"}


def test_game_length_covers_every_tales_mode(real):
    root, games, _ = real
    rows = by(answer("game_length", [root]), "mode")
    assert set(rows) == {("standard",), ("2v2",), ("survive",), ("survive-2v2",)}
    for (mode,), x in rows.items():
        rounds = sorted(g["rounds"] for g in games if g["mode"] == mode)
        assert x["games"] == len(rounds) and x["rounds_max"] == rounds[-1]
        assert x["rounds_mean"] == pytest.approx(sum(rounds) / len(rounds))
        assert x["rounds_p50"] == rounds[math.ceil(0.5 * len(rounds)) - 1]    # nearest rank


def test_playtest_query_tales(synthetic):
    from typer.testing import CliRunner
    from cli.main import app
    runner = CliRunner()
    res = runner.invoke(app, ["query", "tales_champions", "--results", str(synthetic), "--format", "csv",
                              "--where", "mode = '2v2'"])
    assert res.exit_code == 0, res.output
    lines = res.output.strip().splitlines()
    assert lines[0].startswith("ruleset,mode,people,bot,champion,seat_games") and len(lines) == 1 + 4
    res = runner.invoke(app, ["query", "tales_cards", "--results", str(synthetic), "--param", "kind=gear"])
    assert res.exit_code == 2 and "kind = 'gear' is not allowed" in res.output and "Traceback" not in res.output
