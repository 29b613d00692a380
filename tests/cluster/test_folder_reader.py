"""One bounded reader for every results folder (infra.folder): each hostile folder below was seen to hang, fill memory,
crash (exit 3) or answer from parts the sweep did not write; every command that reads a results folder now
refuses it in one line (exit 2), and answers come only from parts whose bytes the signed manifest vouches for.

Each test copies one clean sweep (2 cells x 30 games in parts of 8), damages it as an attacker with write access
to the folder would, and runs the commands a designer runs on it.
"""

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from budget import thin
from typer.testing import CliRunner

from cli.main import app
from cluster.manifest import load_manifest, save_manifest
from cluster.part import CHECKSUM_KEY, content_sha256
from cluster.spec import MAX_CELLS, MAX_PARTS, parse_spec
from cluster.sweep import run_sweep
from infra import folder

ROOT = Path(__file__).resolve().parents[2]
SPEC = {"name": "reader", "game": "paws", "rules": "v4", "seed": 21, "games_per_cell": 30, "batch_size": 8,
        "grid": {"players": [2, 4]}}
runner = CliRunner()
PART = "games/cell=c000/part-00001.parquet"


@pytest.fixture(scope="module")
def spec():
    return parse_spec(SPEC, source="reader.toml")


def cli(*args):
    return runner.invoke(app, [str(a) for a in args])


def one_line(res, *needles) -> str:
    """Exit 2 and one line on stderr naming what is wrong; no traceback."""
    lines = [x for x in res.stderr.splitlines() if x.strip()]
    assert res.exit_code == 2, (res.exit_code, res.output)
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in res.output, res.output
    for n in needles:
        assert n in lines[0], (n, lines[0])
    return lines[0]


def answer(out) -> list:
    res = cli("sql", "SELECT cell, count(*) n, sum(winner_seat) w FROM games GROUP BY cell ORDER BY cell",
              "--results", out, "--format", "json", "--read-only")
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


READERS = [("query", "end_reasons", "--results", "{d}"), ("compare", "{d}", "--by", "players"),
           ("report", "{d}", "--out", "{t}/r.html"), ("status", "{d}"), ("upgrade", "{d}"),
           ("play", "paws", "--from", "{d}", "--cell", "c000", "--game-index", "0")]


def every_reader(out: Path, tmp: Path, *needles, skip=()):
    for args in READERS:
        if args[0] in skip:
            continue
        one_line(cli(*[a.format(d=out, t=tmp) for a in args]), *needles)


