"""The ``playtest`` command line. Commands stay thin: they validate, then call the module that does the work.

``play``, ``run`` and ``bench`` live here; the other areas keep their commands beside their code and
are registered at the bottom (``cluster/commands.py``: sweep, status; ``queries/commands.py``: query,
sql; ``sim/regress/commands.py``: regress).
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import time
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from sim.params import RuleError, parse_assignments

app = typer.Typer(help="playtest: simulate tabletop games by the million and ask balance questions.",
                  no_args_is_help=True, add_completion=False)
err = Console(stderr=True)


def fail(message: str, code: int = 2) -> None:
    """A user error: one clear line on stderr and exit code 2, never a traceback."""
    err.print(f"[bold red]error:[/] {message}", highlight=False)
    raise typer.Exit(code=code)


GameArg = Annotated[str, typer.Argument(help="the game: paws or tales")]
RulesOpt = Annotated[Optional[str], typer.Option("--rules", help="rule set preset (paws: v3, v3-ap3, v4; tales: "
                                                                  "standard, 2v2, survive, survive-2v2, picked by "
                                                                  "--mode; default: the game's newest / the mode's)")]
BoardOpt = Annotated[Optional[str], typer.Option(help="paws board: beginner (default) or explorer")]
ModeOpt = Annotated[Optional[str], typer.Option(help="mode (paws: ffa, teams; tales: standard, 2v2, survive, "
                                                     "survive-2v2)")]
PlayersOpt = Annotated[Optional[int], typer.Option(help="paws players: 2, 3 or 4 (default 4)")]
PeopleOpt = Annotated[Optional[str], typer.Option(help="tales: team 0's people (animalis or schatten; the other "
                                                       "team plays the other), or one per seat, comma separated")]
BotsOpt = Annotated[Optional[str], typer.Option(help="bot per seat, comma separated (random, heuristic, "
                                                     "heuristic:aggression=3); one name = every seat")]
SetOpt = Annotated[Optional[list[str]], typer.Option("--set", help="rule override name=value (repeatable)")]
EngineOpt = Annotated[str, typer.Option(help="engine: core (Cython, default) or reference (pure Python)")]
ItemsOpt = Annotated[Optional[Path], typer.Option(help="paws item deck TOML (default: the packaged stand-ins)")]
MonstersOpt = Annotated[Optional[Path], typer.Option(help="paws monster deck TOML (default: the packaged "
                                                          "stand-ins)")]
DataOpt = Annotated[Optional[list[str]], typer.Option("--data", help="a card data file name=PATH (repeatable; "
                                                                     "paws: items, monsters; tales: see docs)")]


def resolve_match(game: str, rules: Optional[str], board: Optional[str], mode: Optional[str],
                  players: Optional[int], bots: Optional[str], overrides: Optional[list[str]],
                  items: Optional[Path] = None, monsters: Optional[Path] = None,
                  data: Optional[list[str]] = None, engine: str = "core", tables: tuple[str, ...] = ("games",),
                  people: Optional[str] = None):
    """Validate everything before any game is played and return the game's Match."""
    from sim.games import check_engine, get
    given = (("board", board), ("mode", mode), ("players", players), ("bots", bots),
             ("people", people.split(",") if people and "," in people else people))
    setup = {k: v for k, v in given if v is not None}
    try:
        check_engine(engine)
        files = parse_assignments(data or [], where="--data")
        for key in files:
            if key not in get(game).data_keys:
                raise RuleError(f"--data: unknown {game} data file {key!r}; valid: {', '.join(get(game).data_keys)}")
        if items is not None:
            files["items"] = str(items)
        if monsters is not None:
            files["monsters"] = str(monsters)
        return get(game).resolve(rules, parse_assignments(overrides or [], where="--set"), setup, files,
                                 tables=tables, where="--set")
    except (RuleError, ValueError) as e:  # card-data errors are ValueErrors naming file, card and field
        fail(str(e))


@app.command()
def play(game: GameArg, rules: RulesOpt = None, board: BoardOpt = None, mode: ModeOpt = None,
         players: PlayersOpt = None, bots: BotsOpt = None, people: PeopleOpt = None,
         seed: Annotated[int, typer.Option(help="master seed")] = 0,
         game_index: Annotated[int, typer.Option(help="which game of the batch")] = 0,
         set_: SetOpt = None, engine: EngineOpt = "core",
         as_json: Annotated[bool, typer.Option("--json", help="print the game record as JSON")] = False,
         items: ItemsOpt = None, monsters: MonstersOpt = None, data: DataOpt = None) -> None:
    """Play one game and print its turn-by-turn log (or its record with --json)."""
    m = resolve_match(game, rules, board, mode, players, bots, set_, items, monsters, data, engine, people=people)
    log: list[str] | None = None if as_json else []
    rec = m.play_one(seed, game_index, log)
    if engine == "core":  # the core keeps no log: the reference engine narrates the same game
        core = engine_call(lambda: m.play_batch(seed, game_index, 1, "core"))["games"].to_pylist()[0]
        if core != rec:
            err.print("[bold yellow]warning:[/] the core and the reference engine disagree on this game; "
                      "the log is the reference engine's, the record the core's")
        rec = core
    if as_json:
        typer.echo(json.dumps(rec))
        return
    for line in log:
        typer.echo(line)
    winner = ", ".join(f"{k.replace('_', ' ')} {rec[k]}"
                       for k in ("winner_seat", "winner_side", "winner_team") if k in rec)
    typer.echo(f"result: {rec['end_reason']}, {winner}, {rec['rounds']} rounds, {rec['turns']} turns"
               + (f", VP {rec['vp']}" if "vp" in rec else ""))


