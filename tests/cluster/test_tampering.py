"""Results that verify themselves: every way of damaging a finished sweep is repaired (or refused) by
``--resume`` and ``playtest status --verify``, and the repaired folder holds exactly the rows of a clean sweep.

Each test copies one clean sweep (2 cells x 30 games in parts of 8: 4 parts per cell, the last of 6 games),
damages it, repairs it and compares the result with the clean sweep: the same visible part files, each
with the same rows (Arrow tables compared value for value, metadata aside) and the same content checksum,
and the same answer from DuckDB over the query glob.
"""

import json
import os
import shutil
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from cluster.manifest import ManifestError, load_manifest, save_manifest
from cluster.part import CHECKSUM_KEY, part_path
from cluster.spec import parse_spec
from cluster.sweep import SweepError, run_sweep
from cli.main import app

SPEC = {"name": "tamper", "game": "paws", "rules": "v4", "seed": 21, "games_per_cell": 30, "batch_size": 8,
        "grid": {"players": [2, 4]}}
runner = CliRunner()
# every test here plays on the embedded Ray (the clean sweep and the copies it repairs: tests/cluster/conftest.py)
pytestmark = pytest.mark.usefixtures("ray_local")


@pytest.fixture(scope="module")
def spec():
    return parse_spec(SPEC, source="tamper.toml")


def visible_parts(out: Path) -> list[str]:
    """The part files a query sees (the glob skips hidden folders such as .quarantine)."""
    return sorted(str(p.relative_to(out)) for p in out.glob("*/*/*.parquet"))


def assert_same_as_clean(out: Path, clean: Path) -> None:
    """The same visible parts as the clean sweep, each with the same rows and content checksum; queries agree."""
    assert visible_parts(out) == visible_parts(clean)
    for rel in visible_parts(clean):
        a, b = pq.ParquetFile(out / rel), pq.ParquetFile(clean / rel)
        assert a.metadata.metadata[CHECKSUM_KEY.encode()] == b.metadata.metadata[CHECKSUM_KEY.encode()], rel
        assert a.read().replace_schema_metadata(None).equals(b.read().replace_schema_metadata(None)), rel
    q = ("SELECT cell, count(*), count(DISTINCT game_index), sum(rounds) FROM read_parquet('{}/games/*/*.parquet', "
         "hive_partitioning = true) GROUP BY cell ORDER BY cell")
    assert duckdb.sql(q.format(out)).fetchall() == duckdb.sql(q.format(clean)).fetchall()
    assert not [p for p in out.rglob("*") if ".tmp" in p.name]
    man = load_manifest(out)
    assert man["state"] == "done"
    parts = [p for c in man["cells"] for p in c["parts"]]
    assert all(p["state"] == "done" and set(p["files"]) == {"games"} for p in parts)
    assert [(p["batch"], p["first_game"], p["games"], p["rows"]) for p in man["cells"][1]["parts"]] == \
        [(0, 0, 8, 8), (1, 8, 8, 8), (2, 16, 8, 8), (3, 24, 6, 6)]
    for c in man["cells"]:                        # the manifest's file checksums are the files' own
        for p in c["parts"]:
            f = p["files"]["games"]
            data = part_path(out, "games", c["id"], p["batch"]).read_bytes()
            import hashlib
            assert (f["bytes"], f["sha256"]) == (len(data), hashlib.sha256(data).hexdigest())


def resume(spec, out) -> tuple[list, list[str], object]:
    """--resume: (parts played, lines logged, summary)."""
    played, lines = [], []
    s = run_sweep(spec, out, resume=True, progress=False, on_part=lambda c, b: played.append((c, b)),
                  log=lines.append)
    return sorted(played), lines, s


def status_verify(out) -> tuple[int, str]:
    res = runner.invoke(app, ["status", str(out), "--verify", "--no-cells"])
    return res.exit_code, " ".join(res.output.split())


