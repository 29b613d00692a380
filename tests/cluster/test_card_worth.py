"""What each card is worth (cluster/cards.py, ``playtest card-worth``; docs/card-worth.md).

Held here: each variant card file changes one number of one card or leaves one copy out, and the folder reads
each back as that variant; the holders are the seats that used the card; the paired mean and Holm's adjustment
on numbers worked by hand; a deck with one card made absurdly strong names that card too strong; the folder is
a real sweep (status --verify keeps its card files, --resume after a deleted part gives the same answer byte
for byte, an edited card file or a damaged part is refused); the answer from the folder is the one printed;
bad input in one line, exit 2.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pyarrow as pa
import pytest
from typer.testing import CliRunner

from cli.main import app
from cluster import cards as cw
from sim.games import GAMES

runner = CliRunner()


def test_each_variant_file_changes_one_card_and_the_folder_reads_it_back():
    """The variant card files change one number of one card (shields the other way round, a blank one step
    down played once) or leave one copy out; the answer's layout reads each back as the variant it is."""
    import tomllib
    from measures.card_worth import difference
    m = GAMES["tales"].resolve(None, {}, {})
    files, cells = cw.variant_files(m, ["equipment"], ["Tower Shield", "Bone Knife"])
    base = tomllib.loads(files["card-files/equipment.toml"])
    assert files["card-files/equipment.toml"] == (Path(cw.__file__).parents[1] / "sim/tales/data/equipment.toml").read_text()
    kinds = {}
    for cell in cells:
        (_, rel), = cell.items()
        doc = tomllib.loads(files[rel])
        assert doc["meta"] == base["meta"]
        before, after = {c["name"]: c for c in base["card"]}, {c["name"]: c for c in doc["card"]}
        changed = [n for n in before if before[n] != after.get(n)]
        assert len(changed) == 1, rel
        kinds[rel.split("/")[-1]] = (before[changed[0]], after.get(changed[0]))
    shield = kinds["equipment-tower-shield-up.toml"]
    assert shield[1]["block"] == shield[0]["block"] - 1                     # a lower block roll is a better shield
    assert kinds["equipment-tower-shield-blank.toml"][1]["block"] == 6
    assert kinds["equipment-bone-knife-removed.toml"][1] is None             # one copy: the card is gone
    assert "equipment-bone-knife-down.toml" not in kinds                     # damage 1: the blank is one step down
    for rel, how in (("equipment-tower-shield-up.toml", "up"), ("equipment-bone-knife-removed.toml", "removed"),
                     ("equipment-tower-shield-blank.toml", "blank")):
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            Path(tmp, "e.toml").write_text(files[f"card-files/{rel}"])
            other = GAMES["tales"].resolve(None, {}, {}, {"equipment": str(Path(tmp, "e.toml"))})
            assert difference("tales", ["equipment", "creatures"], m.data, other.data)[2] == how
    p = GAMES["paws"].resolve(None, {}, {"players": 4})
    assert {d for d, _ in cw.cards_of(p)} == {"items", "monsters"}
    dealt = {p.data.items[i].name for i in p.data.item_deck(p.rules.item_deck, p.rules.unruled_cards)}
    assert {n for d, n in cw.cards_of(p) if d == "items"} == dealt


def test_holders_are_the_seats_that_used_the_card():
    import duckdb
    table = pa.table({"game_index": [0, 0, 1, 2], "seat": [1, 2, 0, 3], "kind": ["item"] * 4,
                      "card": ["Golden Fist", "Golden Fist", "Golden Fist", "Honey Jar"], "plays": [1, 0, 2, 1]})
    con = duckdb.connect()
    con.register("cards", table)
    used = cw.deck("paws", "items").used
    got = con.execute(f"SELECT game_index, seat FROM cards WHERE card = 'Golden Fist' AND ({used})").fetchall()
    assert got == [(0, 1), (1, 0)]


