"""``playtest tune-bot``: tune a game's heuristic bot by self-play on Ray (docs/bot-tuning.md)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated, Optional

import typer

from cli.common import MAX_SEED, MAX_WORKERS, check_output_file, check_range, err, fail, game_named, plain
from cluster.train import TuneRun, seatings, tune_heuristic, write_preset
from sim.params import RuleError


def _points(x: float) -> str:
    return f"{100 * x:+.1f}"


def tune_bot(game: Annotated[str, typer.Argument(help="the game whose heuristic bot to tune")],
             trials: Annotated[int, typer.Option(help="weight sets to try (the default weights are the first)")] = 96,
             games: Annotated[int, typer.Option(help="games per seat of each line-up for one trial "
                                                     "(validation and the gain play four times as many)")] = 1000,
             seed: Annotated[int, typer.Option(help="master seed of the search (validation: +1, gain: +2)")] = 1,
             field: Annotated[str, typer.Option(help="the bot in every other seat (a bot spec)")] = "heuristic",
             preset: Annotated[Optional[str], typer.Option(
                 "--write-preset", help="save the tuned weights as this named preset of the game "
                                        "(heuristic:preset=NAME), in the game's presets.toml")] = None,
             out: Annotated[Optional[Path], typer.Option(help="write the whole result as JSON here")] = None,
             workers: Annotated[Optional[int], typer.Option(help="Ray workers (default: every core)")] = None,
             address: Annotated[Optional[str], typer.Option(help="Ray cluster address to run on")] = None,
             quiet: Annotated[bool, typer.Option("--quiet", help="no progress lines")] = False) -> None:
    """Tune the heuristic bot's weights by self-play against a field of bots, and say how much stronger
    the tuned bot is, with a 95% interval, on games it was not chosen on."""
    g = game_named(game)
    check_range("--trials", trials, 1, 10_000)
    check_range("--games", games, 1, 1_000_000)
    check_range("--seed", seed, 0, MAX_SEED)
    if workers is not None:
        check_range("--workers", workers, 1, MAX_WORKERS)
    if preset is not None and not re.fullmatch(r"[a-z][a-z0-9_-]{0,31}", preset) or preset == "default":
        fail(f"--write-preset {preset!r} is not allowed; expected a name of lower-case letters, digits, - or _ "
             "(up to 32, starting with a letter), not 'default'")
    if out is not None:
        check_output_file("--out", out)
    try:
        seatings(g, "heuristic", field)
    except (RuleError, ValueError) as e:
        fail(f"--field {field!r}: {e}")
    if preset is not None and g.bot_presets_path is None:
        fail(f"--write-preset: {g.name} keeps no weight presets")

    def progress(done: int, total: int, best: float) -> None:
        if not quiet:
            err.print(f"trial {done}/{total}: best edge so far {_points(best)} points over the fair share "
                      "(search games)", highlight=False)

    try:
        r = tune_heuristic(TuneRun(g.name, trials=trials, games=games, seed=seed, field=field, workers=workers,
                                   address=address, progress=progress))
    except (ConnectionError, RuleError, ValueError) as e:
        fail(str(e))
    rows = [(x.label, f"{x.games:,}", _points(x.default), _points(x.tuned),
             f"{_points(x.diff)} ({_points(x.low)} to {_points(x.high)})") for x in r.gain]
    from rich.table import Table
    t = Table(title=f"{g.title}: the tuned heuristic against {field} in every other seat")
    for c in ("line-up", "games", "default edge", "tuned edge", "gain, points (95% interval)"):
        t.add_column(c)
    for row in rows:
        t.add_row(*map(plain, row))
    from rich.console import Console
    Console().print(t)
    overall = r.gain[-1]
    verdict = ("a real gain" if overall.low > 0 else "a real loss" if overall.high < 0
               else "no difference that these games can show")
    print(f"tuned: {r.best_spec}")
    print(f"Edge = win share minus the fair share, in percentage points, of the bot in one seat against "
          f"{field} in the others, each seat in turn. The tuned bot scores {_points(overall.diff)} points "
          f"more than the default heuristic ({_points(overall.low)} to {_points(overall.high)}, 95%): "
          f"{verdict}. Measured on {overall.games:,} fresh deals (seed {seed} + 2), each played once by each bot, "
          f"not on the {r.games_played - 2 * overall.games:,} games that chose it. Bots, not people.")
    if out is not None:
        out.write_text(json.dumps(r.to_json(), indent=2) + "\n")
    if preset is not None:
        about = (f"playtest tune-bot {g.name} --trials {trials} --games {games} --seed {seed} --field {field}: "
                 f"{_points(overall.diff)} points ({_points(overall.low)} to {_points(overall.high)}, 95%) "
                 "over the default weights, on games not used to choose them")
        try:
            write_preset(Path(g.bot_presets_path), preset, r.best_weights, about)
        except ValueError as e:             # the preset file is not one (bounded read: sim.files)
            fail(str(e))
        err.print(f"preset written: heuristic:preset={preset} in {plain(g.bot_presets_path)}", highlight=False)


COMMANDS = {"tune-bot": tune_bot}
