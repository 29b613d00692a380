"""Per-game derived columns (infra/derived.py): the same answers with them as without.

Every canned query that reads them (lead_changes, bot_matchups, win_matrix, skill_depth, knockouts,
round_limit_effect, and the regression's lead_changes family) answers a folder whose parts carry them exactly as the same games without them (the slow
list walk); the derived lead values equal the SQL walk game by game; game_length's histogram percentiles equal
DuckDB's quantile_disc for any values."""

from __future__ import annotations

import math
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from budget import examples, thin

from conftest import SMALL_SWEEP, write_results
from queries import connection, sqlfiles
from regress.metrics import families
from infra import derived
from sim.games import GAMES, get
from infra.metrics import _seat_view
from sim.paws.record import SCHEMA
from synthetic import rows

AFFECTED = ["lead_changes", "bot_matchups", "win_matrix", "skill_depth", "game_length", "idle_turns", "knockouts",
            "round_limit_effect"]
PARAMS = {"lead_changes": [{"behind_after": b} for b in (1, 3, 7, 64)],
          "round_limit_effect": [None, {"limits": [1, 2, 3, 5, 8, 13, 40, 1000]}]}


def _with_derived(src: Path, dest: Path) -> Path:
    """A copy of a results folder whose every games part carries the derived columns."""
    for part in sorted(src.rglob("*.parquet")):
        table = pq.read_table(part, partitioning=None)
        out = dest / part.relative_to(src)
        out.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(derived.derive(GAMES["paws"], table), out)
    return dest


def _same(a: list[tuple], b: list[tuple]) -> None:
    """Equal rows; floats equal to 1e-12 relative (sums in another order round differently)."""
    assert len(a) == len(b)
    for ra, rb in zip(a, b):
        assert len(ra) == len(rb)
        for x, y in zip(ra, rb):
            if isinstance(x, float) and isinstance(y, float):
                assert x == pytest.approx(y, rel=1e-12, abs=1e-12) or (math.isnan(x) and math.isnan(y))
            else:
                assert x == y and type(x) is type(y)


@pytest.fixture(scope="module")
def both(tmp_path_factory, small_sweep) -> tuple[str, str]:
    return str(small_sweep), str(_with_derived(small_sweep, tmp_path_factory.mktemp("derived")))


@pytest.mark.parametrize("name", thin(AFFECTED))
def test_a_folder_with_and_without_derived_columns_answers_alike(both, name):
    plain, fast = both
    q = sqlfiles.load(name)
    assert "lead_rounds" in [c for c in pq.read_schema(next(Path(fast).rglob("*.parquet"))).names]
    params = PARAMS.get(name, [None])
    for p in params:
        cols_a, a = connection.run(name, [plain], p)
        cols_b, b = connection.run(name, [fast], p)
        assert cols_a == cols_b
        _same(a, b)
    if name in ("lead_changes", "bot_matchups", "knockouts", "round_limit_effect"):
        assert a, f"{name} answers something over the small sweep"


def test_both_kinds_of_folder_at_once_answer_as_either(both):
    """A mix (one results folder with the columns, one without): every game counted once, the means alike."""
    plain, fast = both
    cols, mixed = connection.run("lead_changes", [plain, fast], {"behind_after": 2})
    _, single = connection.run("lead_changes", [plain], {"behind_after": 2})
    at = {c: i for i, c in enumerate(cols)}
    assert [r[at["games"]] for r in mixed] == [2 * r[at["games"]] for r in single]
    assert [r[at["comebacks"]] for r in mixed] == [2 * r[at["comebacks"]] for r in single]
    for m, s in zip(mixed, single):
        assert m[at["lead_changes_mean"]] == pytest.approx(s[at["lead_changes_mean"]], rel=1e-12)


def test_games_the_fast_path_does_not_fit_walk_the_lists_in_the_same_folder(both, tmp_path):
    """Parts where some games have no usable per-game value (limit_leaders_fit or out_of_lives NULL, as
    sim/paws/sql/derived.sql leaves a trace shorter than the game) answer as the folder without the columns."""
    plain, fast = both
    for part in sorted(Path(fast).rglob("*.parquet")):
        table = pq.read_table(part, partitioning=None)
        odd = pa.array([i % 2 == 1 for i in range(table.num_rows)])
        for name in ("limit_leaders_fit", "out_of_lives"):
            col = table[name].combine_chunks()
            table = table.set_column(table.schema.get_field_index(name), name,
                                     pc.if_else(odd, pa.nulls(len(col), col.type), col))
        out = tmp_path / part.relative_to(fast)
        out.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(table, out)
    for name, p in (("knockouts", None), ("round_limit_effect", {"limits": [1, 4, 9, 30]})):
        cols_a, a = connection.run(name, [plain], p)
        cols_b, b = connection.run(name, [str(tmp_path)], p)
        assert cols_a == cols_b and a
        _same(a, b)