def engine_call(fn):
    """Run an engine call; an engine that cannot play this configuration is a clear error, not a traceback."""
    from sim.games import EngineError
    try:
        return fn()
    except (EngineError, RuleError) as e:
        fail(str(e))


def progress_bar(total: int) -> tuple[Progress, callable]:
    """A rich bar with games done, games/s and ETA; returns (bar, advance(n))."""
    bar = Progress(TextColumn("[bold]games"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[rate]}"),
                   TimeRemainingColumn(), console=err)
    task = bar.add_task("games", total=total, rate="")
    t0 = time.perf_counter()

    def advance(n: int) -> None:
        done = bar.tasks[0].completed + n
        bar.update(task, advance=n, rate=f"{done / max(time.perf_counter() - t0, 1e-9):,.0f} games/s")
    return bar, advance


@app.command()
def run(game: GameArg, out: Annotated[Path, typer.Option(help="Parquet file to write")],
        rules: RulesOpt = None, board: BoardOpt = None, mode: ModeOpt = None, players: PlayersOpt = None,
        bots: BotsOpt = None, people: PeopleOpt = None,
        games: Annotated[int, typer.Option(help="number of games")] = 1000,
        seed: Annotated[int, typer.Option(help="master seed")] = 0,
        start: Annotated[int, typer.Option(help="first game index")] = 0,
        set_: SetOpt = None, engine: EngineOpt = "core",
        items: ItemsOpt = None, monsters: MonstersOpt = None, data: DataOpt = None,
        chunk: Annotated[Optional[int], typer.Option(help="games per chunk in memory (default: the engine's)")]
        = None,
        cards_out: Annotated[Optional[Path], typer.Option(help="tales: also write the per-card table "
                                                                "(card, side, games, survived, kills) here")]
        = None) -> None:
    """Play a local batch of games and write one Parquet file (two with --cards-out), with a progress bar."""
    from sim.output import write_parquet_tables
    if games < 1:
        fail("--games must be at least 1")
    if chunk is not None and chunk < 1:
        fail("--chunk must be at least 1")
    tables = ("games", "cards") if cards_out else ("games",)
    m = resolve_match(game, rules, board, mode, players, bots, set_, items, monsters, data, engine, tables, people)
    meta = {"playtest.rules_digest": m.rules_digest, "playtest.cards_digest": m.data_digest,
            "playtest.seed": str(seed), "playtest.engine": engine, "playtest.game": m.game}
    paths = {"games": out, "cards": cards_out}
    t0 = time.perf_counter()
    bar, advance = progress_bar(games)
    with bar:
        rows = engine_call(lambda: write_parquet_tables(
            m.iter_batches(seed, start, games, engine, chunk), {t: paths[t] for t in tables}, m.schemas,
            metadata=meta, on_chunk=advance))
    wall = time.perf_counter() - t0
    err.print(f"{rows:,} games in {wall:.1f} s ({rows / wall:,.0f} games/s) -> {out}"
              + (f" and {cards_out}" if cards_out else ""))


@app.command()
def bench(out: Annotated[Path, typer.Option(help="where to write the results (.json; a .md table is written "
                                                 "beside it)")] = Path("bench/bench.json"),
          games: Annotated[int, typer.Option(help="core games per preset")] = 20000,
          reference_games: Annotated[int, typer.Option(help="reference-engine games per preset (same seeds)")] = 300,
          seed: Annotated[int, typer.Option(help="master seed")] = 1,
          game: Annotated[Optional[str], typer.Option(help="only this game's presets (default: all games)")] = None,
          profile: Annotated[bool, typer.Option(help="also measure where the core spends its time")] = True) -> None:
    """Benchmark (not a test): games/s per core of both engines on fixed presets, same seeds, and the ratio."""
    from sim.bench import run_bench
    if games < 1 or reference_games < 1:
        fail("--games and --reference-games must be at least 1")
    try:
        run_bench(out=out, games=games, reference_games=reference_games, seed=seed, game=game, profile=profile,
                  console=err)
    except RuleError as e:
        fail(str(e))


def _register(module: str) -> None:
    """Add the typer commands that ``module`` (an area's own CLI file) lists in ``COMMANDS``, if it exists."""
    try:
        if importlib.util.find_spec(module) is None:
            return
    except ModuleNotFoundError:  # its package is not there yet
        return
    mod = importlib.import_module(module)
    for name in mod.COMMANDS:
        app.command(name=name.replace("_", "-"))(getattr(mod, name))

_register("cluster.commands")       # sweep, status
_register("queries.commands")       # query, sql
_register("sim.regress.commands")   # regress


def main() -> None:
    app()
