"""``playtest tension``: is the game tense to the end, or decided early? (docs/tension.md)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated, Optional

import typer

from cli.common import (AddressOpt, RulesOpt, SeatBotsOpt, SeatsOpt, SeedOpt, SetOpt, SetupOpt, WorkersOpt, err,
                        fail, game_named, local_out, replay_setup, seat_options)
from cli.sweep import play_measure
from measures.tension.answer import answer_of
from measures.tension.sweep import HEADER, STEM, check, spec_raw
from queries.errors import QueryError, ResultsError
from measures.tension.trace import DECIDED, sentences


def tension_command(
        ctx: typer.Context, game: Annotated[str, typer.Argument(help="the game")],
        out: Annotated[Optional[str], typer.Option(
            help="the sweep's results folder (new or empty; with --resume, this measure's own): its spec "
                 "tension.toml, manifest and Parquet parts (tables games and win_prob)")] = None,
        resume: Annotated[bool, typer.Option(help="finish the tension sweep in --out (same options)")] = False,
        from_: Annotated[Optional[Path], typer.Option(
            "--from", help="answer from this folder's sweep without playing (any sweep with the win_prob table)")]
        = None,
        bots: SeatBotsOpt = "heuristic", players: SeatsOpt = 4, rules: RulesOpt = None, set_: SetOpt = None,
        setup: SetupOpt = None,
        games: Annotated[int, typer.Option(help="games to play")] = 2000,
        seed: SeedOpt = 1,
        decided: Annotated[float, typer.Option(help="the winner's chance above which a game counts as decided")]
        = DECIDED,
        oracle: Annotated[Optional[str], typer.Option(
            help="the learned model whose value head rates the sides (a shipped name or a file; default: the "
                 "game's default oracle)")] = None,
        json_: Annotated[Optional[Path], typer.Option(
            "--json", help="also write the answer as JSON here (it is always in DIR/tension.json)")] = None,
        html: Annotated[Optional[Path], typer.Option(help="write a self-contained page with the curves here")] = None,
        workers: WorkersOpt = None,
        address: AddressOpt = None,
        quiet: Annotated[bool, typer.Option("--quiet", help="no progress bar")] = False) -> None:
    """Play the games as a sweep that stores every side's chance to win as each turn begins (a learned value head,
    in the engine core: the win_prob table), and say how tense they are: the winner's lowest chance, comebacks,
    leader changes and where the game was decided, with 95% intervals."""
    g = game_named(game)
    if not (math.isfinite(decided) and 0.5 <= decided < 1.0):
        fail(f"--decided {decided!r} is not allowed; expected a chance from 0.5 to below 1")
    if (out is None) == (from_ is None):
        fail("give --out DIR (play the sweep there) or --from DIR (answer from a sweep already played), not "
             + ("both" if out else "neither"))
    if from_ is not None:
        answer = _answer(from_, decided, g.name)
        if answer["game"] != g.name:
            fail(f"--from {from_}: a sweep of {answer['game']}, not {g.name}")
    else:
        folder = local_out(out, "tension", "its spec tension.toml and answer beside the parts")
        overrides, shape, given, match, model = replay_setup(g, seat_options(ctx.params), oracle, "tension",
                                                             games=games, seed=seed, workers=workers,
                                                             outputs={"--json": json_, "--html": html}, check=check)
        ref = (oracle or model.name).partition("@")[0]
        raw = spec_raw(g.name, rules, overrides, given, seed, games, f"{ref}@{model.digest}")
        play_measure(folder, STEM, raw, {}, what="tension sweep", resume=resume, workers=workers, address=address,
                     quiet=quiet, header=HEADER,
                     cost=f"tension: {g.name}, every side rated as each turn begins by {model.name}@{model.digest}")
        answer = _answer(folder, decided, g.name)
        (folder / f"{STEM}.json").write_text(json.dumps(answer, indent=1) + "\n")
    shape = ", ".join(f"{k} {v}" for k, v in answer["setup"].items()) or "default setup"
    typer.echo(f"tension in {g.name} ({shape}; bots: {'; '.join(answer['bots'])}; bots, not people; oracle "
               f"{answer['oracle']}):")
    for cell, a in answer["cells"].items():
        if len(answer["cells"]) > 1:
            typer.echo(f"cell {cell}:")
        for line in sentences(a):
            typer.echo(f"- {line}")
    if json_ is not None:
        json_.write_text(json.dumps(answer, indent=1) + "\n")
    if html is not None:
        if len(answer["cells"]) > 1:
            fail(f"--html: {len(answer['cells'])} cells; playtest report {answer['folder']} draws each cell's curves")
        from measures.tension.page import tension_page
        html.write_text(tension_page(answer, sentences(answer)))
        err.print(f"page: {html}", highlight=False, markup=False)


def _answer(folder: Path, decided: float, game: str) -> dict:
    """The answer from ``folder``'s parts (measures/tension/answer.py); a folder without the win_prob table, or that
    cannot be read safely, exits 2 in one line."""
    try:
        answer = answer_of(folder, decided)
    except (ResultsError, QueryError) as e:
        fail(str(e))
    except KeyboardInterrupt as e:      # Ctrl-C while the answer is worked out: one line, exit 130 (as `query`)
        fail(f"{str(e) or 'tension: interrupted (Ctrl-C)'}; the games in {folder} are kept: playtest tension {game} "
             f"--from {folder} answers from them", code=130)
    if answer is None:
        fail(f"{folder}: no win_prob table in this sweep (tables = [\"games\", \"win_prob\"]; playtest tension GAME "
             "--out DIR plays one)")
    return answer


COMMANDS = {"tension": tension_command}
