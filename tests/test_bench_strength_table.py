"""playtest bench --bots' strength table gives wins, draws and losses apart: a draw is never counted as half a
win under the words "win share" (issue 40: "tales-2 wins 62%" was a score)."""

from infra.bench import bot_markdown


def test_the_table_gives_wins_draws_and_losses():
    share = lambda k, n, lo, hi: {"count": k, "of": n, "share": k / n, "ci95": [lo, hi]}
    report = {"date": "d", "code_version": "v", "machine": "m", "seed": 1, "preset": "p",
              "bot_levels": [{"bots": "learned:model=tales-2", "games": 100, "games_per_s": 10.0}],
              "strength": [{"bot": "learned:model=tales-2", "vs": "heuristic", "line_ups": ["standard"],
                            "games": 1000, "edge": 0.116, "edge_95": [0.1, 0.13], "fair_share": 0.5,
                            "wins": share(561, 1000, 0.53, 0.59), "draws": share(112, 1000, 0.094, 0.133),
                            "losses": share(327, 1000, 0.298, 0.357)}]}
    text = bot_markdown(report)
    assert "| bots | games | edge | wins | draws | losses |" in text
    assert "| 0.561 [0.530, 0.590] (fair 0.5) | 0.112 [0.094, 0.133] | 0.327 [0.298, 0.357] |" in text
    assert "win share" not in text
