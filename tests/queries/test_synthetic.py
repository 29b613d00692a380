"""Every canned query on the hand-made result set (synthetic.py): answers worked out by hand."""

import math

import pytest

from queries import connection, sqlfiles
from synthetic import write_synthetic, write_tales

Z = 1.959963984540054


def wilson(k: int, n: int) -> tuple[float, float]:
    """The textbook Wilson score interval, independent of the SQL macro."""
    p = k / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z / (1 + Z * Z / n) * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


@pytest.mark.parametrize("k, n, low, high", [   # hand-computed (4 decimals), and the textbook tables
    (0, 10, 0.0, 0.2775), (2, 10, 0.0567, 0.5098), (5, 10, 0.2366, 0.7634), (10, 10, 0.7225, 1.0),
    (2, 3, 0.2077, 0.9385), (1, 4, 0.0456, 0.6994),
])
def test_wilson_macro_and_reference_match_hand_computed_bounds(k, n, low, high):
    import duckdb
    con = duckdb.connect()
    con.execute(sqlfiles.MACROS)
    got = con.execute("SELECT wilson_low($k, $n), wilson_high($k, $n), wilson_low(1, 0)", {"k": k, "n": n}).fetchone()
    assert got[0] == pytest.approx(low, abs=5e-5) and got[1] == pytest.approx(high, abs=5e-5)
    assert got[2] is None                                  # no games: no interval
    assert wilson(k, n) == pytest.approx(got[:2], abs=1e-12)


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    return write_synthetic(tmp_path_factory.mktemp("synthetic"))


def answer(name, results, params=None):
    cols, rows = connection.run(name, [str(r) for r in results], params)
    assert cols == sqlfiles.expected_columns(sqlfiles.load(name), cols), name   # the header tells the truth
    return [dict(zip(cols, r)) for r in rows]


def check(row: dict, **expected):
    for k, v in expected.items():
        assert row[k] == (pytest.approx(v, abs=1e-12) if isinstance(v, float) else v), (k, row)


def check_ci(row, k, n, low="ci95_low", high="ci95_high"):
    assert (row[low], row[high]) == pytest.approx(wilson(k, n), abs=1e-12)


def test_stall_rate(synthetic):
    r = answer("stall_rate", [synthetic])
    assert [(x["board"], x["mode"], x["players"], x["round_limit"]) for x in r] == [
        ("beginner", "ffa", 4, 0), ("beginner", "teams", 4, 0), ("explorer", "ffa", 2, 20)]
    check(r[0], games=10, stalled=2, round_limit_ends=0, share=0.2)
    check(r[1], games=4, stalled=1, round_limit_ends=0, share=0.25)
    check(r[2], games=4, stalled=0, round_limit_ends=2, share=0.5)
    for row, k in zip(r, (2, 1, 2)):
        check_ci(row, k, row["games"])
    assert (r[0]["ci95_low"], r[0]["ci95_high"]) == pytest.approx((0.0567, 0.5098), abs=5e-5)


def test_round_limit_effect_after_the_fact(synthetic):
    r = answer("round_limit_effect", [synthetic], {"limits": "2,3"})
    assert [(x["mode"], x["round_limit"]) for x in r] == [("ffa", 2), ("ffa", 3), ("teams", 2), ("teams", 3)]
    # c000 after round 2: A2..A7 and A9 still undecided; leaders 2, 3, 0, tie, 0, 3, 2
    check(r[0], games=10, ended_by_limit=7, draws=1, winner_changed=3, wins_no_limit=[3, 2, 2, 1],
          wins_with_limit=[4, 1, 2, 2], no_winner_no_limit=2, no_winner_with_limit=1,
          first_share_no_limit=0.6, first_share_with_limit=0.6, ended_by_limit_share=0.7)
    # after round 3: A4..A7, A9; leaders 0, 1, tie, 3, tie
    check(r[1], ended_by_limit=5, draws=2, winner_changed=2, wins_with_limit=[3, 2, 1, 2], no_winner_with_limit=2,
          first_share_with_limit=0.6)
    # Teams, team VP = seats 0+2 vs 1+3: after round 2 C1 -> 1, C2 -> 0, C3 tie; after round 3 C2 tie, C3 -> 0
    check(r[2], games=4, ended_by_limit=3, draws=1, winner_changed=0, wins_no_limit=[2, 1], wins_with_limit=[2, 1],
          no_winner_no_limit=1, no_winner_with_limit=1, first_share_no_limit=0.5, first_share_with_limit=0.5)
    check(r[3], ended_by_limit=2, draws=1, winner_changed=2, wins_with_limit=[2, 1], first_share_with_limit=0.5)
    for row in r:
        check_ci(row, row["ended_by_limit"], row["games"])


def test_round_limit_readme_query(synthetic):
    r = answer("round_limit", [synthetic], {"limits": [2, 3]})
    assert [(x["round_limit"], x["games"], x["ended_by_limit"]) for x in r] == [(2, 14, 10), (3, 14, 7)]
    check(r[0], share=10 / 14, ci95_low=wilson(10, 14)[0], ci95_high=wilson(10, 14)[1])


