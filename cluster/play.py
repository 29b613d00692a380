"""A sweep played with its messages: the spec and its results folder opened and checked (:func:`open_sweep`), then
the sweep played (:func:`play_spec`) saying what it plays, an interruption with the command that resumes it, a
failure with what is kept, and at its end the counts and each stopped cell's answer. ``playtest sweep``, ``playtest
ladder`` and the measures' commands play through here, and so do the service's sweep steps (service/steps.py): the
caller says how a line is shown (``say``) and turns :class:`Stopped` into its exit code."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Callable, Optional

from cluster.manifest import NAME
from cluster.spec import SweepSpec, load_spec
from cluster.sweep import (SweepError, SweepFailed, SweepInterrupted, SweepSummary, check_out_dir, check_remote_out,
                           interrupts, run_sweep)
from infra.stop_text import stop_line
from infra.storage import StorageError, is_uri, open_location

FAILED_EXIT = 1     # a sweep that began and failed (bad input is 2, Ctrl-C 130, SIGTERM 143)

# say(tone, text): tone "" is a plain line, "interrupted" / "interrupted:" / "error:" lead a line the caller may
# colour; the text is the user's own (paths, names), never markup
Say = Callable[[str, str], None]


class Stopped(Exception):
    """The sweep ended early and said why (``say``): interrupted (``code`` 130 for Ctrl-C, 143 for SIGTERM) or
    failed after it began (``code`` FAILED_EXIT, the finished parts kept)."""

    def __init__(self, code: int):
        super().__init__(f"the sweep stopped (exit code {code})")
        self.code = code


def plain(tone: str, text: str) -> str:
    """A said line as plain text (a log file, a terminal without colour)."""
    return f"{tone} {text}" if tone else text


def open_sweep(spec: Path, out: str) -> tuple[SweepSpec, Path | str]:
    """The spec read and its ``out`` checked before any game: a local folder (a Path) or object storage (the URI,
    its bucket, endpoint and lock opened). SpecError or SweepError in one line; a tune's folder is refused (a race
    decides where its cells stop: only ``playtest tune`` resumes it)."""
    from cluster.tune import tune_report
    s = load_spec(spec)
    if is_uri(out):
        check_remote_out(out, s)
        return s, out
    folder = Path(out)
    check_out_dir(folder)
    if tune_report(folder) is not None:
        raise SweepError(f"{folder} holds a tune (playtest tune); resume it with: playtest tune TUNE_SPEC --out "
                         f"{folder} --resume")
    return s, folder


def stop_goal(stop) -> str:
    """What a [stop] sweep plays each cell until, in words."""
    if stop.test:
        return (f"the test {stop.metric.name} {stop.op} {stop.threshold} is decided (SPRT, alpha {stop.alpha:g}, "
                f"beta {stop.beta:g}, delta {stop.delta:g})")
    target = f"+-{stop.half_width:g}" if stop.half_width is not None else f"+-{stop.relative:.0%} of the estimate"
    return f"{stop.metric.name} is known to {target} ({stop.confidence:.0%} confidence sequence)"


def size_words(n: float) -> str:
    """A byte count in words (KiB, MiB, GiB)."""
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:,.1f} {unit}" if unit != "B" else f"{int(n)} B"
        n /= 1024
    return f"{n:,.1f} TiB"


def has_manifest(out) -> bool:
    """Whether the sweep wrote anything yet (its manifest); on object storage that cannot be asked, yes."""
    if is_uri(out):
        with contextlib.suppress(StorageError):
            return open_location(str(out), probe=False).exists(NAME)
        return True
    return (Path(out) / NAME).exists()


def start_line(s: SweepSpec, out) -> str:
    """What the sweep is about to play, in one line."""
    if s.stop is not None:
        return (f"sweep {s.name!r}: {len(s.cells)} cells, each until {stop_goal(s.stop)}, at most "
                f"{s.games_per_cell:,} games per cell in parts of {s.batch_size:,} -> {out}")
    return (f"sweep {s.name!r}: {len(s.cells)} cells x {s.games_per_cell:,} games = {s.total_games:,} games in "
            f"{s.total_parts:,} parts of {s.batch_size:,} -> {out}")


def end_lines(r: SweepSummary, out) -> list[str]:
    """The counts of a sweep that ended, and for a [stop] sweep each cell's stopping answer."""
    lines = [f"{r.games:,} games in {r.wall_s:.1f} s ({r.games_per_s:,.0f} games/s; playing {r.play_s:.1f} s, "
             f"Ray start {r.ray_start_s:.1f} s, {r.workers} workers), {r.parts} parts written"
             + (f", {r.parts_skipped} already done" if r.parts_skipped else "")
             + f"; sweep {r.games_done:,}/{r.games_total:,} games, {size_words(r.bytes)} in {out}"]
    if r.stop is not None:
        if r.games_discarded:
            lines.append(f"{r.games_discarded:,} games played ahead of a cell's stop were discarded (the result is "
                         "each cell's first games only)")
        lines += [f"  {cid}: {stop_line(st)}" for cid, st in r.stop.items()]
    return lines


def play_spec(s: SweepSpec, out, *, workers: Optional[int], address: Optional[str], resume: bool, progress: bool,
              again: str, say: Say, driver_plays: bool = True) -> SweepSummary:
    """Play a validated sweep into ``out``, saying what it plays, then its counts. Ctrl-C or SIGTERM: what was done
    and the command that resumes it (``again`` + ``--resume``), then :class:`Stopped` (128 + the signal); a sweep
    that began and failed: the error and what is kept, then :class:`Stopped` (FAILED_EXIT). ``driver_plays``: the
    driver plays at once and starts Ray only for a sweep long enough to pay for it. A SweepError or ManifestError
    (bad input met while playing) is raised as it is."""
    hint = f"{again} --resume"
    with interrupts() as ints:      # a second Ctrl-C never cuts the stop, the manifest or the hint short
        say("", start_line(s, out))
        try:
            r = run_sweep(s, out, workers=workers, address=address, resume=resume, progress=progress,
                          driver_plays=driver_plays, log=lambda line: say("", line))
        except SweepInterrupted as e:
            r = e.summary
            if not has_manifest(out):     # stopped before the sweep wrote anything
                say("interrupted", f"before any game was played; nothing was written.\nrun it again with: {again}")
                raise Stopped(e.exit_code) from None
            done = (f"{r.games_done:,} games in {r.parts_done} parts done" if s.stop is not None else
                    f"{r.games_done:,} of {r.games_total:,} games done ({r.parts_done} of {r.parts_total} parts)")
            say("interrupted:", f"{done}; only finished parts are in {out}.\nresume with: {hint}")
            raise Stopped(e.exit_code) from None
        except KeyboardInterrupt:    # before the sweep began (outside run_sweep's own handling)
            say("interrupted", f"before any game was played.\nresume with: {hint}")
            raise Stopped(128 + ints.signum) from None
        except SweepFailed as e:      # it began and failed: not bad input (exit 1), and how to go on
            say("error:", " ".join(part.strip() for part in str(e).splitlines() if part.strip()))
            say("", f"the finished parts are kept in {out}; resume with: {hint}")
            raise Stopped(FAILED_EXIT) from None
    for line in end_lines(r, out):
        say("", line)
    return r
