"""``python -m service.steps STEP ARGS...``: one step of a job, in the child process the runner starts for it (in a
session of its own: Ray, if a sweep starts it, lives and dies with the child, and a cancel ends the whole group).
Each step calls the library functions the matching ``playtest`` command calls (cluster/, queries/, regress/,
measures/), never the command line itself, and writes what the command writes: the same results folder, the same
messages (plain text: the job's log is no terminal), the same one ``error:`` line and exit codes (2 bad input, 1 a
sweep that began and failed, 130 / 143 interrupted by Ctrl-C / SIGTERM).

:data:`STEPS` names them; a job kind lists its steps by these names (service.kinds.Step) and the runner starts them
one after another (service/lifecycle.py)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Callable

BAD_INPUT = 2


def error(message: object) -> int:
    """A step's one-line error (the runner's job error is this line), exit code 2."""
    print(f"error: {' '.join(str(message).split())}", file=sys.stderr, flush=True)
    return BAD_INPUT


def say(tone: str, text: str) -> None:
    """A line of a sweep being played (cluster.play), on stderr: the job's log."""
    from cluster.play import plain
    print(plain(tone, text), file=sys.stderr, flush=True)


class Usage(ValueError):
    """A step's arguments refused by its parser."""


class _Parser(argparse.ArgumentParser):
    """A step's options: a bad one is the step's one-line error, never argparse's usage text."""

    def error(self, message: str):
        raise Usage(f"{self.prog}: {message}")


def _parser(step: str, *positional: str, options: tuple[str, ...] = (), flags: tuple[str, ...] = (),
            repeat: tuple[str, ...] = ()) -> _Parser:
    p = _Parser(prog=f"python -m service.steps {step}", add_help=False, allow_abbrev=False)
    for name in positional:
        p.add_argument(name)
    for name in options:
        p.add_argument(f"--{name}", type=int if name in ("workers", "games", "seed", "players") else str)
    for name in flags:
        p.add_argument(f"--{name}", action="store_true")
    for name in repeat:
        p.add_argument(f"--{name}", action="append", default=[])
    return p


# sweep and report ------------------------------------------------------------------------------------------

def sweep(argv: list[str]) -> int:
    """``playtest sweep SPEC --out OUT``: played by cluster.play (the driver plays, Ray only for a sweep long
    enough), then the report's short summary (queries.report.summary_lines)."""
    a = _parser("sweep", "spec", options=("out", "workers", "address"), flags=("resume",)).parse_args(argv)
    from cluster import play
    from cluster.manifest import ManifestError
    from cluster.spec import SpecError
    from cluster.sweep import SweepError, workers_error
    from queries.report import summary_lines
    if (bad := workers_error(a.workers, a.address)) is not None:
        return error(bad)
    try:
        s, out = play.open_sweep(Path(a.spec), a.out)
    except (SpecError, SweepError) as e:
        return error(e)
    again = f"playtest sweep {a.spec} --out {out}" + (f" --address {a.address}" if a.address else "")
    try:
        play.play_spec(s, out, workers=a.workers, address=a.address, resume=a.resume, progress=False, again=again,
                       say=say)
    except play.Stopped as e:
        return e.code
    except (SweepError, ManifestError) as e:
        return error(e)
    for line in summary_lines(str(out)):
        print(line, file=sys.stderr)
    return 0


def report(argv: list[str]) -> int:
    """A done sweep's report: page, summary and verdict card (service/reportjob.py, the functions ``playtest
    report`` calls)."""
    a = _parser("report", "results", "own").parse_args(argv)
    from service import reportjob
    return reportjob.run(a.results, Path(a.own))


def re_report(argv: list[str]) -> int:
    """A done run reported again with the report's options (service/kind_report.py)."""
    a = _parser("re-report", "results", "own", "shortest", "longest", "behind").parse_args(argv)
    try:
        numbers = int(a.shortest), int(a.longest), int(a.behind)
    except ValueError:
        return error("re-report: SHORTEST, LONGEST and BEHIND are whole numbers")
    from service import kind_report
    return kind_report.run(a.results, Path(a.own), *numbers)


