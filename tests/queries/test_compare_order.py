"""``playtest compare --by``: A is the value the spec lists first (once: the first in sort order, so a grid
``items = ["real.toml", "edited.toml"]`` put the edited deck on side A), and every verdict names both sides."""

import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app
from cluster.spec import load_spec
from cluster.sweep import run_sweep
from queries.compare import Row, compare_by, verdict

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()


@pytest.fixture(scope="module")
def listed(tmp_path_factory):
    """A sweep whose grid lists the real item deck (real.toml) before an edited one (edited.toml: sorts first),
    and the player counts 4 before 2."""
    d = tmp_path_factory.mktemp("order")
    shutil.copy(ROOT / "sim/paws/data/items.toml", d / "real.toml")
    text = (d / "real.toml").read_text()
    (d / "edited.toml").write_text(re.sub(r"amount = 3", "amount = 6", text, count=1))     # Bandage Kit heals 6
    (d / "grid.toml").write_text('name = "order"\ngame = "paws"\nrules = "v4"\nseed = 5\ngames_per_cell = 200\n'
                                 '[grid]\nitems = ["real.toml", "edited.toml"]\nplayers = [4, 2]\n')
    run_sweep(load_spec(d / "grid.toml"), d / "grid", progress=False)
    return d


def test_a_is_the_card_file_the_spec_lists_first(listed):
    report = compare_by(str(listed / "grid"), "items")
    assert (report.a, report.b) == ("items=real.toml", "items=edited.toml")
    assert {r.comparison for r in report.rows} == {"items real.toml vs edited.toml"}
    res = runner.invoke(app, ["compare", str(listed / "grid"), "--by", "items"])
    assert res.exit_code == 0, res.output
    assert "A = items=real.toml, B = items=edited.toml" in " ".join(res.output.split())


def test_a_is_the_number_the_spec_lists_first_not_the_smallest(listed):
    report = compare_by(str(listed / "grid"), "players")
    assert (report.a, report.b) == ("players=4", "players=2")
    # a --baseline still chooses A
    assert compare_by(str(listed / "grid"), "players", baseline="2").a == "players=2"


def test_every_verdict_of_a_split_names_both_sides(listed):
    report = compare_by(str(listed / "grid"), "items")
    assert report.rows
    for r in report.rows:
        assert ("B (items=edited.toml) " in r.verdict and r.verdict.endswith(" against A (items=real.toml)")) or \
            r.verdict.startswith(("no real difference between A (items=real.toml) and B (items=edited.toml) in ",
                                  "no real difference shown between A (items=real.toml) and B (items=edited.toml) in ")), \
            r.verdict


def test_two_folders_are_named_by_their_folder_names_never_their_paths(listed, tmp_path):
    from queries.compare import compare_folders
    shutil.copytree(listed / "grid", tmp_path / "before")
    shutil.copytree(listed / "grid", tmp_path / "after")
    report = compare_folders(str(tmp_path / "before"), str(tmp_path / "after"))
    for r in report.rows:
        assert r.verdict.startswith("no real difference between A (before) and B (after) in "), r.verdict
        assert str(tmp_path) not in r.verdict


def row(diff, low, high, p_adj):
    return Row("", "", "m", "mean", "knockouts", 1.0, 1.0 + diff, diff, low, high, 0.01, True, 1000, 1000, 1000,
               low, high, "knockouts per game", p_adj)


def test_verdict_words_with_and_without_names():
    real = row(-0.0031, -0.0052, -0.0010, 0.001)
    assert verdict(real) == "B lowers knockouts per game by 0.003 [0.001, 0.005]"
    assert verdict(real, 1, "items=real.toml", "items=edited.toml") == \
        "B (items=edited.toml) lowers knockouts per game by 0.003 [0.001, 0.005] against A (items=real.toml)"
    none = row(0.001, -0.002, 0.004, 0.9)
    assert verdict(none, 1, "4", "2") == \
        "no real difference between A (4) and B (2) in knockouts per game, the same within +-0.1 knockouts (+0.001 " \
        "[-0.002, +0.004])"
