"""``playtest kingmaker``: can a player who can no longer win decide who does? (docs/kingmaking.md).

A sweep like any other: its spec (``DIR/kingmaking.toml``, one cell, ``tables = ["games", "kingmaking"]``) is
written into the results folder and played by cluster.sweep.run_sweep, so ``playtest status DIR [--verify]`` and
``--resume`` work as for every sweep; the answer is read from the folder (measures/kingmaking/answer.py), and
``--from DIR`` reads it again.
"""

from __future__ import annotations

import json
import math
import shlex
from pathlib import Path
from typing import Annotated, Optional

import typer

from cli.common import (AddressOpt, RulesOpt, SeatBotsOpt, SeatsOpt, SeedOpt, SetOpt, SetupOpt, WorkersOpt,
                        check_output_file, err, fail, game_named, local_out, replay_setup, seat_options)
from cli.sweep import play_spec
from measures.kingmaking.answer import kingmaking as answer_of, sentences
from measures.kingmaking.sweep import HEADER, STEM, THRESHOLD, check, pilot, spec_raw
from cluster.measure_sweep import prepare
from cluster.spec import SpecError
from cluster.sweep import SweepError
from queries.errors import ResultsError
from infra import folder
from sim.games import EngineError
from sim.params import RuleError


def kingmaker(ctx: typer.Context, game: Annotated[str, typer.Argument(help="the game (3 or more sides)")],
              bots: SeatBotsOpt = "heuristic", players: SeatsOpt = 4, rules: RulesOpt = None, set_: SetOpt = None,
              setup: SetupOpt = None,
              games: Annotated[int, typer.Option(help="games to replay decision by decision")] = 1000,
              seed: SeedOpt = 1,
              threshold: Annotated[float, typer.Option(
                  help="a seat is out once the oracle rates its chance to win under this")] = THRESHOLD,
              oracle: Annotated[Optional[str], typer.Option(
                  help="the learned model whose value head rates the seats (a shipped name or a file; default: "
                       "the game's default oracle)")] = None,
              out: Annotated[Optional[str], typer.Option(
                  help="results folder (local): the sweep's spec (kingmaking.toml), manifest and Parquet parts "
                       "(tables games and kingmaking)")] = None,
              resume: Annotated[bool, typer.Option(help="finish the kingmaking sweep in --out (same options)")] = False,
              from_: Annotated[Optional[str], typer.Option(
                  "--from", help="answer from this kingmaking sweep's folder, playing nothing")] = None,
              json_out: Annotated[Optional[Path], typer.Option("--json", help="also write the answer as JSON "
                                                                               "here")] = None,
              workers: WorkersOpt = None,
              address: AddressOpt = None,
              quiet: Annotated[bool, typer.Option("--quiet", help="no cost or progress lines")] = False) -> None:
    """Replay games decision by decision as a sweep (tables games and kingmaking); once the oracle says a seat
    can no longer win, try each of its options to the end under re-deals of the hidden cards and dice against
    its own choice under the same re-deals, and say what its choice changes beyond chance (a 95% interval,
    claimed only above zero), from the results folder."""
    if from_ is not None:
        if out is not None or resume:
            fail("--from reads a folder and plays nothing; give either --from DIR or --out DIR [--resume]")
        if json_out is not None:
            check_output_file("--json", json_out)
        return _answer(from_, json_out)
    g = game_named(game)
    if out is None:
        fail("--out DIR is required: the results folder the kingmaking sweep writes (or --from DIR to read one)")
    if not (math.isfinite(threshold) and 0.0 < threshold < 1.0):
        fail(f"--threshold {threshold!r} is not allowed; expected a chance between 0 and 1")
    out_dir = local_out(out, "kingmaker", "its spec kingmaking.toml")
    overrides, _, given, _, model = replay_setup(g, seat_options(ctx.params), oracle, "kingmaker", games=games,
                                                 seed=seed, workers=workers, outputs={"--json": json_out}, check=check)
    ref = (oracle or model.name).partition("@")[0]
    raw = spec_raw(g.name, rules, overrides, given, seed, games, threshold, f"{ref}@{model.digest}")
    try:    # a folder holding another sweep, or this one with other settings: one line, before anything is written
        spec = prepare(out_dir, STEM, raw, {}, resume, "kingmaking sweep", HEADER)
        manifest = folder.read_manifest(out_dir) if resume else None
    except (SweepError, SpecError, folder.FolderError) as e:
        fail(str(e))
    manifest = None if manifest is None else manifest.data
    done = 0 if manifest is None else sum(spec.part_games(b)[1] for _, b, _ in folder.done_parts(manifest))
    left = spec.total_games - done
    if not quiet:
        cell = spec.cells[0].match
        err.print(f"kingmaking in {g.name} ({_shape(g, cell)}), oracle {model.name}@{model.digest}, threshold "
                  f"{threshold:g}: {spec.total_games:,} games in {spec.total_parts} parts of {spec.batch_size} -> "
                  f"{out_dir}" + (f" ({done:,} done already)" if done else ""), highlight=False, markup=False,
                  soft_wrap=True)
        if left:
            try:
                cost = pilot(cell, seed, left)
            except (RuleError, EngineError) as e:
                fail(str(e))
            err.print(cost.line(workers), highlight=False, markup=False, soft_wrap=True)
    play_spec(spec, out_dir, workers=workers, address=address, resume=resume, progress=not quiet,
              again=_command(g.name, bots, players, rules, set_, setup, games, seed, threshold, oracle, out_dir,
                             address))
    _answer(str(out_dir), json_out)


def _shape(g, match) -> str:
    values = g.setup_values(match.setup)
    return ", ".join(f"{k} {v}" for k, v in values.items() if k != "bots")


def _answer(out: str, json_out: Optional[Path]) -> None:
    """Print (and with --json write) the kingmaking answer of a sweep's folder."""
    try:
        r = answer_of(out)
    except ResultsError as e:
        fail(str(e))
    if r is None:
        fail(f"{out}: no kingmaking table in this sweep (tables = [\"games\", \"kingmaking\"]; playtest kingmaker "
             "GAME --out DIR plays one)")
    setup = r["setup"] or {}
    shape = ", ".join(f"{k} {v}" for k, v in setup.items() if k != "bots") or f"{len(r['cells'])} cells"
    typer.echo(f"kingmaking in {r['game']} ({shape}; bots: {', '.join(r['bots'] or ['per cell'])}; oracle "
               f"{r['oracle']}; bots, not people):")
    for line in sentences(r):
        typer.echo(f"- {line}")
    if json_out is not None:
        json_out.write_text(json.dumps(r, indent=1) + "\n")


def _command(game, bots, players, rules, set_, setup, games, seed, threshold, oracle, out, address) -> str:
    """This kingmaker command (to run again, or with --resume to finish it)."""
    words = ["playtest", "kingmaker", game, "--bots", bots, "--players", str(players), "--games", str(games),
             "--seed", str(seed), "--threshold", repr(threshold)]
    words += ["--rules", rules] if rules else []
    for item in set_ or []:
        words += ["--set", item]
    for item in setup or []:
        words += ["--setup", item]
    words += ["--oracle", oracle] if oracle else []
    words += ["--out", str(out)] + (["--address", address] if address else [])
    return shlex.join(words)


COMMANDS = {"kingmaker": kingmaker}