def compare(argv: list[str]) -> int:
    """Two runs compared, or one split by a parameter (service/kind_compare.py, queries.compare)."""
    a = _parser("compare", "own").parse_args(argv)
    from service import kind_compare
    return kind_compare.run(Path(a.own))


# ladder ----------------------------------------------------------------------------------------------------

def ladder(argv: list[str]) -> int:
    """``playtest ladder GAME --out OUT ...``: the field checked and the sweep planned (cluster.ladder), played
    (cluster.play), rated (queries.ladder_report) into OUT/ladder.json."""
    a = _parser("ladder", "game", options=("bots", "games", "seed", "rules", "players", "out", "workers", "address"),
                flags=("resume",), repeat=("set", "setup")).parse_args(argv)
    from cluster import ladder as lad
    from cluster.sweep import interrupts, workers_error
    from sim.files import write_atomic
    from sim.games import GAMES
    from sim.params import RuleError, parse_assignments
    if a.game not in GAMES.names():
        return error(f"game {a.game!r}: expected one of {', '.join(GAMES.names())}")
    if (bad := workers_error(a.workers, a.address)) is not None:
        return error(bad)
    g = GAMES[a.game]
    try:
        overrides = parse_assignments(a.set, where="--set")
        field, shared, seats, _ = lad.check(g, a.bots, a.rules, overrides, parse_assignments(a.setup, where="--setup"),
                                            a.players)
        p = lad.plan(g, field, shared, seats, overrides, rules=a.rules, sets=a.set, setups=a.setup,
                     players=a.players, games=a.games or 1000, seed=1 if a.seed is None else a.seed, batch_size=0,
                     out=Path(a.out), resume=a.resume)
    except (lad.LadderError, RuleError) as e:
        return error(e)
    with interrupts() as ints:      # Ctrl-C or SIGTERM while sizing or rating: what to run, 128 + the signal
        try:
            report = _play_ladder(p, a.workers, a.address, a.resume)
        except KeyboardInterrupt:
            say("", f"interrupted; resume with: {p.command(a.address)} --resume")
            return 128 + ints.signum
    if isinstance(report, int):
        return report
    write_atomic(p.out / lad.REPORT_NAME, json.dumps(report, indent=2) + "\n")
    from queries import ratings
    for line in ratings.rating_lines(report["ratings"], report["bots"].index(report["anchor"])):
        print(line, file=sys.stderr)
    say("", f"ratings and win matrix: {p.out / lad.REPORT_NAME}")
    return 0


def _play_ladder(p, workers, address, resume: bool) -> dict | int:
    """Size, write, play and rate the planned ladder: its report, or the step's exit code."""
    from cluster import play
    from cluster.ladder import LadderError, ready
    from cluster.manifest import ManifestError
    from cluster.sweep import SweepError
    from queries.ladder_report import LadderReportError, rate
    try:
        say("", ready(p))
        play.play_spec(p.spec, p.out, workers=workers, address=address, resume=resume, progress=False,
                       again=p.command(address), say=say)
        return rate(p.out, p.field, p.seats, p.info())
    except play.Stopped as e:
        return e.code
    except (LadderError, LadderReportError, SweepError, ManifestError) as e:
        return error(e)


def ladder_page(argv: list[str]) -> int:
    """The ladder's page from its ladder.json (service/kind_ladder.py)."""
    a = _parser("ladder-page", "results", "own").parse_args(argv)
    from service import kind_ladder
    return kind_ladder.write_page(Path(a.results), Path(a.own))


# regress and tune ------------------------------------------------------------------------------------------

def regress(argv: list[str]) -> int:
    """``playtest regress SUITE --baseline B --report OWN --work OUT``: regress.regression.regress; unlike the
    command it exits 0 on a regression (an answer, not a failure: the verdict is in OWN/result.json)."""
    a = _parser("regress", "suite", options=("baseline", "report", "work", "workers", "address")).parse_args(argv)
    if not (a.baseline and a.report and a.work):
        return error("regress: --baseline, --report and --work are required")
    from cluster.sweep import SweepError
    from regress.regression import regress as run
    try:
        out = run(Path(a.suite), Path(a.baseline), Path(a.report), work=Path(a.work), workers=a.workers,
                  address=a.address, progress=False)
    except (ValueError, OSError, SweepError) as e:
        return error(e)
    cmp = out.comparison
    if cmp is None:
        return error("no comparison was made")
    print(f"{cmp.verdict.upper()}: {len(cmp.flagged)} flagged metric(s) of {len(cmp.tests)}, {len(cmp.changed)} "
          f"changed cell(s) of {len(cmp.cells)}" + (f" ({'; '.join(cmp.reasons)})" if cmp.reasons else ""))
    return 0


