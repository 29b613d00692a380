"""What each card is worth (measures/card_worth/, ``playtest card-worth``; docs/card-worth.md).

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

import numpy as np
import pyarrow as pa
import pytest
from typer.testing import CliRunner

from cli.main import app
from measures.card_worth import sweep as cw
from sim.games import GAMES

runner = CliRunner()


def test_each_variant_file_changes_one_card_and_the_folder_reads_it_back():
    """The variant card files change one number of one card (shields the other way round, a blank one step
    down played once) or leave one copy out; the answer's layout reads each back as the variant it is."""
    import tomllib
    from measures.card_worth.answer import difference
    m = GAMES["tales"].resolve(None, {}, {})
    files, cells = cw.variant_files(m, ["equipment"], ["Tower Shield", "Bone Knife"])
    base = tomllib.loads(files["card-files/equipment.toml"])
    assert files["card-files/equipment.toml"] == (Path(cw.__file__).parents[2] / "sim/tales/data/equipment.toml").read_text()
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


def _items_with(tmp_path: Path, name: str, amount: int) -> Path:
    """The shipped item deck with card ``name``'s amount made ``amount``."""
    text = (Path(__file__).resolve().parents[2] / "sim/paws/data/items.toml").read_text()
    head, _, rest = text.partition(f'name = "{name}"')
    rest = re.sub(r"amount = \d+", f"amount = {amount}", rest, count=1)
    path = tmp_path / "items.toml"
    path.write_text(head + f'name = "{name}"' + rest)
    return path


def test_a_card_made_absurdly_strong_is_called_too_strong(tmp_path):
    """Grenade made 20 damage to everyone near (a fight bonus of 20 is not absurd: 3 already wins most fights)
    is too strong against four typical cards, and every line says it is judged against the selected cards."""
    items = str(_items_with(tmp_path, "Grenade", 20))
    names = "Grenade,Honey Jar,Sharp Claws,Log Pile,Magpie Trade"
    res = runner.invoke(app, ["card-worth", "paws", "--data", f"items={items}", "--deck", "items", "--cards", names,
                              "--games", "800", "--seed", "5", "--out", str(tmp_path / "w"), "--quiet"])
    assert res.exit_code == 0, res.output
    r = json.loads((tmp_path / "w" / "card-worth.json").read_text())
    out = {c["card"]: c for c in r["cards"]}
    grenade = out["Grenade"]
    assert grenade["value"] == 20 and grenade["verdict"] == "too strong", grenade
    assert grenade["comparison"]["ci"][0] > 0 and grenade["comparison"]["level"] == pytest.approx(1 - 0.05 / 5)
    assert all(c["verdict"] != "too strong" for n, c in out.items() if n != "Grenade")
    against = "the selected cards (5 of the items deck's 66)"
    assert {c["against"] for c in r["cards"]} == {against} and r["references"]["items"]["against"] == against
    assert f"Grenade (items, amount 20): too strong against {against}" in " ".join(res.stdout.split())
    assert r["unfinished"] is None and r["margin"] == 0.02


def _worth(tmp_path, *extra):
    out = tmp_path / "w"
    res = runner.invoke(app, ["card-worth", "tales", "--deck", "equipment", "--cards", "Tower Shield,Bone Knife",
                              "--games", "300", "--out", str(out), "--quiet", *extra])
    return out, res


def test_the_command_runs_a_sweep_and_answers_from_its_folder(tmp_path):
    """The folder is an ordinary sweep holding its card files: status --verify passes and keeps them; --from and
    card_worth(folder) give the answer the command printed and wrote; a deleted part is played again by
    --resume, the answer the same byte for byte; the cost is said before any game."""
    from measures.card_worth.answer import card_worth
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
    assert "equipment: reference worth" in res.stdout and "the selected cards (2 of the equipment deck" in res.stdout
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
    (["paws", "--margin", "0"], r"--margin 0 is out of range"),
    (["paws", "--margin", "nan"], r"--margin nan is out of range"),
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


