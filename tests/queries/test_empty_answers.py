"""A query that answers nothing says why, in one line after its (empty) table: its header's reason (``-- empty:``)
or the general one, and the filter it ran after (once an empty table and nothing else)."""

import pytest
from typer.testing import CliRunner

from cli.main import app

runner = CliRunner()


@pytest.fixture(scope="module")
def ffa(tmp_path_factory):
    out = tmp_path_factory.mktemp("ffa") / "g.parquet"
    assert runner.invoke(app, ["run", "paws", "--games", "200", "--seed", "8", "--out", str(out)]).exit_code == 0
    return out


def said(*args):
    res = runner.invoke(app, [str(a) for a in args])
    assert res.exit_code == 0, res.output
    return res.stdout, [x for x in res.stderr.splitlines() if "answers nothing" in x]


def test_a_teams_query_over_free_for_all_games_says_there_are_no_teams_games(ffa):
    _, why = said("query", "team_vp_target", "--results", ffa, "--format", "csv")
    assert why == ['note: query team_vp_target answers nothing: these results hold no Teams games (mode = teams); '
                   'a Teams sweep sets mode = "teams"']


def test_a_round_limit_query_filtered_to_no_games_says_what_it_reads_and_the_filter(ffa):
    _, why = said("query", "round_limit", "--results", ffa, "--where", "players = 3", "--format", "csv")
    assert len(why) == 1 and "reads games played with no round limit (round_limit = 0)" in why[0]
    assert why[0].endswith("(after --where 'players = 3')")


def test_a_question_file_that_answers_nothing_gets_the_general_reason(ffa, tmp_path):
    q = tmp_path / "none.sql"
    q.write_text("-- name: none\n-- columns: n\nSELECT rounds AS n FROM games WHERE rounds < 0")
    _, why = said("query", q, "--results", ffa, "--format", "csv")
    assert why == ["note: query none answers nothing: no game of these results is one this query reads"]


def test_an_answer_with_rows_says_nothing_of_the_kind(ffa):
    out, why = said("query", "round_limit", "--results", ffa, "--format", "csv")
    assert why == [] and len(out.splitlines()) > 1