def run_bounded(args, timeout=60):
    """The CLI in a child process (a read that blocks would hang the test itself): (exit code, stderr)."""
    proc = subprocess.run([sys.executable, "-c", "from cli.main import app; app()", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)
    return proc.returncode, proc.stderr


# ---- the manifest as a file ------------------------------------------------------------------------------------

def test_limits_are_the_specs(spec):
    assert (folder.MAX_CELLS, folder.MAX_PARTS) == (MAX_CELLS, MAX_PARTS)


def test_a_manifest_linked_to_dev_zero_is_refused_by_every_reader(work, tmp_path):
    (work / "manifest.json").unlink()
    (work / "manifest.json").symlink_to("/dev/zero")
    every_reader(work, tmp_path, "manifest.json")


def test_a_manifest_linked_out_of_the_folder_is_refused(work, tmp_path):
    outside = tmp_path / "elsewhere.json"
    outside.write_bytes((work / "manifest.json").read_bytes())
    (work / "manifest.json").unlink()
    (work / "manifest.json").symlink_to(outside)
    every_reader(work, tmp_path, "a symbolic link out of the results folder")


def test_a_manifest_over_the_cap_is_refused_before_it_is_read(work, tmp_path):
    with open(work / "manifest.json", "ab") as f:        # sparse: 1 GiB that costs no disk
        f.truncate(2**30)
    every_reader(work, tmp_path, "1,073,741,824 bytes; a sweep manifest is at most")


@pytest.mark.parametrize("what", ["manifest.json", pytest.param(PART, marks=pytest.mark.slow)])
def test_a_fifo_never_blocks_a_reader(work, what):
    (work / what).unlink()
    os.mkfifo(work / what)
    readers = [["query", "end_reasons", "--results", work], ["upgrade", work], ["compare", work, "--by", "players"]]
    for args in readers + ([["status", work]] if what == "manifest.json" else []):
        code, err = run_bounded(args)
        lines = [x for x in err.splitlines() if x.strip()]
        assert code == 2 and len(lines) == 1 and "FIFO" in lines[0], (args, code, err)
    if what == PART:              # --verify names it and moves it aside (the manifest's view never opens it)
        code, err = run_bounded(["status", work, "--verify", "--no-cells"])
        assert code == 1 and not os.path.lexists(work / PART), err


def test_deep_nesting_and_a_huge_cell_id_are_one_line(work, tmp_path):
    raw = json.loads((work / "manifest.json").read_text())
    (work / "manifest.json").write_text('{"format": 1, "cells": ' + "[" * 100_000 + "]" * 100_000 + "}")
    every_reader(work, tmp_path, "nest more than 32 deep")
    raw["spec"]["grid"]["players"] = json.loads("[" * 40 + "2" + "]" * 40)     # deeper than any manifest
    (work / "manifest.json").write_text(json.dumps(raw))
    every_reader(work, tmp_path, "nest more than 32 deep")
    raw["spec"]["grid"]["players"] = [2, 4]
    raw["cells"][0]["id"] = "c" * 100_000
    (work / "manifest.json").write_text(json.dumps(raw))
    every_reader(work, tmp_path, "is not a cell id")


# ---- the manifest's content ------------------------------------------------------------------------------------

def test_a_part_removed_from_the_manifest_is_not_a_smaller_sweep(work, tmp_path):
    raw = json.loads((work / "manifest.json").read_text())
    del raw["cells"][1]["parts"][3]           # its file kept: the query would answer from 52 of 60 games
    raw.pop("signature")
    (work / "manifest.json").write_text(json.dumps(raw))
    one_line(cli("query", "end_reasons", "--results", work), "cell c001 (cells[1]): 3 part entries; the sweep "
             "has 4 per cell")
    res = cli("status", work, "--no-cells")
    assert res.exit_code == 0 and "3 part entries" in res.stderr and "status --verify" in res.stderr


def test_a_manifest_edited_after_it_was_signed_is_refused_then_verify_rebuilds_it(work, clean):
    raw = json.loads((work / "manifest.json").read_text())
    raw["cells"][1]["parts"][2]["state"] = "pending"          # its signature kept, as the last field
    (work / "manifest.json").write_text(json.dumps(raw))
    one_line(cli("query", "end_reasons", "--results", work), "its signature does not match its content",
             "status --verify")
    assert cli("status", work, "--verify", "--no-cells").exit_code == 1       # rebuilt from the spec and the parts
    assert load_manifest(work).signature == folder.UNSIGNED                  # a sample of each part is not proof
    res = cli("status", work, "--verify", "--full", "--no-cells")            # every game played again: signed
    assert res.exit_code == 0 and "now signed with this machine's key" in res.output, res.output
    assert load_manifest(work).signature == folder.SIGNED
    assert answer(work) == answer(clean)


def test_a_part_state_that_is_no_state_is_refused(work, tmp_path):
    man = load_manifest(work)
    man["cells"][0]["parts"][2]["state"] = "bogus"
    save_manifest(work, man)                                 # even signed: not a manifest playtest wrote
    every_reader(work, tmp_path, "cells[0].parts[2].state = 'bogus'", skip=("status", "play", "report"))


# ---- the parts -------------------------------------------------------------------------------------------------

def test_a_part_copied_over_another_of_the_same_size_is_refused(work):
    a, b = work / PART, work / "games/cell=c001/part-00001.parquet"
    data = b.read_bytes()[: a.stat().st_size]
    a.write_bytes(data.ljust(a.stat().st_size, b"\0"))       # another part's bytes at this part's size
    one_line(cli("query", "end_reasons", "--results", work), PART, "differ from what the sweep wrote")


def test_an_edit_after_a_cached_check_is_still_seen(work, clean):
    assert answer(work) == answer(clean)                      # hashed once, remembered outside the folder
    p = work / PART
    st, data = p.stat(), bytearray(p.read_bytes())
    data[len(data) // 2] ^= 0xFF
    p.write_bytes(bytes(data))
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))          # size and mtime as before: the ctime still moves
    one_line(cli("query", "end_reasons", "--results", work), PART, "differ from what the sweep wrote")


