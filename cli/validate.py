"""``playtest validate``: every design measure checked on cases whose answer is known (docs/validation.md)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated, Optional

import typer

from cli.common import MAX_SEED, MAX_WORKERS, check_output_file, check_range, fail, fit_table, game_named


def validate(measure: Annotated[Optional[str], typer.Argument(
                 help="the measure to check (default: every measure); playtest validate --list names them")] = None,
             game: Annotated[Optional[str], typer.Option(help="only the cases of this game (and those that play "
                                                               "no game)")] = None,
             rules: Annotated[Optional[str], typer.Option(help="a rule set preset of --game: the planted cases "
                                                               "play this variant")] = None,
             set_: Annotated[Optional[list[str]], typer.Option("--set", help="a rule override name=value of the "
                                                                              "variant (repeatable)")] = None,
             setup: Annotated[Optional[list[str]], typer.Option(help="a setup value name=value of the variant "
                                                                     "(repeatable; not bots)")] = None,
             data: Annotated[Optional[list[str]], typer.Option(help="a card file KEY=FILE of the variant "
                                                                    "(repeatable)")] = None,
             slow: Annotated[bool, typer.Option("--slow", help="also the slow cases (minutes each; CI runs "
                                                               "them)")] = False,
             seed: Annotated[int, typer.Option(help="master seed of every case")] = 1,
             scale: Annotated[float, typer.Option(help="each case's games times this (0.1 to 100)")] = 1.0,
             workers: Annotated[Optional[int], typer.Option(help="processes a case that sweeps may use")] = None,
             json_: Annotated[Optional[Path], typer.Option("--json", help="also write the table as JSON here")] = None,
             list_: Annotated[bool, typer.Option("--list", help="list the cases without running them")] = False) -> None:
    """Run every measure's known-answer cases, planted (the property built in) and null (the property absent),
    and print one table: measure, case, expected, measured with its interval, pass or fail. Exit 1 when a case
    fails. With --game and --set/--setup/--data, the planted cases that take a variant play yours."""
    from measures.known import Context
    from measures.known._run import ValidateError, run, select
    from sim.params import RuleError, parse_assignments
    check_range("--seed", seed, 0, MAX_SEED)
    if not (math.isfinite(scale) and 0.1 <= scale <= 100):
        fail(f"--scale {scale!r} is not allowed; expected a number from 0.1 to 100")
    if workers is not None:
        check_range("--workers", workers, 1, MAX_WORKERS)
    if json_ is not None:
        check_output_file("--json", json_)
    if game is not None:
        game = game_named(game).name
    try:
        overrides = parse_assignments(set_ or [], where="--set")
        shape = parse_assignments(setup or [], where="--setup")
        files = {k: str(v) for k, v in parse_assignments(data or [], where="--data").items()}
        if "bots" in shape:
            raise RuleError("--setup bots=...: the cases choose the bots (a rigged line-up is a case)")
        ctx = Context(seed=seed, scale=scale, game=game, rules=rules, overrides=overrides, setup=shape, data=files,
                      workers=workers)
        chosen = select(measure, ctx, slow or list_)
    except (ValidateError, RuleError, ValueError) as e:
        fail(str(e))
    if not chosen:
        fail("no known-answer case matches" + (f" {measure}" if measure else "") + (f" for {game}" if game else "")
             + ("" if slow else " among the fast cases (add --slow)"))
    if list_:
        typer.echo(fit_table("known-answer cases", ["measure", "case", "kind", "game", "expected", "slow"],
                             [[c.measure, c.name, c.kind, c.game or "-", c.expected, "slow" if c.slow else ""]
                              for c in chosen]))
        return
    done = run(chosen, ctx, on_row=lambda r: typer.echo(
        f"{'pass' if r.outcome.passed else 'FAIL'}  {r.case.measure} / {r.case.name} ({r.seconds:.1f} s)", err=True))
    typer.echo(fit_table(f"known answers (seed {seed}{'' if scale == 1 else f', scale {scale:g}'})",
                         ["measure", "case", "kind", "expected", "measured", "result"],
                         [[r.case.measure, r.case.name + (f" ({r.case.game})" if r.case.game else ""), r.case.kind,
                           r.case.expected, r.outcome.measured, "pass" if r.outcome.passed else "FAIL"]
                          for r in done]))
    failed = [r for r in done if not r.outcome.passed]
    typer.echo(f"{len(done) - len(failed)} passed, {len(failed)} failed")
    if json_ is not None:
        json_.write_text(json.dumps({"seed": seed, "scale": scale, "cases": [r.as_dict() for r in done]}, indent=1)
                         + "\n")
    if failed:
        raise typer.Exit(1)


COMMANDS = {"validate": validate}
