"""The playtest CLI as a designer uses it: play, run, query; bad input is refused before any work."""

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import typer
from typer.testing import CliRunner

from cli.main import app

runner = CliRunner()


def test_play_prints_a_readable_log_ending_in_the_result():
    res = runner.invoke(app, ["play", "paws", "--rules", "v4", "--board", "beginner", "--players", "4", "--seed", "7"])
    assert res.exit_code == 0, res.output
    out = res.output
    assert "== Paws in Peril v4, Beginner board, free-for-all, 4 players" in out
    assert "- Round 1, Player " in out and "roll 1:" in out and "moves to the " in out and "cell " not in out
    assert " P0" not in out and "P1 " not in out
    last = out.strip().splitlines()[-1]
    assert last.startswith("result: ") and ("winner Player " in last or "no winner" in last)


def test_play_json_is_the_record_of_both_engines():
    a = runner.invoke(app, ["play", "paws", "--seed", "3", "--game-index", "5", "--json"])
    b = runner.invoke(app, ["play", "paws", "--seed", "3", "--game-index", "5", "--json", "--engine", "reference"])
    assert a.exit_code == b.exit_code == 0
    ra, rb = json.loads(a.output), json.loads(b.output)
    assert ra == rb and ra["game_index"] == 5 and ra["seed"] == 3 and ra["end_reason"] in ("vp", "last_alive")


def test_run_writes_parquet_with_the_record_schema(tmp_path):
    out = tmp_path / "r.parquet"
    res = runner.invoke(app, ["run", "paws", "--games", "300", "--seed", "1", "--mode", "teams",
                              "--bots", "heuristic,random,heuristic:aggression=5,random",
                              "--set", "round_limit=20", "--out", str(out)])
    assert res.exit_code == 0, res.output
    t = pq.read_table(out)
    from sim.games import get
    from sim.paws.record import SCHEMA
    stored = get("paws").schemas["games"]              # the engine's record, then the card data columns
    assert t.schema.equals(stored, check_metadata=False) and stored.names[:len(SCHEMA)] == SCHEMA.names
    assert t.num_rows == 300 and t.column("data_name")[0].as_py() == "items=items.toml; monsters=monsters.toml"
    assert set(t.column("round_limit").to_pylist()) == {20}
    assert t.column("bots")[0].as_py() == ["heuristic", "random", "heuristic:aggression=5", "random"]
    assert pq.read_metadata(out).metadata[b"playtest.seed"] == b"1"


def test_query_answers_the_round_limit_question(tmp_path):
    out = tmp_path / "r.parquet"
    assert runner.invoke(app, ["run", "paws", "--games", "400", "--seed", "2", "--out", str(out)]).exit_code == 0
    res = runner.invoke(app, ["query", "sim/paws/sql/queries/round_limit.sql", "--data", str(out)])
    assert res.exit_code == 0, res.output
    assert "ended_by_limit" in res.output and "400" in res.output


@pytest.mark.parametrize("args, needle", [
    (["play", "chess"], "unknown game 'chess'; expected one of paws"),
    (["play", "paws", "--rules", "v9"], "valid rule sets: v3, v3-ap3, v4"),
    (["play", "paws", "--set", "round_limt=20"], "unknown rule parameter 'round_limt'"),
    (["play", "paws", "--set", "lives=0"], "lives = '0' is not allowed; expected an integer from 1 to 9"),
    (["play", "paws", "--players", "5"], "players = 5 is not allowed"),
    (["play", "paws", "--bots", "heuristic,random"], "bots: 2 given for 4 players"),
    (["play", "paws", "--bots", "genius"], "unknown bot 'genius'"),
    (["play", "paws", "--engine", "gpu"], "engine 'gpu' is not available; expected one of core, reference"),
    (["play", "paws", "--items", "/nonexistent/items.toml"], "/nonexistent/items.toml: no such card file"),
    (["run", "paws", "--games", "0", "--out", "x.parquet"], "--games 0 is out of range; expected an integer from 1"),
    (["play", "tales", "--data", "monsters=m.toml"],
     "--data: unknown tales data file 'monsters'; valid: creatures, equipment"),
    (["query", "nothing.sql", "--data", "x.parquet"], "nothing.sql: no such SQL file"),
])
def test_bad_input_is_one_clear_line_and_exit_code_2(args, needle, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path) if args[0] == "run" else None
    res = runner.invoke(app, args)
    assert res.exit_code == 2
    assert needle in " ".join(res.output.split())
    assert "Traceback" not in res.output


