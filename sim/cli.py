"""The ``playtest`` command line: play, run (and later sweep, query, regress, bench)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from sim.params import RuleError, digest, parse_assignments

app = typer.Typer(help="playtest: simulate tabletop games by the million and ask balance questions.",
                  no_args_is_help=True, add_completion=False)
err = Console(stderr=True)

GAMES = ("paws",)


def fail(message: str) -> None:
    err.print(f"[bold red]error:[/] {message}", highlight=False)
    raise typer.Exit(code=2)


GameArg = Annotated[str, typer.Argument(help="the game: paws")]
RulesOpt = Annotated[str, typer.Option("--rules", help="rule set preset: v3, v3-ap3, v4")]
BoardOpt = Annotated[str, typer.Option(help="board: beginner or explorer")]
ModeOpt = Annotated[str, typer.Option(help="mode: ffa or teams")]
PlayersOpt = Annotated[int, typer.Option(help="players: 2, 3 or 4")]
BotsOpt = Annotated[Optional[str], typer.Option(help="bot per seat, comma separated (random, heuristic, "
                                                     "heuristic:aggression=3); one name = every seat")]
SetOpt = Annotated[Optional[list[str]], typer.Option("--set", help="rule override name=value (repeatable)")]
EngineOpt = Annotated[str, typer.Option(help="engine: core (Cython, default) or reference (pure Python)")]
ItemsOpt = Annotated[Optional[Path], typer.Option(help="item deck TOML (default: the packaged stand-ins)")]
MonstersOpt = Annotated[Optional[Path], typer.Option(help="monster deck TOML (default: the packaged stand-ins)")]


def resolve(game: str, rules: str, board: str, mode: str, players: int, bots: Optional[str],
            overrides: Optional[list[str]], items: Optional[Path], monsters: Optional[Path]):
    """Validate everything before any game is played: (setup, rules, cards)."""
    from sim.paws.bots import make_bots
    from sim.paws.cards import CardDataError, load_cards
    from sim.paws.rules import PawsSetup, preset
    if game not in GAMES:
        fail(f"unknown game {game!r}; expected one of {', '.join(GAMES)}")
    try:
        specs = tuple(s.strip() for s in (bots or "heuristic").split(","))
        if len(specs) == 1:
            specs = specs * players
        setup = PawsSetup(board=board, mode=mode, players=players, bots=specs)
        make_bots(specs)
        r = preset(rules, parse_assignments(overrides or []), where="--set")
        cards = load_cards(items, monsters)
    except (RuleError, CardDataError) as e:
        fail(str(e))
    return setup, r, cards


@app.command()
def play(game: GameArg, rules: RulesOpt = "v4", board: BoardOpt = "beginner", mode: ModeOpt = "ffa",
         players: PlayersOpt = 4, bots: BotsOpt = None, seed: Annotated[int, typer.Option(help="master seed")] = 0,
         game_index: Annotated[int, typer.Option(help="which game of the batch")] = 0,
         set_: SetOpt = None, engine: EngineOpt = "core",
         as_json: Annotated[bool, typer.Option("--json", help="print the game record as JSON")] = False,
         items: ItemsOpt = None, monsters: MonstersOpt = None) -> None:
    """Play one game and print its turn-by-turn log (or its record with --json)."""
    from sim.batch import check_engine
    from sim.paws.game import play_game
    setup, r, cards = resolve(game, rules, board, mode, players, bots, set_, items, monsters)
    try:
        check_engine(engine)
    except ValueError as e:
        fail(str(e))
    log: list[str] | None = None if as_json else []
    rec = play_game(setup, r, seed, game_index, cards, log=log)
    if engine == "core":  # the core keeps no log: the reference engine narrates the same game
        from sim.batch import play_batch
        core = play_batch(setup, r, seed, game_index, 1, "core", cards).to_pylist()[0]
        if core != rec:
            err.print("[bold yellow]warning:[/] the core and the reference engine disagree on this game; "
                      "the log is the reference engine's, the record the core's")
        rec = core
    if as_json:
        typer.echo(json.dumps(rec))
        return
    for line in log:
        typer.echo(line)
    typer.echo(f"result: {rec['end_reason']}, winner seat {rec['winner_seat']}, team {rec['winner_team']}, "
               f"{rec['rounds']} rounds, {rec['turns']} turns, VP {rec['vp']}")


@app.command()
def run(game: GameArg, out: Annotated[Path, typer.Option(help="Parquet file to write")],
        rules: RulesOpt = "v4", board: BoardOpt = "beginner", mode: ModeOpt = "ffa", players: PlayersOpt = 4,
        bots: BotsOpt = None, games: Annotated[int, typer.Option(help="number of games")] = 1000,
        seed: Annotated[int, typer.Option(help="master seed")] = 0,
        start: Annotated[int, typer.Option(help="first game index")] = 0,
        set_: SetOpt = None, engine: EngineOpt = "core",
        items: ItemsOpt = None, monsters: MonstersOpt = None) -> None:
    """Play a local batch of games and write one Parquet file, with a progress bar."""
    from sim.batch import check_engine, iter_batches
    from sim.output import write_parquet
    from sim.paws.record import SCHEMA
    setup, r, cards = resolve(game, rules, board, mode, players, bots, set_, items, monsters)
    try:
        check_engine(engine)
    except ValueError as e:
        fail(str(e))
    if games < 1:
        fail("--games must be at least 1")
    meta = {"playtest.rules_digest": digest(r), "playtest.cards_digest": cards.digest,
            "playtest.seed": str(seed), "playtest.engine": engine}
    t0 = time.perf_counter()
    with Progress(TextColumn("[bold]games"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[rate]}"),
                  TimeRemainingColumn(), console=err) as bar:
        task = bar.add_task("games", total=games, rate="")

        def advance(n: int) -> None:
            done = bar.tasks[0].completed + n
            bar.update(task, advance=n, rate=f"{done / (time.perf_counter() - t0):,.0f} games/s")

        rows = write_parquet(iter_batches(setup, r, seed, start, games, engine, cards), out, SCHEMA,
                             metadata=meta, on_chunk=advance)
    wall = time.perf_counter() - t0
    err.print(f"{rows:,} games in {wall:.1f} s ({rows / wall:,.0f} games/s) -> {out}")


@app.command()
def query(sql: Annotated[Path, typer.Argument(help="a .sql file; the results are the view 'games'")],
          data: Annotated[str, typer.Option(help="Parquet file, folder or glob of game records")]) -> None:
    """Answer a question: run a DuckDB SQL file over game records and print the result table."""
    import duckdb
    from rich.table import Table
    if not sql.is_file():
        fail(f"{sql}: no such SQL file")
    path = Path(data)
    pattern = str(path / "**" / "*.parquet") if path.is_dir() else data
    con = duckdb.connect()
    try:
        con.execute(f"CREATE VIEW games AS SELECT * FROM read_parquet('{pattern.replace(chr(39), chr(39) * 2)}')")
        res = con.execute(sql.read_text())
    except duckdb.Error as e:
        fail(f"{sql} over {data}: {e}")
    table = Table(title=sql.stem)
    for name in [d[0] for d in res.description]:
        table.add_column(name, justify="right")
    for row in res.fetchall():
        table.add_row(*[str(v) for v in row])
    Console().print(table)


@app.command()
def bench(out: Annotated[Path, typer.Option(help="where to write the results (.json; a .md table is written beside it)")]
          = Path("bench/paws.json"),
          games: Annotated[int, typer.Option(help="core games per preset")] = 20000,
          reference_games: Annotated[int, typer.Option(help="reference-engine games per preset (same seeds)")] = 300,
          seed: Annotated[int, typer.Option(help="master seed")] = 1,
          profile: Annotated[bool, typer.Option(help="also measure where the core spends its time")] = True) -> None:
    """Benchmark (not a test): games/s per core of both engines on fixed presets, same seeds, and the ratio."""
    from sim.bench import run_bench
    run_bench(out=out, games=games, reference_games=reference_games, seed=seed, profile=profile, console=err)


def main() -> None:
    app()
