"""The ``playtest`` command line. Commands stay thin: they validate, then call the module that does the work.

``play``, ``run`` and ``bench`` live here; the other areas keep their commands beside their code and
are registered at the bottom (``cluster/commands.py``: sweep, status; ``queries/commands.py``: query,
sql; ``sim/regress/commands.py``: regress).
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import sys
import time
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from typer.core import TyperGroup

try:                                # typer >= 0.20 carries its own click
    from typer._click import exceptions as clickx
except ImportError:                 # pragma: no cover - older typer uses click itself
    from click import exceptions as clickx

from sim.params import RuleError, parse_assignments

MAX_SEED = 2**64 - 1                   # master seeds are unsigned 64-bit (core/rng.pxd)
MAX_GAME_INDEX = 2**63 - 1             # game indices are signed 64-bit in the cores
MAX_GAMES = 10**12                     # games in one local run
BUG_EXIT = 3                           # an unexpected error (a bug): not 1, which regress uses for "regression"

err = Console(stderr=True)


def plain(text: Any) -> str:
    """User text (paths, names, filters, messages quoting them) made safe for Rich: shown as written."""
    return escape(str(text))


def one_line(text: Any) -> str:
    """A message as one line: its lines joined (a user error is one line on the terminal)."""
    return " ".join(part.strip() for part in str(text).splitlines() if part.strip())


def fail(message: str, code: int = 2) -> None:
    """A user error: one clear line on stderr and exit code 2, never a traceback.

    The message is printed as plain text (brackets in it are kept, never read as Rich markup) and never
    wrapped, so it stays one line however narrow the terminal."""
    err.print(f"[bold red]error:[/] {plain(one_line(message))}", highlight=False, soft_wrap=True)
    raise typer.Exit(code=code)


def warn(message: str) -> None:
    """A warning line on stderr, printed as plain text."""
    err.print(f"[bold yellow]warning:[/] {plain(one_line(message))}", highlight=False, soft_wrap=True)


def note(message: str) -> None:
    """A note line on stderr (how an answer was split or pooled), printed as plain text."""
    err.print(f"[bold]note:[/] {plain(one_line(message))}", highlight=False, soft_wrap=True)


class Playtest(TyperGroup):
    """The top-level command group: every error ends in one line and a non-zero exit, never a traceback.

    A bad flag or value (click's usage errors) is one line and exit 2; Ctrl-C outside a sweep is exit 130;
    an unexpected exception is a bug: one line naming it, a pointer to ``--debug`` (which shows the
    traceback), and exit 3."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        global DEBUG
        argv = list(sys.argv[1:] if args is None else args)
        DEBUG = DEBUG or "--debug" in argv[:1] or os.environ.get("PLAYTEST_DEBUG", "") not in ("", "0")
        try:
            rv = super().main(argv, prog_name, complete_var, standalone_mode=False, **extra)
        except clickx.NoArgsIsHelpError:   # the help is already printed (typer renders it when raising)
            rv = 0
        except clickx.UsageError as e:
            command = e.ctx.command_path if e.ctx else "playtest"
            _bail(f"{one_line(e.format_message())} ({command} --help lists what is allowed)", 2, standalone_mode)
            return 2
        except clickx.ClickException as e:
            _bail(one_line(e.format_message()), e.exit_code, standalone_mode)
            return e.exit_code
        except (typer.Abort, KeyboardInterrupt):
            err.print("interrupted", highlight=False)
            rv = 130
        except Exception as e:  # noqa: BLE001 - the last line of defence: a bug, said in one line
            if DEBUG:
                raise
            where = (f"{type(e).__name__}: {one_line(e)}" if str(e) else type(e).__name__)[:500]
            _bail(f"unexpected error (a bug in playtest, please report it): {where}; run again with "
                  "playtest --debug ... (or PLAYTEST_DEBUG=1) for the traceback", BUG_EXIT, standalone_mode)
            return BUG_EXIT
        if standalone_mode:
            sys.exit(rv if isinstance(rv, int) else 0)
        return rv


def _bail(message: str, code: int, standalone_mode: bool) -> None:
    err.print(f"[bold red]error:[/] {plain(message)}", highlight=False, soft_wrap=True)
    if standalone_mode:
        sys.exit(code)


DEBUG = False
app = typer.Typer(cls=Playtest, help="playtest: simulate tabletop games by the million and ask balance questions.",
                  no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)


@app.callback()
def _root(debug: Annotated[bool, typer.Option("--debug", help="show the traceback of an unexpected error "
                                                             "(also PLAYTEST_DEBUG=1)")] = False) -> None:
    """playtest: simulate tabletop games by the million and ask balance questions."""
    global DEBUG
    DEBUG = DEBUG or debug


def check_range(flag: str, value: int | None, low: int, high: int) -> None:
    """Refuse a numeric option outside ``low..high`` in one line naming the flag and the range."""
    if value is not None and not low <= value <= high:
        fail(f"{flag} {value} is out of range; expected an integer from {low} to {high}")


def check_output_file(flag: str, path: Path) -> None:
    """Refuse an output file path that cannot be written (a folder, a device, a folder we cannot write)."""
    from sim.files import unwritable
    problem = unwritable(path)
    if problem:
        fail(f"{flag} {path}: {problem}")


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
    check_range("--seed", seed, 0, MAX_SEED)
    check_range("--game-index", game_index, 0, MAX_GAME_INDEX)
    m = resolve_match(game, rules, board, mode, players, bots, set_, items, monsters, data, engine, people=people)
    log: list[str] | None = None if as_json else []
    rec = m.play_one(seed, game_index, log)
    if engine == "core":  # the core keeps no log: the reference engine narrates the same game
        core = engine_call(lambda: m.play_batch(seed, game_index, 1, "core"))["games"].to_pylist()[0]
        if core != rec:
            warn("the core and the reference engine disagree on this game; "
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
    check_range("--games", games, 1, MAX_GAMES)
    check_range("--seed", seed, 0, MAX_SEED)
    check_range("--start", start, 0, MAX_GAME_INDEX - games + 1)
    check_range("--chunk", chunk, 1, MAX_GAMES)
    check_output_file("--out", out)
    if cards_out is not None:
        check_output_file("--cards-out", cards_out)
        if cards_out.resolve() == out.resolve():
            fail(f"--cards-out {cards_out}: the same file as --out; give another name")
    tables = ("games", "cards") if cards_out else ("games",)
    m = resolve_match(game, rules, board, mode, players, bots, set_, items, monsters, data, engine, tables, people)
    meta = {"playtest.rules_digest": m.rules_digest, "playtest.cards_digest": m.data_digest,
            "playtest.seed": str(seed), "playtest.engine": engine, "playtest.game": m.game}
    paths = {"games": out, "cards": cards_out}
    t0 = time.perf_counter()
    bar, advance = progress_bar(games)
    try:
        with bar:
            rows = engine_call(lambda: write_parquet_tables(
                m.iter_batches(seed, start, games, engine, chunk), {t: paths[t] for t in tables}, m.schemas,
                metadata=meta, on_chunk=advance))
    except OSError as e:   # a full disk or a folder that went away: the temporary file is already removed
        fail(f"--out {out}: cannot write the results ({e.strerror or e}); nothing was written")
    wall = time.perf_counter() - t0
    err.print(f"{rows:,} games in {wall:.1f} s ({rows / wall:,.0f} games/s) -> {out}"
              + (f" and {cards_out}" if cards_out else ""), markup=False, highlight=False)


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
    check_range("--games", games, 1, MAX_GAMES)
    check_range("--reference-games", reference_games, 1, MAX_GAMES)
    check_range("--seed", seed, 0, MAX_SEED)
    check_output_file("--out", out)
    try:
        run_bench(out=out, games=games, reference_games=reference_games, seed=seed, game=game, profile=profile,
                  console=err)
    except RuleError as e:
        fail(str(e))


ListFormatOpt = Annotated[str, typer.Option("--format", help="table, csv, json or markdown")]
LIST_NOTE = ("Lists in the record (vp, bots, buildings, ...) hold one value per seat, seat 0 first, and SQL "
             "indexes them from 1: vp[1] is seat 0's VP, the winner's VP is vp[winner_seat + 1], and "
             "vp_trace[r][s + 1] is seat s's VP after round r.")


def _show(title: str, columns: list[str], rows: list[tuple], fmt: str) -> None:
    """A reference list: a left-aligned table whose names and values are never cut (text columns wrap),
    or csv/json/markdown like a query's answer."""
    import shutil

    from rich.table import Table

    from queries.commands import FORMATS, render
    if fmt not in FORMATS:
        fail(f"--format {fmt!r} is not available; expected one of {', '.join(FORMATS)}")
    if fmt != "table":
        typer.echo(render(title, columns, rows, fmt))
        return
    table = Table(title=plain(title), title_justify="left", show_lines=False)
    for i, c in enumerate(columns):
        last = i == len(columns) - 1
        table.add_column(plain(c), overflow="fold", no_wrap=not last, ratio=1 if last else None)
    for r in rows:
        table.add_row(*[plain("" if v is None else v) for v in r])
    width = shutil.get_terminal_size().columns if sys.stdout.isatty() else 160
    Console(width=max(width, 100), highlight=False, soft_wrap=False).print(table)


def _game(game: str):
    from sim.games import get
    try:
        return get(game)
    except RuleError as e:
        fail(str(e))


@app.command(name="rules")
def rules_(game: GameArg,
           preset: Annotated[Optional[str], typer.Option(help="also show this preset's value of each parameter")]
           = None, fmt: ListFormatOpt = "table") -> None:
    """List every rule parameter: default, a preset's value, allowed values, rulebook section and meaning."""
    from sim.params import allowed, fields
    g = _game(game)
    if preset is not None and preset not in g.rule_presets:
        fail(f"--preset {preset!r} is not a {game} preset; expected one of {', '.join(g.rule_presets)}")
    base = g.rule_presets[g.default_preset]
    columns = ["parameter", f"default ({g.default_preset})"] + ([preset] if preset else []) + \
        ["allowed", "section", "meaning"]
    rows = []
    for f in fields(base):
        row = [f.name, getattr(base, f.name)]
        if preset:
            row.append(getattr(g.rule_presets[preset], f.name))
        rows.append(tuple(row + [allowed(f), f.metadata["cite"], f.metadata["help"]]))
    _show(f"{g.title}: rule parameters (--set name=value, or a sweep's [overrides]/[grid])", columns, rows, fmt)


@app.command(name="bots")
def bots_(game: GameArg, fmt: ListFormatOpt = "table") -> None:
    """List the bot kinds and the heuristic bot's weights with their defaults and meaning."""
    from sim.bots import BOT_KINDS
    from sim.params import allowed, fields
    g = _game(game)
    rows = [("random", "", "", "", "picks uniformly among the legal options at every decision")]
    rows += [("heuristic", "", "", "", "scores every option by fixed weights (below); "
              "heuristic:NAME=VALUE:... changes them")]
    rows += [(f"heuristic:{f.name}", "weight", getattr(g.bot_weights(), f.name), allowed(f), f.metadata["help"])
             for f in fields(g.bot_weights)]
    assert {r[0] for r in rows[:len(BOT_KINDS)]} == set(BOT_KINDS)
    _show(f"{g.title}: bots (--bots, one spec per seat, comma separated)",
          ["bot", "kind", "default", "allowed", "meaning"], rows, fmt)


@app.command(name="columns")
def columns_(game: GameArg, table: Annotated[str, typer.Option(help="the result table")] = "games",
             fmt: ListFormatOpt = "table") -> None:
    """List the record's columns with their type and meaning (for SQL over results)."""
    from sim.params import fields
    g = _game(game)
    if table not in g.schemas:
        fail(f"--table {table!r} is not a {game} result table; expected one of {', '.join(g.schemas)}")
    from sim.record_schema import DATA_DOCS
    params = {f.name: f for f in fields(g.rule_presets[g.default_preset])}
    docs = {**(DATA_DOCS if table == "games" else {}), **g.column_docs.get(table, {})}
    rows = []
    for col in g.schemas[table]:
        if col.name in docs:
            meaning = docs[col.name]
        elif col.name in params:
            f = params[col.name]
            meaning = f"rule parameter: {f.metadata['help']}" + (f" ({f.metadata['cite']})" if f.metadata["cite"]
                                                                 else "")
        else:
            meaning = ""
        rows.append((col.name, str(col.type), meaning))
    _show(f"{g.title}: columns of the {table} table", ["column", "type", "meaning"], rows, fmt)
    if fmt == "table":
        typer.echo(LIST_NOTE)


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
_register("queries.compare_commands")  # compare


def main() -> None:
    app()
