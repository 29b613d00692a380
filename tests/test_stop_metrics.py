"""infra.metrics: hand-computed values on small game tables (both games), refusals, and sql: injection attempts."""

import math

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from budget import examples

from sim.games import get
from infra.metrics import Metric, MetricError, estimate, fair_share, parse_metric, summarize

PAWS, TALES = get("paws"), get("tales")


def games(game, setup: dict, **columns) -> pa.Table:
    """A few real games of ``game`` with the given columns overwritten by hand-chosen values (one per row)."""
    n = len(next(iter(columns.values())))
    t = game.resolve(None, {}, setup).play_batch(1, 0, n)["games"]
    for name, values in columns.items():
        i = t.schema.get_field_index(name)
        t = t.set_column(i, t.schema.field(i), pa.array(values, t.schema.field(i).type))
    return t


def values(game, table, *names) -> dict:
    return summarize(game, [parse_metric(game, n) for n in names], table)


# --- Paws in Peril ------------------------------------------------------------------------------------------

PAWS_FFA = dict(mode=["ffa"] * 4, players=[4] * 4, first_seat=[0, 1, 2, 3], winner_seat=[0, 2, -1, -1],
                winner_team=[-1] * 4, end_reason=["vp", "last_alive", "stalled", "round_limit"],
                rounds=[10, 20, 100, 30])


def test_paws_free_for_all_by_hand():
    t = games(PAWS, {"players": 4}, **PAWS_FFA)
    got = values(PAWS, t, "first_player_share", "win_share:player=1", "win_share:player=2", "win_share:player=3",
                 "win_share:player=4", "end_share:vp", "end_share:last_alive", "end_share:round_limit",
                 "stall_share", "draw_share", "mean_rounds")
    assert got == {
        "first_player_share": (4, 1.0),          # row 0: seat 0 first and won; row 1: seat 1 first, seat 2 won
        "win_share:player=1": (4, 1.0), "win_share:player=2": (4, 0.0), "win_share:player=3": (4, 1.0),
        "win_share:player=4": (4, 0.0),
        "end_share:vp": (4, 1.0), "end_share:last_alive": (4, 1.0), "end_share:round_limit": (4, 1.0),
        "stall_share": (4, 1.0),
        "draw_share": (4, 1.0),                  # a round-limit end with no winner; the stalled game is no draw
        "mean_rounds": (4, 160 / 500),           # scaled by the largest round cap, max_rounds <= 500
    }
    m = parse_metric(PAWS, "mean_rounds")
    assert (m.kind, m.low, m.high) == ("mean", 0.0, 500.0)
    assert estimate(m, *got["mean_rounds"]) == pytest.approx(40.0)
    assert estimate(parse_metric(PAWS, "first_player_share"), 4, 1.0) == 0.25
    with pytest.raises(MetricError, match="win_share:team=1.*without teams"):
        values(PAWS, t, "win_share:team=1")
    assert fair_share(PAWS, parse_metric(PAWS, "win_share:player=2"), t) == 0.25


def test_shares_among_the_decided_games_by_hand():
    """Rows 2 and 3 nobody won: ``:decided`` counts the 2 games somebody won, so the first player's edge is read
    against the fair share among them (1 of 2), not diluted by the stalled and tied games (1 of 4)."""
    t = games(PAWS, {"players": 4}, **PAWS_FFA)
    got = values(PAWS, t, "first_player_share:decided", "win_share:player=3:decided", "win_share:player=2:decided")
    assert got == {"first_player_share:decided": (2, 1.0), "win_share:player=3:decided": (2, 1.0),
                   "win_share:player=2:decided": (2, 0.0)}
    m = parse_metric(PAWS, "first_player_share:decided")
    assert estimate(m, *got["first_player_share:decided"]) == 0.5 and fair_share(PAWS, m, t) == 0.25
    assert "among the games somebody won" in m.describe()
    for bad, needle in (("first_player_share:decided:decided", ":decided is said once"), ("end_share:vp:decided", "end reason"),
                        ("win_share:player=9:decided", "player must be from 1 to")):
        with pytest.raises(MetricError, match=needle):
            parse_metric(PAWS, bad)