def quarantined(out: Path) -> list[str]:
    q = out / ".quarantine"
    return sorted(str(p.relative_to(next(q.iterdir()))) for p in q.rglob("*") if p.is_file()) if q.exists() else []


def rewrite(path: Path, table: pa.Table, metadata: dict[bytes, bytes]) -> None:
    pq.write_table(table.replace_schema_metadata(metadata), path, compression="zstd")


# ---- parts ---------------------------------------------------------------------------------------------------

def test_a_clean_sweep_verifies_whole(clean):
    code, text = status_verify(clean)
    assert code == 0, text
    assert "parts ok 8; files missing 0, corrupt 0, misplaced 0, stray 0" in text and "the folder is whole" in text


def test_part_removed_from_manifest_with_its_file_is_found_missing_and_replayed(spec, clean, work):
    part_path(work, "games", "c001", 2).unlink()
    man = load_manifest(work)
    del man["cells"][1]["parts"][2]                       # the manifest no longer knows it: "100% done"
    save_manifest(work, man)
    res = runner.invoke(app, ["status", str(work), "--no-cells"])
    assert res.exit_code == 0 and "--verify" in res.output      # the manifest's view says where the truth is
    code, text = status_verify(work)
    assert code == 1, text
    assert "files missing 1," in text and "games/cell=c001/part-00002.parquet" in text
    assert "c001 part 2: no entry" in text and "parts to play" in text
    assert load_manifest(work)["cells"][1]["parts"][2]["state"] == "pending"      # corrected by --verify
    played, lines, _ = resume(spec, work)
    assert played == [("c001", 2)]
    assert_same_as_clean(work, clean)
    assert status_verify(work)[0] == 0


