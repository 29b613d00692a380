"""``playtest kingmaker``: can a player who can no longer win decide who does? (docs/kingmaking.md)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated, Optional

import typer

from cli.common import err, fail, game_named, replay_setup
from cluster.kingmaker import THRESHOLD, check, kingmaking, sentences
from sim.games import EngineError
from sim.params import RuleError


def kingmaker(game: Annotated[str, typer.Argument(help="the game (3 or more sides)")],
              bots: Annotated[str, typer.Option(help="the bots, one spec for every seat or one per seat, "
                                                     "separated by commas")] = "heuristic",
              players: Annotated[int, typer.Option(help="seats (3 or more)")] = 4,
              rules: Annotated[Optional[str], typer.Option(help="rule set preset (default: the game's)")] = None,
              set_: Annotated[Optional[list[str]], typer.Option("--set", help="rule override name=value "
                                                                              "(repeatable)")] = None,
              setup: Annotated[Optional[list[str]], typer.Option(help="a setup value name=value, e.g. "
                                                                      "board=explorer (repeatable)")] = None,
              games: Annotated[int, typer.Option(help="games to replay decision by decision")] = 1000,
              seed: Annotated[int, typer.Option(help="master seed")] = 1,
              threshold: Annotated[float, typer.Option(
                  help="a seat is out once the oracle rates its chance to win under this")] = THRESHOLD,
              oracle: Annotated[Optional[str], typer.Option(
                  help="the learned model whose value head rates the seats (a shipped name or a file; default: "
                       "the game's newest shipped model)")] = None,
              out: Annotated[Optional[Path], typer.Option(help="write the answer as JSON here")] = None,
              workers: Annotated[Optional[int], typer.Option(help="Ray workers (default: every core)")] = None,
              address: Annotated[Optional[str], typer.Option(help="Ray cluster address to run on")] = None,
              quiet: Annotated[bool, typer.Option("--quiet", help="no progress lines")] = False) -> None:
    """Replay games decision by decision; once the oracle says a seat can no longer win, try each of its
    options to the end on the same random stream, and count the games where its choice decides which other
    seat wins (Wilson 95% intervals)."""
    g = game_named(game)
    if not (math.isfinite(threshold) and 0.0 < threshold < 1.0):
        fail(f"--threshold {threshold!r} is not allowed; expected a chance between 0 and 1")
    overrides, shape, given, match, model = replay_setup(g, bots, players, rules, set_, setup, oracle, "kingmaker",
                                                         games=games, seed=seed, workers=workers,
                                                         outputs={"--out": out}, check=check)
    if not quiet:
        err.print(f"kingmaking: {games:,} games of {g.name} replayed decision by decision; each decision of a seat "
                  f"that is out tried with every option to the end (oracle {model.name}@{model.digest})",
                  highlight=False)
    try:
        result = kingmaking(g.name, rules, overrides, {k: v for k, v in given.items()}, seed, games, threshold,
                            model, workers, address)
    except (RuleError, EngineError) as e:
        fail(str(e))
    typer.echo(f"kingmaking in {g.name} ({', '.join(f'{k} {v}' for k, v in shape.items()) or 'default setup'}, "
               f"{match.setup.players if hasattr(match.setup, 'players') else ''} players; bots: "
               f"{', '.join(result['bots'])}; bots, not people):")
    for line in sentences(result):
        typer.echo(f"- {line}")
    if out is not None:
        out.write_text(json.dumps(result, indent=1) + "\n")


COMMANDS = {"kingmaker": kingmaker}
