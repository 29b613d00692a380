"""What a signature proves: ``status --verify`` signs a folder only when every part it lists is vouched for by this
machine (a signed manifest's SHA-256, or every game played again here), and the games a sampled verify plays again
are drawn afresh, so nobody who edits a folder can know them; ``upgrade`` and ``status --verify`` refuse in one line
what they cannot read, and open no file an unvouched manifest names outside its folder.

The forgery is the one a careful attacker makes: every game of both parts given to the first player, sparing the
games an earlier verify replayed (a part's first game and one drawn from a seed computed from the folder), each
part's content checksum and the manifest's sizes and SHA-256 recomputed, the signature stripped.
"""

import hashlib
import json
import random
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from cli.main import app
from cluster import verify
from cluster.manifest import load_manifest, save_manifest
from cluster.part import CHECKSUM_KEY, content_sha256, part_path
from cluster.spec import parse_spec
from cluster.sweep import run_sweep
from infra import folder

SPEC = {"name": "forge", "game": "paws", "rules": "v4", "seed": 21, "games_per_cell": 60, "batch_size": 30,
        "grid": {"players": [4]}}
runner = CliRunner()


@pytest.fixture(scope="module")
def spec():
    return parse_spec(SPEC, source="forge.toml")


def cli(*args):
    res = runner.invoke(app, [str(a) for a in args])
    return res.exit_code, " ".join(res.output.split())


def first_player_wins(out: Path) -> int:
    """Games the first seat won, read from the parts (what a forgery of the first player's edge changes)."""
    t = pq.read_table(out / "games")
    return sum(w == f for w, f in zip(t["winner_seat"].to_pylist(), t["first_seat"].to_pylist()))


def predictable(spec, batch: int) -> set[int]:
    """The games the earlier verify replayed of a part: its first, and one drawn from the spec digest, cell and batch."""
    first, games = spec.part_games(batch)
    return {first, first + random.Random(f"{spec.digest}/c000/{batch}").randrange(games)}


def rewrite(out: Path, batch: int, edit) -> None:
    """Part ``batch``'s rows as ``edit(table)`` makes them, its content checksum and the manifest's size and SHA-256
    recomputed to match, the signature stripped: only a replay of its games can tell."""
    path = part_path(out, "games", "c000", batch)
    pf = pq.ParquetFile(path)
    meta = dict(pf.metadata.metadata)
    table = edit(pf.read().replace_schema_metadata(None))
    meta[CHECKSUM_KEY.encode()] = content_sha256(table).encode()
    pq.write_table(table.replace_schema_metadata(meta), path, compression="zstd")
    man = json.loads((out / "manifest.json").read_text())
    man.pop("signature", None)
    part = man["cells"][0]["parts"][batch]
    data = path.read_bytes()
    part["bytes"] += len(data) - part["files"]["games"]["bytes"]
    part["files"]["games"] = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    (out / "manifest.json").write_text(json.dumps(man))


def give_to_first_player(spared: set[int]):
    def edit(table: pa.Table) -> pa.Table:
        i = table.column_names.index("winner_seat")
        won = [w if g in spared or w < 0 else f for g, w, f in zip(table["game_index"].to_pylist(),
                                                                     table["winner_seat"].to_pylist(),
                                                                     table["first_seat"].to_pylist())]
        return table.set_column(i, table.field(i), pa.array(won, table.field(i).type))
    return edit


def forge(out: Path, spec) -> None:
    for batch in range(2):
        rewrite(out, batch, give_to_first_player(predictable(spec, batch)))


class Unlucky:
    """A draw that picks the games the forger spared (the worst case a sample can meet)."""

    def __init__(self, spared: set[int]):
        self.spared = spared

    def sample(self, population, k):
        return [g for g in population if g in self.spared][:k]


# ---- a sampled verify never signs -----------------------------------------------------------------------------

def test_a_forgery_that_spares_the_sampled_games_is_never_signed(work, clean, spec, monkeypatch):
    forge(work, spec)
    assert first_player_wins(work) > first_player_wins(clean) + 20       # the forgery moves the answer
    monkeypatch.setattr(verify, "_DRAW", Unlucky(predictable(spec, 0) | predictable(spec, 1)), raising=False)
    code, text = cli("status", work, "--verify", "--no-cells")
    assert code == 0, text                                  # the sample found nothing wrong ...
    assert "now signed" not in text and "left unsigned: a sample is not proof" in text, text
    assert "2 whole part(s) that no signed manifest lists: 2 games of each, drawn at random" in text, text
    assert "the folder is whole" not in text and "vouched for by a sample only" in text, text
    assert load_manifest(work).signature == folder.UNSIGNED            # ... so the folder is not vouched for
    res = runner.invoke(app, ["query", "first_player_advantage", "--results", str(work)])
    assert res.exit_code == 0 and "carries no signature" in res.stderr, res.output   # every answer says so