def tune(argv: list[str]) -> int:
    """``playtest tune SPEC --out OUT``: cluster.tune.run_tune, then the answer in words."""
    a = _parser("tune", "spec", options=("out", "workers", "address"), flags=("resume",)).parse_args(argv)
    from cluster.sweep import interrupts, workers_error
    from cluster.tune import TuneError, answer_lines, load_tune_spec, run_tune
    if (bad := workers_error(a.workers, a.address)) is not None:
        return error(bad)
    try:
        s = load_tune_spec(Path(a.spec))
    except TuneError as e:
        return error(e)
    with interrupts() as ints:      # Ctrl-C and SIGTERM: the sweep keeps its finished parts, then the hint
        try:
            answer = run_tune(s, Path(a.out), workers=a.workers, address=a.address, resume=a.resume,
                              progress=False, log=lambda line: say("", line))
        except TuneError as e:
            return error(e)
        except KeyboardInterrupt:
            say("", f"interrupted; resume with: playtest tune {a.spec} --out {a.out} --resume")
            return 128 + ints.signum
    for line in answer_lines(answer):
        print(line)
    return 0


def tune_answer(argv: list[str]) -> int:
    """The tune's answer page and verdict (service/tunejob.py)."""
    a = _parser("tune-answer", "results", "own").parse_args(argv)
    from service import tunejob
    return tunejob.run(Path(a.results), Path(a.own))


# a run's replay (service/replays.py) ------------------------------------------------------------------------

def replay(argv: list[str]) -> int:
    """``playtest play --from FOLDER --cell ID --game-index N --html PAGE``: one game of a sweep played again
    (cluster.replay) and drawn (infra.replay_page) into PAGE."""
    a = _parser("replay", "folder", "cell", "index", "page").parse_args(argv)
    if not a.index.isdigit():
        return error(f"--game-index {a.index[:30]!r}: expected a whole number")
    from cluster.replay import ReplayError, replayed, sweep_game
    from infra.replay_page import build_page
    from sim.events import EventLog
    index, page = int(a.index), Path(a.page)
    warn, note = (lambda m: say("warning:", m)), (lambda m: say("note:", m))
    try:
        m, seed, stored, where, blob, engine = sweep_game(Path(a.folder), a.cell, index, None, warn=warn)
        log = EventLog()
        rec = replayed(m, seed, index, log, engine, stored, blob, where, warn=warn, note=note)
        html = build_page(m.definition, log.events, log.meta, f"{m.definition.title}: {where}",
                          m.definition.result_line(rec), record=rec)
    except ReplayError as e:
        return error(e)
    except FileNotFoundError as e:     # a game without its replay.js
        return error(f"--html: {e}")
    try:
        page.write_text(html, encoding="utf-8")
    except OSError as e:
        return error(f"cannot write the replay ({e.strerror or e})")
    print(f"result: {m.definition.result_line(rec)}")
    return 0


STEPS: dict[str, Callable[[list[str]], int]] = {
    "sweep": sweep, "report": report, "re-report": re_report, "compare": compare, "ladder": ladder,
    "ladder-page": ladder_page, "regress": regress, "tune": tune, "tune-answer": tune_answer, "replay": replay}


def main(argv: list[str]) -> int:
    """Run the step ``argv[0]`` with its arguments; its exit code."""
    if not argv or argv[0] not in STEPS:
        return error(f"usage: python -m service.steps STEP ARGS...; STEP one of {', '.join(STEPS)}")
    try:
        return STEPS[argv[0]](argv[1:])
    except Usage as e:
        return error(e)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
