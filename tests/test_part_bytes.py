"""tests/part_bytes.py, which the byte-for-byte comparisons of two sweeps' parts rest on: a part written by another
commit of the code compares equal (the version is in its footer twice: its own key, and Arrow's base64 schema), a
part with other games does not."""

import pyarrow as pa
from part_bytes import parts

from cluster.part import encode_part


def folder(root, version: str, values: list[int]):
    path = root / "games" / "cell=c000" / "part-00000.parquet"
    path.parent.mkdir(parents=True)
    path.write_bytes(encode_part(pa.table({"x": values}), {"playtest.code_version": version}).to_pybytes())
    return root


def test_a_part_from_another_commit_is_the_same_bytes_and_other_games_are_not(tmp_path):
    one = folder(tmp_path / "one", "4c469be-dirty", [1, 2, 3])
    other_commit = folder(tmp_path / "two", "3e81cc1-dirty", [1, 2, 3])
    other_games = folder(tmp_path / "three", "3e81cc1-dirty", [1, 2, 4])
    name = "games/cell=c000/part-00000.parquet"
    assert (one / name).read_bytes() != (other_commit / name).read_bytes()
    assert parts(one) == parts(other_commit)
    assert parts(other_commit)[name] != parts(other_games)[name]
    assert b"4c469be" not in parts(one)[name]
