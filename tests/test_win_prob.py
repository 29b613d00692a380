"""The win_prob table (sim/kit/winprob.py, core/kit/winprob.pxi; docs/tension.md "The stored trace"): each seat's
chance by the oracle's value head as every turn begins and once when the game ends.

- the core's chances are the value head's, computed again in Python (sim.kit.learned.seat_chances) from the seat
  features at each row, on both games, 2 and 4 seats and the team modes, over many seeds; a game paused before
  every decision and played on writes the same rows as the batch;
- rows are per turn in order, then one end row; rounds never go back; the chances sum to 1 over the sides;
- the games table is the same with and without win_prob (the default records neither grow nor change);
- a sweep on one worker and on two writes the same win_prob parts; verification and resume check them;
- a bad oracle, or one without the table, or the reference engine with the table: one line, exit 2, nothing
  written.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from cli.main import app
from cluster.spec import parse_spec
from cluster.sweep import run_sweep
from sim.games import GAMES
from sim.kit import winprob
from sim.kit.learned import seat_chances

SEEDS = int(os.environ.get("PLAYTEST_WIN_PROB_SEEDS", "6"))
GAMES_PER_SEED = 12
# (game, setup, oracle): both games, 2 and 4 seats, free-for-all and the team modes
CONFIGS = [
    ("paws", {"players": 2}, "paws-2"),
    ("paws", {"players": 4}, "paws-2"),
    ("paws", {"players": 4, "board": "explorer", "bots": "learned:model=paws-2"}, "paws-1"),
    ("paws", {"mode": "teams"}, "paws-2"),
    ("tales", {"mode": "standard"}, "tales-2"),
    ("tales", {"mode": "2v2"}, "tales-2"),
    ("tales", {"mode": "survive", "bots": "learned:model=tales-2"}, "tales-2"),
]
IDS = [f"{g}-{'-'.join(str(v) for v in s.values())}" for g, s, _ in CONFIGS]


def match_of(game: str, setup: dict, oracle: str, tables=("games", "win_prob")):
    return GAMES[game].resolve(setup=setup, tables=tables,
                               options={"win_prob": {"oracle": oracle}} if "win_prob" in tables else None)


def teams_of(match) -> bool:
    return match.game == "tales" and match.setup.mode.endswith("2v2") or getattr(match.setup, "mode", "") == "teams"


def sides(chances: np.ndarray, teams: bool) -> np.ndarray:
    """The sides' chances of a row (a team mode: seats 0, 2 and 1, 3 share one chance each)."""
    return chances[:2] if teams else chances


@pytest.mark.parametrize("game,setup,oracle", CONFIGS, ids=IDS)
def test_the_cores_chances_are_the_value_head_of_the_seat_features(game, setup, oracle):
    m = match_of(game, setup, oracle)
    model = winprob.oracle_of(m)
    assert model.name == oracle
    inputs = importlib.import_module(f"sim.{game}.core_engine").core_inputs(m.setup, m.rules, m.data)
    scenario = importlib.import_module(f"core.{game}_scenario")
    teams, seats = teams_of(m), len(m.definition.setup_values(m.setup)["bots"])
    for s in range(SEEDS):
        seed = 1000 + 17 * s
        table = m.play_batch(seed, 0, GAMES_PER_SEED)["win_prob"]
        for index in range(GAMES_PER_SEED):
            rows, features = scenario.value_trace(inputs, seed, index, model.core(), pause=index % 3 == 0)
            assert len(rows) == len(features) > 1
            for row, f in zip(rows, features):
                p = seat_chances(f[:seats], model.value)
                if teams:       # each seat gets its team's chance
                    p = np.array([p[s % 2] + p[s % 2 + 2] for s in range(seats)])
                assert np.abs(row["chances"][:seats] - p).max() < 1e-5, (seed, index, row)
            mine = table.filter(pa.compute.equal(table["game_index"], index)).to_pydict()
            assert mine["turn"] == rows["turn"].tolist() and mine["seat"] == rows["seat"].tolist()
            assert mine["round"] == rows["round"].tolist()
            assert np.array_equal(np.array(mine["chances"], np.float32), rows["chances"][:, :seats])


