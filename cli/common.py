"""What every ``playtest`` command shares: one-line errors and warnings on stderr, numeric ranges, output
file checks, and the tables answers are printed as (table, csv, json or markdown)."""

from __future__ import annotations

import csv
import io
import json
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Mapping, Optional

import typer
from rich.console import Console
from rich.markup import escape

from sim.files import unwritable
from sim import games
from sim.games import GAMES, Game
from sim.params import RuleError

MAX_SEED = 2**64 - 1                   # master seeds are unsigned 64-bit (core/rng.pxd)
MAX_GAME_INDEX = 2**63 - 1             # game indices are signed 64-bit in the cores
MAX_GAMES = 10**12                     # games in one local run
MAX_WORKERS = 4096                     # Ray workers one command asks for
BUG_EXIT = 3                           # an unexpected error (a bug): not 1, which regress uses for "regression"
FORMATS = ("table", "csv", "json", "markdown")

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


def check_range(flag: str, value: int | None, low: int, high: int) -> None:
    """Refuse a numeric option outside ``low..high`` in one line naming the flag and the range."""
    if value is not None and not low <= value <= high:
        fail(f"{flag} {value} is out of range; expected an integer from {low} to {high}")


def check_output_file(flag: str, path: Path) -> None:
    """Refuse an output file path that cannot be written (a folder, a device, a folder we cannot write)."""
    problem = unwritable(path)
    if problem:
        fail(f"{flag} {path}: {problem}")


def game_named(name: str) -> Game:
    """The registered game ``name``, or a one-line error listing the games."""
    try:
        return games.get(name)
    except RuleError as e:
        fail(str(e))


def per_game(describe) -> str:
    """Help text listing, per registered game, what ``describe(game)`` says (games it says nothing of are
    left out): ``game: ...; other game: ...``."""
    parts = [(name, describe(GAMES[name])) for name in GAMES.names()]
    return "; ".join(f"{name}: {text}" for name, text in parts if text)


# ---------------------------------------------------------------------------------------------------
# Option groups: the options that the commands which play games (play, run) and the measures (restrict,
# kingmaker, tension, card-worth) share, each declared once
# ---------------------------------------------------------------------------------------------------

def _setup_help(key: str) -> str:
    """What the games that have setup value ``key`` allow for it (help text from the registry)."""
    return per_game(lambda g: g.setup_keys.get(key, ""))


def _data_help(key: str) -> str:
    return per_game(lambda g: g.data_keys.get(key, ""))


GameArg = Annotated[str, typer.Argument(help=f"the game: {' or '.join(GAMES.names())}")]
RulesOpt = Annotated[Optional[str], typer.Option("--rules", help="rule set preset (" + per_game(
    lambda g: ", ".join(g.presets) + (f"; {g.preset_note}" if g.preset_note else "")) + ")")]
SetOpt = Annotated[Optional[list[str]], typer.Option("--set", help="rule override name=value (repeatable)")]
SetupOpt = Annotated[Optional[list[str]], typer.Option(
    "--setup", help="any setup value of the game as key=value (repeatable; the game's own words, e.g. "
                    "--setup players=3): " + "; ".join(f"{n}: {', '.join(GAMES[n].setup_keys)}"
                                                        for n in GAMES.names()))]
DataOpt = Annotated[Optional[list[str]], typer.Option(
    "--data", help="a card data file name=PATH (repeatable; " + per_game(lambda g: ", ".join(g.data_keys)) + ")")]
EngineOpt = Annotated[str, typer.Option(help="engine: core (Cython, default) or reference (pure Python)")]
SeedOpt = Annotated[int, typer.Option("--seed", help="master seed")]
# the measures' seats: one bot spec for every seat or one per seat, and a seat count where the game has one
SeatBotsOpt = Annotated[str, typer.Option("--bots", help="the bots, one spec for every seat or one per seat, "
                                                         "separated by commas")]
SeatsOpt = Annotated[int, typer.Option("--players", help="seats, where the game has a player count")]
WorkersOpt = Annotated[Optional[int], typer.Option("--workers", help="Ray workers (default: every core)")]
AddressOpt = Annotated[Optional[str], typer.Option("--address", help="Ray cluster address to run on")]

# play's and run's per-game aliases of --setup and --data (deprecated: they keep working, with a note): flag ->
# (the game-neutral option it stands for, its key there)
ALIASES = {"--board": ("--setup", "board"), "--mode": ("--setup", "mode"), "--players": ("--setup", "players"),
           "--people": ("--setup", "people"), "--items": ("--data", "items"), "--monsters": ("--data", "monsters")}


def _deprecated(key: str, what: str) -> str:
    flag, name = ALIASES[f"--{key}"]
    return f"{what} (deprecated: use {flag} {name}=...)"


