"""The part files of a sweep's folder as bytes, the code version in their metadata blanked: the same games give the
same bytes whatever process (and whatever commit of the code) wrote them. Shared by the tests that compare two sweeps'
parts byte for byte (tests/cluster, tests/service)."""

import base64
from pathlib import Path


def parts(out: Path) -> dict[str, bytes]:
    """Every Parquet part under ``out`` by its relative path, as bytes, the code version in its metadata blanked
    (another engineer's commit during the test changes it; the games are what must agree)."""
    import pyarrow.parquet as pq
    found = {}
    for p in sorted(out.glob("*/cell=*/part-*.parquet")):
        found[str(p.relative_to(out))] = blanked(p.read_bytes(), pq.read_metadata(p).metadata)
    return found


def blanked(data: bytes, metadata: dict[bytes, bytes]) -> bytes:
    """``data`` (a part's bytes) with the code version of its footer ``metadata`` blanked in both places it is
    written: the key's own value, and inside the Arrow schema pyarrow keeps beside it (base64 of the schema, which
    holds the same metadata)."""
    version = metadata[b"playtest.code_version"]
    blank = b"?" * len(version)
    schema = metadata.get(b"ARROW:schema")
    if schema is not None:
        data = data.replace(schema, base64.b64encode(base64.b64decode(schema).replace(version, blank)))
    return data.replace(version, blank)
