"""Kingmaking (sim/kit/kingmaking.py, the ``kingmaking`` sweep table, ``playtest kingmaker``; docs/kingmaking.md).

Held here: a hand-built position whose answer is known (a seat that cannot win chooses between a raid that
makes Player 1 win and ending the turn that makes Player 2 win: a king made, "raid" named; options that all
lead to the same winner: none; an option with which the out seat wins: a self-rescue, no king); a real game's
counts worked out again by hand (every option of every out-seat decision played to the end on copies); nobody
out under a threshold of almost 0; every decision tried when every seat is out from the start; the rows equal
the command's answer before the move to a sweep; the sweep folder verifies, resumes after a part is deleted
with byte-identical parts, answers as the command printed (and ``--from`` reads it again); 1 and 2 workers and
Ray write the same bytes; the threshold and oracle are part of the spec digest; 2-sided games, Tales, a bad
threshold, an unknown oracle and a folder holding another sweep are refused in one line, exit 2, before any game.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from cli.main import app
from measures.kingmaking import sweep as km
from cluster.spec import SpecError, parse_spec
from measures.kingmaking.answer import kingmaking, sentences
from sim.games import GAMES, PausedGames
from sim.kit import kingmaking as kit
from sim.kit.learned import model_path, read_model
from sim.paws.kinds import Action

runner = CliRunner()
PAWS = GAMES["paws"]
MODEL = read_model(model_path(PAWS.models_dir, "paws-2"), PAWS.features)
VALUE = list(MODEL.value)
SETUP = {"players": 4, "bots": ["heuristic"] * 4}
ORACLE = f"paws-2@{MODEL.digest}"


# -- a hand-built position -------------------------------------------------------------------------------------

class Position:
    """A hand-built three-player position: decisions 0 and 1 are Players 1 and 2's (one option each: end the
    turn), decision 2 is Player 3's, who cannot win (the oracle's features put it far behind from the start) and
    chooses among ``ends`` (option -> the winning seat, -1 for none); its bot takes option ``bot``. The game
    ends after decision 2. It has what a paused game of the core has: ``paused``, ``seat``, ``decisions``,
    ``options()``, ``take(k)``, ``copy()``, ``play_on(stop_at)``, ``record()``, ``learned_features()``."""

    END = (int(Action.END_TURN), 0, 0)

    def __init__(self, ends: dict[tuple, int], bot: int):
        self.ends, self.bot = ends, bot
        self.decisions, self.paused, self.chosen = 0, False, None

    @property
    def seat(self) -> int:
        return self.decisions

    def options(self) -> list[tuple]:
        return list(self.ends) if self.decisions == 2 else [self.END]

    def take(self, k: int) -> None:
        if self.decisions == 2:
            self.chosen = k
        self.decisions += 1
        self.paused = False

    def play_on(self, stop_at: int = -1) -> bool:
        while self.decisions < 3:
            if self.decisions == stop_at:
                self.paused = True
                return True
            self.take(self.bot if self.decisions == 2 else 0)
        self.paused = False
        return False

    def copy(self) -> "Position":
        c = Position(self.ends, self.bot)
        c.decisions, c.paused, c.chosen = self.decisions, self.paused, self.chosen
        return c

    def record(self) -> dict:
        return {"winner_seat": list(self.ends.values())[self.chosen]}

    def redeal(self, observer: int, seed: int) -> None:        # nothing hidden, no dice: chance changes nothing
        pass

    def reseed(self, seed: int) -> None:
        pass

    def learned_features(self):
        return [], [[0.0], [0.0], [-10.0]]        # with value [1.0]: Player 3's chance about 0.00005


def position(ends: dict[tuple, int], bot: int) -> PausedGames:
    def new(seed, index, stop_at):
        pg = Position(ends, bot)
        pg.play_on(stop_at)
        return pg
    book = PAWS.paused_game(PAWS.resolve(None, {}, {"players": 3})).kind     # Paws's own words for an option
    return PausedGames(new=new, winner=lambda rec: rec["winner_seat"], kind=book, side_of=lambda seat: seat, sides=3)


RAID_P1 = (int(Action.RAID), 0, 0)
RAID_P2 = (int(Action.RAID), 1, 0)


def test_a_seat_that_cannot_win_and_decides_between_the_others_makes_a_king():
    """Raiding hands the win to Player 1, ending the turn to Player 2 (the bot ends the turn)."""
    row = kit.game_row(position({RAID_P1: 0, Position.END: 1}, bot=1), [1.0], 0.05, 7, 0)
    assert row["winner"] == 1 and row["seat_out"] and row["out_seats"] == [2] and row["out_at"] == [0]
    assert (row["out_decisions"], row["king_decisions"], row["king_at"], row["playouts"]) == (1, 1, [2], 2)
    assert row["king"] and row["self_rescues"] == 0
    assert row["king_kinds"] == ["raid"]          # the option that hands the win to another: in the book's words
    # against chance: the options (each re-dealt) change the winner, the own choice re-dealt never does
    assert (row["dealt_king_decisions"], row["dealt_king_at"], row["chance_king_decisions"]) == (1, [2], 0)
    assert row["chance_playouts"] == 4


def test_a_winner_and_a_stalled_game_is_a_king_too():
    row = kit.game_row(position({RAID_P1: 0, Position.END: -1}, bot=1), [1.0], 0.05, 7, 0)
    assert row["winner"] == -1 and row["king"] and row["king_kinds"] == ["raid"]


def test_options_that_all_lead_to_the_same_winner_make_no_king():
    row = kit.game_row(position({RAID_P1: 1, RAID_P2: 1, Position.END: 1}, bot=2), [1.0], 0.05, 7, 0)
    assert row["seat_out"] and row["out_decisions"] == 1 and row["playouts"] == 3
    assert not row["king"] and row["king_decisions"] == 0 and row["king_at"] == [] and row["king_kinds"] == []
    assert row["dealt_king_decisions"] == row["chance_king_decisions"] == 0 and row["chance_playouts"] == 6


def test_an_option_with_which_the_out_seat_wins_is_a_self_rescue_not_a_king():
    row = kit.game_row(position({RAID_P1: 2, Position.END: 1}, bot=1), [1.0], 0.05, 7, 0)
    assert row["self_rescues"] == 1 and not row["king"] and row["king_kinds"] == []
    assert row["dealt_king_decisions"] == 0          # the out seat's own win is not a winner among the others


def test_nobody_under_the_threshold_is_nobody_out():
    row = kit.game_row(position({RAID_P1: 0, Position.END: 1}, bot=1), [1.0], 1e-9, 7, 0)
    assert not row["seat_out"] and row["out_decisions"] == row["playouts"] == row["chance_playouts"] == 0
    assert not row["king"]


# -- real games --------------------------------------------------------------------------------------------------

def _match(setup=SETUP, threshold=0.05):
    return PAWS.resolve(None, {}, setup, tables=("games", "kingmaking"),
                        options={"kingmaking": {"threshold": threshold, "oracle": "paws-2"}})


def test_a_real_games_counts_are_the_ones_worked_by_hand():
    """For each of 12 games: replay it, find every decision of a seat the value head put under 0.05 (from
    then on), play each option to the end on a copy, and count as the table does."""
    games = PAWS.paused_game(PAWS.resolve(None, {}, SETUP))
    rows = _match().play_batch(3, 0, 12)["kingmaking"].to_pylist()
    kings = outs = 0
    for index, got in enumerate(rows):
        pg = games.new(3, index, 0)
        gone, decisions, king_at, playouts, kinds, dealt_at, chance_at = set(), 0, [], 0, [], [], []
        final = pg.copy()
        final.play_on(-1)
        actual = games.winner(final.record())
        while pg.paused:
            seats = np.array(pg.learned_features()[1]) @ np.array(VALUE)
            p = np.exp(seats - seats.max()) / np.exp(seats - seats.max()).sum()
            gone |= {s for s in range(4) if p[s] < 0.05}
            if pg.seat in gone:
                ends = []
                for k in range(len(pg.options())):
                    c = pg.copy()
                    c.take(k)
                    c.play_on(-1)
                    ends.append(games.winner(c.record()))
                decisions += 1
                playouts += len(ends)
                if len({w for w in ends if w != pg.seat}) > 1:
                    king_at.append(pg.decisions)
                    kinds += [games.kind(pg, pg.options()[k]) for k, w in enumerate(ends) if w not in (pg.seat, actual)]
                if len(ends) > 1:        # against chance: option k and the own choice, each on re-deal k
                    dealt, own = [], []
                    for k in range(len(ends)):
                        s = kit.deal_seed(3, index, pg.decisions, k)
                        for take, into in ((k, dealt), (None, own)):
                            c = pg.copy()
                            c.redeal(pg.seat, s)
                            c.reseed(s)
                            if take is not None:
                                c.take(take)
                            c.play_on(-1)
                            into.append(games.winner(c.record()))
                    if len({w for w in dealt if w != pg.seat}) > 1:
                        dealt_at.append(pg.decisions)
                    if len({w for w in own if w != pg.seat}) > 1:
                        chance_at.append(pg.decisions)
            pg.play_on(pg.decisions + 1)
        assert (got["out_decisions"], got["king_at"], got["playouts"]) == (decisions, king_at, playouts)
        assert (got["dealt_king_at"], got["chance_king_at"]) == (dealt_at, chance_at)
        assert got["dealt_king_decisions"] == len(dealt_at) and got["chance_king_decisions"] == len(chance_at)
        assert got["seat_out"] == bool(gone) and set(got["out_seats"]) == gone and got["king"] == bool(king_at)
        assert got["king_kinds"] == kinds and got["winner"] == actual and got["oracle"] == ORACLE
        kings += got["king"]
        outs += got["seat_out"]
    assert outs > 0 and kings > 0


def test_everybody_out_tries_every_decision():
    rows = _match(threshold=0.999).play_batch(5, 0, 3)["kingmaking"].to_pylist()
    _, counts = PAWS.play_counted(PAWS.resolve(None, {}, SETUP), 5, 0, 3)
    assert all(r["seat_out"] and r["out_at"][0] == 0 for r in rows)
    assert sum(r["out_decisions"] for r in rows) == counts["decisions"]     # every top-level decision
    assert sum(r["decisions"] for r in rows) == counts["decisions"]
    assert any(r["king"] for r in rows)


def test_the_rows_give_the_answer_the_command_gave_before_it_was_a_sweep():
    """Counts of 100 games as cluster/kingmaker.py's kingmaker_batch gave them at 4944341 (seed 1, 4 heuristic
    seats, paws-2, threshold 0.05)."""
    rows = _match().play_batch(1, 0, 100)["kingmaking"].to_pylist()
    got = {"out_games": sum(r["seat_out"] for r in rows), "king_games": sum(r["king"] for r in rows),
           "out_decisions": sum(r["out_decisions"] for r in rows),
           "king_decisions": sum(r["king_decisions"] for r in rows),
           "playouts": sum(r["playouts"] for r in rows), "self_rescues": sum(r["self_rescues"] for r in rows)}
    assert got == {"out_games": 81, "king_games": 8, "out_decisions": 120, "king_decisions": 73, "playouts": 1132,
                   "self_rescues": 16}
    # the chance comparison, added since (the same decisions): as played at its introduction
    assert (sum(r["dealt_king_decisions"] for r in rows), sum(r["chance_king_decisions"] for r in rows),
            sum(r["chance_playouts"] for r in rows)) == (94, 98, 2256)


# -- the sweep ---------------------------------------------------------------------------------------------------

def _spec(**kingmaking):
    raw = km.spec_raw("paws", None, {}, {"players": 3, "bots": ["heuristic"] * 3}, 9, 100, 0.05, "paws-2")
    raw["kingmaking"] = {**raw["kingmaking"], **kingmaking}
    return raw


def test_threshold_and_oracle_are_part_of_the_spec_digest():
    a = parse_spec(_spec())
    assert a.cells[0].match.options == (("kingmaking", (("chance", kit.CHANCE), ("oracle", ORACLE),
                                                         ("threshold", 0.05))),)
    assert parse_spec(_spec(threshold=0.1)).digest != a.digest
    assert parse_spec(_spec(oracle="paws-1")).digest != a.digest
    assert parse_spec(_spec(oracle=ORACLE)).digest == a.digest         # a name and its pinned digest: the same


def test_the_sweeps_oracle_rates_the_seats_unless_kingmaking_names_its_own():
    """The top-level ``oracle`` key (the win_prob table's) is kingmaking's too; ``[kingmaking] oracle`` wins."""
    raw = _spec()
    del raw["kingmaking"]["oracle"]
    paws1 = read_model(model_path(PAWS.models_dir, "paws-1"), PAWS.features)
    opts = dict(dict(parse_spec({**raw, "oracle": "paws-1"}).cells[0].match.options)["kingmaking"])
    assert opts["oracle"] == f"paws-1@{paws1.digest}"
    both = parse_spec({**_spec(), "oracle": "paws-1", "tables": ["games", "kingmaking", "win_prob"]})
    opts = dict(both.cells[0].match.options)
    assert dict(opts["kingmaking"])["oracle"] == ORACLE and dict(opts["win_prob"])["oracle"] == f"paws-1@{paws1.digest}"


@pytest.mark.parametrize("change, message", [
    ({"kingmaking": {"threshold": 0}}, r"\[kingmaking\] threshold = 0 is not allowed; expected a chance between 0 "
                                       r"and 1"),
    ({"kingmaking": {"threshold": 1.5}}, r"threshold = 1.5 is not allowed"),
    ({"kingmaking": {"oracle": "no-such-model"}}, r"no model 'no-such-model'"),
    ({"kingmaking": {"oracl": "paws-2"}}, r"\[kingmaking\] unknown key 'oracl'; valid: threshold, oracle"),
    ({"setup": {"players": 2}}, r"played between 2 sides: kingmaking needs 3 or more"),
    ({"setup": {"mode": "teams"}}, r"played between 2 sides"),
    ({"game": "tales", "setup": {}}, r"unknown tales result table .kingmaking.; valid: games"),
    ({"tables": ["games"]}, r"\[kingmaking\] gives options of a table that the tables do not ask for"),
    ({"engine": "reference"}, r"the kingmaking table replays the engine core's paused games; engine = reference"),
])
def test_a_spec_kingmaking_cannot_apply_to_is_refused_in_one_line(change, message):
    raw = {**_spec(), **change}
    if "kingmaking" in change:
        raw["kingmaking"] = {k: v for k, v in change["kingmaking"].items()}
    with pytest.raises(SpecError) as e:
        parse_spec(raw, source="k.toml")
    assert "\n" not in str(e.value) and re.search(message, str(e.value)), str(e.value)


def _parts(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.glob("*/cell=*/*.parquet"))}


ARGS = ["kingmaker", "paws", "--players", "3", "--games", "120", "--threshold", "0.1", "--seed", "4"]


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    out = tmp_path_factory.mktemp("km") / "k"
    res = runner.invoke(app, [*ARGS, "--out", str(out), "--json", str(out.parent / "k.json"), "--workers", "2"])
    assert res.exit_code == 0, res.output
    return out, res


def test_the_command_plays_a_sweep_and_answers_from_its_folder(swept):
    out, res = swept
    assert (out / "kingmaking.toml").is_file() and len(list((out / "kingmaking").glob("cell=c000/*.parquet"))) == 3
    r = json.loads((out.parent / "k.json").read_text())
    assert r["games"] == 120 and r["oracle"] == ORACLE and r["bots"] == ["heuristic"] * 3 and r["threshold"] == 0.1
    assert r == json.loads(json.dumps(kingmaking(out)))                  # the folder's answer is the printed one
    lines = [x[2:] for x in res.stdout.splitlines() if x.startswith("- ")]
    assert lines == sentences(kingmaking(out)) and "bots, not people" in res.stdout
    assert re.match(r"kingmaking(: no kingmaking shown| beyond chance: a seat)", lines[0])     # the headline first
    assert "a caveat about the oracle, not a finding" in res.stdout or r["self_rescues"] == 0
    assert r["beyond_chance"]["decisions"] == r["out_decisions"] and r["beyond_chance_games"]["games"] == 120
    assert re.search(r"120 games to play, each replayed decision by decision; estimated from the first 50 games "
                     r"\(a pilot, [0-9.]+ s\): [0-9.]+ playouts a game", res.stderr)
    rows = pq.read_table(out / "kingmaking").to_pylist()            # the same rows as the match plays in-process
    direct = _match({"players": 3, "bots": ["heuristic"] * 3}, 0.1).play_batch(4, 0, 120)["kingmaking"].to_pylist()
    assert [{k: v for k, v in x.items() if k != "cell"} for x in rows] == direct
    again = runner.invoke(app, ["kingmaker", "paws", "--from", str(out)])
    assert again.exit_code == 0 and again.stdout == res.stdout, again.output


def test_the_folder_verifies_and_resumes_to_the_same_bytes(swept, tmp_path):
    out, _ = swept
    before = _parts(out)
    status = runner.invoke(app, ["status", str(out), "--verify"])
    assert status.exit_code == 0 and "the folder is whole" in status.output, status.output
    (out / "kingmaking" / "cell=c000" / "part-00001.parquet").unlink()
    status = runner.invoke(app, ["status", str(out), "--verify"])
    assert status.exit_code != 0 and "missing 1" in status.output, status.output
    res = runner.invoke(app, [*ARGS, "--out", str(out), "--resume"])
    assert res.exit_code == 0, res.output
    assert _parts(out) == before
    assert runner.invoke(app, ["status", str(out), "--verify"]).exit_code == 0


def test_one_and_two_workers_write_the_same_bytes(swept, tmp_path):
    out, _ = swept
    one = tmp_path / "one"
    res = runner.invoke(app, [*ARGS, "--out", str(one), "--workers", "1", "--quiet"])
    assert res.exit_code == 0, res.output
    assert _parts(one) == _parts(out)


@pytest.mark.parametrize("args, message", [
    (["paws", "--players", "2"], r"played between 2 sides: kingmaking needs 3 or more"),
    (["paws", "--setup", "mode=teams"], r"played between 2 sides"),
    (["tales"], r"tales: kingmaking replays paused games|played between 2 sides"),
    (["paws", "--threshold", "0"], r"--threshold 0.0 is not allowed; expected a chance between 0 and 1"),
    (["paws", "--threshold", "nan"], r"--threshold nan is not allowed"),
    (["paws", "--oracle", "no-such-model"], r"no-such-model"),
    (["paws", "--setup", "bots=random"], r"give the bots with --bots"),
    (["paws", "--bots", "greedy"], r"unknown bot 'greedy'"),
    (["paws", "--games", "0"], r"--games 0 is out of range"),
    (["paws", "--no-out"], r"--out DIR is required"),
])
def test_bad_input_is_one_line_and_exit_2_before_any_game(args, message, tmp_path):
    out = [] if "--no-out" in args else ["--out", str(tmp_path / "k")]
    res = runner.invoke(app, ["kingmaker", *[a for a in args if a != "--no-out"], *out])
    lines = [x for x in res.stderr.splitlines() if x.strip()]
    assert res.exit_code == 2 and len(lines) == 1 and re.search(message, lines[0]), res.output
    assert not (tmp_path / "k").exists()


def test_a_folder_holding_another_sweep_is_refused_in_one_line(swept, tmp_path):
    out, _ = swept
    before = _parts(out)
    for extra, message in ((["--threshold", "0.2"], r"already holds a kingmaking sweep; pass --resume"),
                           (["--threshold", "0.2", "--resume"], r"started with other settings \(kingmaking differ\)"),
                           (["--oracle", "paws-1", "--resume"], r"started with other settings \(kingmaking differ\)")):
        res = runner.invoke(app, [*[a for a in ARGS if a not in ("--threshold", "0.1")], *extra, "--out", str(out)])
        lines = [x for x in res.stderr.splitlines() if x.strip()]
        assert res.exit_code == 2 and len(lines) == 1 and re.search(message, lines[0]), res.output
    other = tmp_path / "plain"
    spec = tmp_path / "plain.toml"
    spec.write_text('game = "paws"\nseed = 1\ngames_per_cell = 20\n')
    assert runner.invoke(app, ["sweep", str(spec), "--out", str(other)]).exit_code == 0
    for extra in ([], ["--resume"]):
        message = r"holds a sweep that is not a kingmaking sweep \(no kingmaking.toml\)"
        res = runner.invoke(app, [*ARGS, "--out", str(other), *extra])
        lines = [x for x in res.stderr.splitlines() if x.strip()]
        assert res.exit_code == 2 and len(lines) == 1 and re.search(message, lines[0]), res.output
    res = runner.invoke(app, ["kingmaker", "paws", "--from", str(other)])
    assert res.exit_code == 2 and "no kingmaking table in this sweep" in res.stderr, res.output
    assert _parts(out) == before


def test_ray_workers_write_the_same_bytes(swept, tmp_path, ray_local):
    out, _ = swept
    on_ray = tmp_path / "ray"
    res = runner.invoke(app, [*ARGS, "--out", str(on_ray), "--quiet"])
    assert res.exit_code == 0, res.output
    assert _parts(on_ray) == _parts(out)


def test_a_folder_written_before_the_chance_comparison_is_refused_in_one_line(swept, tmp_path):
    """Parts without the chance columns (as every folder before them had): --from says so in one line, exit 2."""
    import shutil
    out, _ = swept
    old = tmp_path / "old"
    shutil.copytree(out, old)
    import hashlib
    import json

    from cluster.manifest import save_manifest
    for part in (old / "kingmaking").glob("cell=*/*.parquet"):
        t = pq.read_table(part)
        pq.write_table(t.drop_columns(list(kit.CHANCE_COLUMNS)), part)
    # the manifest records the parts as the older sweep wrote them (sizes and hashes), signed as it was
    manifest = json.loads((old / "manifest.json").read_text())
    manifest.pop("signature", None)
    for cell in manifest["cells"]:
        for p in cell["parts"]:
            f = old / "kingmaking" / f"cell={cell['id']}" / f"part-{p['batch']:05d}.parquet"
            if f.is_file() and "kingmaking" in p.get("files", {}):
                raw = f.read_bytes()
                p["bytes"] += len(raw) - p["files"]["kingmaking"]["bytes"]
                p["files"]["kingmaking"] = {"bytes": len(raw), "sha256": hashlib.sha256(raw).hexdigest()}
    save_manifest(old, manifest)
    res = runner.invoke(app, ["kingmaker", "paws", "--from", str(old)])
    lines = [x for x in res.stderr.splitlines() if x.strip()]
    assert res.exit_code == 2 and len(lines) == 1, res.output
    assert re.search(r"written before kingmaking was measured against chance \(part-\d+\.parquet has no column "
                     r"dealt_king_decisions\): play it again", lines[0]), lines[0]