def test_the_paired_mean_and_holms_adjustment_by_hand():
    base = {(0, 0): 1.0, (0, 1): 0.0, (1, 2): 0.0, (2, 0): 0.5}
    other = {(0, 0): 0.0, (0, 1): 1.0, (1, 2): 1.0, (2, 0): 0.5}
    r = cw.paired(base, other, {0: [0, 1], 1: [2], 2: [0]})
    # per game: (-1 + 1) / 2 = 0, +1, 0: mean 1/3, sd 0.577, se 1/3
    assert r["games"] == 3 and r["diff"] == pytest.approx(1 / 3) and r["se"] == pytest.approx(1 / 3)
    assert cw.holm([0.01, 0.04, 0.03, 0.5]) == pytest.approx([0.04, 0.09, 0.09, 0.5])


def _absurd_items(tmp_path: Path) -> Path:
    """The shipped item deck with Golden Fist's fight bonus made 20."""
    text = (Path(__file__).resolve().parents[2] / "sim/paws/data/items.toml").read_text()
    head, _, rest = text.partition('name = "Golden Fist"')
    rest = re.sub(r"amount = \d+", "amount = 20", rest, count=1)
    path = tmp_path / "items.toml"
    path.write_text(head + 'name = "Golden Fist"' + rest)
    return path


def test_a_card_made_absurdly_strong_is_called_too_strong(tmp_path):
    items = str(_absurd_items(tmp_path))
    names = "Golden Fist,Bandage Kit,Fruit Smoothie,Doppelganger,Honey Jar,War Cry"
    res = runner.invoke(app, ["card-worth", "paws", "--data", f"items={items}", "--deck", "items", "--cards", names,
                              "--games", "1500", "--seed", "5", "--out", str(tmp_path / "w"), "--quiet"])
    assert res.exit_code == 0, res.output
    out = {r["card"]: r for r in json.loads((tmp_path / "w" / "card-worth.json").read_text())["cards"]}
    fist = out["Golden Fist"]
    assert fist["value"] == 20 and fist["verdict"] == "too strong", fist
    assert fist["blank"]["effect"] > max(r["blank"]["effect"] for n, r in out.items() if n != "Golden Fist")
    assert all(r["verdict"] != "too strong" for n, r in out.items() if n != "Golden Fist")
    assert "Golden Fist (items, amount 20): too strong" in res.stdout


def _worth(tmp_path, *extra):
    out = tmp_path / "w"
    res = runner.invoke(app, ["card-worth", "tales", "--deck", "equipment", "--cards", "Tower Shield,Bone Knife",
                              "--games", "300", "--out", str(out), "--quiet", *extra])
    return out, res


def test_the_command_runs_a_sweep_and_answers_from_its_folder(tmp_path):
    """The folder is an ordinary sweep holding its card files: status --verify passes and keeps them; --from and
    card_worth(folder) give the answer the command printed and wrote; a deleted part is played again by
    --resume, the answer the same byte for byte; the cost is said before any game."""
    from measures.card_worth import card_worth
    out, res = _worth(tmp_path, "--json", str(tmp_path / "w.json"))
    assert res.exit_code == 0, res.output
    said = " ".join(res.stderr.split())
    assert "the real deck and 7 variant(s): 8 cells x 300 games = 2,400 games to play" in said
    assert said.index("games to play") < said.index("2,400 games in")
    text = (out / "card-worth.json").read_text()
    r = json.loads(text)
    assert (tmp_path / "w.json").read_text() == text and r == card_worth(out)
    assert [c["card"] for c in r["cards"]] == ["Bone Knife", "Tower Shield"] and r["games"] == 300
    assert all(c[k]["games"] == c["used_in"] > 0 for c in r["cards"] for k in ("blank", "removed", "up", "down"))
    assert "median worth of a card to its holder" in res.stdout
    again = runner.invoke(app, ["card-worth", "tales", "--from", str(out), "--json", str(tmp_path / "from.json")])
    assert again.exit_code == 0 and (tmp_path / "from.json").read_text() == text and again.stdout == res.stdout

    status = runner.invoke(app, ["status", str(out), "--verify"])
    assert status.exit_code == 0 and "the folder is whole" in status.output, status.output
    assert len(list((out / "card-files").iterdir())) == 9           # the two real files and the 7 variants, kept
    (out / "cards" / "cell=c002" / "part-00000.parquet").unlink()
    resumed = runner.invoke(app, ["card-worth", "tales", "--deck", "equipment", "--cards", "Tower Shield,Bone Knife",
                                  "--games", "300", "--out", str(out), "--resume", "--quiet"])
    assert resumed.exit_code == 0 and "1 parts written, 7 already done" in " ".join(resumed.stderr.split())
    assert (out / "card-worth.json").read_text() == text and resumed.stdout == res.stdout
    (out / "card-files" / "notes.txt").write_text("not the sweep's")           # a stray among the card files
    status = runner.invoke(app, ["status", str(out), "--verify"])
    assert "stray 1" in " ".join(status.output.split()) and not (out / "card-files" / "notes.txt").exists()
    assert len(list((out / "card-files").iterdir())) == 9


