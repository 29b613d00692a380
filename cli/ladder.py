"""``playtest ladder GAME``: a round robin of bots played as a sweep, rated by Bradley-Terry on the Elo scale.

The ladder is a sweep like any other: its spec (``DIR/ladder.toml``, one ``[[cells]]`` per line-up) is
written into the results folder, played on Ray (``--workers``, ``--address``, ``--resume``), and its
results are the usual Parquet parts and manifest that ``playtest query`` and ``sql`` read. Line-ups: every
set of P bots of the field (P = the seats, 2 by default) in every seat order (P! line-ups each); heads-up
that is every pair in both seat orders. When every part is played, the ratings and the win matrix
(queries/ratings.py) are printed and written to ``DIR/ladder.json``.
"""

from __future__ import annotations

import json
from typing import Annotated, Optional

import typer

from cli.common import MAX_SEED, check_range, err, fail, fit_table, game_named, local_out
from cli.play_sweep import play_spec
from cluster.ladder import (DEFAULT_FIELD, REPORT_NAME, SPEC_NAME, LadderError, Plan, check_field,  # noqa: F401
                            field_of, lineups, plan, probe_batch_size, ready, shared_setup, spec_text)
from cluster.spec import MAX_BATCH, MAX_GAMES_PER_CELL
from cluster.sweep import SweepError, check_out_dir, interrupts, workers_error
from queries import ratings
from queries.ladder_report import LadderReportError, rate
from sim.files import write_atomic
from sim.games import GAMES, Game
from sim.params import RuleError, parse_assignments


def _field(text: Optional[str]) -> list[str]:
    try:
        return field_of(text)
    except LadderError as e:
        fail(str(e))


def _shared_setup(g: Game, rules, overrides, setup, seats: Optional[int]) -> tuple[dict, int]:
    """The setup every line-up shares and the seats (cluster/ladder.py). A bad value: one line, exit 2."""
    try:
        return shared_setup(g, rules, overrides, setup, seats)
    except LadderError as e:
        fail(str(e))


def _check_field(g: Game, rules, overrides, setup, bots: list[str], seats: int) -> list[str]:
    """The field checked and named as the records name it (cluster/ladder.py). A bad bot: one line, exit 2."""
    try:
        return check_field(g, rules, overrides, setup, bots, seats)
    except LadderError as e:
        fail(str(e))


def _print(report: dict) -> None:
    """The ratings, then the head-to-head matrix; when one rating per bot does not describe the games (the
    Bradley-Terry fit check), the fit's verdict and the matrix come first and the ratings are called an average."""
    fits = report["fit"]["fits"] is not False         # None: nothing to test, no claim either way
    if not fits:
        typer.echo(report["fit"]["says"])
        _print_matrix(report)
    rated = report["ratings"]
    several = report["seats"] > 2         # a game makes several meetings: show both counts
    cells = [[r["bot"], f"{round(r['elo'])}", f"{round(r['ci95_low'])}", f"{round(r['ci95_high'])}",
              f"{r['games']:,}"]
             + ([f"{r['meetings']:,}"] if several else []) for r in rated]
    typer.echo(fit_table(f"ladder: {report['game']}, {report['games']:,} games (bots, not people)"
                         + ("" if fits else "; ratings as an average only"),
                         ["bot", "Elo", "95% low", "95% high", "games"] + (["meetings"] if several else []), cells))
    for line in ratings.rating_lines(rated, report["bots"].index(report["anchor"])):
        typer.echo(line)
    if fits:
        typer.echo(report["fit"]["says"])
        _print_matrix(report)
    for line in report["intransitivity"]["says"]:
        typer.echo(line)


def _print_matrix(report: dict) -> None:
    bots = report["bots"]
    by_pair = {(m["bot"], m["opponent"]): m for m in report["win_matrix"]}
    rows = []
    for a in bots:
        row = [a]
        for b in bots:
            m = by_pair.get((a, b))
            row.append("" if m is None else f"{m['share']:.3f} [{m['ci95_low']:.3f}, {m['ci95_high']:.3f}] "
                                            f"n={m['games']:,}")
        rows.append(row)
    typer.echo(fit_table("win share of the row bot against the column bot (Wilson 95%, games)",
                         ["bot \\ against", *bots], rows))