def test_truncated_part_is_quarantined_and_replayed(spec, clean, work):
    p = part_path(work, "games", "c000", 1)
    data = p.read_bytes()
    p.write_bytes(data[: len(data) // 2])
    played, lines, summary = resume(spec, work)
    text = "\n".join(lines)
    assert played == [("c000", 1)]
    assert "games/cell=c000/part-00001.parquet: not a readable Parquet file" in text
    assert "moved 1 file(s) to .quarantine/" in text and "c000 part 1: was done; its files are missing or bad" in text
    assert quarantined(work) == ["games/cell=c000/part-00001.parquet"]
    q = next((work / ".quarantine").iterdir()) / "games/cell=c000/part-00001.parquet"
    assert q.read_bytes() == data[: len(data) // 2]                 # moved aside, never deleted
    assert summary.verify.corrupt and summary.parts == 1
    assert_same_as_clean(work, clean)


def test_part_metadata_edited_in_valid_parquet_is_replayed(spec, clean, work):
    p = part_path(work, "games", "c000", 1)
    t = pq.read_table(p)
    meta = dict(t.schema.metadata)
    meta[b"playtest.first_game"] = b"9"                          # rows and checksum untouched
    rewrite(p, t, meta)
    code, text = status_verify(work)
    assert code == 1 and "its metadata says first_game 9, games 8; the spec says first_game 8" in text
    assert "games/cell=c000/part-00001.parquet" in quarantined(work)
    played, _, _ = resume(spec, work)
    assert played == [("c000", 1)]
    assert_same_as_clean(work, clean)


def test_part_content_edited_with_its_metadata_kept_is_replayed(spec, clean, work):
    p = part_path(work, "games", "c001", 0)
    t = pq.read_table(p)
    rounds = t.column("rounds").to_pylist()
    rounds[3] += 1                                              # one value changed, metadata (checksum too) kept
    rewrite(p, t.set_column(t.schema.get_field_index("rounds"), t.schema.field("rounds"),
                            pa.array(rounds, t.schema.field("rounds").type)), t.schema.metadata)
    played, lines, _ = resume(spec, work)
    assert played == [("c001", 0)]
    assert any("its rows do not match their content checksum" in line for line in lines)
    assert_same_as_clean(work, clean)


def test_a_part_written_before_an_engine_option_existed_is_kept_named_and_upgraded(spec, clean, work):
    """A whole, checksummed part of the same games that lacks the dice_stream column (written before the
    engine option existed): verify keeps it and says so, --resume refuses (its new parts would have the
    column: two schemas) naming playtest upgrade, which adds the column at its default; then the folder is
    the clean sweep again and resumes."""
    from cluster.part import encode_part
    p = part_path(work, "games", "c000", 1)
    t = pq.read_table(p)
    meta = {k.decode(): v.decode() for k, v in t.schema.metadata.items() if k.startswith(b"playtest.")}
    data = encode_part(t.drop_columns(["dice_stream"]).replace_schema_metadata(None), meta).to_pybytes()
    p.write_bytes(data)
    man = load_manifest(work)                       # as that older playtest's manifest listed it
    part = man["cells"][0]["parts"][1]
    import hashlib
    part["bytes"] += len(data) - part["files"]["games"]["bytes"]
    part["files"]["games"] = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    save_manifest(work, man)
    code, text = status_verify(work)
    assert code == 0 and "1 whole part file(s) were written before the record column(s) dice_stream" in text, text
    assert "games/cell=c000/part-00001.parquet" in text and "playtest upgrade" in text and not quarantined(work)
    with pytest.raises(SweepError, match=r"1 part file\(s\) were written by an older playtest, before the record "
                                         r"column\(s\) dice_stream existed .*playtest upgrade"):
        resume(spec, work)
    res = runner.invoke(app, ["upgrade", str(work)])
    assert res.exit_code == 0, res.output
    played, lines, _ = resume(spec, work)
    assert played == [] and not quarantined(work)
    assert_same_as_clean(work, clean)


def test_stray_files_are_quarantined_and_listed_not_counted(spec, clean, work):
    src = part_path(work, "games", "c000", 0)
    shutil.copy(src, work / "games" / "cell=c000" / "extra.parquet")      # counted in every answer before
    (work / "games" / "cell=c999").mkdir()
    shutil.copy(src, work / "games" / "cell=c999" / "part-00000.parquet")
    shutil.copy(src, work / "games" / "cell=c000" / "part-00004.parquet")  # beyond the cell's 4 parts
    (work / "notes.txt").write_text("mine")
    code, text = status_verify(work)
    assert code == 1, text
    for rel in ("games/cell=c000/extra.parquet", "games/cell=c000/part-00004.parquet", "games/cell=c999", "notes.txt"):
        assert rel in text
    assert "moved 4 file(s) to .quarantine/" in text and "parts ok 8;" in text
    assert quarantined(work) == ["games/cell=c000/extra.parquet", "games/cell=c000/part-00004.parquet",
                                 "games/cell=c999/part-00000.parquet", "notes.txt"]
    assert status_verify(work)[0] == 0                         # whole now; nothing was played
    played, _, summary = resume(spec, work)
    assert played == [] and summary.parts_skipped == 8
    assert_same_as_clean(work, clean)


def test_misplaced_parts_another_cell_or_batch_are_quarantined_and_the_right_ones_replayed(spec, clean, work):
    shutil.copy(part_path(work, "games", "c000", 0), part_path(work, "games", "c001", 0))   # another cell's part
    os.replace(part_path(work, "games", "c000", 2), part_path(work, "games", "c000", 3))   # renamed batch 2 -> 3
    played, lines, summary = resume(spec, work)
    text = "\n".join(lines)
    assert "games/cell=c001/part-00000.parquet: holds games of cell c000, part 0, not games of c001, part 0" in text
    assert "games/cell=c000/part-00003.parquet: holds games of cell c000, part 2" in text
    assert "games/cell=c000/part-00002.parquet" in text                  # missing
    assert played == [("c000", 2), ("c000", 3), ("c001", 0)]
    assert quarantined(work) == ["games/cell=c000/part-00003.parquet", "games/cell=c001/part-00000.parquet"]
    assert_same_as_clean(work, clean)


def test_a_part_of_another_sweep_at_a_part_name_is_misplaced(spec, clean, work, tmp_path):
    other = tmp_path / "other"
    run_sweep(parse_spec({**SPEC, "seed": 22}, source="other.toml"), other, progress=False)
    shutil.copy(part_path(other, "games", "c000", 1), part_path(work, "games", "c000", 1))
    played, lines, _ = resume(spec, work)
    assert played == [("c000", 1)] and any("a part of another sweep" in line for line in lines)
    assert_same_as_clean(work, clean)


# ---- the manifest ----------------------------------------------------------------------------------------------

def test_manifest_first_game_games_and_batch_edited_are_ignored_and_corrected(spec, clean, work):
    man = load_manifest(work)
    man["cells"][0]["parts"][1]["first_game"] = 9
    man["cells"][0]["parts"][2]["games"] = 5
    man["cells"][1]["parts"][3]["batch"] = 7
    man["cells"][1]["parts"][0].update(state="pending", rows=0, bytes=0, files={})
    save_manifest(work, man)
    played, lines, _ = resume(spec, work)
    text = "\n".join(lines)
    assert played == []                                          # the files were right all along
    assert "c000 part 1: first_game was 9; the spec says 8" in text and "c000 part 2: games was 5" in text
    assert "c001 part 3: batch was 7" in text and "c001 part 0: was pending; whole on disk" in text
    assert_same_as_clean(work, clean)


@pytest.mark.parametrize("field, value", [("games", "8"), ("state", "finished"), ("files", [])])
def test_manifest_field_of_the_wrong_type_is_one_line_then_resume_rebuilds_it(spec, clean, work, field, value):
    raw = json.loads((work / "manifest.json").read_text())
    raw["cells"][1]["parts"][2][field] = value
    (work / "manifest.json").write_text(json.dumps(raw))
    for args in (["status", str(work)], ["status", str(work), "--verify"]):
        res = runner.invoke(app, args)
        lines = [line for line in res.stderr.splitlines() if line.strip()]
        assert res.exit_code == 2 and len(lines) == 1 and "Traceback" not in res.output, res.output
        assert f"cells[1].parts[2].{field}" in lines[0] and "--resume" in lines[0]
    with pytest.raises(SweepError, match=r"cells\[1\]\.parts\[2\].*pass --resume to rebuild it"):
        run_sweep(spec, work, progress=False)
    played, lines, summary = resume(spec, work)
    assert played == [] and summary.verify.manifest_rebuilt.startswith("unreadable")
    assert quarantined(work) == ["manifest.json"]              # the broken one is kept aside
    assert_same_as_clean(work, clean)


def test_manifest_deleted_resume_rebuilds_it_from_the_spec_and_the_parts(spec, clean, work):
    (work / "manifest.json").unlink()
    part_path(work, "games", "c001", 3).unlink()
    res = runner.invoke(app, ["status", str(work)])
    assert res.exit_code == 2 and "no sweep here" in res.output
    with pytest.raises(SweepError, match="not empty and holds no sweep manifest.*--resume"):
        run_sweep(spec, work, progress=False)
    played, lines, summary = resume(spec, work)
    assert played == [("c001", 3)] and summary.verify.manifest_rebuilt == "missing"
    assert any("manifest: missing; rebuilt from the spec" in line for line in lines)
    assert_same_as_clean(work, clean)


def test_without_a_manifest_parts_of_another_sweep_are_refused_not_quarantined(spec, work):
    (work / "manifest.json").unlink()
    other = parse_spec({**SPEC, "seed": 99}, source="other.toml")
    with pytest.raises(SweepError, match="holds parts of another sweep .* Choose another --out"):
        run_sweep(other, work, resume=True, progress=False)
    assert not (work / ".quarantine").exists() and len(visible_parts(work)) == 8


def test_status_prints_markup_in_names_and_paths_as_written(clean, tmp_path):
    out = tmp_path / "res[/x]"
    shutil.copytree(clean, out)
    man = load_manifest(out)
    man["name"] = "[/x] [bold]evil"
    man["cells"][0]["values"] = {"players": "[red]2"}
    save_manifest(out, man)
    res = runner.invoke(app, ["status", str(out)])
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert "'[/x] [bold]evil'" in text and "players=[red]2" in text and "res[/x]" in text


# ---- refusals and failures ------------------------------------------------------------------------------------

def test_sweeps_are_never_nested(spec, clean, tmp_path):
    with pytest.raises(SweepError, match="inside the results folder of another sweep"):
        run_sweep(spec, clean / "games" / "inner", progress=False)
    assert not (clean / "games" / "inner").exists()
    outer = tmp_path / "outer"
    shutil.copytree(clean, outer / "a" / "sweep")
    with pytest.raises(SweepError, match="holds another sweep's results below it"):
        run_sweep(spec, outer, resume=True, progress=False)


def test_a_sweep_inside_a_sweeps_folder_is_refused_not_quarantined(spec, work, clean):
    shutil.copytree(clean, work / "games" / "cell=c000" / "nested")
    with pytest.raises(SweepError, match="holds another sweep's results below it .*nested/manifest.json"):
        run_sweep(spec, work, resume=True, progress=False)
    assert not (work / ".quarantine").exists()


def test_a_failed_manifest_save_leaves_no_temporary_file_and_is_one_line(work, monkeypatch):
    import sim.files    # the manifest is written by its one atomic writer, with fsync

    def full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(sim.files.os, "fsync", full)
    man = load_manifest(work)
    with pytest.raises(ManifestError) as e:
        save_manifest(work, man)
    assert "cannot save the sweep manifest (No space left on device)" in str(e.value) and "\n" not in str(e.value)
    assert not [p for p in work.iterdir() if ".tmp" in p.name]
    assert load_manifest(work)["state"] == "done"                 # the old manifest is still there, whole


def test_a_sweep_below_a_stray_folder_stops_status_verify_in_one_line(work, clean):
    shutil.copytree(clean, work / "games" / "cell=c000" / "nested")
    res = runner.invoke(app, ["status", str(work), "--verify"])
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert res.exit_code == 2 and len(lines) == 1, res.output
    assert "nested/manifest.json is another sweep's manifest inside this sweep's folder" in " ".join(res.output.split())
    assert not (work / ".quarantine").exists()


def test_every_table_of_a_part_is_checked(ray_local, tmp_path):
    """Tales writes two tables per part: a lost or swapped cards file makes its part play again."""
    tales = parse_spec({"name": "tales", "game": "tales", "seed": 4, "games_per_cell": 6, "batch_size": 3,
                        "tables": ["games", "cards"], "grid": {"mode": ["standard", "survive"]}}, source="tales.toml")
    clean, out = tmp_path / "clean", tmp_path / "out"
    run_sweep(tales, clean, progress=False)
    shutil.copytree(clean, out)
    part_path(out, "cards", "c001", 1).unlink()
    shutil.copy(part_path(out, "cards", "c000", 0), part_path(out, "games", "c000", 0))   # a cards file as games
    played, lines, _ = resume(tales, out)
    assert played == [("c000", 0), ("c001", 1)]
    assert any("games/cell=c000/part-00000.parquet: holds cards of cell c000, part 0, not games" in x for x in lines)
    assert visible_parts(out) == visible_parts(clean) and len(visible_parts(out)) == 8
    for rel in visible_parts(clean):
        assert pq.read_table(out / rel).replace_schema_metadata(None).equals(
            pq.read_table(clean / rel).replace_schema_metadata(None)), rel
    man = load_manifest(out)
    assert all(set(p["files"]) == {"games", "cards"} for c in man["cells"] for p in c["parts"])