def test_an_unexpected_error_is_one_line_with_a_pointer_to_debug(monkeypatch):
    """A bug anywhere below the CLI ends in one line and exit 3 (not 1: regress's "regression"); --debug shows it."""
    import sim.games

    def boom(name):
        raise RuntimeError("boom\nsecond line")
    monkeypatch.setattr(sim.games, "get", boom)
    res = runner.invoke(app, ["play", "paws"])
    assert res.exit_code == 3, res.output
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "unexpected error" in lines[0] and "RuntimeError: boom second line" in lines[0]
    assert "--debug" in lines[0] and "Traceback" not in res.output
    res = runner.invoke(app, ["--debug", "play", "paws"])
    assert isinstance(res.exception, RuntimeError) and str(res.exception).startswith("boom")


@pytest.mark.parametrize("args, needle", [
    (["play", "paws", "--set", "[setup]=1"], "unknown rule parameter '[setup]'"),
    (["play", "paws", "--bots", "[/x]"], "unknown bot '[/x]'"),
    (["play", "paws", "--data", "items=results[v2]/[bold]x.toml"], "results[v2]/[bold]x.toml: no such card file"),
    (["play", "paws", "--seed", "-1"], "--seed -1 is out of range; expected an integer from 0 to 18446744073709551615"),
    (["play", "paws", "--seed", str(2**64)], "--seed 18446744073709551616 is out of range"),
    (["play", "paws", "--game-index", str(2**63)], "--game-index 9223372036854775808 is out of range"),
    (["play", "paws", "--seed", "abc"], "Invalid value for '--seed'"),
    (["play", "paws", "--no-such-flag"], "No such option: --no-such-flag"),
    (["run", "paws", "--out", "."], "--out .: is a folder; give a file name"),
    (["run", "paws", "--games", str(10**13), "--out", "x.parquet"], "--games 10000000000000 is out of range"),
    (["run", "paws", "--start", "-5", "--out", "x.parquet"], "--start -5 is out of range"),
    (["run", "paws", "--chunk", "0", "--out", "x.parquet"], "--chunk 0 is out of range"),
    (["run", "tales", "--cards-out", "x.parquet", "--out", "x.parquet"], "the same file as --out"),
    (["play", "paws", "--data", "monsters=/dev/zero"], "/dev/zero: is not a regular file"),
    (["bench", "--out", "."], "--out .: is a folder; give a file name"),
    (["frobnicate"], "No such command 'frobnicate'"),
])
def test_bad_input_keeps_its_brackets_and_is_one_line(args, needle, tmp_path, monkeypatch):
    """User text is shown as written (never read as Rich markup) in exactly one error line, exit 2."""
    monkeypatch.chdir(tmp_path)
    res = runner.invoke(app, args)
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert res.exit_code == 2, res.output
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], lines
    assert list(tmp_path.iterdir()) == []          # refused before anything was written


def test_paths_with_markup_are_written_and_printed_as_given(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = runner.invoke(app, ["run", "paws", "--games", "3", "--out", "[/x]/results[v2].parquet"])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "[/x]" / "results[v2].parquet").is_file() and "-> [/x]/results[v2].parquet" in res.stderr


def test_a_write_failure_leaves_no_file_and_is_one_line(tmp_path, monkeypatch):
    """A failing write (here: the folder is replaced by a file mid-run) leaves neither the file nor a temporary."""
    import sim.output
    monkeypatch.chdir(tmp_path)
    real = sim.output.write_parquet_tables

    def full_disk(*a, **k):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(sim.output, "write_parquet_tables", full_disk)
    res = runner.invoke(app, ["run", "paws", "--games", "3", "--out", "r.parquet"])
    assert res.exit_code == 2 and "No space left on device" in res.stderr and real is not full_disk
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", [["run", "tales", "--games", "5", "--out", "t.parquet"],
                                     ["play", "tales", "--json"]])
