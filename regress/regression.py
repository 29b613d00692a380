"""One regression run end to end: validate, play the suite, compare with the baseline, write the report."""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path

from regress import baseline as baseline_file
from regress.compare import Comparison, compare
from regress.html import page
from regress.report import markdown
from regress.runner import play
from regress.suite import load_suite
from sim.files import unwritable

REPORT_FILES = ("report.md", "report.html", "result.json")


@dataclass
class Outcome:
    """What a run did: its comparison (None when there was no baseline to compare with) and its files."""

    comparison: Comparison | None
    files: list[Path]
    baseline_written: bool
    note: str = ""            # --update-baseline over a baseline it could not compare with: why


def check_folder(path: Path, option: str) -> None:
    """Refuse, before any game, an output folder that cannot be made or written."""
    problem = unwritable(path, folder=True)
    if problem:
        raise ValueError(f"{option} {path}: {problem}")


def regress(suite_path: Path, baseline_path: Path, report_dir: Path, *, work: Path | None = None,
            update_baseline: bool = False, seeds: tuple[int, ...] | None = None, workers: int | None = None,
            address: str | None = None, progress: bool = True) -> Outcome:
    """Play ``suite_path`` and compare it with ``baseline_path``; every input is checked before any game:
    the suite, the baseline on its own and against the suite, and the folders and file the run writes."""
    suite = load_suite(suite_path)
    if seeds is not None:
        suite = suite.with_seeds(seeds)
    check_folder(report_dir, "--report")
    check_folder(work or report_dir / "work", "--work")
    if update_baseline:
        baseline_file.check_writable(baseline_path)
    old, note = None, ""
    if not update_baseline or baseline_path.exists():
        try:
            old = baseline_file.load(baseline_path)
            baseline_file.check_against(old, baseline_path, suite, seeds_given=seeds is not None)
        except baseline_file.BaselineError as e:
            if not update_baseline:  # updating is how a corrupt, missing or other suite's baseline is replaced
                raise
            old, note = None, f"the old baseline was not compared with and is replaced: {e}"
    command = " ".join(["playtest regress", shlex.quote(str(suite_path)), "--baseline",
                        shlex.quote(str(baseline_path)), "--report", shlex.quote(str(report_dir))]
                       + (["--seeds", ",".join(map(str, suite.seeds))] if seeds else []))
    for name in REPORT_FILES:  # a report left by an earlier run must not pass for this one's
        (report_dir / name).unlink(missing_ok=True)
    current = play(suite, work or report_dir / "work", workers=workers, address=address, progress=progress)
    files: list[Path] = []
    cmp = None
    if old is not None:
        cmp = compare(suite, old, current)
        report_dir.mkdir(parents=True, exist_ok=True)
        for name, text in (("report.md", markdown(suite, cmp, str(baseline_path), command)),
                           ("report.html", page(suite, cmp, str(baseline_path), command)),
                           ("result.json", json.dumps(cmp.as_dict(), indent=1, default=str) + "\n")):
            (report_dir / name).write_text(text)
            files.append(report_dir / name)
    if update_baseline:
        baseline_file.write(baseline_file.from_snapshot(current), baseline_path)
    return Outcome(cmp, files, update_baseline, note)
