"""The designer metrics (queries/balance.sql, first_player_advantage.sql, draw_share.sql, lead_changes.sql,
length_target.sql, idle_turns.sql) on hand-built records, against values worked out by hand below."""

from __future__ import annotations

import math
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from budget import examples

from queries import connection, errors, sqlfiles
from infra import stats
from sim.paws.record import SCHEMA
from synthetic import rows

# Five free-for-all games of three players: (first_seat, winner, end_reason, rounds, vp_trace)
FFA = [
    (0, 0, "vp", 3, [[1, 0, 0], [1, 2, 0], [3, 2, 0]]),                 # leaders 0, 1, 0: 2 changes, decided 3
    (1, 1, "vp", 2, [[0, 1, 0], [0, 3, 0]]),                            # leaders 1, 1: 0 changes, decided 1
    (2, -1, "stalled", 4, [[1, 1, 0], [2, 1, 0], [2, 2, 0], [2, 2, 2]]),  # -, 0, -, -: 0 changes, no decided round
    (0, 2, "last_alive", 1, [[0, 0, 1]]),                               # leader 2: 0 changes, decided 1
    (0, 0, "vp", 4, [[0, 0, 0], [0, 1, 0], [1, 1, 0], [2, 1, 0]]),      # -, 1, -, 0: 1 change, decided 4
]
# Two Teams games (seats 0+2 against 1+3): a side's standing is the sum of its seats'
TEAMS = [
    (3, 0, "vp", 2, [[1, 0, 0, 2], [1, 1, 2, 2]]),   # sides 1 v 2 (team 1 leads), then 3 v 3 (nobody leads)
    (0, 0, "vp", 1, [[2, 0, 0, 0]]),                 # team 0 leads
]


Z = 1.959963984540054        # the SQL macros' z (queries/sqlfiles.py)


def wilson(k: int, n: int) -> tuple[float, float]:
    return stats.wilson(k, n, Z)


def write(path: Path, records: list[dict], drop: tuple[str, ...] = ()) -> str:
    table = pa.Table.from_pylist(records, schema=SCHEMA).drop_columns(list(drop))
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path)
    return str(path)


@pytest.fixture(scope="module")
def ffa(tmp_path_factory) -> str:
    return write(tmp_path_factory.mktemp("ffa") / "g.parquet", rows(FFA, "beginner", "ffa", 3, ["heuristic"] * 3))


@pytest.fixture(scope="module")
def teams(tmp_path_factory) -> str:
    return write(tmp_path_factory.mktemp("teams") / "g.parquet",
                 rows(TEAMS, "beginner", "teams", 4, ["heuristic"] * 4, team_vp_target=4))


def one(name: str, results: str, params: dict | None = None) -> dict:
    cols, out = connection.run(name, [results], params)
    assert cols == sqlfiles.expected_columns(sqlfiles.load(name), cols)
    assert len(out) == 1, out
    return dict(zip(cols, out[0]))


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def test_first_player_advantage(ffa, teams):
    r = one("first_player_advantage", ffa)          # the first player won games 1, 2 and 5; nobody won game 4
    lo, hi = wilson(3, 4)                           # the edge among the 4 games somebody won
    assert (r["games"], r["decided"], r["first_wins"]) == (5, 4, 3) and close(r["first_share"], 0.75)
    assert close(r["undecided_share"], 0.2) and all(map(close, (r["undecided_ci95_low"], r["undecided_ci95_high"]),
                                                            wilson(1, 5)))
    assert close(r["fair_share"], 1 / 3) and close(r["advantage"], 0.75 - 1 / 3)
    assert close(r["ci95_low"], lo) and close(r["ci95_high"], hi)
    assert close(r["advantage_low"], lo - 1 / 3) and close(r["advantage_high"], hi - 1 / 3)
    t = one("first_player_advantage", teams)        # the first player's team: 1 (lost), then 0 (won)
    assert (t["games"], t["decided"], t["first_wins"]) == (2, 2, 1) and close(t["fair_share"], 0.5)
    assert close(t["advantage"], 0.0) and t["undecided_share"] == 0


def test_draw_share(ffa):
    r = one("draw_share", ffa)
    assert (r["games"], r["no_winner"]) == (5, 1) and close(r["share"], 0.2)
    assert (r["ci95_low"], r["ci95_high"]) == pytest.approx(wilson(1, 5), abs=1e-9)