BoardOpt = Annotated[Optional[str], typer.Option(help=_deprecated("board", f"board ({_setup_help('board')})"))]
ModeOpt = Annotated[Optional[str], typer.Option(help=_deprecated("mode", f"mode ({_setup_help('mode')})"))]
PlayersOpt = Annotated[Optional[int], typer.Option(help=_deprecated("players",
                                                                    f"players ({_setup_help('players')})"))]
PeopleOpt = Annotated[Optional[str], typer.Option(help=_deprecated(
    "people", f"people, comma separated ({_setup_help('people')})"))]
BotsOpt = Annotated[Optional[str], typer.Option(help="bot per seat, comma separated (random, heuristic, "
                                                     "heuristic:aggression=3); one name = every seat")]
ItemsOpt = Annotated[Optional[Path], typer.Option(help=_deprecated(
    "items", f"the items data file ({_data_help('items')}; default: the packaged stand-ins)"))]
MonstersOpt = Annotated[Optional[Path], typer.Option(help=_deprecated(
    "monsters", f"the monsters data file ({_data_help('monsters')}; default: the packaged stand-ins)"))]


@dataclass(frozen=True)
class MatchOptions:
    """What picks the games of ``play`` and ``run``, gathered once by :func:`match_options`: the game, ``--rules``,
    ``--set``, ``--setup``, ``--data``, ``--bots``, ``--engine`` and the per-game aliases given."""

    game: str
    rules: Optional[str] = None
    overrides: tuple[str, ...] = ()          # --set name=value
    setup: tuple[str, ...] = ()              # --setup key=value
    data: tuple[str, ...] = ()               # --data key=PATH
    bots: Optional[str] = None
    engine: str = "core"
    aliases: tuple[tuple[str, Any], ...] = ()   # (flag, value) of each per-game alias given (ALIASES), in order

    def alias(self, flag: str) -> Any:
        """The value given to a per-game alias (``--board``), or None."""
        return dict(self.aliases).get(flag)

    def deprecation(self) -> str | None:
        """The one-line note for the per-game aliases given, or None when none was."""
        if not self.aliases:
            return None
        flags = [flag for flag, _ in self.aliases]
        instead = " ".join(f"{ALIASES[flag][0]} {ALIASES[flag][1]}={value}" for flag, value in self.aliases)
        return (f"{', '.join(flags)} {'is' if len(flags) == 1 else 'are'} deprecated and will be removed; "
                f"use {instead}")


def match_options(params: Mapping[str, Any]) -> MatchOptions:
    """The match options among a command's parsed parameters (``ctx.params``): the one place ``play`` and ``run``
    gather them."""
    aliases = tuple((flag, params[flag[2:]]) for flag in ALIASES if params.get(flag[2:]) is not None)
    return MatchOptions(game=params["game"], rules=params.get("rules"), overrides=tuple(params.get("set_") or ()),
                        setup=tuple(params.get("setup_") or ()), data=tuple(params.get("data") or ()),
                        bots=params.get("bots"), engine=params.get("engine", "core"), aliases=aliases)


# ---------------------------------------------------------------------------------------------------
# Answers as text
# ---------------------------------------------------------------------------------------------------

def _cell(v, exact: bool) -> str:
    if isinstance(v, float) and not exact:
        return f"{v:.4f}"
    return "" if v is None else str(v)


def render(name: str, columns: list[str], rows: list[tuple], fmt: str) -> str:
    """The answer as text: a rich table, CSV, JSON records or a Markdown table."""
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(columns)
        w.writerows([[_cell(v, True) for v in r] for r in rows])
        return buf.getvalue().rstrip("\n")
    if fmt == "json":
        return json.dumps([dict(zip(columns, r)) for r in rows], default=str)
    if fmt == "markdown":
        lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
        lines += ["| " + " | ".join(_cell(v, False) for v in r) + " |" for r in rows]
        return "\n".join(lines)
    return fit_table(name, columns, [[_cell(v, False) for v in r] for r in rows])


