"""The ``playtest`` command line: the typer app and its top-level group. Every command lives in the module
of its area (``cli/play.py``, ``reference.py``, ``sweep.py``, ``ladder.py``, ``query.py``, ``regress.py``,
``report.py``, ``compare.py``, ``tune.py``, ``tune_bot.py``, ``serve.py``) and is registered here, in the order ``playtest --help``
lists them."""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer
from typer.core import TyperGroup

try:                                # typer >= 0.20 carries its own click
    from typer._click import exceptions as clickx
except ImportError:                 # pragma: no cover - older typer uses click itself
    from click import exceptions as clickx

from cli import card_worth, compare, exploit, kingmaker, ladder, play, query, reference, regress, report, restrict, serve, sweep, tension, train_bot, tune, tune_bot, validate
from cli.common import BUG_EXIT, err, one_line, plain


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


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version
        typer.echo(f"playtest {version('playtest')}")
        raise typer.Exit()


@app.callback()
def _root(debug: Annotated[bool, typer.Option("--debug", help="show the traceback of an unexpected error "
                                                             "(also PLAYTEST_DEBUG=1)")] = False,
          _v: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                           help="print playtest's version and exit")] = False) -> None:
    """playtest: simulate tabletop games by the million and ask balance questions."""
    global DEBUG
    DEBUG = DEBUG or debug


# one example per command, shown at the end of its --help (tests/test_cli.py checks every command has one)
EXAMPLES = {
    "play": "playtest play paws --setup players=3 --seed 7 --html game.html",
    "run": "playtest run paws --games 100000 --seed 1 --set round_limit=20 --out r.parquet",
    "bench": "playtest bench --core-speed --games 20000",
    "rules": "playtest rules paws --preset v3",
    "bots": "playtest bots tales",
    "columns": "playtest columns paws",
    "sweep": "playtest sweep examples/smoke.toml --out results/smoke",
    "status": "playtest status results/smoke --verify",
    "upgrade": "playtest upgrade results/old-sweep",
    "ladder": "playtest ladder paws --bots random,heuristic,heuristic:preset=tuned --games 2000 --out results/ladder",
    "query": "playtest query round_limit --results results/smoke --where \"players = 4\"",
    "sql": "playtest sql \"SELECT players, avg(rounds) FROM games GROUP BY ALL\" --results results/smoke --read-only",
    "report": "playtest report results/smoke",
    "regress": "playtest regress examples/nightly.toml --baseline examples/nightly-baseline.json",
    "compare": "playtest compare results/hp-bonus --by mansion_monster_hp_bonus",
    "tune": "playtest tune examples/tune_first_player.toml --out results/tune",
    "tune-bot": "playtest tune-bot tales --trials 50 --games 500 --seed 2026",
    "train-bot": "playtest train-bot paws --iterations 2 --games 100 --eval-games 100",
    "exploit": "playtest exploit paws --against paws-3 --minutes 30 --seed 1 --out paws-3-exploiter.json",
    "restrict": "playtest restrict paws --games 2000 --out results/restrict-paws",
    "kingmaker": "playtest kingmaker paws --players 4 --games 1000 --out results/kingmaker",
    "tension": "playtest tension tales --games 2000 --out results/tension-tales --html tension.html",
    "card-worth": "playtest card-worth tales --deck equipment --games 2000 --out results/worth-tales",
    "serve": "playtest serve --root service-root --port 8321",
    "validate": "playtest validate restrict --game paws",
    "submit": "playtest submit examples/smoke.toml --server http://127.0.0.1:8321 --token $PLAYTEST_TOKEN --wait",
}

for _area in (play, reference, sweep, ladder, query, report, regress, compare, tune, tune_bot, train_bot, exploit, restrict, kingmaker, tension, card_worth, validate, serve):
    for _name, _command in _area.COMMANDS.items():
        app.command(name=_name, epilog=f"Example: {EXAMPLES[_name]}" if _name in EXAMPLES else None)(_command)


def main() -> None:
    app()