def test_balance_gap_with_its_simultaneous_interval(ffa):
    r = one("balance", ffa)           # wins: seat 0 two, seat 1 one, seat 2 one (and one game nobody won)
    assert (r["sides"], r["best_side"], r["worst_side"]) == (3, 0, 1)
    assert close(r["best_share"], 0.4) and close(r["worst_share"], 0.2) and close(r["gap"], 0.2)
    z = 2.393980                      # 1 - 0.025 / 3 of the normal: Bonferroni over three seats
    bounds = [stats.wilson(k, 5, z) for k in (2, 1, 1)]
    low = max(0.0, max(b[0] for b in bounds) - min(b[1] for b in bounds))
    high = max(b[1] for b in bounds) - min(b[0] for b in bounds)
    assert r["ci95_low"] == pytest.approx(low, abs=1e-6) and r["ci95_high"] == pytest.approx(high, abs=1e-6)
    assert r["ci95_low"] <= r["gap"] <= r["ci95_high"]


def test_length_target(ffa):
    r = one("length_target", ffa, {"shortest": 2, "longest": 3})     # rounds 3, 2, 4, 1, 4
    assert (r["games"], r["inside"], r["shortest"], r["longest"]) == (5, 2, 2, 3)
    assert close(r["share"], 0.4) and close(r["shorter_share"], 0.2) and close(r["longer_share"], 0.4)
    assert (r["ci95_low"], r["ci95_high"]) == pytest.approx(wilson(2, 5), abs=1e-9)
    with pytest.raises(errors.QueryError, match="shortest = 4 is more than longest = 3"):
        connection.run("length_target", [ffa], {"shortest": 4, "longest": 3})


def test_lead_changes_decided_round_and_comebacks(ffa):
    r = one("lead_changes", ffa, {"behind_after": 2})
    # lead changes 2, 0, 0, 0, 1: mean 0.6, sd sqrt(0.8); t(4) = 2.7764
    half = 2.7764 * math.sqrt(0.8) / math.sqrt(5)
    assert r["games"] == 5 and close(r["lead_changes_mean"], 0.6)
    assert r["lead_changes_ci95_low"] == 0.0 and r["lead_changes_ci95_high"] == pytest.approx(0.6 + half, abs=1e-9)
    # decided rounds 3, 1, 1, 4 (the stalled game ends in a tie for the lead): mean 2.25, sd 1.5; t(3) = 3.1824
    assert r["decided_games"] == 4 and close(r["decided_round_mean"], 2.25)
    assert r["decided_round_ci95_low"] == 1.0
    assert r["decided_round_ci95_high"] == pytest.approx(2.25 + 3.1824 * 1.5 / 2, abs=1e-9)
    assert close(r["decided_fraction_mean"], (3 / 3 + 1 / 2 + 1 / 1 + 4 / 4) / 4)
    # games with a winner and at least 2 rounds: 1, 2 and 5; behind after round 2: games 1 and 5
    assert (r["behind_after"], r["comeback_games"], r["comebacks"]) == (2, 3, 2)
    assert close(r["comeback_share"], 2 / 3)
    assert (r["comeback_ci95_low"], r["comeback_ci95_high"]) == pytest.approx(wilson(2, 3), abs=1e-9)


def test_lead_changes_sum_a_teams_seats(teams):
    r = one("lead_changes", teams, {"behind_after": 1})
    # game 1: team 1 leads after round 1 (2 against 1), a 3-3 tie after round 2: no change, no decided round
    assert close(r["lead_changes_mean"], 0.0) and r["decided_games"] == 1 and close(r["decided_round_mean"], 1.0)
    # winner team 0 was behind after round 1 in game 1, ahead in game 2
    assert (r["comeback_games"], r["comebacks"]) == (2, 1)


def test_a_mean_over_many_games_uses_the_normal_limit_of_t(tmp_path):
    """Past 31 games the t point is a Cornish-Fisher expansion: within 1e-3 of 1.96 x (1 + ...) at 200 games."""
    games = [(0, 0, "vp", 2, [[1, 0, 0], [2, 0, 0]]) if i % 2 else (0, 0, "vp", 2, [[0, 1, 0], [2, 1, 0]])
             for i in range(200)]
    path = write(tmp_path / "g.parquet", rows(games, "beginner", "ffa", 3, ["heuristic"] * 3))
    r = one("lead_changes", path)
    # changes 0 and 1 alternating: mean 0.5, sd sqrt(200 / 199 x 0.25); t(199) = 1.97196
    sd = math.sqrt(0.25 * 200 / 199)
    assert r["lead_changes_ci95_high"] == pytest.approx(0.5 + 1.97196 * sd / math.sqrt(200), abs=1e-4)