def test_paws_teams_by_hand():
    t = games(PAWS, {"mode": "teams"}, mode=["teams"] * 4, players=[4] * 4, first_seat=[0, 0, 1, 3],
              winner_seat=[-1] * 4, winner_team=[0, 1, -1, 0], end_reason=["vp", "vp", "stalled", "vp"],
              rounds=[1, 2, 3, 4])
    got = values(PAWS, t, "first_player_share", "win_share:team=1", "win_share:team=2", "win_share:player=1",
                 "win_share:player=2", "win_share:player=3")
    # first player's team (first_seat % 2) won in row 0 only; Team 1 = seats 0+2 (Player 1 and 3)
    assert got == {"first_player_share": (4, 1.0), "win_share:team=1": (4, 2.0), "win_share:team=2": (4, 1.0),
                   "win_share:player=1": (4, 2.0), "win_share:player=2": (4, 1.0), "win_share:player=3": (4, 2.0)}
    assert fair_share(PAWS, parse_metric(PAWS, "first_player_share"), t) == 0.5
    with pytest.raises(MetricError, match="win_share:team=3.*2 teams has no Team 3"):
        values(PAWS, t, "win_share:team=3")


def test_a_seat_the_games_lack_is_refused():
    t = games(PAWS, {"players": 2}, players=[2, 2], mode=["ffa", "ffa"])
    with pytest.raises(MetricError, match="'win_share:player=3': a game of 2 players has no Player 3"):
        values(PAWS, t, "win_share:player=3")


# --- Tales are Real -----------------------------------------------------------------------------------------

def test_tales_standard_by_hand():
    t = games(TALES, {}, players=[2] * 4, first_side=[0, 1, 0, 1], winner_team=[0, 0, -1, 1],
              winner_side=[0, 0, -1, 1], end_reason=["champion_killed", "losses", "draw", "champion_killed"],
              rounds=[3, 5, 5, 2])
    got = values(TALES, t, "first_player_share", "win_share:player=1", "win_share:player=2", "draw_share",
                 "end_share:champion_killed", "end_share:losses", "end_share:draw", "end_share:last_standing",
                 "mean_rounds", "sql: rounds >= 5", "sql: rounds / 10")
    assert got == {"first_player_share": (4, 2.0), "win_share:player=1": (4, 2.0), "win_share:player=2": (4, 1.0),
                   "draw_share": (4, 1.0), "end_share:champion_killed": (4, 2.0), "end_share:losses": (4, 1.0),
                   "end_share:draw": (4, 1.0), "end_share:last_standing": (4, 0.0), "mean_rounds": (4, 15 / 500),
                   "sql:rounds >= 5": (4, 2.0), "sql:rounds / 10": (4, 1.5)}
    assert not _ok(TALES, "stall_share") and _ok(PAWS, "stall_share")      # Tales has no stall reason


def test_tales_two_against_two_by_hand():
    t = games(TALES, {"mode": "2v2"}, players=[4] * 3, first_side=[0, 1, 1], winner_team=[1, 1, 0])
    got = values(TALES, t, "first_player_share", "win_share:team=1", "win_share:team=2", "win_share:player=4")
    assert got == {"first_player_share": (3, 1.0), "win_share:team=1": (3, 1.0), "win_share:team=2": (3, 2.0),
                   "win_share:player=4": (3, 2.0)}            # Player 4 is seat 3: team 2


def _ok(game, text) -> bool:
    try:
        parse_metric(game, text)
        return True
    except MetricError:
        return False


# --- refusals -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, problem", [
    ("first_players_share", "unknown metric"), ("win_share:player=0", "player must be from 1 to 8"),
    ("win_share:seat=1", "player=N or team=N"), ("end_share:timeout", "unknown end reason 'timeout'"),
    ("stall_share", "unknown metric"), ("", "unknown metric"), ("sql:", "empty expression"),
])
def test_bad_metric_text_names_the_allowed_values(text, problem):
    with pytest.raises(MetricError) as e:
        parse_metric(TALES, text)
    msg = str(e.value)
    assert problem in msg and "\n" not in msg
    assert ("allowed: first_player_share, first_player_share:decided, win_share:player=N, win_share:team=N, "
            "win_share:player=N:decided, win_share:team=N:decided, end_share:champion_killed") in msg


