"""Every canned query on a real small sweep (core games), checked against plain Python over the same records;
and the round limit computed after the fact against games actually played with the limit, same seeds."""

import glob
from collections import Counter

import pyarrow.parquet as pq
import pytest

from conftest import SMALL_SWEEP, write_results
from queries import connection, sqlfiles


def records(root) -> list[dict]:
    out = []
    for path in sorted(glob.glob(f"{root}/games/*/*.parquet")):
        cell = path.split("cell=")[1].split("/")[0]
        out += [r | {"cell": cell} for r in pq.read_table(path).to_pylist()]
    return out


@pytest.fixture(scope="module")
def recs(small_sweep):
    return records(small_sweep)


def answer(name, root, params=None):
    cols, rows = connection.run(name, [str(root)], params)
    assert cols == sqlfiles.expected_columns(sqlfiles.load(name), cols)
    return [dict(zip(cols, r)) for r in rows]


def key(r, *names):
    return tuple(r[n] for n in names)


def test_every_canned_query_answers_with_its_header_columns(small_sweep):
    # paws_cards reads the cards table, which this games-only sweep has not (tests/paws/test_paws_cards_table.py)
    names = {q.name for q in sqlfiles.available() if q.game in ("any", "paws") and "FROM cards" not in q.sql}
    assert {"stall_rate", "round_limit_effect", "team_vp_target", "seat_advantage", "game_length", "end_reasons",
            "bot_matchups", "knockouts"} <= names
    for name in names:
        assert answer(name, small_sweep), name       # header columns checked in answer()


def test_counts_agree_with_python_over_the_records(small_sweep, recs):
    assert len(recs) == 400 * len(SMALL_SWEEP)
    by = ("board", "mode", "players", "round_limit")
    ends = Counter(key(r, *by, "end_reason") for r in recs)
    assert {key(x, *by, "end_reason"): x["games"] for x in answer("end_reasons", small_sweep)} == ends
    stall = {key(x, *by): (x["games"], x["stalled"], x["round_limit_ends"]) for x in answer("stall_rate", small_sweep)}
    assert stall == {key(r, *by): (sum(v for k, v in ends.items() if k[:4] == key(r, *by)),
                                   ends[key(r, *by) + ("stalled",)], ends[key(r, *by) + ("round_limit",)]) for r in recs}
    seats = Counter((r["board"], r["players"], r["winner_seat"]) for r in recs if r["mode"] == "ffa")
    firsts = Counter((r["board"], r["players"]) for r in recs if r["mode"] == "ffa" and r["winner_seat"] == r["first_seat"])
    for x in answer("seat_advantage", small_sweep):
        want = firsts[(x["board"], x["players"])] if x["who"] == "first player" else \
            seats[(x["board"], x["players"], int(x["who"].split()[1]))]
        assert x["wins"] == want and x["ci95_low"] <= x["win_rate"] <= x["ci95_high"]
    for x in answer("knockouts", small_sweep):
        mine = [r for r in recs if key(r, "board", "mode", "players") == key(x, "board", "mode", "players")]
        assert x["knockouts_per_game"] == pytest.approx(sum(sum(r["knockouts"]) for r in mine) / len(mine))
        assert x["games_with_knockout"] == sum(1 for r in mine if sum(r["knockouts"]))
    teams = [r for r in recs if r["mode"] == "teams"]
    for x in answer("team_vp_target", small_sweep):
        mine = [r for r in teams if r["board"] == x["board"]]
        assert x["games"] == len(mine) and x["team0_wins"] == sum(r["winner_team"] == 0 for r in mine)
        assert x["vp_ends"] + x["last_alive_ends"] + x["round_limit_ends"] + x["stalled"] == len(mine)


