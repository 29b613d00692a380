"""Playing a case's games: a small sweep into a temporary folder, answered by the measure's own reader, so a case
checks the same path a designer's folder takes (the sweep, its parts, the locked DuckDB reading them)."""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path
from typing import Any, Iterator

from measures.known import Context


def variant_raw(ctx: Context, game: str) -> dict[str, Any]:
    """The spec keys of the designer's variant (``--rules``, ``--set``, ``--setup``, ``--data``) when it is of
    ``game``; nothing otherwise."""
    if ctx.game != game:
        return {}
    raw: dict[str, Any] = {}
    if ctx.rules:
        raw["rules"] = ctx.rules
    if ctx.overrides:
        raw["overrides"] = dict(ctx.overrides)
    if ctx.data:
        raw["data"] = {k: str(Path(v).resolve()) for k, v in ctx.data.items()}
    return raw


@contextlib.contextmanager
def played(raw: dict[str, Any], ctx: Context) -> Iterator[Path]:
    """The folder of the sweep ``raw`` (a spec as parse_spec takes it) played on ``ctx.workers`` local processes;
    removed afterwards."""
    from cluster.spec import parse_spec
    from cluster.sweep import run_sweep
    with tempfile.TemporaryDirectory(prefix="playtest-validate-") as tmp:
        spec = parse_spec(raw, source="<validate case>", base_dir=tmp)
        out = Path(tmp) / "sweep"
        run_sweep(spec, out, workers=ctx.workers or 1, progress=False)
        yield out
