"""``playtest restrict``: what each kind of option is worth to a bot, by restricted play (docs/restricted-play.md)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated, Optional

import typer

from cli.common import MAX_SEED, MAX_WORKERS, check_output_file, check_range, err, fail, fit_table, game_named
from cluster.restrict import MARGIN, THRESHOLD, check, forbiddable, games_to_play, points, restricted_play, sentences
from sim.games import EngineError
from sim.params import RuleError


def restrict(game: Annotated[str, typer.Argument(help="the game")],
             forbid: Annotated[Optional[str], typer.Option(
                 help="the options to forbid, separated by commas (default: every one the game has)")] = None,
             bot: Annotated[str, typer.Option(help="the bot to restrict, and the field it plays against (a "
                                                   "heuristic spec)")] = "heuristic",
             games: Annotated[int, typer.Option(help="games per seat of each skill line-up, per option")] = 2000,
             seed: Annotated[int, typer.Option(help="master seed (every option plays the same games)")] = 1,
             threshold: Annotated[float, typer.Option(
                 help="a cost of win share above which an option is called dominant")] = THRESHOLD,
             margin: Annotated[float, typer.Option(
                 help="a cost within +- this is no cost (the option is called useless)")] = MARGIN,
             out: Annotated[Optional[Path], typer.Option(help="write the result as JSON here")] = None,
             html: Annotated[Optional[Path], typer.Option(
                 help="write a self-contained page here: the verdicts, a plot of the costs, the table")] = None,
             workers: Annotated[Optional[int], typer.Option(help="Ray workers (default: every core)")] = None,
             address: Annotated[Optional[str], typer.Option(help="Ray cluster address to run on")] = None,
             quiet: Annotated[bool, typer.Option("--quiet", help="no progress lines")] = False) -> None:
    """Forbid the bot one kind of option at a time and measure, on the same games, how much win share it
    loses against the unrestricted bot: dominant, useless or overused options, with 95% intervals."""
    g = game_named(game)
    check_range("--games", games, 2, 10_000_000)
    check_range("--seed", seed, 0, MAX_SEED)
    if workers is not None:
        check_range("--workers", workers, 1, MAX_WORKERS)
    for flag, value in (("--threshold", threshold), ("--margin", margin)):
        if not (math.isfinite(value) and 0.0 <= value <= 1.0):
            fail(f"{flag} {value!r} is not allowed; expected a share from 0 to 1")
    options = tuple(dict.fromkeys(o.strip() for o in forbid.split(","))) if forbid else forbiddable(g.name)
    for flag, path in (("--out", out), ("--html", html)):
        if path is not None:
            check_output_file(flag, path)
    try:
        check(g.name, bot, options)
    except RuleError as e:
        fail(str(e))
    if not quiet:
        err.print(f"restricted play: {len(options)} option(s) of {g.name}, "
                  f"{games_to_play(g.name, bot, options, games):,} games to play", highlight=False)
    try:
        result = restricted_play(g.name, bot, options, seed, games, threshold, margin, workers, address,
                                 progress=None if quiet else lambda t: err.print(t, highlight=False, markup=False))
    except (RuleError, EngineError) as e:
        fail(str(e))
    rows = [[r["option"], r["verdict"], points(r["cost"]), f"{points(r['cost_95'][0])} to {points(r['cost_95'][1])}",
             f"{r['games']:,}"]
            for r in sorted(result["options"], key=lambda r: -r["cost"])]
    typer.echo(fit_table(f"restricted play: {g.name}, {bot} forbidden one option against {bot} (bots, not people)",
                         ["forbidden", "verdict", "cost, points of win share", "95%", "paired games"], rows))
    for line in sentences(result):
        typer.echo(line)
    if out is not None:
        out.write_text(json.dumps(result, indent=1) + "\n")
    if html is not None:
        from queries.restrict_page import restrict_page
        html.write_text(restrict_page(result, sentences(result)))
        err.print(f"page: {html}", highlight=False, markup=False)


COMMANDS = {"restrict": restrict}