def test_game_length_and_matchups_are_consistent(small_sweep, recs):
    for x in answer("game_length", small_sweep):
        ps = [x[f"rounds_{p}"] for p in ("p10", "p25", "p50", "p75", "p90", "p99", "max")]
        assert ps == sorted(ps) and x["turns_p50"] >= x["rounds_p50"]
        mine = sorted(r["rounds"] for r in recs if key(r, "board", "mode", "players") == key(x, "board", "mode", "players"))
        assert x["rounds_p50"] == mine[len(mine) // 2 - 1] and x["rounds_max"] == mine[-1]   # 400 games: 200th
    m = {key(x, "mode", "players", "bot", "opponent"): x for x in answer("bot_matchups", small_sweep)}
    hr, rh = m[("ffa", 4, "heuristic", "random")], m[("ffa", 4, "random", "heuristic")]
    assert (hr["bot_wins"], hr["opponent_wins"]) == (rh["opponent_wins"], rh["bot_wins"])
    assert hr["bot_share"] > 0.5          # the heuristic bot beats the random one (c002: seats alternate)


LIMIT_SETUPS = [{"board": "beginner", "players": 4}, {"board": "explorer", "players": 3},
                {"board": "explorer", "players": 2}, {"board": "beginner", "mode": "teams"},
                {"board": "explorer", "mode": "teams"}]
LIMITS = (8, 15)


def python_limit_outcome(r: dict, limit: int) -> tuple[bool, int]:
    """(decided by the limit, winner) from the no-limit record alone (docs/rules-interpretation.md, Round limit)."""
    decided = r["rounds"] > limit or (r["rounds"] == limit and r["end_reason"] == "stalled")
    if not decided:
        return False, r["winner_team"] if r["mode"] == "teams" else r["winner_seat"]
    vp = r["vp_trace"][limit - 1]
    scores = [vp[0] + vp[2], vp[1] + vp[3]] if r["mode"] == "teams" else vp
    return True, scores.index(max(scores)) if scores.count(max(scores)) == 1 else -1


@pytest.mark.slow
def test_round_limit_after_the_fact_agrees_game_by_game_with_games_played_with_the_limit(tmp_path):
    cells = {f"c{i}{limit:03d}": dict(rules="v4", setup=s, overrides={"round_limit": limit})
             for i, s in enumerate(LIMIT_SETUPS) for limit in (0,) + LIMITS}
    root = write_results(tmp_path, cells, seed=23, games=500, batch=250)
    by_cell = {}
    for r in records(root):
        by_cell.setdefault(r["cell"], {})[r["game_index"]] = r
    decided_total = draws_total = 0
    for i in range(len(LIMIT_SETUPS)):
        free = by_cell[f"c{i}000"]
        for limit in LIMITS:
            played = by_cell[f"c{i}{limit:03d}"]
            for k, r in played.items():
                decided, winner = python_limit_outcome(free[k], limit)
                assert (r["end_reason"] == "round_limit") == decided, (i, limit, k)
                assert (r["winner_team"] if r["mode"] == "teams" else r["winner_seat"]) == winner, (i, limit, k)
                decided_total += decided
                draws_total += decided and winner == -1
    assert decided_total > 300 and draws_total > 20          # the comparison has teeth
    # the canned query says the same, per game (macros) and in total (round_limit_effect)
    con = connection.connect([str(root)])
    mismatches = con.execute("""
        SELECT count(*) FROM games l JOIN games n ON n.cell = substr(l.cell, 1, 2) || '000' AND n.game_index = l.game_index
        WHERE l.round_limit > 0 AND ((l.end_reason = 'round_limit') <> decided_by_limit(n.rounds, n.end_reason, l.round_limit)
           OR (l.end_reason = 'round_limit'
               AND CASE WHEN l.mode = 'teams' THEN l.winner_team ELSE l.winner_seat END
                   <> limit_winner(n.vp_trace, l.round_limit, n.mode)))""").fetchone()[0]
    assert mismatches == 0
    effect = answer("round_limit_effect", root, {"limits": ",".join(map(str, LIMITS))})
    assert len(effect) == len(LIMIT_SETUPS) * len(LIMITS)
    for x in effect:
        played = [r for r in records_of(by_cell, x) if r["round_limit"] == x["round_limit"]]
        winners = Counter(r["winner_team"] if r["mode"] == "teams" else r["winner_seat"] for r in played)
        assert x["games"] == len(played) and x["ended_by_limit"] == sum(r["end_reason"] == "round_limit" for r in played)
        assert x["wins_with_limit"] == [winners[s] for s in range(len(x["wins_with_limit"]))]
        assert x["no_winner_with_limit"] == winners[-1]


def records_of(by_cell, x):
    return [r for games in by_cell.values() for r in games.values()
            if key(r, "board", "mode", "players") == key(x, "board", "mode", "players")]


def test_game_agnostic_queries_on_real_tales_games(tmp_path):
    from sim.games import GAMES
    from sim.output import write_parquet
    if "tales" not in GAMES.names():
        pytest.skip("Tales are Real is not in the game registry yet")
    m = GAMES["tales"].resolve(tables=("games", "cards"))
    batch = m.play_batch(3, 0, 40, "reference")
    for table, t in batch.items():
        write_parquet([t], tmp_path / table / "cell=c000" / "part-00000.parquet", m.schemas[table])
    recs = batch["games"].to_pylist()
    ends = answer("end_reasons", tmp_path)
    assert {x["end_reason"]: x["games"] for x in ends} == Counter(r["end_reason"] for r in recs)
    assert {x["game"] for x in ends} == {"tales"} and "board" not in ends[0]
    (length,) = answer("game_length", tmp_path)
    assert length["games"] == 40 and length["rounds_max"] == max(r["rounds"] for r in recs)
    con = connection.connect([str(tmp_path)])
    assert con.execute("SELECT count(DISTINCT game_index) FROM cards").fetchone()[0] == 40
