"""Writing game records to Parquet: streamed by chunk, written to a temporary name and renamed."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Iterable, Mapping

import pyarrow as pa
import pyarrow.parquet as pq

from sim.files import replacing


@contextlib.contextmanager
def _atomic_writer(path: Path, schema: pa.Schema):
    """A ParquetWriter on a hidden temporary name; ``path`` appears (by rename) only if the block succeeds."""
    with replacing(path) as tmp:
        with pq.ParquetWriter(tmp, schema, compression="zstd") as writer:
            yield writer


def write_parquet_tables(batches: Iterable[Mapping[str, pa.Table]], paths: Mapping[str, str | Path],
                         schemas: Mapping[str, pa.Schema], metadata: dict[str, str] | None = None,
                         on_chunk=None) -> int:
    """Stream batches ({table name: table}) into one Parquet file per name in ``paths``, atomically.

    No file appears unless every batch was written; returns the rows of the "games" table.
    """
    names = list(paths)
    fixed = {n: schemas[n].with_metadata({**(schemas[n].metadata or {}), **(metadata or {})}) for n in names}
    rows = 0
    with contextlib.ExitStack() as stack:
        writers = {n: stack.enter_context(_atomic_writer(Path(paths[n]), fixed[n])) for n in names}
        for batch in batches:
            for n in names:
                writers[n].write_table(batch[n].replace_schema_metadata(fixed[n].metadata))
            rows += batch["games"].num_rows
            if on_chunk:
                on_chunk(batch["games"].num_rows)
    return rows


def write_parquet(tables: Iterable[pa.Table], path: str | Path, schema: pa.Schema,
                  metadata: dict[str, str] | None = None, on_chunk=None) -> int:
    """Stream tables into one Parquet file atomically (``path`` appears only when complete); returns rows."""
    return write_parquet_tables(({"games": t} for t in tables), {"games": path}, {"games": schema},
                                metadata, on_chunk)
