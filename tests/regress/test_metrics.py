"""Each game's metric SQL counts exactly what plain Python counts over the same records (sweep layout, no Ray)."""

from collections import Counter

import pyarrow.parquet as pq
import pytest

from sim.games import GAMES, get
from regress.metrics import compute, families


def write_cells(root, game, cells, games, engine):
    """Play each (cell id, setup) into ROOT/games/cell=<id>/part-00000.parquet; returns {id: records}."""
    out = {}
    for cid, setup in cells.items():
        t = get(game).resolve(setup=setup).play_batch(3, 0, games, engine)["games"]
        path = root / "games" / f"cell={cid}" / "part-00000.parquet"
        path.parent.mkdir(parents=True)
        pq.write_table(t, path)
        out[cid] = t.to_pylist()
    return out


def lead_changes(rec) -> int:
    """Times the leader changed over the VP trace: a side (Teams: seats 0+2, 1+3) leads after a round when
    its VP is strictly the highest; rounds with a tie for the lead are skipped."""
    sides = 2 if rec["mode"] == "teams" else rec["players"]
    led = []
    for row in rec["vp_trace"]:
        total = [sum(v for s, v in enumerate(row) if s % sides == side) for side in range(sides)]
        if total.count(max(total)) == 1:
            led.append(total.index(max(total)))
    return sum(a != b for a, b in zip(led, led[1:]))


def test_paws_metrics_match_python(tmp_path):
    recs = write_cells(tmp_path, "paws", {"c000": {"players": 3}, "c001": {"mode": "teams"},
                                          "c002": {"bots": "heuristic,random,random,heuristic"}}, 400, "core")
    got = compute("paws", [tmp_path])
    assert set(got) == {"c000", "c001", "c002"}
    for cid, rs in recs.items():
        m, n = got[cid], len(rs)
        assert m["end_reasons"] == dict(Counter(r["end_reason"] for r in rs))
        assert m["game_length"] == {str(k): v for k, v in Counter(r["rounds"] for r in rs).items()}
        assert m["stall_rate"] == {"stalled": [sum(r["end_reason"] == "stalled" for r in rs), n]}
        assert m["idle_turns"] == {str(k): v for k, v in Counter(r["idle_turns"] for r in rs).items()}
        assert m["lead_changes"] == {str(k): v for k, v in Counter(lead_changes(r) for r in rs).items()}
    ffa = recs["c000"]
    assert got["c000"]["seat_win_rate"] == {
        **{f"seat {s}": [sum(r["winner_seat"] == s for r in ffa), 400] for s in range(3)},
        "first player": [sum(r["winner_seat"] == r["first_seat"] for r in ffa), 400]}
    assert "team_win_rate" not in got["c000"] and "bot_win_rate" not in got["c000"]   # one bot spec: no bot rate
    teams = recs["c001"]
    assert got["c001"]["team_win_rate"] == {f"team {t}": [sum(r["winner_team"] == t for r in teams), 400]
                                            for t in (0, 1)}
    mixed = recs["c002"]   # heuristic at seats 0 and 3, random at 1 and 2
    assert got["c002"]["bot_win_rate"] == {
        "heuristic": [sum(r["winner_seat"] in (0, 3) for r in mixed), 800],
        "random": [sum(r["winner_seat"] in (1, 2) for r in mixed), 800]}


def test_tales_metrics_match_python(tmp_path):
    if "tales" not in GAMES.names():
        pytest.skip("Tales are Real is not in this tree")
    assert {f.name for f in families("tales")} == {"team_win_rate", "people_win_rate", "bot_win_rate",
                                                   "end_reasons", "draw_rate", "game_length"}
    recs = write_cells(tmp_path, "tales", {"c000": {"bots": "heuristic,random"}}, 60, "reference")["c000"]
    m = compute("tales", [tmp_path])["c000"]
    assert m["end_reasons"] == dict(Counter(r["end_reason"] for r in recs))
    assert m["draw_rate"] == {"draw": [sum(r["winner_team"] == -1 for r in recs), 60]}
    assert m["team_win_rate"] == {"team 0": [sum(r["winner_team"] == 0 for r in recs), 60],
                                  "team 1": [sum(r["winner_team"] == 1 for r in recs), 60],
                                  "first team": [sum(r["winner_team"] == r["first_side"] for r in recs), 60]}
    assert m["people_win_rate"] == {p: [sum(r["winner_people"] == p for r in recs), 60]
                                    for p in ("animalis", "schatten")}
    assert m["bot_win_rate"] == {"heuristic": [sum(r["winner_team"] == 0 for r in recs), 60],
                                 "random": [sum(r["winner_team"] == 1 for r in recs), 60]}