def test_a_tales_turn_row_is_the_paused_game_at_the_turns_first_decision():
    """Tales: nothing happens between a battle turn's start and its attacker decision, so each turn row's chances
    are the value head over the paused game's learned_features() at that decision (one attacker pick a turn in
    the standard mode), an independent way to the same state."""
    from sim.tales.kinds import Decision
    m = match_of("tales", {"mode": "standard"}, "tales-2")
    model, games = winprob.oracle_of(m), m.definition.paused_game(m)
    table = m.play_batch(21, 0, 20)["win_prob"]
    for index in range(20):
        rows = table.filter(pa.compute.equal(table["game_index"], index)).to_pylist()
        pg, at = games.new(21, index, 0), []
        while pg.paused:
            if pg.asking == Decision.ATTACKER:
                at.append(seat_chances(pg.learned_features()[1], model.value))
            pg.play_on(pg.decisions + 1)
        assert len(at) == len(rows) - 1
        for row, p in zip(rows, at):
            assert np.abs(np.array(row["chances"]) - p).max() < 1e-5, (index, row)


@pytest.mark.parametrize("game,setup,oracle", CONFIGS, ids=IDS)
def test_rows_are_the_turns_in_order_then_the_end(game, setup, oracle):
    m = match_of(game, setup, oracle)
    out = m.play_batch(7, 40, 60)
    games, rows = out["games"].to_pylist(), out["win_prob"]
    assert rows.schema == winprob.SCHEMA == m.schemas["win_prob"]
    teams, seats = teams_of(m), len(games[0]["bots"])
    by_game: dict[int, list[dict]] = {}
    for r in rows.to_pylist():
        assert r["seed"] == 7
        by_game.setdefault(r["game_index"], []).append(r)
    assert list(by_game) == [g["game_index"] for g in games] == list(range(40, 100))
    for g in games:
        mine = by_game[g["game_index"]]
        n = g["turns"]
        assert [r["turn"] for r in mine] == list(range(n + 1)), g["game_index"]
        assert all(0 <= r["seat"] < seats for r in mine[:-1]) and mine[-1]["seat"] == -1
        rounds = [r["round"] for r in mine]
        assert rounds == sorted(rounds) and rounds[0] >= 1 and rounds[-1] == g["rounds"]
        for r in mine:
            c = np.array(r["chances"])
            assert len(c) == seats and (c >= 0).all() and abs(sides(c, teams).sum() - 1) < 1e-5
            if teams:
                assert c[0] == c[2] and c[1] == c[3]


def test_a_turn_row_is_written_as_the_turn_begins():
    """Paws: the turn's seat is the player whose turn it is (§3: clockwise from the first player, the
    knocked-out skipped); the first row of a game is before anything happened: every seat even."""
    m = match_of("paws", {"players": 4}, "paws-2")
    out = m.play_batch(3, 0, 30)
    first = {g["game_index"]: g["first_seat"] for g in out["games"].to_pylist()}
    for r in out["win_prob"].to_pylist():
        if r["turn"] == 0:
            assert r["seat"] == first[r["game_index"]] and r["chances"] == [0.25] * 4


@pytest.mark.parametrize("game,setup", [("paws", {"players": 4}), ("paws", {"mode": "teams"}),
                                        ("tales", {"mode": "2v2"}), ("tales", {"mode": "standard"})])
def test_the_games_table_is_the_same_with_and_without_win_prob(game, setup):
    plain = GAMES[game].resolve(setup=setup).play_batch(11, 0, 200)
    both = match_of(game, setup, f"{game}-2").play_batch(11, 0, 200)
    assert list(plain) == ["games"] and list(both) == ["games", "win_prob"]
    assert plain["games"].equals(both["games"], check_metadata=True)
    sink = [pa.BufferOutputStream() for _ in range(2)]
    for s, t in zip(sink, (plain["games"], both["games"])):
        pq.write_table(t, s)
    assert sink[0].getvalue().to_pybytes() == sink[1].getvalue().to_pybytes()


def test_the_oracle_is_part_of_the_digests():
    base = {"game": "paws", "seed": 1, "games_per_cell": 10, "tables": ["games", "win_prob"]}
    a, b = parse_spec(base, "a.toml"), parse_spec({**base, "oracle": "paws-1"}, "b.toml")
    c = parse_spec({**base, "oracle": "paws-2"}, "c.toml")
    assert a.digest == c.digest != b.digest          # the default is paws-2 (the oracle models/index.toml names)
    assert a.cells[0].match.digest != b.cells[0].match.digest
    model = winprob.oracle_of(b.cells[0].match)
    assert dict(dict(b.cells[0].match.options)["win_prob"]) == {"oracle": f"paws-1@{model.digest}"}
    plain = parse_spec({k: v for k, v in base.items() if k != "tables"}, "d.toml")
    assert plain.cells[0].match.options == () and "oracle" not in plain.cells[0].match.describe()