def test_sql_values_out_of_bounds_or_missing_name_the_metric():
    t = games(TALES, {}, rounds=[3, 5])
    with pytest.raises(MetricError, match=r"metric 'sql:rounds': a game's value 5.0 is outside \[0, 1\]"):
        values(TALES, t, "sql: rounds")
    with pytest.raises(MetricError, match=r"metric 'sql:NULLIF\(rounds, 5\) / 10': 1 game\(s\) gave no value"):
        values(TALES, t, "sql: NULLIF(rounds, 5) / 10")
    with pytest.raises(MetricError, match="not a number or boolean"):
        parse_metric(TALES, "sql: mode")


def test_summaries_are_exact_sums_whatever_the_order_of_rows():
    t = TALES.resolve(None, {}, {}).play_batch(5, 0, 300)["games"]
    m = [parse_metric(TALES, "sql: rounds / 7"), parse_metric(TALES, "first_player_share")]
    a = summarize(TALES, m, t)
    b = summarize(TALES, m, t.take(list(reversed(range(t.num_rows)))))
    assert a == b
    assert a["sql:rounds / 7"][1] == math.fsum(r / 7 for r in t.column("rounds").to_pylist())


# --- sql: injection attempts --------------------------------------------------------------------------------

INJECTIONS = [
    "1; SELECT 1", "1); COPY games TO '/tmp/x.csv'", "(SELECT 1)", "1 FROM games", "1) FROM games UNION SELECT (1",
    "rounds > 0 -- comment", "rounds /* c */ > 0", "read_csv('/etc/passwd') IS NULL", "getenv('HOME') = ''",
    "current_setting('threads') = 1", "(SELECT count(*) FROM duckdb_settings()) > 0", "EXISTS (SELECT 1)",
    "rounds IN (SELECT rounds FROM games)", "count(*) > 0", "sum(rounds) OVER () > 0", "glob('*') IS NULL",
    "query('SELECT 1') IS NULL", "rounds > $1", "games.rounds > 0", "main.games.rounds > 0", "COLUMNS(*) > 0",
    "list_transform([1], x -> x)[1] = 1", "rounds::VARCHAR = '1'", "ATTACH 'x.db'", "rounds, 1",
    "CASE WHEN (SELECT 1) = 1 THEN 1 ELSE 0 END", "1 UNION ALL SELECT 2", "rounds > 0 ORDER BY 1",
    "read_text('x') IS NULL", "nextval('s') > 0", "rounds > 0 WINDOW w AS ()", "'\x00'",
]


@pytest.mark.parametrize("expr", INJECTIONS)
def test_sql_injection_attempts_are_refused_before_any_game(expr):
    with pytest.raises(MetricError) as e:
        parse_metric(PAWS, "sql: " + expr)
    assert "\n" not in str(e.value)


ATTACKS = st.sampled_from(["read_csv('x')", "(SELECT 1)", "; SELECT 1", "-- x", "/* x */", "getenv('A')",
                           "glob('*')", "sum(rounds)", "count(*) OVER ()", "x -> x", "$p", "games.rounds",
                           "duckdb_settings()", "COPY games TO 'x'", ") UNION SELECT (1", "query('x')"])
SAFE = st.sampled_from(["rounds > 3", "players = 2", "end_reason = 'vp'", "abs(rounds - 4) < 2", "1", "0.5",
                        "coalesce(winner_seat, 0) = 0", "rounds BETWEEN 1 AND 9", "NOT (rounds > 2)"])
PROPS = settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPS
@given(SAFE, ATTACKS, SAFE, st.sampled_from([" AND ", " OR ", " + ", " ", ", ", ""]))
def test_any_expression_holding_an_attack_is_refused(left, attack, right, glue):
    with pytest.raises(MetricError):
        parse_metric(PAWS, f"sql: ({left}){glue}{attack}{glue}({right})")


@PROPS
@given(st.text(max_size=60))
def test_any_text_is_a_metric_or_one_line_refusal(text):
    try:
        m = parse_metric(TALES, "sql: " + text)
    except MetricError as e:
        assert "\n" not in str(e)
        return
    assert isinstance(m, Metric) and m.name.startswith("sql:") and m.kind == "share"
