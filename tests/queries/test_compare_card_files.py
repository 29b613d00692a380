"""Card files are a variant like any rule parameter in ``playtest compare``: ``--by items`` splits a sweep whose
grid varies the item file (once refused: "not a setup column or rule parameter"), and two folders played with
different card files are said to differ in their card data (once: "same rules")."""

import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app
from cluster.spec import load_spec
from cluster.sweep import run_sweep

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()


@pytest.fixture(scope="module")
def card_sweeps(tmp_path_factory):
    d = tmp_path_factory.mktemp("cards")
    shutil.copy(ROOT / "sim/paws/data/items.toml", d / "a.toml")
    text = (d / "a.toml").read_text()
    (d / "b.toml").write_text(re.sub(r"amount = 3", "amount = 6", text, count=1))     # Bandage Kit heals 6
    head = 'game = "paws"\nrules = "v4"\nseed = 5\ngames_per_cell = 400\n'
    (d / "grid.toml").write_text(f'name = "grid"\n{head}[grid]\nitems = ["a.toml", "b.toml"]\n')
    (d / "sa.toml").write_text(f'name = "a"\n{head}[data]\nitems = "a.toml"\n')
    (d / "sb.toml").write_text(f'name = "b"\n{head}[data]\nitems = "b.toml"\n')
    for name in ("grid", "sa", "sb"):
        run_sweep(load_spec(d / f"{name}.toml"), d / name, progress=False)
    return d


def said(*args):
    res = runner.invoke(app, [str(a) for a in args])
    return res.exit_code, " ".join(res.output.split())


def test_compare_by_a_card_file_splits_the_sweep_by_it(card_sweeps):
    code, text = said("compare", card_sweeps / "grid", "--by", "items")
    assert code == 0, text
    assert "A vs B: A = items=a.toml, B = items=b.toml" in text and "items a.toml vs b.toml" in text
    code, text = said("compare", card_sweeps / "grid", "--by", "items", "--baseline", "b.toml")
    assert code == 0 and "A = items=b.toml, B = items=a.toml" in text, text


def test_a_card_file_that_does_not_vary_is_one_line(card_sweeps):
    code, text = said("compare", card_sweeps / "grid", "--by", "monsters")
    assert code == 2 and "--by monsters: every game has monsters = monsters.toml; nothing to compare" in text, text
    code, text = said("compare", card_sweeps / "grid", "--by", "items", "--baseline", "c.toml")
    assert code == 2 and "--baseline 'c.toml': no game has items = c.toml; its values: a.toml, b.toml" in text, text


def test_two_folders_of_other_card_files_differ_in_their_card_data(card_sweeps):
    code, text = said("compare", card_sweeps / "sa", card_sweeps / "sb")
    assert code == 0, text
    assert "A and B differ in card data items=a.toml; monsters=monsters.toml -> items=b.toml" in text
    assert "same rules" not in text
