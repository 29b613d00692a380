"""``playtest tune SPEC``: tune rule parameters toward a target by racing candidates on Ray (docs/tuning.md)."""

from __future__ import annotations

import math

from pathlib import Path
from typing import Annotated, Optional

import typer

from cli.common import err, fail, local_out, plain
from cluster.sweep import interrupts, workers_error
from cluster.tune import REPORT_NAME, Answer, TuneError, load_tune_spec, run_tune


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
        others = a.indistinguishable[1:]
        lines.append(f"cannot be told apart from the best ({len(others)}):" + ("" if others else " none"))
        for e in others:
            lines.append(f"  {e['label']}: " + ("constraints shown to hold" if e.get("certified") else
                                                 "constraints NOT yet shown to hold (certified: false)"))
        nexts = [n for n in (next_step(e) for e in a.indistinguishable) if n]
        if nexts:
            lines.append("next: " + "; ".join(nexts) + f" (raise max_games_per_candidate in {a.spec.get('name', 'the spec')}"
                         " and run the tune again with --resume)")
    lines.append(f"games: {a.games:,} spent; an exhaustive grid giving every candidate as many games would spend "
                 f"{a.exhaustive_games:,} ({a.games / max(a.exhaustive_games, 1):.0%} of it spent)")
    return lines


def next_step(e: dict) -> str | None:
    """For a candidate whose constraints are not yet shown to hold: about how many games per hold cell would
    show it (an interval narrows as one over the square root of the games), or that its estimate already breaks
    the constraint; None when every constraint holds."""
    if e.get("certified"):
        return None
    n = e.get("games_per_hold") or 0
    needs = []
    for c in e.get("constraints", []):
        if c.get("certified"):
            continue
        upper = "<=" in c["constraint"]
        bound = float(c["constraint"].split("<=" if upper else ">=")[1].strip().rstrip("%")) / \
            (100 if c["constraint"].strip().endswith("%") else 1)
        for h in c["per_hold"]:
            est, (lo, hi) = h["estimate"], h["interval"]
            room = (bound - est) if upper else (est - bound)
            if room <= 0:
                return f"{e['label']} breaks {c['constraint']} in {h['hold']} ({_num(est)}): more games would drop it"
            half = (hi - lo) / 2
            if (hi > bound) if upper else (lo < bound):
                needs.append(math.ceil(n * (half / room) ** 2))
    return f"{e['label']} needs about {max(needs):,} games per hold cell (now {n:,})" if needs else None


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
    out = local_out(out, "a tune", "tune.toml and tune.json beside the sweep's parts")
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
