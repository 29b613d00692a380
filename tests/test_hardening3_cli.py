"""Command-line input that was accepted, silently replaced, refused too late, echoed from another file or ended in a
traceback: each is one line now, before any work (exit 2), and Ctrl-C is one line saying what stopped (exit 130).
"""

import csv
import io
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app
from cluster.spec import parse_spec
from cluster.sweep import run_sweep
from signals import default_sigint

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()


def cli(*args):
    return runner.invoke(app, [str(a) for a in args])


def one_line(res, code: int = 2) -> str:
    """The exit code and the one line on stderr (no traceback); the line."""
    assert res.exit_code == code, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in res.output, res.output
    return lines[0]


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    out = tmp_path_factory.mktemp("h3cli") / "sweep"
    run_sweep(parse_spec({"name": "h3", "game": "paws", "seed": 3, "games_per_cell": 40, "batch_size": 20,
                          "grid": {"players": [2, 4]}}, source="h3.toml"), out, progress=False, driver_plays=True)
    return out


# ---- --where must be a boolean expression ----------------------------------------------------------------------

@pytest.mark.parametrize("where, gives", [("round_limit", "INTEGER"), ("board", "VARCHAR"), ("1", "INTEGER")])
def test_a_filter_that_is_not_true_or_false_is_refused(sweep, where, gives):
    line = one_line(cli("query", "end_reasons", "--results", sweep, "--where", where))
    assert f"--where '{where}': not a boolean expression (it gives {gives}" in line, line


def test_a_boolean_filter_still_filters(sweep):
    res = cli("query", "end_reasons", "--results", sweep, "--where", "players = 4", "--format", "csv")
    assert res.exit_code == 0, res.output
    rows = list(csv.DictReader(io.StringIO(res.stdout)))
    assert rows and {r["players"] for r in rows} == {"4"}


# ---- a name given twice -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("flags, said", [
    (["--data", "monsters=a.toml", "--data", "monsters=b.toml"], "--data: monsters is given twice (monsters=a.toml "
                                                                 "and monsters=b.toml); give it once"),
    (["--set", "round_limit=10", "--set", "round_limit=20"], "--set: round_limit is given twice"),
    (["--setup", "players=2", "--setup", "players=3"], "--setup: players is given twice"),
])
def test_an_assignment_given_twice_is_refused_before_any_game(tmp_path, flags, said):
    out = tmp_path / "r.parquet"
    line = one_line(cli("run", "paws", "--games", 5, *flags, "--out", out))
    assert said in line, line
    assert not out.exists()


def test_a_deck_given_by_its_alias_and_by_data_is_refused(tmp_path):
    monsters = ROOT / "sim/paws/data/monsters.toml"
    line = one_line(cli("play", "paws", "--monsters", monsters, "--data", f"monsters={monsters}"))
    assert "monsters is given as --monsters too; give it once" in line, line


def test_a_bot_spec_that_sets_a_weight_twice_is_refused():
    line = one_line(cli("play", "paws", "--bots", "mcts:iterations=8:iterations=16"))
    assert "iterations is given twice" in line, line


# ---- a tune's metric is checked before the race -----------------------------------------------------------------

TUNE = """name = "h3-tune"
game = "paws"
rules = "v4"
seed = 1
batch = 50
max_games_per_candidate = 100

[setup]
bots = "heuristic"

[space]
mansion_monster_hp_bonus = [1, 2]

[hold]
players = [2]

[objective]
metric = "{metric}"
goal = "max"
"""


def test_a_sql_objective_out_of_range_is_refused_before_the_race(tmp_path):
    spec = tmp_path / "tune.toml"
    spec.write_text(TUNE.format(metric="sql: rounds"))
    out = tmp_path / "tune"
    line = one_line(cli("tune", spec, "--out", out))
    assert "metric 'sql:rounds': a game's value" in line and "is outside [0, 1]" in line, line
    assert "before the race" in line and not out.exists()


def test_a_sql_objective_in_range_still_races(tmp_path):
    spec = tmp_path / "tune.toml"
    spec.write_text(TUNE.format(metric="sql: rounds > 10"))
    res = cli("tune", spec, "--out", tmp_path / "tune", "--quiet")
    assert res.exit_code == 0, res.output


# ---- a query names a question file, and quotes no other -----------------------------------------------------------

def test_a_query_path_that_is_not_a_sql_file_is_refused_unread(sweep, tmp_path):
    other = tmp_path / "hostname"
    other.write_text("secret-host-token\n")
    for name in (other, "/etc/hostname"):
        line = one_line(cli("query", name, "--results", sweep))
        assert f"{name}: not a .sql file" in line, line
        assert "secret-host-token" not in line and "syntax error" not in line, line


# ---- Ctrl-C ------------------------------------------------------------------------------------------------------

def test_train_bot_says_it_stopped_and_how_to_resume_even_when_quiet(monkeypatch, tmp_path):
    def interrupted(run):
        raise KeyboardInterrupt
    monkeypatch.setattr("cli.train_bot.train", interrupted)
    res = cli("train-bot", "paws", "--iterations", 1, "--games", 10, "--out", tmp_path / "m.json", "--quiet")
    line = one_line(res, 130)
    assert f"train-bot: stopped (Ctrl-C); the finished iterations are kept in {tmp_path / 'm.json.work'}" in line
    assert "again to resume from them" in line, line


@pytest.mark.slow
def test_train_bot_quiet_ctrl_c_in_a_real_run(tmp_path):
    work = tmp_path / "m.json.work"
    p = subprocess.Popen([sys.executable, "-c", "from cli.main import app; app()", "train-bot", "paws", "--iterations", "1", "--games", "4000",
                          "--eval-games", "10", "--improve", "0", "--out", str(tmp_path / "m.json"), "--quiet",
                          "--workers", "1"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env={**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}, preexec_fn=default_sigint)
    try:
        while not (work / "train-spec.json").exists() and p.poll() is None:    # the run has begun
            threading.Event().wait(0.05)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
    text = err.decode()
    assert p.returncode == 130, text
    assert "train-bot: stopped (Ctrl-C)" in text and "again to resume from them" in text, text


@pytest.fixture(scope="module")
def tension_folder(tmp_path_factory):
    out = tmp_path_factory.mktemp("h3tension") / "tension"
    res = cli("tension", "paws", "--games", 40, "--out", out, "--quiet")
    assert res.exit_code == 0, res.output
    return out


def test_tension_ctrl_c_while_answering_is_one_line(tension_folder, monkeypatch):
    """Ctrl-C while DuckDB works out the answer (a statement that runs until it is stopped): one line, exit 130;
    DuckDB turned it into RuntimeError('Query interrupted') before, a traceback."""
    started, cons = threading.Event(), []

    def endless(con, cell, decided):
        cons.append(con)
        started.set()
        con.execute("SELECT count(*) FROM range(1000000000000) t(x) WHERE x % 7 = 3").fetchall()

    def ctrl_c():
        if started.wait(60):
            os.kill(os.getpid(), signal.SIGINT)
        if not finished.wait(60) and cons:           # never leave the statement running
            cons[0].interrupt()
    monkeypatch.setattr("measures.tension.answer.tension", endless)
    finished = threading.Event()
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        threading.Thread(target=ctrl_c, daemon=True).start()
        res = cli("tension", "paws", "--from", tension_folder)
    finally:
        finished.set()
        signal.signal(signal.SIGINT, old)
    line = one_line(res, 130)
    assert "tension: interrupted (Ctrl-C)" in line and f"playtest tension paws --from {tension_folder}" in line, line