def test_an_edited_card_file_or_part_is_refused(tmp_path):
    out, res = _worth(tmp_path)
    assert res.exit_code == 0, res.output
    variant = out / "card-files" / "equipment-bone-knife-up.toml"
    kept = variant.read_text()
    variant.write_text(kept.replace("damage = 2", "damage = 9"))
    assert variant.read_text() != kept
    bad = runner.invoke(app, ["card-worth", "tales", "--from", str(out)])
    lines = [x for x in bad.stderr.splitlines() if x.strip()]
    assert bad.exit_code == 2 and len(lines) == 1 and "spec digest" in lines[0], bad.output
    variant.write_text(kept)
    part = out / "games" / "cell=c001" / "part-00000.parquet"
    data = bytearray(part.read_bytes())
    data[len(data) // 2] ^= 0xFF
    part.write_bytes(bytes(data))
    bad = runner.invoke(app, ["card-worth", "tales", "--from", str(out)])
    lines = [x for x in bad.stderr.splitlines() if x.strip()]
    assert bad.exit_code == 2 and len(lines) == 1 and "cell=c001/part-00000.parquet" in lines[0], bad.output


@pytest.mark.parametrize("args, message", [
    (["paws", "--deck", "dice"], r"--deck 'dice' is not allowed; expected one of items, monsters"),
    (["tales", "--cards", "Excalibur"], r"--cards: Excalibur: no such card"),
    (["tales", "--cards", "Troll Blood"], r"no such card dealt"),
    (["paws", "--games", "1"], r"--games 1 is out of range"),
    (["paws", "--data", "items=/no/such/file.toml"], r"no/such/file"),
    (["paws", "--setup", "bots=random"], r"give the bots with --bots"),
    (["paws", "NO-OUT"], r"give --out DIR .* or --from DIR"),
    (["paws", "--out", "OTHER"], r"holds a sweep that is not a card-worth sweep"),
    (["paws", "--from", "EMPTY"], r"not a card-worth sweep|no game records"),
])
def test_bad_input_is_one_line_and_exit_2_before_any_game(tmp_path, args, message):
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "manifest.json").write_text('{"format": 1, "spec_digest": "x"}')
    (tmp_path / "empty").mkdir()
    where = {"OTHER": tmp_path / "other", "EMPTY": tmp_path / "empty"}
    if "--out" not in args and "--from" not in args and "NO-OUT" not in args:
        args = [*args, "--out", str(tmp_path / "out")]
    args = [str(where.get(a, a)) for a in args if a != "NO-OUT"]
    res = runner.invoke(app, ["card-worth", *args])
    lines = [x for x in res.stderr.splitlines() if x.strip()]
    assert res.exit_code == 2 and len(lines) == 1 and re.search(message, lines[0]), res.output


def test_the_verdicts_against_the_median_card():
    def row(name, diff, se, used=50):
        return {"card": name, "deck": "items", "field": "amount", "value": 2, "used_in": used, "holders": used,
                "blank": None if se is None else {"games": used, "diff": diff, "se": se}, "up": None, "down": None}
    rows = cw.summarise([row("strong", -0.30, 0.02), row("mid1", -0.05, 0.02), row("mid2", -0.06, 0.02),
                         row("weak", 0.20, 0.02), row("idle", 0.0, 0.0), row("unused", 0, None, used=0)])
    verdict = {r["card"]: r["verdict"] for r in rows}
    # worth = real less blank: strong 0.30, mid 0.05-0.06, weak -0.20, idle 0; median of the five measured 0.05
    assert verdict == {"strong": "too strong", "mid1": "in line", "mid2": "in line", "weak": "too weak",
                       "idle": "number changes nothing", "unused": "never used"}
    assert rows[0]["median_worth"] == pytest.approx(0.05)
