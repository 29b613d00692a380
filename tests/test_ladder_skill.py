"""The skill ladder orders the search bot by its budget: ratings rise with the iterations, on both games.

A statistical test with enough games that the order is unambiguous: each adjacent step's rating
difference must have its whole 95% interval above zero (a false pass needs two intervals to miss at
once; the measured steps are 3-4 interval half-widths apart, docs/ladder.md)."""

import json

import pytest
from typer.testing import CliRunner

from cli.main import app

runner = CliRunner()

# three budgets a factor 8 apart, depth-capped rollouts (docs/search-bots.md: the affordable strong setting)
BUDGETS = (2, 16, 128)
FIELD = ",".join(f"mcts:iterations={n}:depth=20" for n in BUDGETS)
GAMES = {"paws": 60, "tales": 60}          # per line-up: 6 line-ups, 240 meetings per step


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(GAMES))
def test_ratings_rise_with_the_search_budget(ray_local, tmp_path, game):
    out = tmp_path / "ladder"
    res = runner.invoke(app, ["ladder", game, "--bots", FIELD, "--games", str(GAMES[game]), "--seed", "3",
                              "--out", str(out), "--no-progress"])
    assert res.exit_code == 0, res.output
    report = json.loads((out / "ladder.json").read_text())
    ratings = {r["bot"]: r for r in report["ratings"]}
    levels = [ratings[f"mcts:iterations={n}:depth=20"] for n in BUDGETS]
    assert levels[0]["elo"] == 0.0                                   # the anchor: the first bot
    for lower, higher in zip(levels, levels[1:]):
        assert higher["elo"] > lower["elo"], (lower, higher)
    # each step up: the higher budget's interval clears the lower one's rating
    assert levels[1]["ci95_low"] > 0
    assert levels[2]["ci95_low"] > levels[1]["elo"]
    # and head to head, the higher budget wins more than half of its games against the lower one
    matrix = {(c["bot"], c["opponent"]): c for c in report["win_matrix"]}
    for lo, hi in zip(BUDGETS, BUDGETS[1:]):
        cell = matrix[(f"mcts:iterations={hi}:depth=20", f"mcts:iterations={lo}:depth=20")]
        assert cell["share"] > 0.5 and cell["games"] == 2 * GAMES[game], cell