def test_the_regression_lead_changes_family_reads_the_derived_column(both):
    plain, fast = both
    sql = next(f for f in families("paws") if f.name == "lead_changes").path.read_text()
    answers = []
    for folder in (plain, fast):
        con = connection.connect([folder])
        try:
            answers.append(con.execute(sql).fetchall())
        finally:
            con.close()
    assert answers[0] == answers[1] and answers[0]


WALK = """
WITH per_game AS (
    SELECT game_index, winning_side, [list_transform(range(sides), lambda s: list_sum(list_filter(row,
        lambda v, i: seat_sides[i] = s))) FOR row IN standings] AS totals FROM seat_outcomes
), leaders AS (
    SELECT *, [CASE WHEN len(list_filter(t, lambda x: x = list_max(t))) = 1 THEN list_position(t, list_max(t)) - 1 END
               FOR t IN totals] AS leader FROM per_game
), story AS (
    SELECT *, list_filter(leader, lambda x: x IS NOT NULL) AS led,
           CASE WHEN len(leader) > 0 AND leader[len(leader)] IS NOT NULL THEN 1 + coalesce(list_max(list_filter(
               range(1, len(leader) + 1), lambda r: leader[r] IS DISTINCT FROM leader[len(leader)])), 0) END AS decided
    FROM leaders
)
SELECT len(totals), len(list_filter(range(2, len(led) + 1), lambda i: led[i] <> led[i - 1])), decided,
       list_filter(range(1, len(totals) + 1),
                   lambda b: winning_side >= 0 AND totals[b][winning_side + 1] < list_max(totals[b]))
FROM story ORDER BY game_index"""


def _walk(game, table: pa.Table) -> list[tuple]:
    con = duckdb.connect()
    try:
        con.register("games", table)
        con.execute(f"CREATE VIEW seat_outcomes AS {_seat_view(game)}")
        return [tuple(r) for r in con.execute(WALK).fetchall()]
    finally:
        con.close()


def _derived(table: pa.Table) -> list[tuple]:
    masks, late = table["lead_behind_mask"].to_pylist(), table["lead_behind_late"].to_pylist()
    behind = [None if m is None else [r for r in range(1, 64) if m >> (r - 1) & 1] + list(extra)
              for m, extra in zip(masks, late)]
    return list(zip(table["lead_rounds"].to_pylist(), table["lead_changes"].to_pylist(),
                    table["lead_decided_round"].to_pylist(), behind))


@pytest.mark.parametrize("cell", ["c002", "c003", "c004"])     # 4 seats, mixed bots; Teams; Teams with a limit
def test_derived_lead_values_equal_the_walk_game_by_game(cell):
    m = get("paws").resolve(**SMALL_SWEEP[cell])
    table = m.play_batch(3, 0, 300)["games"]
    out = derived.derive(m.definition, table)
    assert out.select(table.column_names).equals(table)          # the record itself is untouched
    assert _derived(out) == _walk(m.definition, table)
    assert out["bots_key"][0].as_py() == '["' + '","'.join(table["bots"][0].as_py()) + '"]'


LIMIT_WINNERS = """
SELECT [limit_winner(vp_trace, l, mode) FOR l IN range(1, len(vp_trace) + 1)],
       list_sum(knockouts), list_sum(knockouts_dealt), len(list_filter(lives_left, lambda x: x = 0))
FROM games ORDER BY game_index"""


@pytest.mark.parametrize("cell", ["c000", "c001", "c002", "c003", "c004"])
def test_lead_leaders_and_knockout_sums_equal_the_macros_game_by_game(cell):
    """Every round's character of lead_leaders is the paws macro limit_winner after that round (Teams too),
    and the game's own columns (sim/paws/sql/derived.sql) are the knockouts query's per-game values."""
    m = get("paws").resolve(**SMALL_SWEEP[cell])
    table = m.play_batch(5, 0, 200)["games"]
    out = derived.derive(m.definition, table)
    con = duckdb.connect()
    try:
        con.execute(sqlfiles.all_macros())
        con.register("games", table)
        want = con.execute(LIMIT_WINNERS).fetchall()
    finally:
        con.close()
    got = list(zip([None if t is None else [ord(c) - 48 for c in t] for t in out["lead_leaders"].to_pylist()],
                   out["knockouts_sum"].to_pylist(), out["knockouts_dealt_sum"].to_pylist(),
                   out["out_of_lives"].to_pylist()))
    assert [tuple(w) for w in want] == got
    assert out["limit_leaders_fit"].to_pylist() == [True] * len(got)       # every trace covers its rounds
    assert {-1, 0, 1} <= {x for t, *_ in got for x in t}         # ties and two leaders at least
    assert any(k for _, k, _, _ in got)