SPEC = """name = "wp"
game = "{game}"
seed = 5
games_per_cell = 240
batch_size = 40
tables = ["games", "win_prob"]
{oracle}
[grid]
{grid}
"""


def write_spec(tmp_path: Path, game: str = "paws", oracle: str = 'oracle = "paws-2"', grid: str = "players = [2, 4]",
               name: str = "s.toml") -> Path:
    f = tmp_path / name
    f.write_text(SPEC.format(game=game, oracle=oracle, grid=grid))
    return f


def parts(out: Path, table: str) -> dict[str, pa.Table]:
    """Each part's rows and metadata but the code version (git describe: other commits land while a test runs)."""
    out_parts = {}
    for p in sorted((out / table).rglob("*.parquet")):
        t = pq.read_table(p)
        meta = {k: v for k, v in t.schema.metadata.items() if k != b"playtest.code_version"}
        out_parts[str(p.relative_to(out))] = t.replace_schema_metadata(meta)
    return out_parts


def same(a: dict[str, pa.Table], b: dict[str, pa.Table]) -> bool:
    return list(a) == list(b) and all(a[k].equals(b[k], check_metadata=True) for k in a)


def test_one_worker_and_two_write_the_same_win_prob_parts_and_verify_and_resume_check_them(tmp_path):
    from cluster.spec import load_spec
    spec = load_spec(write_spec(tmp_path))
    one, two = tmp_path / "one", tmp_path / "two"
    run_sweep(spec, one, workers=1, progress=False)
    run_sweep(spec, two, workers=2, progress=False)
    a, b = parts(one, "win_prob"), parts(two, "win_prob")
    assert len(a) == 12 and same(a, b)
    rows = pq.read_table(one / "win_prob" / "cell=c001" / "part-00000.parquet")
    assert rows.schema.remove_metadata() == winprob.SCHEMA and sorted(set(rows["game_index"].to_pylist())) == \
        list(range(40))
    runner = CliRunner()
    res = runner.invoke(app, ["status", str(one), "--verify"])
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert "parts ok 12" in text and "missing 0, corrupt 0" in text
    lost = one / "win_prob" / "cell=c000" / "part-00003.parquet"
    lost.unlink()
    (one / "win_prob" / "cell=c001" / "part-00002.parquet").write_bytes(b"not parquet")
    res = runner.invoke(app, ["sweep", str(tmp_path / "s.toml"), "--out", str(one), "--resume", "--workers", "1"])
    assert res.exit_code == 0, res.output
    assert same(parts(one, "win_prob"), b)


@pytest.mark.parametrize("spec_text,words", [
    ('oracle = "nope"', "oracle = 'nope' is not allowed; expected one of paws-1, paws-2"),
    ('oracle = "tales-2"', "oracle = 'tales-2' is a model of tales, not of paws; expected one of paws-1, paws-2"),
    ("oracle = 2", "oracle = 2 has the wrong type; expected a string"),
    ("no_table", "oracle = 'paws-2' without the win_prob table"),
    ("reference", "tables: win_prob needs the core engine"),
])
def test_a_bad_oracle_is_refused_in_one_line_before_any_work(tmp_path, spec_text, words):
    if spec_text == "no_table":
        f = write_spec(tmp_path)
        f.write_text(f.read_text().replace('tables = ["games", "win_prob"]\n', ""))
    elif spec_text == "reference":
        f = write_spec(tmp_path)
        f.write_text('engine = "reference"\n' + f.read_text())
    else:
        f = write_spec(tmp_path, oracle=spec_text)
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["sweep", str(f), "--out", str(out)])
    assert res.exit_code == 2, res.output
    text = " ".join(res.output.split())          # the console wraps long lines
    assert f"{f}: {words}" in text, text
    assert text.count("error:") == 1 and "Traceback" not in text and not out.exists()


def test_the_tales_oracle_is_refused_for_paws_and_the_reference_engine_refuses_the_table():
    with pytest.raises(Exception, match="a model of paws, not of tales"):
        match_of("tales", {}, "paws-2")
    m = match_of("paws", {"players": 2}, "paws-2")
    with pytest.raises(Exception, match="win_prob needs the core engine"):
        m.play_batch(1, 0, 1, "reference")
