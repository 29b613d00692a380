"""``playtest tension``: is the game tense to the end, or decided early? (docs/tension.md)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated, Optional

import typer

from cli.common import err, fail, game_named, replay_setup
from cluster.tension import DECIDED, check, sentences, tension
from sim.games import EngineError
from sim.params import RuleError


def tension_command(
        game: Annotated[str, typer.Argument(help="the game")],
        bots: Annotated[str, typer.Option(help="the bots, one spec for every seat or one per seat, separated by "
                                               "commas")] = "heuristic",
        players: Annotated[int, typer.Option(help="seats, where the game has a player count")] = 4,
        rules: Annotated[Optional[str], typer.Option(help="rule set preset (default: the game's)")] = None,
        set_: Annotated[Optional[list[str]], typer.Option("--set", help="rule override name=value (repeatable)")] = None,
        setup: Annotated[Optional[list[str]], typer.Option(help="a setup value name=value, e.g. board=explorer or "
                                                                "mode=2v2 (repeatable)")] = None,
        games: Annotated[int, typer.Option(help="games to replay")] = 2000,
        seed: Annotated[int, typer.Option(help="master seed")] = 1,
        decided: Annotated[float, typer.Option(help="the winner's chance above which a game counts as decided")]
        = DECIDED,
        oracle: Annotated[Optional[str], typer.Option(
            help="the learned model whose value head rates the sides (a shipped name or a file; default: the "
                 "game's newest shipped model)")] = None,
        out: Annotated[Optional[Path], typer.Option(help="write the answer as JSON here")] = None,
        trace: Annotated[Optional[Path], typer.Option(
            help="write every game's win-probability trace here (Parquet: one row a game)")] = None,
        html: Annotated[Optional[Path], typer.Option(help="write a self-contained page with the curves here")] = None,
        workers: Annotated[Optional[int], typer.Option(help="Ray workers (default: every core)")] = None,
        address: Annotated[Optional[str], typer.Option(help="Ray cluster address to run on")] = None,
        quiet: Annotated[bool, typer.Option("--quiet", help="no progress lines")] = False) -> None:
    """Replay games decision by decision, rate every side's chance to win before each decision with a learned
    value head, and say how tense the games are: the winner's lowest chance, comebacks, leader changes and
    where the game was decided, with 95% intervals."""
    g = game_named(game)
    if not (math.isfinite(decided) and 0.5 <= decided < 1.0):
        fail(f"--decided {decided!r} is not allowed; expected a chance from 0.5 to below 1")
    overrides, shape, given, match, model = replay_setup(g, bots, players, rules, set_, setup, oracle, "tension",
                                                         games=games, seed=seed, workers=workers,
                                                         outputs={"--out": out, "--trace": trace, "--html": html},
                                                         check=check)
    if not quiet:
        err.print(f"tension: {games:,} games of {g.name} replayed decision by decision, every side rated before "
                  f"each decision (oracle {model.name}@{model.digest})", highlight=False)
    try:
        answer, traces = tension(g.name, rules, overrides, given, seed, games, model, workers, address, decided,
                                 keep=trace is not None)
    except (RuleError, EngineError) as e:
        fail(str(e))
    typer.echo(f"tension in {g.name} ({', '.join(f'{k} {v}' for k, v in shape.items()) or 'default setup'}; bots: "
               f"{', '.join(answer['bots'])}; bots, not people; oracle {answer['oracle']}):")
    for line in sentences(answer):
        typer.echo(f"- {line}")
    if out is not None:
        out.write_text(json.dumps(answer, indent=1) + "\n")
    if trace is not None:
        import pyarrow as pa
        import pyarrow.parquet as pq
        pq.write_table(pa.table({"seed": pa.array([seed] * len(traces), pa.uint64()),
                                 "game_index": [t["game_index"] for t in traces],
                                 "winner_side": [t["winner"] for t in traces],
                                 "sides": [t["sides"] for t in traces],
                                 "chances": pa.array([t["chances"] for t in traces], pa.list_(pa.float32()))}),
                       trace)
    if html is not None:
        from queries.tension_page import tension_page
        html.write_text(tension_page(answer, sentences(answer)))
        err.print(f"page: {html}", highlight=False, markup=False)


COMMANDS = {"tension": tension_command}
