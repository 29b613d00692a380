"""Writing game records to Parquet: streamed by chunk, written to a temporary name and renamed."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

import pyarrow as pa
import pyarrow.parquet as pq


def write_parquet(tables: Iterable[pa.Table], path: str | Path, schema: pa.Schema,
                  metadata: dict[str, str] | None = None, on_chunk=None) -> int:
    """Stream tables into one Parquet file atomically (``path`` appears only when complete); returns rows."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    if metadata:
        schema = schema.with_metadata({**(schema.metadata or {}), **metadata})
    rows = 0
    try:
        with pq.ParquetWriter(tmp, schema, compression="zstd") as writer:
            for t in tables:
                writer.write_table(t.replace_schema_metadata(schema.metadata))
                rows += t.num_rows
                if on_chunk:
                    on_chunk(t.num_rows)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    return rows
