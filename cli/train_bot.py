"""``playtest train-bot``: train a game's learned bot by expert iteration on Ray (docs/learned-bots.md)."""

from __future__ import annotations

import dataclasses
import re
import shlex
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

try:                                # typer >= 0.20 carries its own click
    from typer._click.core import ParameterSource
except ImportError:                 # pragma: no cover - older typer uses click itself
    from click.core import ParameterSource

from cli.common import MAX_WORKERS, check_output_file, check_range, err, fail, game_named, plain
from cluster.strength import TRAINING_SPACE as TRAINING_SEEDS
from cluster.train_bot import TrainRun, TrainSpec, check_spec, train
from cluster.train_decisions import DecisionsRun, DecisionsSpec, decision_kinds, start_of, train_decisions
from cluster.version import code_version
from sim.games import EngineError
from sim.params import RuleError


# the options of expert iteration alone, refused beside --decisions (which trains by policy improvement only)
EXPERT_ITERATION_ONLY = ("iterations", "games", "search", "batch", "network", "configurations")


def train_bot(ctx: typer.Context,
              game: Annotated[str, typer.Argument(help="the game whose learned bot to train")],
              name: Annotated[Optional[str], typer.Option(
                  help="the model's name (learned:model=NAME; default GAME-learned)")] = None,
              out: Annotated[Optional[Path], typer.Option(
                  help="the model file to write (default NAME.json here)")] = None,
              ship: Annotated[bool, typer.Option(
                  "--ship", help="write it among the game's shipped models instead (learned:model=NAME)")] = False,
              iterations: Annotated[int, typer.Option(help="expert iterations (self-play, fit, ladder)")] = 3,
              games: Annotated[int, typer.Option(help="self-play games per iteration (split over the "
                                                      "game's skill line-ups)")] = 200,
              search: Annotated[str, typer.Option(help="the search that labels the positions (an mcts "
                                                       "spec; later iterations add the last model)")]
              = "mcts:iterations=64:depth=20",
              eval_games: Annotated[int, typer.Option(help="ladder games per seat of each line-up against "
                                                           "the heuristic, each iteration")] = 200,
              batch: Annotated[int, typer.Option(help="self-play games per Ray task")] = 25,
              improve: Annotated[int, typer.Option(help="policy improvement generations after the last "
                                                        "iteration (an evolution strategy against the "
                                                        "heuristic; 0: none)")] = 30,
              population: Annotated[int, typer.Option(help="policy improvement: weight vectors tried per "
                                                           "generation (pairs either side of the mean)")] = 24,
              improve_games: Annotated[int, typer.Option(help="policy improvement: games per seat of each "
                                                              "line-up per weight vector")] = 100,
              improve_spread: Annotated[float, typer.Option(help="policy improvement: the spread (standard "
                                                                 "deviation) of the weights tried around the "
                                                                 "mean, at first")] = 0.25,
              network: Annotated[int, typer.Option(help="a network model of this many hidden units (0: a linear "
                                                       "model; docs/learned-bots.md \"Network models\")")] = 0,
              start: Annotated[Optional[str], typer.Option(
                  help="a model (shipped name or file) the first iteration's search is guided by and the fit "
                       "starts from (default: none, the first search unguided)")] = None,
              configurations: Annotated[str, typer.Option(
                  help="the self-play's configurations: skill (the game's skill line-ups) or all (every "
                       "configuration: Paws v3 and v4, both boards, 2, 3, 4 players and Teams; Tales every mode)")]
              = "skill",
              decisions: Annotated[Optional[str], typer.Option(
                  help="train only the --start model's decisions block, its seat's other decisions (all, or some "
                       "of the game's kinds: Paws combat_card, defender, keep_monster, take_card, discard; Tales "
                       "potion, champion), by --improve generations of policy improvement from the "
                       "heuristic-equivalent weights; no expert iteration")] = None,
              seed: Annotated[int, typer.Option(help="master seed (self-play: + iteration; ladder: + 1000)")] = 1,
              work: Annotated[Optional[Path], typer.Option(
                  help="the run's work folder: samples and each iteration's model, to resume a stopped run "
                       "(default OUT.work)")] = None,
              workers: Annotated[Optional[int], typer.Option(help="Ray workers (default: every core)")] = None,
              address: Annotated[Optional[str], typer.Option(help="Ray cluster address to run on")] = None,
              quiet: Annotated[bool, typer.Option("--quiet", help="no progress lines")] = False) -> None:
    """Train the learned bot: self-play with a search bot, fit a fast policy to what the search decided and a
    value head to who won, guide the search with the model, repeat; a ladder against the heuristic after
    each iteration. The same options and seed give the same model bytes."""
    g = game_named(game)
    check_range("--iterations", iterations, 1, 100)
    check_range("--games", games, 1, 10_000_000)
    check_range("--eval-games", eval_games, 2, 10_000_000)
    check_range("--batch", batch, 1, 100_000)
    check_range("--improve", improve, 0, 1000)
    check_range("--population", population, 4, 1000)
    check_range("--improve-games", improve_games, 2, 10_000_000)
    check_range("--network", network, 0, 128)
    if not (0.001 <= improve_spread <= 100.0):
        fail(f"--improve-spread {improve_spread!r} is not allowed; expected a number from 0.001 to 100")
    # training seeds stay below 2^63: the seeds at or above are kept for measuring models on games they never saw
    check_range("--seed", seed, 0, TRAINING_SEEDS - 1)
    if workers is not None:
        check_range("--workers", workers, 1, MAX_WORKERS)
    name, out, work = _outputs(g, name, ship, out, work)
    if decisions is not None:
        given = [f"--{p.replace('_', '-')}" for p in EXPERT_ITERATION_ONLY
                 if ctx.get_parameter_source(p) not in (None, ParameterSource.DEFAULT)]
        if given:
            fail(f"--decisions trains the --start model's decisions block alone: leave out {', '.join(given)} "
                 "(expert iteration's options)")
        return _train_decisions(g, decisions, DecisionsSpec(
            g.name, name, start or "", (), seed, improve, population, improve_games, improve_spread, eval_games),
            DecisionsRun(None, out, work, workers, address, code_version()), quiet, ship)
    spec = TrainSpec(game=g.name, name=name, search=search, iterations=iterations, games=games, batch=batch,
                     eval_games=eval_games, seed=seed, improve=improve, population=population,
                     improve_games=improve_games, improve_sigma=improve_spread, network=network,
                     start=start or "", configurations=configurations)
    run = TrainRun(spec, out, work, workers=workers, address=address, code_version=code_version(),
                   progress=None if quiet else lambda text: err.print(text, highlight=False, markup=False))
    try:
        check_spec(spec)
        model = train(run)
    except (RuleError, EngineError, ValueError) as e:
        fail(str(e))
    except KeyboardInterrupt:           # Ctrl-C: said whatever --quiet says, with how to go on (the work folder)
        again = shlex.join(["playtest", *sys.argv[1:]]) if sys.argv[1:2] == ["train-bot"] else "the same command"
        fail(f"train-bot: stopped (Ctrl-C); the finished iterations are kept in {work}: run {again} again to resume "
             "from them", code=130)
    _report(g, model, run, ship)


