"""One part of a sweep: a batch of games of one cell, played and written by one Ray task.

A part's path and its games follow from (cell, batch index) alone, so re-running any part rewrites
the same rows. Each table is written to a hidden temporary name in its final directory and renamed
into place: readers (DuckDB, pyarrow, pandas, polars) never see a partial part.
"""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow.parquet as pq

from cluster.version import loaded_core_digest
from sim.games import Match

TMP_MARK = ".tmp-"                  # temporary names: ".part-00012.parquet.tmp-<pid>"


class CoreMismatch(RuntimeError):
    """A worker runs a different engine core build than the driver (its results would not be reproducible)."""


def part_path(out_dir: str | Path, table: str, cell_id: str, batch: int) -> Path:
    """``DIR/<table>/cell=<cell id>/part-<batch:05d>.parquet``."""
    return Path(out_dir) / table / f"cell={cell_id}" / f"part-{batch:05d}.parquet"


def write_part(table, path: Path, metadata: dict[str, str]) -> int:
    """Write one Arrow table atomically (hidden temporary name, then rename); returns the file size."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}{TMP_MARK}{os.getpid()}")
    table = table.replace_schema_metadata({**(table.schema.metadata or {}), **metadata})
    try:
        pq.write_table(table, tmp, compression="zstd")
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    return path.stat().st_size


def play_part(match: Match, engine: str, seed: int, start: int, count: int, out_dir: str, cell_id: str,
              batch: int, metadata: dict[str, str]) -> tuple[str, int, int, int]:
    """Play games ``start .. start+count-1`` of ``match`` and write each table; returns (cell, batch, rows, bytes)."""
    want = metadata.get("playtest.core_digest")
    if engine == "core" and want and want != loaded_core_digest():
        raise CoreMismatch(f"this worker runs engine core {loaded_core_digest()}, the sweep started with {want} "
                           "(rebuilt since, or another build on this node); use one build on every node")
    tables = match.play_batch(seed, start, count, engine)
    meta = {**metadata, "playtest.cell": cell_id, "playtest.batch": str(batch), "playtest.first_game": str(start),
            "playtest.games": str(count), "playtest.seed": str(seed), "playtest.engine": engine,
            "playtest.game": match.game, "playtest.rules_digest": match.rules_digest,
            "playtest.cards_digest": match.data_digest, "playtest.match_digest": match.digest}
    size = 0
    for name in match.tables:
        size += write_part(tables[name], part_path(out_dir, name, cell_id, batch), {**meta, "playtest.table": name})
    return cell_id, batch, tables["games"].num_rows, size


def read_part_meta(path: Path) -> dict[str, str] | None:
    """A finished part's playtest metadata and row count (``playtest.rows``), or None if unreadable."""
    try:
        md = pq.read_metadata(path)
    except (OSError, ValueError):
        return None
    kv = {k.decode(): v.decode() for k, v in (md.metadata or {}).items() if k.startswith(b"playtest.")}
    kv["playtest.rows"] = str(md.num_rows)
    return kv


def stale_temporaries(out_dir: str | Path) -> list[Path]:
    """Temporary part files left by a killed task (hidden from readers; removed before a sweep resumes)."""
    return [p for p in Path(out_dir).glob(f"*/cell=*/.part-*{TMP_MARK}*")]