def test_team_vp_target(synthetic):
    (r,) = answer("team_vp_target", [synthetic])
    check(r, board="beginner", round_limit=0, team_vp_target=4, games=4, rounds_mean=27.25, rounds_p50=3,
          rounds_p90=100, turns_p50=12, vp_ends=2, last_alive_ends=1, round_limit_ends=0, stalled=1, decided=3,
          team0_wins=2, team0_share=2 / 3, first_team_wins=2, first_team_share=2 / 3)
    check_ci(r, 2, 3, "team0_ci95_low", "team0_ci95_high")
    check_ci(r, 2, 3, "first_team_ci95_low", "first_team_ci95_high")


def test_seat_advantage(synthetic):
    r = answer("seat_advantage", [synthetic])
    got = [(x["board"], x["players"], x["who"], x["games"], x["wins"]) for x in r]
    assert got == [("beginner", 4, "first player", 10, 6), ("beginner", 4, "seat 0", 10, 3),
                   ("beginner", 4, "seat 1", 10, 2), ("beginner", 4, "seat 2", 10, 2), ("beginner", 4, "seat 3", 10, 1),
                   ("explorer", 2, "first player", 4, 3), ("explorer", 2, "seat 0", 4, 2), ("explorer", 2, "seat 1", 4, 1)]
    for x in r:
        check(x, win_rate=x["wins"] / x["games"], fair_share=1 / x["players"])
        check_ci(x, x["wins"], x["games"])


def test_game_length(synthetic):
    r = answer("game_length", [synthetic])
    assert [(x["board"], x["mode"]) for x in r] == [("beginner", "ffa"), ("beginner", "teams"), ("explorer", "ffa")]
    # c000 rounds sorted: 1 2 2 3 3 4 4 5 100 100 (nearest rank: p25 = 3rd, p75 = 8th, p90 = 9th)
    check(r[0], game="paws", games=10, rounds_mean=22.4, rounds_p10=1, rounds_p25=2, rounds_p50=3, rounds_p75=5,
          rounds_p90=100, rounds_p99=100, rounds_max=100, turns_mean=89.6, turns_p10=4, turns_p50=12,
          turns_p90=400, turns_max=400)
    check(r[2], games=4, rounds_mean=14.75, rounds_p50=12, rounds_p10=7, rounds_max=20)


def test_end_reasons(synthetic):
    r = answer("end_reasons", [synthetic])
    got = [(x["board"], x["mode"], x["end_reason"], x["games"]) for x in r]
    assert got == [("beginner", "ffa", "last_alive", 1), ("beginner", "ffa", "stalled", 2), ("beginner", "ffa", "vp", 7),
                   ("beginner", "teams", "last_alive", 1), ("beginner", "teams", "stalled", 1),
                   ("beginner", "teams", "vp", 2), ("explorer", "ffa", "round_limit", 2), ("explorer", "ffa", "vp", 2)]
    for x in r:
        n = 10 if (x["board"], x["mode"]) == ("beginner", "ffa") else 4
        check(x, share=x["games"] / n)
        check_ci(x, x["games"], n)


def test_knockouts(synthetic):
    r = answer("knockouts", [synthetic])
    check(r[0], mode="ffa", board="beginner", games=10, knockouts_per_game=0.8, by_players_per_game=0.4,
          by_monsters_per_game=0.4, games_with_knockout=2, knockout_share=0.2, out_of_lives_per_game=0.3,
          last_alive_ends=1)
    check_ci(r[0], 2, 10)
    check(r[1], mode="teams", games=4, knockouts_per_game=0.0, games_with_knockout=0, last_alive_ends=1)
    check(r[2], board="explorer", games=4, out_of_lives_per_game=0.0, last_alive_ends=0)
    check_ci(r[2], 0, 4)


def test_bot_matchups(synthetic):
    r = answer("bot_matchups", [synthetic])
    got = [(x["board"], x["mode"], x["bot"], x["opponent"], x["meetings"], x["bot_wins"], x["opponent_wins"])
           for x in r]
    assert got == [
        ("beginner", "ffa", "heuristic", "heuristic", 120, 24, 24),     # 10 games x 12 seat pairs; 8 won
        ("beginner", "teams", "heuristic", "heuristic", 32, 12, 12),    # 4 games x 8 opposing pairs; 3 won
        ("explorer", "ffa", "heuristic", "random", 4, 2, 1),
        ("explorer", "ffa", "random", "heuristic", 4, 1, 2),
    ]
    check(r[2], bot_share=2 / 3)
    check_ci(r[2], 2, 3)
    check_ci(r[3], 1, 3)


def test_game_agnostic_queries_over_tales_records_alone_and_mixed(synthetic, tmp_path):
    tales = write_tales(tmp_path / "tales.parquet")
    r = answer("end_reasons", [tales])
    assert [(x["game"], x["mode"], x["end_reason"], x["games"]) for x in r] == [
        ("tales", "standard", "champion_killed", 2), ("tales", "standard", "draw", 1), ("tales", "standard", "losses", 1)]
    assert "board" not in r[0] and "ruleset" not in r[0]
    (g,) = answer("game_length", [tales])
    check(g, game="tales", games=4, rounds_mean=6.0, rounds_p50=5, rounds_max=9, turns_p90=18)
    mixed = answer("game_length", [synthetic, tales])
    assert [x["game"] for x in mixed] == ["paws"] * 3 + ["tales"] and mixed[3]["board"] is None
