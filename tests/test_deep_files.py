"""Files nested thousands deep: every TOML or JSON file a user names (sweep specs, card files, bot weight
presets, regress suites and baselines) is refused in one line naming the file, exit 2, never a
RecursionError (exit 3). A parser recurses once per level of brackets; TOML dotted keys nest without any.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app
from cluster.spec import SpecError, parse_spec
from sim.card_files import CardDataError, read_cards
from sim.files import MAX_NESTING, load_json_bounded, load_toml_bounded, parse_json, parse_toml
from sim.kit.bots import load_weight_presets, preset_notes
from sim.params import RuleError

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[1]
SAYS = f"nest more than {MAX_NESTING} deep"
SPEC_HEAD = 'name = "deep"\ngame = "paws"\nseed = 1\ngames_per_cell = 4\nbatch_size = 4\n'


def toml_nested(shape: str, n: int, key: str = "x") -> str:
    """A TOML document whose key ``key`` nests ``n`` levels below the top table (as ``shape`` spells it)."""
    if shape == "arrays":
        return f"{key} = " + "[" * n + "]" * n + "\n"
    if shape == "inline tables":
        return f"{key} = " + "{a = " * (n - 1) + "{}" + "}" * (n - 1) + "\n"
    if shape == "dotted keys":
        return f"{key}." + "a." * (n - 1) + "b = 1\n"
    if shape == "table header":
        return f"[{key}." + ".".join(["a"] * (n - 1)) + "]\nb = 1\n"
    if shape == "array of tables":
        return f"[[{key}." + ".".join(["a"] * (n - 1)) + "]]\nb = 1\n"
    raise ValueError(shape)


SHAPES = ["arrays", "inline tables", "dotted keys", "table header", "array of tables"]
DEPTHS = [MAX_NESTING + 1, 3000, 5000]


def run_cli(args: list[str], cwd: Path):
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return runner.invoke(app, args)
    finally:
        os.chdir(old)


def one_error_line(res, *needles: str) -> str:
    shown = f"exit {res.exit_code}\nstdout={res.stdout!r}\nstderr={res.stderr!r}\nexc={res.exception!r}"
    assert res.exit_code == 2, shown
    assert "Traceback" not in res.output + res.stderr and "unexpected error" not in res.stderr, shown
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), shown
    said = lines[0]
    for needle in needles:
        assert needle in said, shown
    return said


# (the command, given the hostile file's name; the file's own text around the nested key)
COMMANDS = {
    "sweep spec": (lambda f: ["sweep", f, "--out", "o", "--no-progress"], lambda body: SPEC_HEAD + body),
    "sweep spec [grid]": (lambda f: ["sweep", f, "--out", "o", "--no-progress"],
                          lambda body: SPEC_HEAD + body.replace("x", "grid", 1)),
    "paws monsters card file": (lambda f: ["play", "paws", "--data", f"monsters={f}", "--json"], lambda body: body),
    "paws items card file": (lambda f: ["play", "paws", "--items", f, "--json"], lambda body: body),
    "tales creatures card file": (lambda f: ["play", "tales", "--data", f"creatures={f}", "--json"],
                                  lambda body: body),
    "card file [[card]]": (lambda f: ["play", "paws", "--data", f"monsters={f}", "--json"],
                           lambda body: body.replace("x", "card", 1)),
    "regress suite": (lambda f: ["regress", f, "--baseline", "b.json", "--report", "r"], lambda body: body),
    "tune spec": (lambda f: ["tune", f, "--out", "o"], lambda body: body),
}


@pytest.mark.parametrize("depth", DEPTHS)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("kind", list(COMMANDS))
def test_a_deeply_nested_toml_file_is_one_line_and_exit_2(tmp_path, kind, shape, depth):
    args, text = COMMANDS[kind]
    f = tmp_path / "deep.toml"
    f.write_text(text(toml_nested(shape, depth)))
    one_error_line(run_cli(args("deep.toml"), tmp_path), "deep.toml", SAYS)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deep.toml"]      # nothing written


@pytest.mark.parametrize("depth", DEPTHS)
@pytest.mark.parametrize("body", ["arrays", "objects"])
def test_a_deeply_nested_baseline_is_one_line_and_exit_2(tmp_path, body, depth):
    f = tmp_path / "deep.json"
    f.write_text("[" * depth + "]" * depth if body == "arrays" else '{"a": ' * depth + "1" + "}" * depth)
    said = one_error_line(run_cli(["regress", str(ROOT / "examples" / "nightly.toml"), "--baseline", "deep.json",
                                   "--report", "r"], tmp_path), "deep.json", SAYS)
    assert "corrupt baseline" in said
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deep.json"]


@pytest.mark.parametrize("depth", DEPTHS)
@pytest.mark.parametrize("shape", SHAPES)
def test_deeply_nested_weight_presets_are_one_rule_error(tmp_path, shape, depth):
    f = tmp_path / "presets.toml"
    f.write_text(toml_nested(shape, depth))
    weights = __import__("sim.paws.bots", fromlist=["HeuristicWeights"]).HeuristicWeights
    for load in (lambda: load_weight_presets(f, weights), lambda: preset_notes(f)):
        with pytest.raises(RuleError, match=rf"^{f}: (not valid TOML: )?tables and lists {SAYS}"):
            load()


@pytest.mark.parametrize("depth", [MAX_NESTING + 1, 3000])
def test_a_stored_spec_nested_deep_is_refused_by_parse_spec(depth):
    """A spec read back from a manifest (JSON) reaches parse_spec without parse_toml."""
    raw = {"name": "deep", "game": "paws", "seed": 1, "games_per_cell": 4, "batch_size": 4, "grid": {}}
    inner = raw["grid"]
    for _ in range(depth):
        inner["players"] = {}
        inner = inner["players"]
    with pytest.raises(SpecError, match=f"^manifest.json: tables and lists {SAYS}"):
        parse_spec(raw, source="manifest.json")


def test_nesting_at_the_limit_is_parsed_and_one_deeper_is_not(tmp_path):
    ok = toml_nested("arrays", MAX_NESTING - 1)                        # the top table is the first level
    assert parse_toml(ok, "ok.toml", ValueError)["x"] is not None
    with pytest.raises(ValueError, match=f"^deep.toml: tables and lists {SAYS}"):
        parse_toml(toml_nested("arrays", MAX_NESTING), "deep.toml", ValueError)
    assert parse_json("[" * MAX_NESTING + "]" * MAX_NESTING, "ok.json", ValueError) is not None
    with pytest.raises(ValueError, match=f"^deep.json: not valid JSON \\(lists and objects {SAYS}"):
        parse_json("[" * (MAX_NESTING + 1) + "]" * (MAX_NESTING + 1), "deep.json", ValueError)


def test_the_bounded_loaders_name_the_file_and_raise_the_callers_error(tmp_path):
    class MyError(ValueError):
        pass
    t, j = tmp_path / "a.toml", tmp_path / "a.json"
    t.write_text("x = " + "[" * 4000)                 # not even closed: deep first
    j.write_text('{"a": ' * 5000)
    with pytest.raises(MyError, match=f"a.toml: not valid TOML: tables and lists {SAYS}"):
        load_toml_bounded(t, "test file", MyError)
    with pytest.raises(MyError, match=f"a.json: not valid JSON \\(lists and objects {SAYS}"):
        load_json_bounded(j, "test file", MyError)
    t.write_text("x = [1, 2]\n[t]\ny = 'z'\n")
    j.write_text('{"a": [1, {"b": null}]}')
    assert load_toml_bounded(t, "test file", MyError) == {"x": [1, 2], "t": {"y": "z"}}
    assert load_json_bounded(j, "test file", MyError) == {"a": [1, {"b": None}]}
    t.write_text("x = ")
    with pytest.raises(MyError, match="a.toml: not valid TOML: "):
        load_toml_bounded(t, "test file", MyError)
    j.write_bytes(b"\xff")
    with pytest.raises(MyError, match=r"a.json: not valid JSON \(not UTF-8 text: byte 0\)"):
        load_json_bounded(j, "test file", MyError)


def test_read_cards_refuses_deep_nesting(tmp_path):
    f = tmp_path / "cards.toml"
    f.write_text(toml_nested("arrays", 5000, "card"))
    with pytest.raises(CardDataError, match=f"cards.toml: not valid TOML: tables and lists {SAYS}"):
        read_cards(f)


@pytest.mark.parametrize("depth", [MAX_NESTING + 1, 4000])
def test_a_ladder_folders_own_spec_nested_deep_is_one_line_on_resume(tmp_path, depth):
    """--resume reads the spec a ladder wrote into its folder: a hand-edited one nested deep is refused too."""
    out = tmp_path / "lad"
    out.mkdir()
    (out / "ladder.toml").write_text(toml_nested("arrays", depth))
    one_error_line(run_cli(["ladder", "paws", "--bots", "random,heuristic", "--games", "10", "--out", "lad",
                            "--resume"], tmp_path), "ladder.toml", SAYS)