def fit_table(name: str, columns: list[str], cells: list[list[str]], width: int | None = None) -> str:
    """A rich table that never cuts a value or a header: every column is as wide as its widest entry; when
    the columns do not fit the terminal, the rightmost are left out and a last line names them and how
    to see them. A pipe gets every column at full width."""
    from rich.table import Table
    from rich.text import Text
    need = [max([len(c) for c in col] + [len(h)]) for h, col in
            zip(columns, zip(*cells) if cells else [[] for _ in columns])]
    full = sum(n + 3 for n in need) + 1                  # a cell's padding and border: 3; the last border: 1
    if width is None:
        width = shutil.get_terminal_size().columns if sys.stdout.isatty() else full
    keep = len(columns)
    while keep > 1 and sum(n + 3 for n in need[:keep]) + 1 > width:
        keep -= 1
    table = Table(title=Text(name))          # names and values are data: Text, never read as Rich markup
    for c, n in zip(columns[:keep], need):
        table.add_column(Text(str(c)), justify="right", min_width=n, no_wrap=True)
    for r in cells:
        table.add_row(*[Text(v) for v in r[:keep]])
    buf = io.StringIO()
    Console(file=buf, width=max(width, sum(n + 3 for n in need[:keep]) + 1), highlight=False).print(table)
    out = buf.getvalue().rstrip("\n")
    if keep < len(columns):
        left = columns[keep:]
        out += (f"\n({len(left)} more column{'s' if len(left) > 1 else ''} not shown: {', '.join(left)}; "
                "--format csv, json or markdown shows every column, or widen the terminal)")
    return out


def local_out(out: str, who: str, beside: str) -> Path:
    """``--out`` as a local folder (``who``: "a tune", "a ladder"), an ``s3://`` one refused in one line: ``who``
    writes ``beside`` the parts, which object storage cannot lock (``playtest sweep`` writes to s3://)."""
    from infra.storage import is_uri
    if is_uri(out):
        fail(f"--out {out}: {who} writes a local folder only ({beside}); give a local path (playtest sweep "
             "writes to s3://)")
    return Path(out)



@dataclass(frozen=True)
class SeatOptions:
    """The seats and rules a measure plays (kingmaker, tension, card-worth), gathered once by :func:`seat_options`:
    ``--bots`` (one spec for every seat or one per seat), ``--players`` (where the game has a player count),
    ``--rules``, ``--set``, ``--setup`` and ``--data`` (card files KEY=FILE)."""

    bots: str = "heuristic"
    players: int = 4
    rules: Optional[str] = None
    overrides: tuple[str, ...] = ()          # --set name=value
    setup: tuple[str, ...] = ()              # --setup key=value
    data: tuple[str, ...] = ()               # --data key=FILE


def seat_options(params: Mapping[str, Any]) -> SeatOptions:
    """The seat options among a measure command's parsed parameters (``ctx.params``)."""
    return SeatOptions(bots=params["bots"], players=params["players"], rules=params.get("rules"),
                       overrides=tuple(params.get("set_") or ()), setup=tuple(params.get("setup") or ()),
                       data=tuple(params.get("data") or ()))


def measure_match(g, seats: SeatOptions, where: str) -> tuple:
    """The match a measure plays from its seat options: (overrides, the --setup values, the full setup, the match).
    Raises RuleError (or the game's data error) for the caller to refuse in one line."""
    from sim.params import RuleError, parse_assignments
    overrides = parse_assignments(list(seats.overrides), where="--set")
    shape = parse_assignments(list(seats.setup), where="--setup")
    if "bots" in shape:
        raise RuleError("--setup bots=...: give the bots with --bots")
    given = {**shape, "bots": [b.strip() for b in seats.bots.split(",")]}
    if "players" in g.setup_keys and "players" not in shape:
        given["players"] = seats.players
    files = {k: str(v) for k, v in parse_assignments(list(seats.data), where="--data").items()}
    return overrides, shape, given, g.resolve(seats.rules, overrides, given, files or None, where=where)


def replay_setup(g, seats: SeatOptions, oracle, where: str, *, games: int, seed: int, workers: int | None,
                 outputs: dict, check) -> tuple:
    """The match and the oracle of a measure that replays games decision by decision (kingmaker, tension):
    (overrides, the --setup values, the full setup, the match, the oracle model), after the common checks
    (``--games``, ``--seed``, ``--players``, ``--workers``, every output file in ``outputs``: {flag: path})
    and the measure's own ``check(match, oracle)``; a bad value exits 2 in one line. The oracle is
    ``--oracle`` (a shipped name or a file) or the game's default oracle (its models index); the measure plays no
    card files of its own (``seats.data`` is not read)."""
    from sim.games import EngineError
    from sim.params import RuleError
    check_range("--games", games, 1, 10_000_000)
    check_range("--seed", seed, 0, MAX_SEED)
    check_range("--players", seats.players, 1, 64)
    if workers is not None:
        check_range("--workers", workers, 1, MAX_WORKERS)
    for flag, path in outputs.items():
        if path is not None:
            check_output_file(flag, path)
    try:
        overrides, shape, given, match = measure_match(g, SeatOptions(seats.bots, seats.players, seats.rules,
                                                                      seats.overrides, seats.setup), where)
        from sim.kit.kingmaking import oracle_model
        model = oracle_model(g, oracle, "--oracle")
        check(match, model)
    except (RuleError, EngineError, ValueError) as e:
        fail(str(e))
    return overrides, shape, given, match, model