def _outputs(g, name: Optional[str], ship: bool, out: Optional[Path], work: Optional[Path]) -> tuple[str, Path, Path]:
    """The model's name, its file (among the shipped models with --ship) and the run's work folder, checked."""
    name = name or f"{g.name}-learned"
    if not re.fullmatch(r"[a-z][a-z0-9_.-]{0,63}", name):
        fail(f"--name {name!r} is not allowed; expected lower-case letters, digits, '.', '-' or '_' (up to 64, "
             "starting with a letter)")
    if ship and out is not None:
        fail("--ship writes among the game's shipped models; leave out --out")
    if ship:
        models = getattr(g, "models_dir", None)
        if models is None:
            fail(f"--ship: {g.name} ships no models")
        out = Path(models) / f"{name}.json"
    out = out or Path(f"{name}.json")
    check_output_file("--out", out)
    return name, out, work or out.with_name(out.name + ".work")


def _train_decisions(g, kinds: str, spec: DecisionsSpec, run: DecisionsRun, quiet: bool, ship: bool) -> None:
    """``--decisions KINDS``: the start model with a trained decisions block (cluster/train_decisions.py)."""
    try:
        spec = dataclasses.replace(spec, kinds=decision_kinds(g, kinds))
        start_of(spec)
        run = dataclasses.replace(run, spec=spec, progress=None if quiet else
                                  lambda text: err.print(text, highlight=False, markup=False))
        model = train_decisions(run)
    except (RuleError, EngineError, ValueError) as e:
        fail(str(e))
    except KeyboardInterrupt:
        fail(f"train-bot: stopped (Ctrl-C); the finished generations are kept in {run.work}: run the same command "
             "again to resume from them", code=130)
    rung = model.provenance["decisions_training"]["ladder"]
    err.print(f"model written: {plain(run.out)}; play it with --bots learned:model="
              f"{model.name if ship else plain(run.out)}", highlight=False)
    typer.echo(f"{model.name}@{model.digest}: {spec.start} with a decisions block ({', '.join(spec.kinds)}) after "
               f"{spec.improve} generations; against the heuristic it scores {100 * rung['edge']:+.1f} points over the "
               f"fair share ({100 * rung['edge_95'][0]:+.1f} to {100 * rung['edge_95'][1]:+.1f}, 95%; "
               f"{rung['games']:,} games on seed {rung['seed']}, which no generation played, each seat in turn). "
               f"Measure it against {spec.start} on held-out seeds, paired. Bots, not people.")


def _report(g, model, run: TrainRun, ship: bool) -> None:
    """Where the model went, and its strength against the heuristic and its value head's calibration."""
    out = run.out
    last = model.provenance["iterations"][-1]
    rung = model.provenance.get("improvement", last)["ladder"]
    iterations = f"{len(model.provenance['iterations'])} iterations"
    improved = "improvement" in model.provenance
    stage = f"{iterations} and {run.spec.improve} generations of policy improvement" if improved else iterations
    err.print(f"model written: {plain(out)}; play it with --bots learned:model="
              f"{model.name if ship else plain(out)}", highlight=False)
    # the value head on games it was not fitted on (the last iteration's, by the previous iteration's head) when
    # there are two iterations or more; otherwise in sample, and said so
    held = last.get("previous_value_calibration_on_fresh_games")
    cal, where = ((held, "the previous iteration's head on the last iteration's games, held out") if held else
                  (last["value_calibration_on_this_iterations_games"], "in sample: one iteration, nothing held out"))
    seed_note = f" on seed {rung['seed']}, which no self-play or improvement played" if "seed" in rung else ""
    typer.echo(f"{model.name}@{model.digest}: after {stage}, the learned bot against the heuristic scores "
               f"{100 * rung['edge']:+.1f} points over the fair share ({100 * rung['edge_95'][0]:+.1f} to "
               f"{100 * rung['edge_95'][1]:+.1f}, 95%; {rung['games']:,} games{seed_note}, each seat in turn); value "
               f"head Brier {cal.get('brier')}, calibration error {cal.get('ece')} ({where}). Measure it on held-out "
               f"seeds: playtest bench --game {g.name} --bots learned:model={model.name if ship else plain(out)} "
               "--strength. Bots, not people.")

COMMANDS = {"train-bot": train_bot}