def test_idle_turns_share_with_a_delta_method_interval(tmp_path):
    recs = rows(FFA[:3], "beginner", "ffa", 3, ["heuristic"] * 3)
    for rec, turns, idle in zip(recs, (10, 20, 30), (1, 4, 3)):
        rec["turns"], rec["idle_turns"] = turns, idle
    path = write(tmp_path / "g.parquet", recs)
    r = one("idle_turns", path)
    share = 8 / 60
    resid = [1 - share * 10, 4 - share * 20, 3 - share * 30]           # idle - share x turns, per game
    var = sum(x * x for x in resid) / 2                                # their mean is 0: var_samp
    se = math.sqrt(var / 3) / 20                                       # over the mean turns per game
    assert (r["games"], r["turns"], r["idle_turns"]) == (3, 60, 8) and close(r["share"], share)
    assert r["ci95_low"] == pytest.approx(share - 1.959963984540054 * se, abs=1e-9)
    assert r["ci95_high"] == pytest.approx(share + 1.959963984540054 * se, abs=1e-9)


def test_records_without_idle_turns_answer_with_an_empty_share(tmp_path):
    """A record that keeps no idle_turns column (a game whose every turn acts): the share is empty."""
    r = one("idle_turns", write(tmp_path / "g.parquet", rows(FFA, "beginner", "ffa", 3, ["heuristic"] * 3),
                                drop=("idle_turns",)))
    assert r["games"] == 5 and r["turns"] == 4 * (3 + 2 + 4 + 1 + 4)
    assert r["idle_turns"] is None and r["share"] is None and r["ci95_low"] is None


@settings(max_examples=examples(25), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(-1, 2),
                          st.lists(st.lists(st.integers(0, 5), min_size=3, max_size=3), min_size=1, max_size=6)),
                min_size=1, max_size=12))
def test_lead_changes_agree_with_python_for_any_traces(tmp_path_factory, games):
    """Any traces: the query's means and counts equal a plain Python reading of the definitions."""
    recs = rows([(first, win, "vp" if win >= 0 else "stalled", len(tr), tr) for first, win, tr in games],
                "beginner", "ffa", 3, ["heuristic"] * 3)
    path = write(tmp_path_factory.mktemp("h") / "g.parquet", recs)
    r = one("lead_changes", path, {"behind_after": 2})

    def leader(t):
        return t.index(max(t)) if t.count(max(t)) == 1 else None

    changes, decided, eligible, behind = [], [], 0, 0
    for _, win, tr in games:
        led = [x for x in map(leader, tr) if x is not None]
        changes.append(sum(a != b for a, b in zip(led, led[1:])))
        lead = [leader(t) for t in tr]
        if lead[-1] is not None:
            decided.append(1 + max([i + 1 for i, x in enumerate(lead) if x != lead[-1]], default=0))
        if win >= 0 and len(tr) >= 2:
            eligible += 1
            behind += tr[1][win] < max(tr[1])
    assert r["lead_changes_mean"] == pytest.approx(sum(changes) / len(changes), abs=1e-9)
    assert r["decided_games"] == len(decided)
    if decided:
        assert r["decided_round_mean"] == pytest.approx(sum(decided) / len(decided), abs=1e-9)
    assert (r["comeback_games"], r["comebacks"]) == (eligible, behind)


def test_records_without_a_standings_trace_answer_lead_changes_with_empty_values(tmp_path):
    from sim.games import get
    from sim.output import write_parquet
    m = get("tales").resolve()
    path = tmp_path / "t.parquet"
    write_parquet([m.play_batch(1, 0, 40)["games"]], path, m.schemas["games"])
    r = one("lead_changes", str(path))
    assert r["games"] == 40 and r["decided_games"] == 0 and r["comeback_games"] == 0
    assert all(r[k] is None for k in ("lead_changes_mean", "lead_changes_ci95_low", "decided_round_mean",
                                      "decided_round_ci95_low", "comeback_share", "comeback_ci95_low"))
    first = one("first_player_advantage", str(path))     # Tales: the team that began the first battle
    games = m.play_batch(1, 0, 40)["games"].to_pylist()
    assert first["first_wins"] == sum(g["winner_team"] == g["first_side"] for g in games)