def test_a_full_verify_plays_every_game_and_quarantines_the_forgery(work, clean, spec):
    forge(work, spec)
    code, text = cli("status", work, "--verify", "--full", "--no-cells")
    assert code == 1 and "parts ok 0; files missing 0, corrupt 2" in text, text
    for batch in range(2):
        assert f"games/cell=c000/part-0000{batch}.parquet: game " in text, text
    assert text.count("differs from a replay of it in winner_seat") == 2, text
    assert not (work / "games/cell=c000/part-00000.parquet").exists()        # quarantined: --resume plays them
    run_sweep(spec, work, resume=True, progress=False, driver_plays=True)
    assert load_manifest(work).signature == folder.SIGNED                  # every part written here
    assert first_player_wins(work) == first_player_wins(clean)


def test_only_a_full_verify_signs_a_folder_that_came_unsigned(work):
    man = json.loads((work / "manifest.json").read_text())
    man.pop("signature")
    (work / "manifest.json").write_text(json.dumps(man))
    code, text = cli("status", work, "--verify", "--no-cells")
    assert code == 0 and "left unsigned" in text, text
    assert load_manifest(work).signature == folder.UNSIGNED
    code, text = cli("status", work, "--verify", "--full", "--no-cells")
    assert code == 0 and "2 whole part(s) that no signed manifest lists: every game of each played again" in text
    assert "now signed with this machine's key" in text and "the folder is whole" in text, text
    assert load_manifest(work).signature == folder.SIGNED
    code, text = cli("status", work, "--verify", "--no-cells")            # signed: nothing left to replay
    assert code == 0 and "played again" not in text and "the folder is whole" in text, text


def test_full_is_refused_without_verify(work):
    code, text = cli("status", work, "--full")
    assert code == 2 and "--full: only with --verify" in text, text


@pytest.mark.slow
def test_the_games_a_sample_replays_are_drawn_afresh_on_every_verify(work, spec):
    """One game of 30 edited, not one a verify could be known to pick: some of 200 sampled replays draw it (each
    does with chance 1/15; missing it 200 times has chance 1e-6), not all do; every full replay finds it."""
    edited = next(g for g in range(30) if g not in predictable(spec, 0))

    def one_more_round(table: pa.Table) -> pa.Table:
        i = table.column_names.index("rounds")
        rounds = [r + (g == edited) for g, r in zip(table["game_index"].to_pylist(), table["rounds"].to_pylist())]
        return table.set_column(i, table.field(i), pa.array(rounds, table.field(i).type))
    rewrite(work, 0, one_more_round)
    read = verify.local_reader(work)
    found = [verify.replay_differs(spec, "c000", 0, read, verify.REPLAY_SAMPLE) for _ in range(200)]
    caught = [w for w in found if w is not None]
    assert 0 < len(caught) < len(found)
    assert set(caught) == {f"game {edited} differs from a replay of it in rounds (its rows were edited)"}
    assert verify.replay_differs(spec, "c000", 0, read) == caught[0]
    assert verify.replay_differs(spec, "c000", 1, read) is None


def test_a_part_a_signed_manifest_lists_as_pending_is_played_again_in_full(work, clean, spec, monkeypatch):
    """An older signed manifest put back, listing part 1 as pending (a part finished after the driver's last save, or
    a forged one): every game of that part is played again, whatever a sample would draw."""
    rewrite(work, 1, give_to_first_player(predictable(spec, 1)))
    man = load_manifest(clean)
    man["cells"][0]["parts"][1].update(state="pending", rows=0, bytes=0, files={})
    save_manifest(work, man)                                # signed here, as the driver's last save before part 1
    monkeypatch.setattr(verify, "_DRAW", Unlucky(predictable(spec, 1)), raising=False)
    code, text = cli("status", work, "--verify", "--no-cells")
    assert code == 1 and "corrupt 1" in text and "part-00001.parquet: game " in text, text
    assert "1 whole part(s) that no signed manifest lists: every game of each played again" in text, text
    assert load_manifest(work).signature == folder.SIGNED                  # what is left is vouched for


def test_resume_keeps_a_folder_that_only_a_sample_vouched_for_unsigned(work, clean, spec):
    man = json.loads((work / "manifest.json").read_text())
    man.pop("signature")
    (work / "manifest.json").write_text(json.dumps(man))
    part_path(work, "games", "c000", 1).unlink()
    lines = []
    run_sweep(spec, work, resume=True, progress=False, driver_plays=True, log=lines.append)
    text = " ".join(lines)
    assert "the manifest is not signed: 1 whole part(s) are vouched for by a sample" in text, text
    assert load_manifest(work).signature == folder.UNSIGNED
    assert first_player_wins(work) == first_player_wins(clean)


