"""Tension's measures (measures/tension/trace.py; docs/tension.md): on curves worked by hand, and the DuckDB computation
over a ``win_prob`` table equal to the per-game definition on any curves (Hypothesis: any mix of 2-4 seats,
Teams, games nobody won, one-turn games, ties)."""

from __future__ import annotations

import duckdb
import numpy as np
import pyarrow as pa
from hypothesis import given, settings, strategies as st
from budget import examples

from measures.tension import trace as tq

WIN_PROB = pa.schema([("seed", pa.uint64()), ("game_index", pa.int64()), ("turn", pa.int32()), ("round", pa.int16()),
                      ("seat", pa.int8()), ("chances", pa.list_(pa.float32())), ("cell", pa.string())])


def test_game_measures_on_curves_worked_by_hand():
    curve = np.array([[0.5, 0.5], [0.7, 0.3], [0.2, 0.8], [0.4, 0.6], [0.95, 0.05], [0.97, 0.03]])
    m = tq.game_measures(curve, 0, 2)
    # the winner (side 0) fell to 0.2 (under half its fair share, 0.25); the leader went 0 (tie: the first), 0,
    # 1, 1, 0, 0: two changes; above 0.9 from turn 4 of 6 to the end
    assert m == {"lowest": 0.2, "comeback": True, "leader_changes": 2, "decisive": 4 / 6, "decided_early": False,
                 "leads_from": 4 / 6}
    early = np.array([[0.5, 0.5], [0.95, 0.05], [0.96, 0.04], [0.97, 0.03], [0.99, 0.01]])
    assert tq.game_measures(early, 0, 2) == {"lowest": 0.5, "comeback": False, "leader_changes": 0,
                                             "decisive": 0.2, "decided_early": True, "leads_from": 0.0}
    never = np.array([[0.3, 0.3, 0.4], [0.5, 0.2, 0.3]])
    assert tq.game_measures(never, 0, 3)["decisive"] == 1.0 and tq.game_measures(never, 0, 3)["leads_from"] == 0.5
    assert tq.game_measures(never, -1, 3) is None and tq.game_measures(np.zeros((0, 2)), 0, 2) is None


def test_progress_rows_take_the_turn_at_each_point_of_the_game():
    curve = np.array([[0.1, 0.5, 0.4], [0.2, 0.4, 0.4], [0.6, 0.2, 0.2], [0.9, 0.05, 0.05]])
    w, o = tq.progress_rows(curve, 0, steps=4)
    assert w.tolist() == [0.1, 0.2, 0.6, 0.9, 0.9] and o.tolist() == [0.45, 0.4, 0.2, 0.05, 0.05]


def _tables(games: list[tuple[int, bool, int, np.ndarray]]):
    """win_prob and seat_outcomes tables for (players, teams, winning side, side curve) games, with an end row
    (seat -1) after each game that the measures must not read."""
    rows, outs = [], []
    for gi, (players, teams, win, curve) in enumerate(games):
        seat_sides = [s % 2 for s in range(players)] if teams else list(range(players))
        for t, c in enumerate(curve):
            rows.append(dict(seed=5, game_index=gi, turn=t, round=t // players, seat=t % players,
                             chances=[float(c[seat_sides[s]]) for s in range(players)], cell="c001"))
        rows.append(dict(seed=5, game_index=gi, turn=len(curve), round=0, seat=-1, chances=[0.0] * players,
                         cell="c001"))
        rows.append(dict(seed=5, game_index=gi, turn=0, round=0, seat=0, chances=[1.0] * players, cell="c000"))
        outs.append(dict(seed=5, game_index=gi, seat_sides=seat_sides, sides=2 if teams else players,
                         winning_side=win, cell="c001", results="r"))
        outs.append(dict(seed=5, game_index=gi, seat_sides=seat_sides, sides=2 if teams else players,
                         winning_side=0, cell="c000", results="r"))
    con = duckdb.connect()
    con.register("wp", pa.Table.from_pylist(rows, schema=WIN_PROB))
    con.register("so", pa.Table.from_pylist(outs))
    con.execute("CREATE VIEW win_prob AS SELECT *, 'r' AS results FROM wp")
    con.execute("CREATE VIEW seat_outcomes AS SELECT * FROM so")
    return con


