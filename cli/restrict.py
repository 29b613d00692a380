"""``playtest restrict``: what each kind of option is worth to a bot, by restricted play, played as a sweep
(docs/restricted-play.md)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated, Optional

import typer

from cli.common import (MAX_SEED, MAX_WORKERS, AddressOpt, WorkersOpt, check_output_file, check_range, err, fail,
                        fit_table, game_named, local_out)
from cli.sweep import play_measure
from measures.restrict.sweep import MARGIN, STEM, THRESHOLD, check, forbiddable, points, sentences, sweep_raw
from queries.errors import QueryError, ResultsError
from sim.params import RuleError

SPEC_STEM = STEM                  # DIR/restrict.toml: the sweep spec; DIR/restrict.json: the answer


def restrict(game: Annotated[str, typer.Argument(help="the game")],
             out: Annotated[Optional[str], typer.Option(
                 help="the sweep's results folder (new or empty; with --resume, this measure's own)")] = None,
             resume: Annotated[bool, typer.Option(help="finish the sweep in --out (after Ctrl-C, a crash or "
                                                       "damage: its parts are verified first)")] = False,
             from_: Annotated[Optional[Path], typer.Option(
                 "--from", help="answer from this folder's sweep without playing (any sweep laid out as "
                                "restricted play)")] = None,
             forbid: Annotated[Optional[str], typer.Option(
                 help="the options to forbid, separated by commas (default: every one the game has)")] = None,
             bot: Annotated[str, typer.Option(help="the bot to restrict, and the field it plays against (a "
                                                   "heuristic or learned spec: heuristic:preset=tuned, "
                                                   "learned:model=paws-2)")] = "heuristic",
             games: Annotated[int, typer.Option(help="games per cell: per seat of each skill line-up, per "
                                                     "option")] = 2000,
             seed: Annotated[int, typer.Option(help="master seed (every cell plays the same games)")] = 1,
             threshold: Annotated[float, typer.Option(
                 help="a cost of win share above which an option is called dominant")] = THRESHOLD,
             margin: Annotated[float, typer.Option(
                 help="a cost within +- this is no cost (the option is called useless)")] = MARGIN,
             json_: Annotated[Optional[Path], typer.Option(
                 "--json", help="also write the answer as JSON here (it is always in DIR/restrict.json)")] = None,
             html: Annotated[Optional[Path], typer.Option(
                 help="write a self-contained page here: the verdicts, a plot of the costs, the table")] = None,
             workers: WorkersOpt = None,
             address: AddressOpt = None,
             quiet: Annotated[bool, typer.Option("--quiet", help="no progress bar")] = False) -> None:
    """Forbid the bot one kind of option at a time and measure, on the same games, how much win share it
    loses against the unrestricted bot: dominant, useless or overused options, with 95% intervals. Played as
    a sweep into --out (playtest status, --verify and --resume work on it); answered from its folder."""
    g = game_named(game)
    check_range("--games", games, 2, 10_000_000)
    check_range("--seed", seed, 0, MAX_SEED)
    if workers is not None:
        check_range("--workers", workers, 1, MAX_WORKERS)
    for flag, value in (("--threshold", threshold), ("--margin", margin)):
        if not (math.isfinite(value) and 0.0 <= value <= 1.0):
            fail(f"{flag} {value!r} is not allowed; expected a share from 0 to 1")
    for flag, path in (("--json", json_), ("--html", html)):
        if path is not None:
            check_output_file(flag, path)
    if (out is None) == (from_ is None):
        fail("give --out DIR (play the sweep there) or --from DIR (answer from a sweep already played), not "
             + ("both" if out else "neither"))
    if from_ is not None:
        result = _answer(from_, threshold, margin)
        if result["game"] != g.name:
            fail(f"--from {from_}: a restricted-play sweep of {result['game']}, not {g.name}")
    else:
        folder = local_out(out, "restricted play", "its spec and answer beside the parts")
        options = tuple(dict.fromkeys(o.strip() for o in forbid.split(","))) if forbid else forbiddable(g.name)
        try:
            check(g.name, bot, options)
            raw = sweep_raw(g.name, bot, options, seed, games)
        except RuleError as e:
            fail(str(e))
        play_measure(folder, SPEC_STEM, raw, {}, what="restricted-play sweep", resume=resume, workers=workers,
                     address=address, quiet=quiet,
                     header=f"restricted play of {g.name}: written by playtest restrict (docs/restricted-play.md)",
                     cost=f"restricted play: {len(options)} option(s) of {g.name}, {bot} forbidden each in every "
                          f"seat of {len(g.skill_setups)} line-up(s), one base cell a line-up")
        result = _answer(folder, threshold, margin)
        (folder / f"{SPEC_STEM}.json").write_text(json.dumps(result, indent=1) + "\n")
    rows = [[r["option"], r["verdict"], points(r["cost"]), f"{points(r['cost_95'][0])} to {points(r['cost_95'][1])}",
             f"{r['games']:,}"]
            for r in sorted(result["options"], key=lambda r: -r["cost"])]
    typer.echo(fit_table(f"restricted play: {g.name}, {result['bot']} forbidden one option against {result['bot']} "
                         "(bots, not people)", ["forbidden", "verdict", "cost, points of win share", "95%",
                                                "paired games"], rows))
    for line in sentences(result):
        typer.echo(line)
    if json_ is not None:
        json_.write_text(json.dumps(result, indent=1) + "\n")
    if html is not None:
        from measures.restrict.page import restrict_page
        html.write_text(restrict_page(result, sentences(result)))
        err.print(f"page: {html}", highlight=False, markup=False)


def _answer(folder: Path, threshold: float, margin: float) -> dict:
    """The answer from ``folder``'s parts (measures/restrict/answer.py); a folder that is not a restricted-play
    sweep, or cannot be read safely, exits 2 in one line."""
    from measures.restrict.answer import restricted_play
    try:
        result = restricted_play(folder, threshold, margin)
    except (ResultsError, QueryError) as e:
        fail(str(e))
    if result is None:
        fail(f"{folder}: not a restricted-play sweep (its cells are not one base cell a line-up and cells with "
             "BOT:forbid=OPTION in one seat)")
    return result


COMMANDS = {"restrict": restrict}
