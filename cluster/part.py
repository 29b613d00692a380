"""One part of a sweep: a batch of games of one cell, played and written by one Ray task.

A part's path and its games follow from (cell, batch index) alone, so re-running any part rewrites
the same rows. Each table is written to a hidden temporary name in its final directory and renamed
into place: readers (DuckDB, pyarrow, pandas, polars) never see a partial part.

Every part file describes itself in its Parquet metadata (``playtest.cell``, ``playtest.batch``,
``playtest.first_game``, ``playtest.games``, ``playtest.table``, ``playtest.spec_digest``, ...) and carries
``playtest.content_sha256``, a checksum of its rows (:func:`content_sha256`), so a copied, renamed,
truncated or edited part is recognised by ``cluster.verify`` without trusting the manifest.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from cluster.version import loaded_core_digest
from infra import derived
from sim.files import TMP_MARK, write_atomic
from sim.games import Match
from infra.metrics import Metric, summarize
from infra.storage import is_uri, open_location

CHECKSUM_KEY = "playtest.content_sha256"
DERIVED_KEY = "playtest.derived"        # the infra.derived version of the columns a part adds to the games


class CoreMismatch(RuntimeError):
    """A worker runs a different engine core build than the driver (its results would not be reproducible)."""


def part_path(out_dir: str | Path, table: str, cell_id: str, batch: int) -> Path:
    """``DIR/<table>/cell=<cell id>/part-<batch:05d>.parquet``."""
    return Path(out_dir) / table / f"cell={cell_id}" / f"part-{batch:05d}.parquet"


class _HashSink:
    """A write-only file object that only hashes what is written to it (no copy of the stream is kept)."""

    def __init__(self):
        self.h = hashlib.sha256()
        self.closed = False

    def write(self, data) -> int:
        self.h.update(data)
        return len(data)

    def flush(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True


def _canonical_type(t: pa.DataType) -> pa.DataType:
    """``t`` with the names, nullability and metadata of nested fields made standard (a Parquet round trip
    renames a list's ``item`` to ``element``): the same values give the same type."""
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        item = pa.field("item", _canonical_type(t.value_type))
        if pa.types.is_fixed_size_list(t):
            return pa.list_(item, t.list_size)
        return pa.large_list(item) if pa.types.is_large_list(t) else pa.list_(item)
    if pa.types.is_map(t):
        return pa.map_(_canonical_type(t.key_type), _canonical_type(t.item_type))
    if pa.types.is_struct(t):
        return pa.struct([pa.field(t.field(i).name, _canonical_type(t.field(i).type)) for i in range(t.num_fields)])
    if pa.types.is_dictionary(t):
        return _canonical_type(t.value_type)
    return t


def _canonical_column(field: pa.Field, col: pa.ChunkedArray) -> list[tuple[pa.Field, pa.ChunkedArray]]:
    """A column as columns whose Arrow IPC bytes follow from its values alone, whatever its memory layout or
    the names of its nested fields: dictionaries decoded; a column with nulls as its validity (bools) and its
    values with the nulls filled in."""
    t = _canonical_type(field.type)
    if t != field.type:
        col = col.cast(t)
    field = pa.field(field.name, t)
    if col.null_count == 0:
        return [(field, col)]
    valid = pa.field(f"{field.name}\0valid", pa.bool_())
    try:
        filled = pc.fill_null(col, pa.scalar("" if pa.types.is_string(t) or pa.types.is_large_string(t) else 0)
                              .cast(t))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
        filled = pa.chunked_array([pa.array([json.dumps(v, sort_keys=True, default=str) for v in col.to_pylist()],
                                            pa.string())])
        field = field.with_type(pa.string())
    return [(valid, pc.is_valid(col)), (field, filled)]


def content_sha256(table: pa.Table) -> str:
    """SHA-256 of a table's rows: its schema (without schema metadata) and values, as one Arrow IPC stream of
    one record batch after :func:`_canonical_column`. The rows a task writes and the rows read back from its
    Parquet file give the same checksum; one value changed gives another."""
    cols = [c for f, col in zip(table.schema, table.columns) for c in _canonical_column(f, col)]
    canonical = pa.table([c for _, c in cols], schema=pa.schema([f for f, _ in cols])).combine_chunks()
    sink = _HashSink()
    with pa.ipc.new_stream(pa.PythonFile(sink, mode="w"), canonical.schema) as w:
        for batch in canonical.to_batches():
            w.write_batch(batch)
    return sink.h.hexdigest()


def write_part(table, path: Path, metadata: dict[str, str]) -> tuple[int, str]:
    """Write one Arrow table atomically (hidden temporary name, then rename); returns (size, SHA-256 of the file).

    The metadata gets the rows' :func:`content_sha256`."""
    data = encode_part(table, metadata)
    write_atomic(path, data)                # temporary name ".part-00012.parquet.tmp-<pid>", then rename
    return data.size, hashlib.sha256(data).hexdigest()


def encode_part(table, metadata: dict[str, str]) -> pa.Buffer:
    """One part file's bytes: ``table`` as zstd Parquet with ``metadata`` and its :func:`content_sha256`."""
    meta = {**metadata, CHECKSUM_KEY: content_sha256(table)}
    table = table.replace_schema_metadata({**(table.schema.metadata or {}), **meta})
    buf = pa.BufferOutputStream()
    pq.write_table(table, buf, compression="zstd")
    return buf.getvalue()


def write_part_object(table, out_uri: str, rel: str, metadata: dict[str, str]) -> tuple[int, str]:
    """:func:`write_part` into a results folder on object storage: one object at its final key, visible only
    once whole (``infra.storage``)."""
    data = encode_part(table, metadata)
    open_location(out_uri, probe=False).write_bytes(rel, data.to_pybytes())
    return data.size, hashlib.sha256(data).hexdigest()


def play_part(match: Match, engine: str, seed: int, start: int, count: int, out_dir: str, cell_id: str,
              batch: int, metadata: dict[str, str], metrics: tuple[Metric, ...] = ()
              ) -> tuple[str, int, int, int, dict[str, dict], dict[str, tuple[int, float]]]:
    """Play games ``start .. start+count-1`` of ``match`` and write each table.

    Returns (cell, batch, rows, bytes, files, summary): ``files`` maps each table to ``{"bytes", "sha256"}`` of
    its file; ``summary`` maps each of ``metrics`` to (games, sum of scaled values) over the games table in
    memory (``infra.metrics.summarize``; computed before writing, so a metric that fails writes nothing)."""
    want = metadata.get("playtest.core_digest")
    if engine == "core" and want and want != loaded_core_digest():
        raise CoreMismatch(f"this worker runs engine core {loaded_core_digest()}, the sweep started with {want} "
                           "(rebuilt since, or another build on this node); use one build on every node")
    tables = match.play_batch(seed, start, count, engine)
    summary = summarize(match.definition, metrics, tables["games"]) if metrics else {}
    if metadata.get(DERIVED_KEY) == derived.VERSION:     # per-game values for the queries (infra.derived)
        tables = {**tables, "games": derived.derive(match.definition, tables["games"])}
    meta = {**metadata, "playtest.cell": cell_id, "playtest.batch": str(batch), "playtest.first_game": str(start),
            "playtest.games": str(count), "playtest.seed": str(seed), "playtest.engine": engine,
            "playtest.game": match.game, "playtest.rules_digest": match.rules_digest,
            "playtest.cards_digest": match.data_digest, "playtest.match_digest": match.digest}
    files = {}
    remote = is_uri(out_dir)      # workers write straight to object storage: they get the URI, not a path
    for name in match.tables:
        m = {**meta, "playtest.table": name}
        if remote:
            size, sha = write_part_object(tables[name], out_dir, str(part_path("", name, cell_id, batch)), m)
        else:
            size, sha = write_part(tables[name], part_path(out_dir, name, cell_id, batch), m)
        files[name] = {"bytes": size, "sha256": sha}
    return cell_id, batch, tables["games"].num_rows, sum(f["bytes"] for f in files.values()), files, summary


def read_part_meta(path: Path) -> dict[str, str] | None:
    """A finished part's playtest metadata and row count (``playtest.rows``), or None if unreadable."""
    try:
        md = pq.read_metadata(path)
    except (OSError, ValueError):
        return None
    kv = {k.decode(): v.decode() for k, v in (md.metadata or {}).items() if k.startswith(b"playtest.")}
    kv["playtest.rows"] = str(md.num_rows)
    return kv


def is_temporary(name: str) -> bool:
    """A part's temporary name (``.part-00012.parquet.tmp-<pid>``), left behind only by a killed task."""
    return name.startswith(".part-") and TMP_MARK in name


def stale_temporaries(out_dir: str | Path) -> list[Path]:
    """Temporary part files left by a killed task (hidden from readers; removed before a sweep resumes).
    Object storage has none: a part is written to its final key in one upload."""
    if is_uri(out_dir):
        return []
    return [p for p in Path(out_dir).glob(f"*/cell=*/.part-*{TMP_MARK}*")]