@st.composite
def a_game(draw):
    players = draw(st.sampled_from([2, 3, 4]))
    teams = players == 4 and draw(st.booleans())
    sides = 2 if teams else players
    n = draw(st.integers(1, 12))
    # chances on a coarse grid so that ties (the first side leads) and exact 0.9s happen
    raw = draw(st.lists(st.lists(st.integers(0, 10), min_size=sides, max_size=sides), min_size=n, max_size=n))
    curve = np.array([[x + 0.0 for x in r] for r in raw])
    curve = (curve + 1e-9) / (curve + 1e-9).sum(axis=1, keepdims=True)
    curve = curve.astype(np.float32).astype(np.float64)
    return players, teams, draw(st.integers(-1, sides - 1)), curve


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(a_game(), min_size=1, max_size=25))
def test_the_query_computes_the_per_game_definition(games):
    con = _tables(games)
    r = tq.tension(con, "c001", calibrate=False)     # the definitions, on the oracle's own chances
    ms = [m for p, t, w, c in games if (m := tq.game_measures(c, w, 2 if t else p)) is not None]
    assert r["games"] == len(games) and r["won"] == len(ms)
    assert r["undecided"]["count"] == sum(w < 0 for _, _, w, _ in games)
    for key, name in (("lowest", "lowest_chance_of_winner"), ("leader_changes", "leader_changes"),
                      ("decisive", "decisive_point"), ("leads_from", "winner_leads_from")):
        if ms:
            assert np.isclose(r[name]["mean"], np.mean([m[key] for m in ms]), atol=1e-6), key
        else:
            assert r[name]["mean"] is None
    assert r["comebacks"]["count"] == sum(m["comeback"] for m in ms)
    assert r["decided_early"]["count"] == sum(m["decided_early"] for m in ms)
    won = [(c, w) for _, _, w, c in games if w >= 0]
    if won:
        wq = np.percentile(np.array([tq.progress_rows(c, w)[0] for c, w in won]), [25, 50, 75], axis=0)
        oq = np.percentile(np.array([tq.progress_rows(c, w)[1] for c, w in won]), [25, 50, 75], axis=0)
        assert np.allclose(r["curve"]["winner_quartiles"], wq, atol=1e-4)
        assert np.allclose(r["curve"]["others_quartiles"], oq, atol=1e-4)


def test_shares_carry_wilson_intervals_and_nothing_to_count_is_said():
    assert tq.share(0, 0) == {"count": 0, "of": 0, "share": None, "ci95": [None, None]}
    s = tq.share(30, 100)
    assert s["share"] == 0.3 and 0.21 < s["ci95"][0] < 0.22 and 0.39 < s["ci95"][1] < 0.40
    empty = tq.tension(_tables([(2, False, -1, np.array([[0.5, 0.5]]))]), "c001", calibrate=False)
    assert empty["won"] == 0 and empty["undecided"]["share"] == 1.0
    assert "n/a" in " ".join(tq.sentences(empty))


def test_a_cell_with_too_few_won_games_is_refused_in_one_line():
    games = [(2, False, k % 2, np.array([[0.5, 0.5], [0.6, 0.4], [0.7, 0.3]])) for k in range(20)]
    r = tq.tension(_tables(games), "c001")
    assert r["refused"].startswith("tension refused: 20 won games are too few") and "\n" not in r["refused"]
    assert tq.sentences(r) == [r["refused"]]
    assert r["decided_early"]["share"] is None and r["decisive_point"]["mean"] is None