def test_a_tales_core_capacity_error_is_one_line(command, tmp_path, monkeypatch):
    """The Tales core's capacity overflow (an option list longer than its fixed buffer) is an EngineError:
    one line, exit 2, and no results file, like the Paws core's."""
    import sim.tales.core_engine as core
    from sim.games import EngineError
    assert issubclass(core.CoreError, EngineError)

    def overflow(*a, **k):
        raise core.CoreError("game 3: a decision had more options than the core's capacity")
    monkeypatch.setattr(core, "play_batch_core", overflow)
    monkeypatch.chdir(tmp_path)
    res = runner.invoke(app, command)
    lines = [line for line in res.stderr.splitlines() if line.strip() and not line.startswith("games ")]
    assert res.exit_code == 2 and lines == ["error: game 3: a decision had more options than the core's capacity"]
    assert not (tmp_path / "t.parquet").exists()


def test_run_keeps_an_existing_output_unless_forced(tmp_path):
    out = tmp_path / "r.parquet"
    args = ["run", "paws", "--games", "20", "--seed", "4", "--out", str(out)]
    assert runner.invoke(app, args).exit_code == 0
    before = out.read_bytes()
    res = runner.invoke(app, [*args[:-4], "--seed", "5", "--out", str(out)])
    lines = [x for x in res.stderr.splitlines() if x.strip()]
    assert res.exit_code == 2 and len(lines) == 1, res.output
    assert f"--out {out}: the file exists; pass --force to replace it" in lines[0]
    assert out.read_bytes() == before                        # not touched
    assert runner.invoke(app, [*args[:-4], "--seed", "5", "--out", str(out), "--force"]).exit_code == 0
    assert out.read_bytes() != before


def test_version():
    from importlib.metadata import version
    res = runner.invoke(app, ["--version"])
    assert res.exit_code == 0 and res.stdout.strip() == f"playtest {version('playtest')}"