def _row(name, worth, games, deck="items", used=None, **blank):
    """A card as the folder gives it: blanking it loses the holder ``worth`` of a point per game used on average
    (a game lost in round(worth x games) of the ``games`` it was used in, none changed in the others)."""
    lost = int(round(worth * games))
    per_game = {gi: (-1.0 if gi < lost else 0.0) for gi in range(games)}
    d = np.array(list(per_game.values()))
    b = {"games": games, "diff": float(d.mean()) if games else None,
         "se": float(d.std(ddof=1) / np.sqrt(games)) if games >= 2 else None, "per_game": per_game, **blank}
    return {"card": name, "deck": deck, "field": "amount", "value": 2, "used_in": games if used is None else used,
            "holders": games, "blank": b, "removed": None, "up": None, "down": None}


def test_the_verdicts_against_the_decks_reference():
    """Worked by hand: the reference is the median worth of the deck's cards measured (3 points here: the
    strong, the worthless and the number that changes nothing are in it); in line needs the family interval
    of the difference inside +-2 points; a card at its weakest is worth 0 exactly and can be too weak; a card
    alone in its deck, never used, with no number or too few games is said so, not judged."""
    from measures.card_worth.answer import judge
    rows = cw.summarise([
        _row("strong", 0.30, 4000), _row("mid1", 0.03, 4000), _row("mid2", 0.03, 4000), _row("mid3", 0.031, 4000),
        _row("worthless", 0.0, 4000, at_weakest=True), _row("idle", 0.0, 4000), _row("rare", 0.10, 40),
        _row("unused", 0.0, 0, used=0), _row("few", 0.0, 1), _row("monster", 0.2, 500, deck="monsters"),
        {**_row("rope", 0.0, 0, used=30), "field": None, "blank": None}])
    judge(rows, {"items": "the whole items deck", "monsters": "the selected cards (1 of the monsters deck's 12)"})
    verdict = {r["card"]: r["verdict"] for r in rows}
    assert verdict == {"strong": "too strong", "mid1": "in line", "mid2": "in line", "mid3": "in line",
                       "worthless": "too weak", "idle": "number changes nothing", "rare": "not enough games to say",
                       "unused": "never used", "few": "too few games", "monster": "alone in its deck",
                       "rope": "no main number"}
    ref = rows[0]["reference"]
    assert ref == {"worth": pytest.approx(0.03), "against": "the whole items deck", "cards": 7}
    cmp = {r["card"]: r["comparison"] for r in rows if r["comparison"]}
    assert set(cmp) == {"strong", "mid1", "mid2", "mid3", "worthless", "rare"}       # judged: 6, Bonferroni over 6
    assert cmp["worthless"]["diff"] == pytest.approx(-0.03) and cmp["worthless"]["level"] == pytest.approx(1 - 0.05 / 6)
    assert cmp["mid3"]["diff"] == pytest.approx(0.001) and -0.02 < cmp["mid3"]["ci"][0] < cmp["mid3"]["ci"][1] < 0.02
    assert cmp["strong"]["equivalence"] == "differs" and cmp["rare"]["games_needed"] > 40
    assert all("per_game" not in r["blank"] for r in rows if r["blank"])               # the bootstrap's, not kept
    said = cw.sentences({"cards": rows, "references": {"items": ref}, "margin": 0.02})
    assert said[0].startswith("items: reference worth +3.0 points of win share, the median worth of the whole items")
    assert "worthless (items, amount 2, at its weakest: worth 0 exactly): too weak against the whole items deck" \
        in " ".join(said)
    assert "in line with the whole items deck (within +-2.0 points of its reference, family 95%): mid1, mid2, mid3" \
        in said
    again = judge(cw.summarise([_row("strong", 0.30, 4000), _row("mid1", 0.03, 4000), _row("mid2", 0.03, 4000),
                                _row("worthless", 0.0, 4000, at_weakest=True)]), {"items": "x"}, unfinished=True)
    assert {r["verdict"] for r in again} == {"not judged: the sweep is unfinished"}


