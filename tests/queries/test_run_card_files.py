"""A run's card file (``playtest run ... --cards-out``) is a first-class input to the card queries: given beside
the games file it was written with (``--results GAMES --results CARDS``), its rows join those games; alone, or
with the games file missing, each is one line saying what to add (once a raw DuckDB "Catalog Error ... pg_attrdef")."""

import json

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from cli.main import app

runner = CliRunner()


@pytest.fixture(scope="module", params=[("tales", "tales_cards", ["--mode", "survive"]), ("paws", "paws_cards", [])])
def pair(request, tmp_path_factory):
    game, query, extra = request.param
    d = tmp_path_factory.mktemp(game)
    games, cards = d / "g.parquet", d / "g-cards.parquet"
    res = runner.invoke(app, ["run", game, *extra, "--games", "300", "--seed", "3", "--out", str(games),
                              "--cards-out", str(cards)])
    assert res.exit_code == 0, res.output
    return query, games, cards


def answer(query, *results):
    args = ["query", query, "--format", "json"]
    for r in results:
        args += ["--results", str(r)]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def one_line(res, needle):
    lines = [x for x in res.stderr.splitlines() if x.strip()]
    assert res.exit_code == 2 and len(lines) == 1 and needle in lines[0], res.output
    assert "Catalog Error" not in res.output and "Traceback" not in res.output


def test_the_pair_answers_the_card_query_in_either_order(pair):
    query, games, cards = pair
    rows = answer(query, games, cards)
    assert rows and rows == answer(query, cards, games)
    # every card row joins one seat-game of the games file: the counts add up to the per-card table
    n_cards = pq.read_metadata(cards).num_rows
    present = sum(r["present"] for r in rows)
    assert present == n_cards, (present, n_cards)


def test_a_card_file_alone_says_which_games_file_to_add(pair):
    query, _, cards = pair
    one_line(runner.invoke(app, ["query", query, "--results", str(cards)]),
             "a per-card table (a run's --cards-out file); give the games file written with it")


def test_a_games_file_alone_says_the_query_reads_the_card_table(pair):
    query, games, _ = pair
    one_line(runner.invoke(app, ["query", query, "--results", str(games)]),
             "this query reads the per-card table, which these results do not hold")


def test_a_card_file_of_other_games_is_not_paired(pair, tmp_path):
    query, games, _ = pair
    game = query.split("_")[0]
    other_g, other_c = tmp_path / "o.parquet", tmp_path / "o-c.parquet"
    assert runner.invoke(app, ["run", game, "--games", "50", "--seed", "99", "--out", str(other_g),
                               "--cards-out", str(other_c)]).exit_code == 0
    one_line(runner.invoke(app, ["query", query, "--results", str(games), "--results", str(other_c)]),
             "give the games file written with it")