@pytest.mark.parametrize("args, flag, needle", [
    (["play", "paws", "--board", "moon"], "--board", "board 'moon' is not allowed; expected one of beginner, explorer"),
    (["play", "paws", "--mode", "solo"], "--mode", "mode 'solo' is not allowed"),
    (["play", "paws", "--players", "5"], "--players", "players = 5 is not allowed; expected 2, 3 or 4"),
    (["play", "paws", "--bots", "nobot"], "--bots", "unknown bot 'nobot'"),
    (["run", "paws", "--bots", "heuristic:zzz=3", "--out", "x.parquet"], "--bots", "unknown weight 'zzz'"),
    (["play", "tales", "--people", "elves"], "--people", "people 'elves' is not allowed; expected animalis or schatten"),
    (["play", "tales", "--mode", "x"], "--mode", "mode 'x' is not allowed"),
    (["play", "paws", "--set", "lives=0"], "--set", "lives = '0' is not allowed"),
])
def test_a_bad_value_is_named_by_the_flag_the_user_typed(args, flag, needle, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = runner.invoke(app, args)
    lines = [x for x in res.stderr.splitlines() if x.strip()]
    assert res.exit_code == 2 and len(lines) == 1, res.output
    assert lines[0].startswith(f"error: {flag}: ") and needle in lines[0], lines[0]
    assert not (tmp_path / "x.parquet").exists()


def test_setup_key_value_reaches_any_setup_value_of_any_game(tmp_path):
    """--setup KEY=VALUE: one game-neutral flag for every setup value, the same games as the game's own flags."""
    def record(*args):
        res = runner.invoke(app, ["play", *args, "--seed", "4", "--json"])
        assert res.exit_code == 0, res.output
        return json.loads(res.stdout)
    assert record("paws", "--setup", "players=3", "--setup", "board=explorer") == \
        record("paws", "--players", "3", "--board", "explorer")
    assert record("tales", "--setup", "mode=2v2", "--setup", "people=schatten") == \
        record("tales", "--mode", "2v2", "--people", "schatten")
    for args, needle in ((["--setup", "planet=mars"], "--setup: unknown paws setup value 'planet'; valid: board"),
                         (["--setup", "players=5"], "--setup: players = 5 is not allowed"),
                         (["--setup", "board=explorer", "--board", "beginner"], "board is given as --board too"),
                         (["--setup", "nothing"], "--setup: 'nothing' is not of the form name=value")):
        res = runner.invoke(app, ["play", "paws", *args])
        lines = [x for x in res.stderr.splitlines() if x.strip()]
        assert res.exit_code == 2 and len(lines) == 1 and needle in lines[0], res.output


@pytest.mark.parametrize("command", ["play", "run"])
def test_the_per_game_aliases_still_work_with_one_note_naming_the_setup_and_data_form(command, tmp_path):
    """--board, --mode, --players, --people, --items and --monsters are deprecated: the same games as --setup and
    --data, with one note line on stderr naming what to write instead; none without them."""
    items = str(Path(__file__).resolve().parent.parent / "sim/paws/data/items.toml")
    tail = ["--json"] if command == "play" else ["--games", "20", "--out"]
    def invoke(name, *args):
        res = runner.invoke(app, [command, "paws", *args, "--seed", "4", *tail, *([str(tmp_path / name)]
                                                                               if command == "run" else [])])
        assert res.exit_code == 0, res.output
        return res, (res.stdout if command == "play" else pq.read_table(tmp_path / name).drop(["data_name"]))
    old, a = invoke("a.parquet", "--board", "explorer", "--players", "3", "--items", items)
    new, b = invoke("b.parquet", "--setup", "board=explorer", "--setup", "players=3", "--data", f"items={items}")
    assert a == b if command == "play" else a.equals(b)
    notes = [x for x in old.stderr.splitlines() if x.startswith("note: ")]
    assert notes == [f"note: --board, --players, --items are deprecated and will be removed; use --setup "
                     f"board=explorer --setup players=3 --data items={items}"]
    assert not [x for x in new.stderr.splitlines() if "deprecated" in x]


@pytest.mark.parametrize("game, args", [("paws", ["--mode", "teams"]), ("paws", ["--players", "3"]),
                                        ("tales", []), ("tales", ["--mode", "2v2"])])
def test_the_result_line_numbers_winners_as_the_log_and_the_book_do(game, args):
    """Once a Teams log ended "Team 2 wins" then "winner team 1": the result line now names the winner as the log
    does (Player/Commander/Team, from 1), and the JSON record keeps its 0-based columns."""
    for seed in range(4):
        res = runner.invoke(app, ["play", game, *args, "--seed", str(seed)])
        assert res.exit_code == 0, res.output
        lines = res.stdout.splitlines()
        result = lines[-1]
        rec = json.loads(runner.invoke(app, ["play", game, *args, "--seed", str(seed), "--json"]).stdout)
        team, seat = rec["winner_team"], rec.get("winner_seat", rec.get("winner_side"))
        if seat is not None and seat >= 0:
            word = "Player" if game == "paws" else "Commander"
            assert f", winner {word} {seat + 1}, " in result, result
        elif team >= 0:
            assert f", winner Team {team + 1}, " in result, result
            assert any(f"Team {team + 1}" in line and "win" in line for line in lines[:-1]), lines[-3:]
        else:
            assert ", no winner, " in result, result


def test_every_command_has_an_example_in_its_help_and_the_example_parses():
    """Each --help ends with one example of the command, and the example's flags are the command's own (the
    example is parsed, not run: a renamed flag fails here)."""
    import shlex
    from cli.main import EXAMPLES
    group = typer.main.get_command(app)
    names = sorted(group.commands)
    assert sorted(EXAMPLES) == names
    for name in names:
        res = runner.invoke(app, [name, "--help"])
        assert res.exit_code == 0 and "Example: playtest " + name in " ".join(res.output.split()), name
        words = shlex.split(EXAMPLES[name])
        assert words[:2] == ["playtest", name]
        ctx = group.commands[name].make_context(name, words[2:])      # a flag it does not have: UsageError
        assert ctx.params, name


def test_run_writes_the_decision_traces_beside_the_games(tmp_path):
    import pyarrow.parquet as pq
    from sim.kit.trace import decode
    out, traces = tmp_path / "g.parquet", tmp_path / "t.parquet"
    res = runner.invoke(app, ["run", "paws", "--games", "30", "--players", "2", "--bots", "flat:rollouts=2:depth=3,random",
                              "--out", str(out), "--trace", str(traces)])
    assert res.exit_code == 0, res.output
    games, t = pq.read_table(out), pq.read_table(traces)
    assert t.column_names == ["seed", "game_index", "trace"] and t.num_rows == games.num_rows == 30
    assert t["game_index"].to_pylist() == games["game_index"].to_pylist()
    assert all(any(c.note for c in decode(b)) for b in t["trace"].to_pylist())
    res = runner.invoke(app, ["run", "paws", "--games", "3", "--out", str(tmp_path / "x.parquet"),
                              "--trace", str(tmp_path / "x.parquet")])
    assert res.exit_code == 2 and "--trace" in res.stderr and "the same file as --out" in res.stderr