def ladder(game: Annotated[str, typer.Argument(help=f"the game: {' or '.join(GAMES.names())}")],
           out: Annotated[str, typer.Option(help="results folder (local): the ladder's spec (ladder.toml), its "
                                                 "parts, manifest and ratings (ladder.json)")],
           bots: Annotated[Optional[str], typer.Option(
               help="the field, bot specs separated by commas, weakest first by intent (the first is the "
                    "rating anchor and skill_depth's level 0); default: " + ",".join(DEFAULT_FIELD))] = None,
           games: Annotated[int, typer.Option(help="games per line-up (each pairing in each seat order)")] = 1000,
           seed: Annotated[int, typer.Option(help="master seed: every line-up plays games 0..N-1 of it")] = 1,
           rules: Annotated[Optional[str], typer.Option(help="rule set preset (default: the game's)")] = None,
           set_: Annotated[Optional[list[str]], typer.Option("--set", help="rule override name=value "
                                                                           "(repeatable)")] = None,
           setup: Annotated[Optional[list[str]], typer.Option(
               "--setup", help="a setup value name=value shared by every line-up (repeatable), e.g. "
                               "board=explorer or mode=2v2")] = None,
           players: Annotated[Optional[int], typer.Option(
               help="seats per game (default 2: heads-up); more needs a game that seats them and at least "
                    "that many bots")] = None,
           workers: Annotated[Optional[int], typer.Option(help="tasks run at once (default: every core)")] = None,
           address: Annotated[Optional[str], typer.Option(help="HOST:PORT of a running Ray cluster to join")]
           = None,
           resume: Annotated[bool, typer.Option(help="finish the ladder already in --out (same settings)")] = False,
           batch_size: Annotated[int, typer.Option(
               help="games per part; 0: automatic, from the bots' measured speed (parts of about 2 s)")] = 0,
           progress: Annotated[bool, typer.Option(help="show a live progress bar")] = True) -> None:
    """Rate bots against each other: a round robin in every seat order, played as a sweep, then
    Bradley-Terry ratings (Elo scale) with 95% intervals and the win matrix (DIR/ladder.json)."""
    g = game_named(game)
    field = _field(bots)
    check_range("--games", games, 1, MAX_GAMES_PER_CELL)
    check_range("--seed", seed, 0, MAX_SEED)
    check_range("--batch-size", batch_size, 0, MAX_BATCH)
    check_range("--players", players, 2, 64)
    if (bad := workers_error(workers, address)) is not None:
        fail(bad)
    out = local_out(out, "a ladder", "its spec and ladder.json beside the parts")
    try:
        overrides = parse_assignments(set_ or [], where="--set")
        given_setup = parse_assignments(setup or [], where="--setup")
    except RuleError as e:
        fail(str(e))
    if "bots" in given_setup:
        fail("--setup bots=...: a ladder seats its --bots itself; give them with --bots")
    try:
        check_out_dir(out)
    except SweepError as e:
        fail(str(e))
    shared, seats = _shared_setup(g, rules, overrides, given_setup, players)
    field = _check_field(g, rules, overrides, shared, field, seats)
    try:
        p = plan(g, field, shared, seats, overrides, rules=rules, sets=set_ or [], setups=setup or [],
                 players=players, games=games, seed=seed, batch_size=batch_size, out=out, resume=resume)
    except LadderError as e:
        fail(str(e))
    with interrupts() as ints:      # Ctrl-C or SIGTERM anywhere: one line with what to run, exit 128 + signal
        try:
            play_and_rate(p, workers, address, resume, progress)
        except KeyboardInterrupt:
            err.print(f"interrupted; resume with: {p.command(address)} --resume", highlight=False, markup=False,
                      soft_wrap=True)
            raise typer.Exit(code=128 + ints.signum)


def play_and_rate(p: Plan, workers, address, resume: bool, progress: bool, again: Optional[str] = None,
                  anchor: Optional[int] = None) -> None:
    """Size the parts and write the ladder's spec (cluster.ladder.ready), play it (``cli.play_sweep.play_spec``: an
    interruption there prints its own resume hint, ``again`` + ``--resume``, by default the ladder's command), then
    rate it (queries.ladder_report; ``anchor``: the bot rated 0, by default random or the first) and write
    ``ladder.json``. ``playtest ladder`` and a skill run's levels' ladder (cli/skill.py) play through here."""
    try:
        said = ready(p)
    except LadderError as e:
        fail(str(e))
    err.print(said, highlight=False, markup=False, soft_wrap=True)
    play_spec(p.spec, p.out, workers=workers, address=address, resume=resume, progress=progress,
              again=again or p.command(address))
    try:
        report = rate(p.out, p.field, p.seats, p.info(), anchor)
    except LadderReportError as e:
        fail(str(e))
    write_atomic(p.out / REPORT_NAME, json.dumps(report, indent=2) + "\n")
    _print(report)
    err.print(f"ratings and win matrix: {p.out / REPORT_NAME}; the games: playtest query NAME --results {p.out}",
              highlight=False, markup=False, soft_wrap=True)


COMMANDS = {"ladder": ladder}