# ---- upgrade -------------------------------------------------------------------------------------------------

def test_upgrade_over_a_truncated_part_is_one_line(work):
    p = part_path(work, "games", "c000", 1)
    p.write_bytes(p.read_bytes()[:1000])
    res = runner.invoke(app, ["upgrade", str(work)])
    assert res.exit_code == 2, res.output
    assert "part-00001.parquet: does not match the manifest's checksum" in res.stderr, res.stderr
    assert len(res.stderr.strip().splitlines()) == 1 and "Traceback" not in res.output
    rewrite_entry = json.loads((work / "manifest.json").read_text())      # a manifest edited to match the stub
    rewrite_entry.pop("signature")
    data = p.read_bytes()
    rewrite_entry["cells"][0]["parts"][1]["files"]["games"] = {"bytes": len(data),
                                                               "sha256": hashlib.sha256(data).hexdigest()}
    (work / "manifest.json").write_text(json.dumps(rewrite_entry))
    res = runner.invoke(app, ["upgrade", str(work)])
    assert res.exit_code == 2, res.output
    assert "part-00001.parquet: not a readable part file" in res.stderr and "status --verify" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


def test_upgrade_signs_only_what_this_machine_vouched_for(work, spec):
    rewrite(work, 0, give_to_first_player(set()))           # unsigned, its own checksums recomputed
    res = runner.invoke(app, ["upgrade", str(work)])
    assert res.exit_code == 0, res.output
    assert load_manifest(work).signature == folder.UNSIGNED               # still only the folder's own word


def test_upgrade_refuses_an_edited_part_of_a_signed_sweep(work):
    p = part_path(work, "games", "c000", 0)
    data = bytearray(p.read_bytes())
    data[len(data) // 2] ^= 0xFF
    p.write_bytes(bytes(data))
    res = runner.invoke(app, ["upgrade", str(work)])        # every part has its columns: it would be skipped
    assert res.exit_code == 2 and "part-00000.parquet: does not match the manifest's checksum" in res.stderr


# ---- no file an unvouched manifest names outside its folder is opened (opened: tests/cluster/conftest.py) ------

def _names_a_file(work: Path, where: str, secret: Path) -> None:
    man = json.loads((work / "manifest.json").read_text())
    man.pop("signature")
    if where == "data":
        man["spec"]["data"] = {"monsters": str(secret)}
    else:
        man["spec"]["setup"] = {"bots": f"learned:model={secret}"}
    (work / "manifest.json").write_text(json.dumps(man))


@pytest.mark.parametrize("where", ["data", "model"])
def test_verify_opens_no_file_an_unvouched_manifest_names_outside_its_folder(work, tmp_path, opened, where):
    secret = tmp_path / ("secret.toml" if where == "data" else "secret.json")
    secret.write_text("root:SECRET-HASH:19000:0:99999:7:::\n")
    _names_a_file(work, where, secret)
    opened.clear()
    res = runner.invoke(app, ["status", str(work), "--verify", "--no-cells"])
    assert res.exit_code == 2 and "outside the results folder" in res.stderr, res.output
    assert "SECRET" not in res.output and len(res.stderr.strip().splitlines()) == 1
    assert not [p for p in opened if Path(p).name == secret.name]
    res = runner.invoke(app, ["play", "--from", str(work), "--cell", "c000", "--game-index", "3"])
    assert res.exit_code == 2 and "outside the results folder" in res.stderr, res.output
    assert not [p for p in opened if Path(p).name == secret.name]


def test_a_signed_sweep_verifies_with_its_card_files_where_they_are(tmp_path):
    """A sweep this machine signed may read card files beside its spec, outside the folder; the same manifest with its
    signature stripped is refused before the file is read."""
    cards = tmp_path / "cards"
    cards.mkdir()
    shutil.copy(Path(__file__).resolve().parents[2] / "sim/paws/data/monsters.toml", cards / "monsters.toml")
    s = parse_spec({**SPEC, "games_per_cell": 30, "data": {"monsters": "cards/monsters.toml"}},
                   source=str(tmp_path / "cards.toml"), base_dir=tmp_path)
    out = tmp_path / "sweep"
    run_sweep(s, out, progress=False, driver_plays=True)
    code, text = cli("status", out, "--verify", "--no-cells")
    assert code == 0 and "the folder is whole" in text, text
    man = json.loads((out / "manifest.json").read_text())
    man.pop("signature")
    (out / "manifest.json").write_text(json.dumps(man))
    code, text = cli("status", out, "--verify", "--no-cells")
    assert code == 2 and "[data] monsters = " in text and "is outside the results folder" in text, text