def test_an_unfinished_sweep_judges_nothing_and_says_so(tmp_path):
    """A sweep stopped after 3 of its 8 parts: the answer says how many parts are done, no card is judged (never
    "in line"), the sentences, the table and the report's section say it is unfinished."""
    from cluster.measure_sweep import prepare
    from cluster.sweep import SweepInterrupted, run_sweep
    from measures.card_worth.answer import card_worth
    from measures.card_worth.page import card_worth_section
    m = GAMES["tales"].resolve(None, {}, {})
    files, cells = cw.variant_files(m, ["equipment"], ["Tower Shield", "Bone Knife"])
    spec = prepare(tmp_path / "w", "card-worth", cw.sweep_raw(m, None, {}, {}, 1, 200, cells), files, False,
                   "card-worth sweep", "test")
    played = []

    def stop(cell, batch):
        played.append(cell)
        if len(played) == 3:
            raise KeyboardInterrupt
    with pytest.raises(SweepInterrupted):
        run_sweep(spec, tmp_path / "w", workers=1, progress=False, on_part=stop)
    r = card_worth(tmp_path / "w")
    assert r["unfinished"]["parts"] == 8 and 3 <= r["unfinished"]["done"] < 8, r["unfinished"]
    assert {c["verdict"] for c in r["cards"]} == {"not judged: the sweep is unfinished"}
    said = cw.sentences(r)
    assert said[0].startswith(f"UNFINISHED: {r['unfinished']['done']} of 8 parts done; no card is judged")
    page = card_worth_section(r, said)
    assert page.count("Unfinished sweep:") == 2 and "none judged: the sweep is unfinished" in page
    assert ">in line<" not in page and "not judged: the sweep is unfinished" in page
    res = runner.invoke(app, ["card-worth", "tales", "--from", str(tmp_path / "w")])
    assert res.exit_code == 0 and "UNFINISHED" in res.stdout.split("\n")[0] + res.stdout, res.output


def test_a_card_at_its_weakest_is_in_the_sweep_and_worth_0(tmp_path):
    """An item whose amount says how much has a number even at 0 (a heal of 0: its weakest), so it is measured:
    no blank to play (the card is its own blank), its one step up played; an escape has no number."""
    items = str(_items_with(tmp_path, "Bandage Kit", 0))
    m = GAMES["paws"].resolve(None, {}, {"players": 4}, {"items": items})
    kit = next(c for c in m.data.items if c.name == "Bandage Kit")
    rope = next(c for c in m.data.items if c.name == "Escape Rope")
    assert cw.knob("paws", kit).weakest == kit.amount == 0 and cw.knob("paws", rope) is None
    files, cells = cw.variant_files(m, ["items"], ["Bandage Kit", "Honey Jar"], ("blank",))
    assert sorted(rel for c in cells for rel in c.values()) == ["card-files/items-bandage-kit-up.toml",
                                                                  "card-files/items-honey-jar-blank.toml"]


def test_the_whole_deck_is_the_reference_when_every_card_is_measured(tmp_path):
    """A deck of four cards, all measured: every card is judged against the whole items deck."""
    text = (Path(__file__).resolve().parents[2] / "sim/paws/data/items.toml").read_text()
    head, *blocks = text.split("\n[[card]]")
    keep = [re.sub(r"copies = \d+", "copies = 6", b) for b in blocks
            if re.search(r'name = "(Bandage Kit|Golden Fist|Grenade|Honey Jar)"', b)]
    (tmp_path / "items.toml").write_text(head + "".join("\n[[card]]" + b for b in keep))
    res = runner.invoke(app, ["card-worth", "paws", "--data", f"items={tmp_path / 'items.toml'}", "--games", "100",
                              "--deck", "items", "--out", str(tmp_path / "w"), "--quiet", "--margin", "3"])
    assert res.exit_code == 0, res.output
    r = json.loads((tmp_path / "w" / "card-worth.json").read_text())
    assert len(r["cards"]) == 4 and {c["against"] for c in r["cards"]} == {"the whole items deck"}
    assert r["margin"] == 0.03 and "the median worth of the whole items deck, 4 of them measured" in res.stdout
