"""Property tests: every CLI string option and every file input is untrusted.

Random text goes into each string option of every command and random bytes into each kind of file the
CLI reads (card files, sweep specs, result Parquet files, sweep manifests, SQL files). Whatever comes
in, the command either does its work (exit 0, when the text happens to be valid) or refuses it with
exactly one line of error on stderr and exit code 2: never a traceback, never an "unexpected error"
(exit 3), and never a file written anywhere but the ``--out`` it was given.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from budget import examples
from typer.testing import CliRunner

from cli.main import app

runner = CliRunner()

# argv cannot carry NUL bytes or lone surrogates; everything else a shell can pass is fair game
ARG_TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=40)
# text that looks like what users and attackers type: markup, SQL, paths, numbers, separators
HOSTILE = st.sampled_from([
    "[/x]", "[bold]", "[setup]", "results[v2]", "'; DROP TABLE games; --", "1=1); COPY (SELECT 42) TO 'x.csv'",
    "../../etc/passwd", "/dev/zero", "-1", "18446744073709551616", "1e400", "nan", "", " ", ",,,", "=", "a=b=c",
    "heuristic:aggression=1e9", "random,random,random,random,random", "${HOME}", "%s%s%n", "\u202eevil", "\t\n",
    "s3://playtest/../other/pwn", "s3://playtest/%2e%2e/other/pwn", "s3://../x", "s3://b/a//b", "s3://b/p\\..\\x",
])
TEXT = st.one_of(ARG_TEXT, HOSTILE, st.builds(lambda a, b: a + b, HOSTILE, ARG_TEXT))
PROPS = settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                        HealthCheck.too_slow])


def snapshot(root: Path) -> set[str]:
    """Every file under ``root`` (relative paths)."""
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def check(args: list[str], cwd: Path, allowed_new: set[str] = frozenset()) -> int:
    """Run the CLI in ``cwd``; assert exit 0 or one error line with exit 2, and no stray file. Returns the code."""
    before = snapshot(cwd)
    old = os.getcwd()
    os.chdir(cwd)
    try:
        res = runner.invoke(app, args)
    finally:
        os.chdir(old)
    shown = f"args={args!r}\nstdout={res.stdout!r}\nstderr={res.stderr!r}\nexc={res.exception!r}"
    assert res.exit_code in (0, 2), shown
    assert "Traceback" not in res.output + res.stderr, shown
    if res.exit_code == 2:
        # a deprecated flag's note (docs/cli.md) may stand before the one error line
        lines = [line for line in res.stderr.splitlines() if line.strip() and not
                 (line.startswith("note: ") and "is deprecated" in line)]
        assert len(lines) == 1 and lines[0].startswith("error: "), shown
    new = snapshot(cwd) - before
    assert new <= set(allowed_new) | {p for p in new if any(p.startswith(a) for a in allowed_new)}, (new, shown)
    return res.exit_code


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    """A small Paws results file to query."""
    out = tmp_path_factory.mktemp("res") / "r.parquet"
    assert runner.invoke(app, ["run", "paws", "--games", "50", "--seed", "1", "--out", str(out)]).exit_code == 0
    return out


PLAY_OPTIONS = ["--rules", "--board", "--mode", "--players", "--bots", "--people", "--set", "--engine", "--data",
                "--seed", "--game-index", "--items", "--monsters"]


@PROPS
@given(option=st.sampled_from(PLAY_OPTIONS), text=TEXT, game=st.sampled_from(["paws", "tales"]))
def test_play_any_option_text(tmp_path, option, text, game):
    check(["play", game, option, text, "--json"], tmp_path)


@PROPS
@given(text=TEXT)
def test_play_any_game_name(tmp_path, text):
    check(["play", text, "--json"], tmp_path)


RUN_OPTIONS = ["--rules", "--board", "--bots", "--set", "--engine", "--data", "--seed", "--start", "--chunk",
               "--games"]


@PROPS
@given(option=st.sampled_from(RUN_OPTIONS), text=TEXT)
def test_run_any_option_text(tmp_path, option, text):
    args = ["run", "paws", option, text, "--out", "o.parquet"]
    if option != "--games":
        args += ["--games", "5"]
    check(args, tmp_path, {"o.parquet"})


@PROPS
@given(text=TEXT)
def test_run_any_out_path(tmp_path, text):
    # a valid --out is written and nothing else; an invalid one is refused before any game. The text
    # stays a name inside the test's folder ("/" removed): a random absolute path could name a real file.
    text = text.replace("/", "_")
    target = os.path.normpath(text) if text.strip() else text
    check(["run", "paws", "--games", "3", "--out", text], tmp_path, {target} if target not in (".", "..") else set())


@pytest.mark.parametrize("out", ["/dev/null", "/dev/zero", "/proc/self/status", "/"])
def test_run_never_replaces_a_special_file(tmp_path, out):
    before = os.stat(out)
    assert check(["run", "paws", "--games", "3", "--out", out], tmp_path) == 2
    after = os.stat(out)
    assert (before.st_mode, before.st_ino) == (after.st_mode, after.st_ino)


@PROPS
@given(option=st.sampled_from(["--where", "--param", "--format"]), text=TEXT,
       name=st.sampled_from(["seat_advantage", "round_limit", "game_length"]))
def test_query_any_option_text(tmp_path, results, option, text, name):
    check(["query", name, "--results", str(results), option, text], tmp_path)


@PROPS
@given(text=TEXT)
def test_query_any_name_and_results(tmp_path, results, text):
    check(["query", text, "--results", str(results)], tmp_path)
    check(["query", "seat_advantage", "--results", text], tmp_path)


@PROPS
@given(text=TEXT)
def test_sql_any_statement_read_only(tmp_path, results, text):
    check(["sql", text, "--results", str(results), "--read-only"], tmp_path)


@PROPS
@given(text=TEXT)
def test_sweep_any_workers_text(tmp_path, text):
    spec = tmp_path / "s.toml"
    spec.write_text('game = "paws"\nseed = 1\ngames_per_cell = 4\nbatch_size = 4\n')
    try:
        valid = int(text) >= 1         # as the option parses it (int() takes '٣' and '1_0', not '²')
    except ValueError:
        valid = False
    if valid:
        return        # a valid worker count starts Ray: test_sweep_ray covers that
    check(["sweep", "s.toml", "--no-progress", "--workers", text, "--out", "o"], tmp_path)


@pytest.mark.parametrize("out", ["s.toml", "/proc/version", "/dev/null"])
def test_sweep_out_that_is_a_file_is_refused(tmp_path, out):
    (tmp_path / "s.toml").write_text('game = "paws"\nseed = 1\ngames_per_cell = 4\nbatch_size = 4\n')
    assert check(["sweep", "s.toml", "--no-progress", "--out", out], tmp_path) == 2


@PROPS
@given(text=TEXT)
def test_status_any_folder(tmp_path, text):
    check(["status", text], tmp_path)


# ---- random bytes in every file input ----------------------------------------------------------------
BYTES = st.one_of(st.binary(max_size=300),
                  st.sampled_from([b"", b"\xff\xfe", b"[[card]]\nname = '[/x]'\n", b"PAR1\x00\x00PAR1",
                                   b'{"format": 1, "cells": [{"id": 1}]}', b"game = 'paws'\nseed = -1\n",
                                   b"[meta]\n[[card]]\n" * 50,
                                   # nested thousands deep (a parser that recurses per level)
                                   b"x = " + b"[" * 5000 + b"]" * 5000, b"[[card]]\nname = " + b"[" * 3000,
                                   b"x = " + b"{a = " * 4000 + b"1" + b"}" * 4000, b"x." * 3000 + b"y = 1",
                                   b"[" * 5000 + b"]" * 5000, b'{"format": ' * 4000 + b"1" + b"}" * 4000]))


@PROPS
@given(data=BYTES, key=st.sampled_from(["paws:items", "paws:monsters", "tales:creatures", "tales:equipment"]))
def test_card_file_any_bytes(tmp_path, data, key):
    game, name = key.split(":")
    f = tmp_path / "cards.toml"
    f.write_bytes(data)
    check(["play", game, "--data", f"{name}={f}", "--json"], tmp_path)


@PROPS
@given(data=BYTES)
def test_sweep_spec_any_bytes(tmp_path, data):
    f = tmp_path / "spec.toml"
    f.write_bytes(data)
    code = check(["sweep", str(f), "--out", str(tmp_path / "o"), "--no-progress"], tmp_path, {"o"})
    assert code == 2     # no random file is a complete sweep spec


@PROPS
@given(data=BYTES)
def test_results_parquet_any_bytes(tmp_path, data):
    f = tmp_path / "r.parquet"
    f.write_bytes(data)
    assert check(["query", "seat_advantage", "--results", str(f)], tmp_path) == 2
    assert check(["sql", "SELECT count(*) FROM games", "--results", str(f)], tmp_path) == 2


@PROPS
@given(data=BYTES)
def test_manifest_any_bytes(tmp_path, data):
    d = tmp_path / "sweep"
    (d / "games" / "cell=c000").mkdir(parents=True, exist_ok=True)
    (d / "manifest.json").write_bytes(data)
    assert check(["status", str(d)], tmp_path) == 2
    assert check(["query", "seat_advantage", "--results", str(d)], tmp_path) == 2


@PROPS
@given(data=BYTES)
def test_sql_file_any_bytes(tmp_path, results, data):
    f = tmp_path / "q.sql"
    f.write_bytes(data)
    check(["query", str(f), "--results", str(results)], tmp_path)


@pytest.mark.parametrize("path", ["/dev/zero", "/dev/urandom", "/proc/self/status", "/"])
def test_special_files_are_refused_before_reading(tmp_path, results, path):
    """Devices, procfs and folders are never read as card, spec, SQL or results files (no unbounded read)."""
    assert check(["play", "paws", "--data", f"monsters={path}"], tmp_path) == 2
    assert check(["sweep", path, "--out", "o", "--no-progress"], tmp_path) == 2
    assert check(["query", path, "--results", str(results)], tmp_path) == 2


# ---- every numeric flag: huge, negative and zero values -----------------------------------------------
from cli import common as cli_common       # noqa: E402  (the bounds the commands enforce)
import typing                               # noqa: E402
import click                                # noqa: E402
import typer                                # noqa: E402

from cli import compare as cli_compare, play as cli_play, reference as cli_reference  # noqa: E402
from cli import regress as cli_regress, report as cli_report, tune_bot as cli_tune_bot  # noqa: E402
from cli import serve as cli_serve  # noqa: E402

REACHED = "stub reached"    # what the stubbed work says: the command got past its checks
BIG = [0, -1, 1, 2, 4, 5, 100, 101, 4096, 4097, 100_000, 100_001, 10**6, 10**6 + 1, 10**9, 10**12, 10**12 + 1,
       2**31, 2**32, 2**63 - 1, 2**63, 2**64 - 1, 2**64, 10**30, -2**63, -10**30]
G, S, I, W = cli_common.MAX_GAMES, cli_common.MAX_SEED, cli_common.MAX_GAME_INDEX, cli_common.MAX_WORKERS
# (command line before the flag, flag, lowest and highest allowed value; low > high: never allowed)
NUMERIC_FLAGS = [
    (["play", "paws", "--json"], "--players", 2, 4),
    (["play", "tales", "--json"], "--players", 1, 0),            # tales has no players setup value
    (["play", "paws", "--json"], "--seed", 0, S),
    (["play", "paws", "--json"], "--game-index", 0, I),
    (["run", "paws", "--out", "o.parquet", "--games", "3"], "--players", 2, 4),
    (["run", "paws", "--out", "o.parquet"], "--games", 1, G),
    (["run", "paws", "--out", "o.parquet", "--games", "3"], "--seed", 0, S),
    (["run", "paws", "--out", "o.parquet", "--games", "3"], "--start", 0, I - 2),
    (["run", "paws", "--out", "o.parquet", "--games", "3"], "--chunk", 1, G),
    (["bench", "--out", "b.json"], "--games", 1, G),
    (["bench", "--out", "b.json"], "--reference-games", 1, G),
    (["bench", "--out", "b.json"], "--seed", 0, S),
    (["bench", "--out", "b.json", "--bots", "random"], "--bot-games", 1, G),
    (["bench", "--out", "b.json", "--bots", "random"], "--bot-seconds", 1, 86_400),
    (["bench", "--out", "b.json", "--bots", "random", "--strength"], "--strength-games", 10, G),
    (["bench", "--out", "b.json", "--bots", "random", "--strength"], "--strength-seconds", 1, 86_400),
    (["bench", "--out", "b.json", "--core-speed"], "--rounds", 1, 100),
    (["bench", "--out", "b.json", "--core-speed"], "--random-games", 1, G),
    (["report", "results"], "--behind-after", 1, 100_000),
    (["regress", "suite.toml", "--baseline", "b.json"], "--workers", 1, W),
    (["tune-bot", "paws"], "--trials", 1, 10_000),
    (["tune-bot", "paws"], "--games", 1, 10**6),
    (["tune-bot", "paws"], "--seed", 0, S),
    (["tune-bot", "paws"], "--workers", 1, W),
    (["serve", "--host", "127.0.0.1"], "--port", 1, 65535),
    (["serve", "--host", "127.0.0.1"], "--workers", 1, 4096),
    (["serve", "--host", "127.0.0.1"], "--jobs", 1, 64),
    (["serve", "--host", "127.0.0.1"], "--max-queued", 1, 10_000),
    (["serve", "--host", "127.0.0.1"], "--submit-per-minute", 1, 10_000),
    (["serve", "--host", "127.0.0.1"], "--checks-per-minute", 1, 10_000),
    (["serve", "--host", "127.0.0.1"], "--job-time-limit", 60, 30 * 86_400),     # or 0 (ALSO_ALLOWED)
    (["serve", "--host", "127.0.0.1"], "--console-seconds", 1, 3600),
    (["serve", "--host", "127.0.0.1"], "--console-memory", 1, 1024),
    (["serve", "--host", "127.0.0.1"], "--console-rows", 1, 100_000),
    (["submit", "--server", "http://127.0.0.1:9"], "--timeout", 1, 30 * 86_400),
    (["submit", "--server", "http://127.0.0.1:9"], "--request-timeout", 1, 3600),
]
ALSO_ALLOWED = {"--job-time-limit": {0}}       # a value outside a flag's range that means something (0: no limit)
NUMERIC_MODULES = (cli_play, cli_compare, cli_regress, cli_report, cli_tune_bot, cli_reference, cli_serve)


def numeric_flags(module, types: tuple[type, ...] = (int, float)) -> set[tuple[str, str]]:
    """(command, flag) of every option of ``types`` (int or float) of a CLI module's commands, read from their
    signatures."""
    out = set()
    for name, fn in module.COMMANDS.items():
        for param, hint in typing.get_type_hints(fn, include_extras=True).items():
            if typing.get_origin(hint) is not typing.Annotated:
                continue
            base, *extras = typing.get_args(hint)
            base = next((a for a in typing.get_args(base) if a is not type(None)), base)
            if base not in types:
                continue
            info = next(e for e in extras if isinstance(e, typer.models.OptionInfo))
            decls = [d for d in (info.param_decls or ()) if d.startswith("--")]
            out.add((name, decls[0] if decls else "--" + param.replace("_", "-")))
    return out


def test_every_numeric_flag_has_a_bound_in_the_table():
    """A new int or float option of these commands must join NUMERIC_FLAGS (and get its bound)."""
    found = set().union(*(numeric_flags(m) for m in NUMERIC_MODULES))
    assert found == {(args[0], flag) for args, flag, _, _ in NUMERIC_FLAGS}


@pytest.fixture
def stubbed(monkeypatch):
    """The work behind each command replaced by a one-line refusal saying REACHED: in-range values get there
    (past every check) without playing a billion games or starting Ray."""
    from queries import report as rep
    from infra.bench import BenchError

    def stub(error):
        def refuse(*args, **kwargs):
            raise error(REACHED)
        return refuse
    for name in ("run_bench", "run_bot_bench", "run_core_speed"):
        monkeypatch.setattr(cli_play, name, stub(BenchError))
    monkeypatch.setattr(cli_play.output, "write_parquet_tables", stub(OSError))

    class NoBar:                   # the progress bar would be drawn before the stub refuses
        def __init__(self, *args, **kwargs):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def advance(self, *args, **kwargs):
            pass
    monkeypatch.setattr(cli_play, "GamesBar", NoBar)
    monkeypatch.setattr(rep, "check_source", stub(rep.ReportError))
    monkeypatch.setattr(cli_regress, "run", stub(ValueError))
    monkeypatch.setattr(cli_tune_bot, "tune_heuristic", stub(ConnectionError))
    import service.__main__ as service_main
    monkeypatch.setattr(service_main, "main", lambda args: 0)     # serve's checks passed: no service started


@pytest.mark.parametrize("case", NUMERIC_FLAGS, ids=lambda c: f"{c[0][0]}-{c[0][1]}-{c[1]}" if isinstance(c, tuple)
                         else None)
@settings(max_examples=examples(12), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(data=st.data())
def test_numeric_flags_refuse_out_of_range_values_in_one_line(tmp_path, stubbed, case, data):
    """Huge, negative and zero values of each numeric flag: exit 2 with one line naming the flag and the
    allowed values, before any work; in-range values get past the checks. Never a traceback or exit 3."""
    args, flag, low, high = case
    value = data.draw(st.one_of(st.sampled_from(BIG + [low - 1, low, high, high + 1]),
                                st.integers(-2**70, 2**70)), label="value")
    full = args + [flag, str(value)]
    code = check(full, tmp_path)
    res = runner.invoke(app, full) if code == 2 else None
    if low <= value <= high or value in ALSO_ALLOWED.get(flag, ()):
        assert code == 0 or REACHED in res.stderr or flag not in res.stderr, (full, res and res.stderr)
    else:
        assert code == 2, full
        said = " ".join(res.stderr.split())
        assert said.startswith(f"error: {flag}") and "expected" in said or f"has no {flag[2:]}" in said, said
        assert REACHED not in said


FLOAT_FLAGS = set().union(*(numeric_flags(m, (float,)) for m in NUMERIC_MODULES))


@pytest.mark.parametrize("case", [c for c in NUMERIC_FLAGS if (c[0][0], c[1]) in FLOAT_FLAGS],
                         ids=lambda c: f"{c[0][0]}-{c[1]}")
def test_float_flags_refuse_what_is_not_a_number_and_the_values_beside_their_range(tmp_path, stubbed, case):
    """A float flag's check is its own (no int type refuses a fraction or nan first): nan, the infinities, the value
    a unit below its range and half a unit above it are one line naming the flag, before any work."""
    args, flag, low, high = case
    for value in ("nan", "inf", "-inf", str(low - 1), repr(high + 0.5)):
        full = args + [flag, value]
        assert check(full, tmp_path) == 2, full
        said = " ".join(runner.invoke(app, full).stderr.split())
        assert said.startswith(f"error: {flag}") and "expected" in said and REACHED not in said, said