def forge(path: Path) -> None:
    """Every game won by the first seat, the part's own content checksum recomputed: a careful forgery."""
    pf = pq.ParquetFile(path)
    meta = dict(pf.metadata.metadata)
    table = pf.read().replace_schema_metadata(None)
    i = table.column_names.index("winner_seat")
    table = table.set_column(i, table.field(i), pa.array([0] * table.num_rows, table.field(i).type))
    meta[CHECKSUM_KEY.encode()] = content_sha256(table).encode()
    pq.write_table(table.replace_schema_metadata(meta), path, compression="zstd")


def test_a_forged_part_is_never_an_answer_and_verify_replays_it(work, clean, spec):
    forge(work / PART)
    one_line(cli("query", "end_reasons", "--results", work), PART)
    man = json.loads((work / "manifest.json").read_text())   # the forger fixes the manifest's size and SHA-256 too
    entry = man["cells"][0]["parts"][1]["files"]["games"]
    data = (work / PART).read_bytes()
    entry.update(bytes=len(data), sha256=hashlib.sha256(data).hexdigest())
    (work / "manifest.json").write_text(json.dumps(man))     # ... keeping the old signature: it no longer matches
    one_line(cli("query", "end_reasons", "--results", work), "its signature does not match")
    (work / "manifest.json").write_bytes((clean / "manifest.json").read_bytes())    # or the original manifest back
    res = cli("status", work, "--verify", "--no-cells")
    text = " ".join(res.output.split())
    assert res.exit_code == 1 and "corrupt 1" in text and "differ from what the sweep wrote" in text, text
    assert not (work / PART).exists()                          # quarantined, played again on --resume
    run_sweep(spec, work, resume=True, progress=False)
    assert (work / PART).read_bytes() == (clean / PART).read_bytes()
    assert answer(work) == answer(clean)


def test_a_planted_quarantine_link_moves_nothing_out(work, tmp_path):
    away = tmp_path / "away"
    away.mkdir()
    (work / "stray.txt").write_text("not a part")
    (work / ".quarantine").symlink_to(away)
    res = cli("status", work, "--verify", "--no-cells")
    assert res.exit_code == 2 and "a symbolic link, not the sweep's quarantine folder" in res.output, res.output
    assert list(away.iterdir()) == [] and (work / "stray.txt").exists()


@pytest.mark.parametrize("name", thin(["sweep[1]", "what?", "all*", "a]b["]))
def test_a_folder_named_like_a_pattern_is_read_as_a_folder(clean, tmp_path, name):
    out = tmp_path / name
    shutil.copytree(clean, out)
    assert answer(out) == answer(clean)
    res = cli("report", out, "--out", tmp_path / "r.html")
    assert res.exit_code == 0, res.output


@pytest.mark.parametrize("manifest", ["edited to match", "unsigned"])
def test_a_forged_part_with_a_manifest_to_match_is_caught_by_a_replay(work, clean, spec, manifest):
    forge(work / PART)
    man = json.loads((work / "manifest.json").read_text())
    entry = man["cells"][0]["parts"][1]["files"]["games"]
    data = (work / PART).read_bytes()
    entry.update(bytes=len(data), sha256=hashlib.sha256(data).hexdigest())
    if manifest == "unsigned":
        man.pop("signature")
    (work / "manifest.json").write_text(json.dumps(man))
    res = cli("status", work, "--verify", "--full", "--no-cells")       # every game: the forgery cannot hide
    text = " ".join(res.output.split())
    assert res.exit_code == 1 and "corrupt 1" in text, text
    assert f"{PART}: game " in text and "differs from a replay of it in winner_seat" in text, text
    assert "8 whole part(s) that no signed manifest lists: every game of each played again" in text, text
    assert "now signed with this machine's key" in text, text
    run_sweep(spec, work, resume=True, progress=False)
    assert answer(work) == answer(clean)
    assert load_manifest(work).signature == folder.SIGNED


def test_a_replay_agrees_with_every_untouched_part(work):
    man = json.loads((work / "manifest.json").read_text())
    man.pop("signature")
    (work / "manifest.json").write_text(json.dumps(man))
    res = cli("status", work, "--verify", "--no-cells")
    text = " ".join(res.output.split())
    assert res.exit_code == 0 and "corrupt 0" in text and "8 whole part(s) that no signed manifest lists" in text, text