def test_a_version_1_part_gets_only_the_missing_columns(small_sweep):
    """An upgrade of a part written by version 1 (keys and lead_* but no lead_leaders or the game's own
    columns) appends the missing columns and keeps the rest as they are."""
    part = next(Path(small_sweep).rglob("*.parquet"))
    table = pq.read_table(part, partitioning=None)
    full = derived.derive(GAMES["paws"], table)
    added = ["lead_leaders", "knockouts_sum", "knockouts_dealt_sum", "out_of_lives", "limit_leaders_fit"]
    v1 = full.drop_columns(added)
    again = derived.derive(GAMES["paws"], v1)
    assert again.column_names == v1.column_names + added
    assert again.select(full.column_names).equals(full)
    assert derived.derive(GAMES["paws"], full).equals(full)


trace_row = st.lists(st.one_of(st.none(), st.integers(0, 4)), min_size=2, max_size=4)


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(-1, 2), st.booleans(),
                          st.one_of(st.none(), st.lists(trace_row, min_size=0, max_size=70))),
                min_size=1, max_size=8))
def test_any_trace_gives_the_walks_values_or_none(games):
    """Any traces (long ones past round 63, rounds of the wrong length, NULL standings, no trace): the fast
    path gives the walk's values, or leaves the game to the walk (lead_rounds NULL)."""
    recs = rows([(first, win, "vp" if win >= 0 else "stalled", len(tr or []) or 1, tr or [[0, 0, 0]])
                 for first, win, _, tr in games], "beginner", "ffa", 3, ["heuristic"] * 3)
    table = pa.Table.from_pylist(recs, schema=SCHEMA)
    trace = pa.array([tr if keep else None for _, _, keep, tr in games], type=SCHEMA.field("vp_trace").type)
    table = table.set_column(table.schema.get_field_index("vp_trace"), "vp_trace", trace)
    out = derived.derive(GAMES["paws"], table)
    fast, walk = _derived(out), _walk(GAMES["paws"], table)
    for (_, _, keep, tr), f, w, lead in zip(games, fast, walk, out["lead_leaders"].to_pylist()):
        regular = keep and tr is not None and all(len(r) == 3 and None not in r for r in tr)
        if regular:
            assert f == w
            # the sole leader after each round (a tie: -1), as the round-limit macro has it
            assert [ord(c) - 48 for c in lead] == [
                [s for s in range(3) if r[s] == max(r)][0] if r.count(max(r)) == 1 else -1 for r in tr]
        else:
            assert f == (None, None, None, None) and lead is None


@settings(max_examples=examples(30), deadline=None)
@given(st.lists(st.tuples(st.sampled_from([2, 3]), st.one_of(st.none(), st.integers(1, 60)), st.integers(0, 300)),
                min_size=1, max_size=60))
def test_game_length_percentiles_equal_quantile_disc(tmp_path_factory, values):
    """The histogram percentiles of game_length are DuckDB's quantile_disc (nearest rank), NULLs and all."""
    recs = rows([(0, 0, "vp", 1, [[0, 0, 0]]) for _ in values], "beginner", "ffa", 3, ["heuristic"] * 3)
    for rec, (players, rounds, turns) in zip(recs, values):
        rec["players"], rec["rounds"], rec["turns"] = players, rounds, turns
    path = tmp_path_factory.mktemp("len") / "g.parquet"
    pq.write_table(pa.Table.from_pylist(recs, schema=SCHEMA), path)
    cols, got = connection.run("game_length", [str(path)])
    con = connection.connect([str(path)])
    try:
        want = con.execute(
            "SELECT players, count(*), avg(rounds), quantile_disc(rounds, [0.10, 0.25, 0.50, 0.75, 0.90, 0.99]), "
            "max(rounds), avg(turns), quantile_disc(turns, [0.10, 0.50, 0.90, 0.99]), max(turns) "
            "FROM games GROUP BY players ORDER BY players").fetchall()
    finally:
        con.close()
    at = {c: i for i, c in enumerate(cols)}
    for g, (players, n, rmean, rq, rmax, tmean, tq, tmax) in zip(got, want):
        assert g[at["players"]] == players and g[at["games"]] == n
        assert [g[at[f"rounds_p{p}"]] for p in ("10", "25", "50", "75", "90", "99")] == (rq or [None] * 6)
        assert [g[at[f"turns_p{p}"]] for p in ("10", "50", "90", "99")] == tq
        assert (g[at["rounds_max"]], g[at["turns_max"]]) == (rmax, tmax)
        assert g[at["rounds_mean"]] == pytest.approx(rmean, rel=1e-15) if rmean is not None \
            else g[at["rounds_mean"]] is None
        assert g[at["turns_mean"]] == pytest.approx(tmean, rel=1e-15)
