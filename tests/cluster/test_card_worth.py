"""What each card is worth (cluster/cards.py, ``playtest card-worth``; docs/card-worth.md).

Held here: the variants change one number of one card and nothing else (shields the other way round, bounds
kept); the holders are the seats that used the card; the paired mean and Holm's adjustment on numbers
worked by hand; a deck with one card made absurdly strong names that card too strong; the command end to
end; bad input in one line, exit 2.
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


def test_a_variant_changes_one_number_of_one_card_and_nothing_else():
    m = GAMES["tales"].resolve(None, {}, {})
    shield = next(c for c in m.data.equipment if c.kind.name == "SHIELD")
    up, blank = cw.variant(m, "equipment", shield.name, "up"), cw.variant(m, "equipment", shield.name, "blank")
    after = {c.name: c for c in up.data.equipment}
    assert after[shield.name].block == shield.block - 1              # a lower block roll is a better shield
    assert {c.name: c.block for c in blank.data.equipment}[shield.name] == 7
    assert all(after[c.name] == c for c in m.data.equipment if c.name != shield.name)
    assert up.data.digest != m.data.digest != blank.data.digest and up.data.creatures == m.data.creatures
    knife = next(c for c in m.data.equipment if c.name == "Bone Knife")
    assert cw.variant(m, "equipment", "Bone Knife", "down").data.equipment[knife.id].damage == knife.damage - 1
    weakest = next(c for c in m.data.creatures if c.damage == 0) if any(c.damage == 0 for c in m.data.creatures) else None
    if weakest is not None:
        assert cw.variant(m, "creatures", weakest.name, "down") is None
    p = GAMES["paws"].resolve(None, {}, {"players": 4})
    assert all(cw.knob("paws", c).field == "amount" for d, n in cw.cards_of(p) for c in p.data.items if c.name == n)


def test_holders_are_the_seats_that_used_the_card():
    table = pa.table({"game_index": [0, 0, 1, 2], "seat": [1, 2, 0, 3], "kind": ["item"] * 4,
                      "card": ["Golden Fist", "Golden Fist", "Golden Fist", "Honey Jar"], "plays": [1, 0, 2, 1]})
    assert cw.holders(table, "item", "Golden Fist") == {0: [1], 1: [0]}


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
    setup = {"players": 4}
    names = ["Golden Fist", "Bandage Kit", "Fruit Smoothie", "Doppelganger", "Honey Jar", "War Cry"]
    rows = [cw.card_task("paws", None, {}, setup, 5, 1500, "items", n, {"items": items}) for n in names]
    out = {r["card"]: r for r in cw.summarise(rows)}
    fist = out["Golden Fist"]
    assert fist["value"] == 20 and fist["verdict"] == "too strong", fist
    assert fist["blank"]["effect"] > max(r["blank"]["effect"] for n, r in out.items() if n != "Golden Fist")
    assert all(r["verdict"] != "too strong" for n, r in out.items() if n != "Golden Fist")


def test_the_command_answers_and_writes_json(tmp_path, ray_local):
    out = tmp_path / "w.json"
    res = runner.invoke(app, ["card-worth", "tales", "--deck", "equipment", "--cards", "Tower Shield,Bone Knife",
                              "--games", "300", "--out", str(out)])
    assert res.exit_code == 0, res.output
    r = json.loads(out.read_text())
    assert [c["card"] for c in r["cards"]] == ["Bone Knife", "Tower Shield"] and r["games"] == 300
    assert all(c["blank"]["games"] == c["used_in"] > 0 for c in r["cards"])
    assert "median worth of a card to its holder" in res.stdout and "2,400 games to play" in res.stderr


@pytest.mark.parametrize("args, message", [
    (["paws", "--deck", "monsters"], r"--deck 'monsters' is not allowed; expected one of items"),
    (["tales", "--cards", "Excalibur"], r"--cards: Excalibur: no such card"),
    (["paws", "--games", "1"], r"--games 1 is out of range"),
    (["paws", "--data", "items=/no/such/file.toml"], r"no/such/file"),
    (["paws", "--setup", "bots=random"], r"give the bots with --bots"),
])
def test_bad_input_is_one_line_and_exit_2_before_any_game(args, message):
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
