"""The part files of a sweep's folder as bytes, the code version in their metadata blanked: the same games give the
same bytes whatever process (and whatever commit of the code) wrote them. Shared by the tests that compare two sweeps'
parts byte for byte (tests/cluster, tests/service)."""

from pathlib import Path


def parts(out: Path) -> dict[str, bytes]:
    """Every Parquet part under ``out`` by its relative path, as bytes, the code version in its metadata blanked
    (another engineer's commit during the test changes it; the games are what must agree)."""
    import pyarrow.parquet as pq
    found = {}
    for p in sorted(out.glob("*/cell=*/part-*.parquet")):
        data = p.read_bytes()
        version = pq.read_metadata(p).metadata[b"playtest.code_version"]
        found[str(p.relative_to(out))] = data.replace(version, b"?" * len(version))
    return found
