"""playtest validate: the known-answer registry, the command's table and exit codes, bad input refused in one line
before any game, and the fast cases of restricted play, the first player's edge, compare and the skill verdicts
(each case's own pass/fail is its assertion: a measure that stops telling planted from null fails here)."""

import json

import pytest
from budget import thin
from typer.testing import CliRunner

from cli.main import app
from measures.known import Context, case, cases, measures, rate_check
from measures.known._run import ValidateError, select

runner = CliRunner()
MINE = ("restrict", "first-player", "compare", "skill")


def test_every_measure_has_planted_and_null_cases():
    kinds = {}
    for c in cases():
        kinds.setdefault(c.measure, set()).add(c.kind)
    assert set(MINE) <= set(kinds)
    for m, k in kinds.items():
        assert k == {"planted", "null"}, (m, k)


@pytest.mark.parametrize("name", thin([c.measure + "/" + c.name for c in cases() if c.measure in MINE and not c.slow]))
def test_a_fast_case_passes(name):
    measure, _, which = name.partition("/")
    c = next(c for c in cases() if c.measure == measure and c.name == which)
    out = c.run(Context(seed=1, workers=1))
    assert out.passed, out.measured


def test_the_rate_check_fails_a_measure_that_says_too_much():
    """A null case whose rule fires in 8% of 2,000 runs against alpha 5% fails; 5.5% passes; a planted case found
    in 70% against a stated 80% fails."""
    assert not rate_check(160, 2000, null=True, rate=0.05)[0]
    assert rate_check(110, 2000, null=True, rate=0.05)[0]
    assert not rate_check(1400, 2000, null=False, rate=0.8)[0]
    assert rate_check(1600, 2000, null=False, rate=0.8)[0]


def test_a_broken_measure_fails_its_case():
    """A planted case of a measure that never finds anything fails, and the command exits 1 with FAIL in its row."""
    from measures.known import _REGISTRY, rate_outcome
    try:
        case("zz-broken", "planted-blind", "planted", "found")(
            lambda ctx: rate_outcome(0, 100, null=False, rate=0.8, what="found"))
        case("zz-broken", "null-quiet", "null", "quiet")(lambda ctx: rate_outcome(0, 100, null=True, rate=0.05,
                                                                               what="found"))
        res = runner.invoke(app, ["validate", "zz-broken"])
        assert res.exit_code == 1, res.output
        assert "FAIL" in res.stdout and "1 passed, 1 failed" in res.stdout
    finally:
        for k in [k for k in _REGISTRY if k[0] == "zz-broken"]:
            del _REGISTRY[k]


def test_the_table_and_json(tmp_path):
    out = tmp_path / "v.json"
    res = runner.invoke(app, ["validate", "skill", "--json", str(out)])
    assert res.exit_code == 0, res.output
    assert "3 passed, 0 failed" in res.stdout
    got = json.loads(out.read_text())
    assert {c["case"] for c in got["cases"]} == {"sim-same-share", "sim-apart-by-margin", "sim-apart-5-points"}
    assert all(c["passed"] and c["interval"][0] <= c["value"] <= c["interval"][1] for c in got["cases"])


def test_list_names_slow_cases_too():
    res = runner.invoke(app, ["validate", "--list"])
    assert res.exit_code == 0, res.output
    for m in MINE:
        assert m in res.stdout


@pytest.mark.parametrize("args, message", [
    (["nosuch"], "MEASURE 'nosuch' has no known-answer cases; allowed: "),
    (["restrict", "--game", "chess"], "chess"),
    (["restrict", "--set", "round_limit=20"], "give --game too"),
    (["restrict", "--game", "paws", "--set", "round_limt=20"], "round_limt"),
    (["restrict", "--game", "paws", "--set", "round_limit=abc"], "round_limit"),
    (["restrict", "--game", "paws", "--set", "noequals"], "--set"),
    (["restrict", "--game", "paws", "--setup", "bots=random"], "the cases choose the bots"),
    (["restrict", "--scale", "0"], "--scale 0.0 is not allowed"),
    (["restrict", "--seed", "-1"], "--seed"),
])
def test_bad_input_is_one_line_exit_2_before_any_game(args, message, monkeypatch):
    import measures.known._play as play
    monkeypatch.setattr(play, "played", lambda *a, **k: pytest.fail("a game was played"))
    res = runner.invoke(app, ["validate", *args])
    assert res.exit_code == 2, res.output
    assert message in res.output and "Traceback" not in res.output
    assert len([x for x in res.stderr.splitlines() if x.strip()]) <= 2, res.stderr


def test_a_card_file_that_does_not_parse_is_refused_before_any_game(tmp_path, monkeypatch):
    import measures.known._play as play
    monkeypatch.setattr(play, "played", lambda *a, **k: pytest.fail("a game was played"))
    bad = tmp_path / "items.toml"
    bad.write_text("[[items]\nname = 'x'\n")
    res = runner.invoke(app, ["validate", "restrict", "--game", "paws", "--data", f"items={bad}"])
    assert res.exit_code == 2 and "items.toml" in res.output and "Traceback" not in res.output, res.output


def test_a_variant_plays_the_designers_rules():
    """--game with --set keeps the cases that take a variant (and the simulations) and they play it."""
    ctx = Context(game="paws", overrides={"round_limit": 30})
    chosen = select("restrict", ctx, slow=False)
    assert {c.name for c in chosen} >= {"paws-forbid-move", "sim-no-cost"}
    assert all(c.game in (None, "paws") for c in chosen)
    with pytest.raises(ValidateError, match="allowed: "):
        select("nosuch", Context(), slow=False)
    assert set(MINE) <= set(measures())


@pytest.mark.slow
@pytest.mark.parametrize("name", [c.measure + "/" + c.name for c in cases() if c.slow])
def test_a_slow_case_passes(name):
    """Every slow case (any measure's), as CI runs them."""
    measure, _, which = name.partition("/")
    c = next(c for c in cases() if c.measure == measure and c.name == which)
    out = c.run(Context(seed=1, workers=2))
    assert out.passed, out.measured
