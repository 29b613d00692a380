"""A validated sweep played from the command line with its messages on stderr: ``playtest sweep``, ``ladder``, a
skill run's levels and ladder (cli/skill.py) and the measures' commands all play through :func:`play_spec`."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from cli.common import err, fail, plain
from cluster import play
from cluster.manifest import ManifestError
from cluster.spec import SweepSpec
from cluster.sweep import SweepError


def say(tone: str, text: str) -> None:
    """A line of a sweep being played (cluster.play), on stderr: an interruption in yellow, an error in red."""
    if tone:
        colour = "red" if tone == "error:" else "yellow"
        err.print(f"[bold {colour}]{tone}[/] " + plain(text), highlight=False, soft_wrap=True)
    else:
        err.print(text, highlight=False, markup=False, soft_wrap=True)


def play_spec(s: SweepSpec, out: Path, *, workers: Optional[int], address: Optional[str], resume: bool,
              progress: bool, again: str, driver_plays: bool = True) -> None:
    """Play a validated sweep into ``out`` with the sweep's messages on stderr (cluster.play.play_spec): an
    interruption (exit 130 for Ctrl-C, 143 for SIGTERM) with the command that resumes it (``again`` +
    ``--resume``), one-line errors and the summary. ``playtest sweep`` and ``playtest ladder`` both play through
    here."""
    try:
        play.play_spec(s, out, workers=workers, address=address, resume=resume, progress=progress, again=again,
                       say=say, driver_plays=driver_plays)
    except play.Stopped as e:
        raise typer.Exit(code=e.code) from None
    except (SweepError, ManifestError) as e:
        fail(str(e))
