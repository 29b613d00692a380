"""``playtest tune SPEC``: tune rule parameters toward a target by racing candidates on Ray (docs/tuning.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from cli.common import err, fail, plain
from cluster.sweep import interrupts, workers_error
from cluster.tune import REPORT_NAME, Answer, TuneError, load_tune_spec, run_tune
from sim.storage import is_uri


def _interval(lo, hi) -> str:
    return f"[{_num(lo)}, {_num(hi)}]"


def _num(x) -> str:
    return "?" if x is None else f"{x:.4g}"


def answer_lines(a: Answer) -> list[str]:
    """The answer in words: the best candidate with its intervals, the set no round could tell apart, games."""
    lines = [f"objective: {a.objective}" + (f"; constraints: {', '.join(a.constraints)}" if a.constraints else ""),
             f"race ended: {a.finished}; {a.confidence:.0%} confidence for every interval at once ({a.alpha_split})"]
    if a.best is None:
        lines.append("no candidate meets the constraints: each was dropped by one (see tune.json for the intervals)")
    else:
        b = a.best
        goal = a.spec.get("objective", {}).get("goal") if isinstance(a.spec.get("objective"), dict) else None
        lo, hi = b["loss_interval"]
        value, low, high = ((-b["loss"], -hi, -lo) if goal == "max" and None not in (lo, hi)
                            else (b["loss"], lo, hi))
        lines.append(f"best: {b['label']}  objective {_num(value)} {_interval(low, high)} after "
                     f"{b['games_per_hold']:,} games per hold cell")
        for h in b["objective"]["per_hold"]:
            lines.append(f"  {b['objective']['metric']} in {h['hold']}: {_num(h['estimate'])} "
                         f"{_interval(*h['interval'])}")
        for c in b["constraints"]:
            worst = max(c["per_hold"], key=lambda p: p["interval"][1] if "<=" in c["constraint"] else -p["interval"][0])
            lines.append(f"  {c['constraint']}: {'holds' if c['certified'] else 'not yet shown'} "
                         f"(worst hold cell {worst['hold']}: {_num(worst['estimate'])} {_interval(*worst['interval'])})")
        others = [e["label"] for e in a.indistinguishable[1:]]
        lines.append(f"cannot be told apart from the best ({len(others)}): {'; '.join(others) if others else 'none'}")
    lines.append(f"games: {a.games:,} spent; an exhaustive grid giving every candidate as many games would spend "
                 f"{a.exhaustive_games:,} ({a.games / max(a.exhaustive_games, 1):.0%} of it spent)")
    return lines


def tune(spec: Annotated[Path, typer.Argument(help="tune spec (TOML; see docs/tuning.md and examples/tune_*.toml)")],
         out: Annotated[str, typer.Option(help="results folder (local): the sweep's Parquet, manifest, tune.toml "
                                               "(the sweep it plays) and tune.json (the answer)")],
         workers: Annotated[Optional[int], typer.Option(help="tasks run at once (default: every core, or the "
                                                             "cluster's with --address)")] = None,
         address: Annotated[Optional[str], typer.Option(help="HOST:PORT of a running Ray cluster to join "
                                                             "(default: start Ray on this machine)")] = None,
         resume: Annotated[bool, typer.Option(help="finish a tune already in --out")] = False,
         progress: Annotated[bool, typer.Option(help="show the sweep's progress bar")] = False,
         quiet: Annotated[bool, typer.Option("--quiet", help="no round-by-round lines")] = False) -> None:
    """Find the rule parameter values that bring a metric to a target (or its min or max) in every hold cell,
    dropping candidates as soon as their intervals show them worse (racing)."""
    if (bad := workers_error(workers, address)) is not None:
        fail(bad)
    if is_uri(out):
        fail(f"--out {out}: a tune writes a local folder only (tune.toml and tune.json beside the sweep's parts); "
             "give a local path (playtest sweep writes to s3://)")
    out = Path(out)
    try:
        s = load_tune_spec(spec)
    except TuneError as e:
        fail(str(e))

    def log(line: str) -> None:
        if not quiet:
            err.print(plain(line), highlight=False, soft_wrap=True)

    with interrupts() as ints:      # Ctrl-C and SIGTERM: the sweep keeps its finished parts, then the hint
        try:
            a = run_tune(s, out, workers=workers, address=address, resume=resume, progress=progress, log=log)
        except TuneError as e:
            fail(str(e))
        except KeyboardInterrupt:
            err.print(plain(f"interrupted; resume with: playtest tune {spec} --out {out} --resume"), highlight=False)
            raise typer.Exit(code=128 + ints.signum)
        for line in answer_lines(a):
            print(line)
        where = " ".join(f"--results {f}" for f in a.folders)
        print(f"answer: {out / REPORT_NAME}; the games: playtest query seat_advantage {where}")


COMMANDS = {"tune": tune}
