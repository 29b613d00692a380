"""``playtest ladder GAME``: a round robin of bots played as a sweep, rated by Bradley-Terry on the Elo scale.

The ladder is a sweep like any other: its spec (``DIR/ladder.toml``, one ``[[cells]]`` per line-up) is
written into the results folder, played on Ray (``--workers``, ``--address``, ``--resume``), and its
results are the usual Parquet parts and manifest that ``playtest query`` and ``sql`` read. Line-ups: every
set of P bots of the field (P = the seats, 2 by default) in every seat order (P! line-ups each); heads-up
that is every pair in both seat orders. When every part is played, the ratings and the win matrix
(queries/ratings.py) are printed and written to ``DIR/ladder.json``.
"""

from __future__ import annotations

import json
import math
import shlex
import tomllib
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from cli.common import MAX_SEED, check_range, err, fail, fit_table, game_named, local_out
from cli.sweep import play_spec
from cluster.ladder import (DEFAULT_FIELD, ENGINE, LadderError, check_field, field_of, lineups, seconds_per_game,
                            shared_setup)
from cluster.spec import AUTO_BATCH, MAX_BATCH, MAX_GAMES_PER_CELL, SpecError, parse_spec
from cluster.sweep import LOCK, SweepError, check_out_dir, interrupts, workers_error
from queries import intransitive, library, ratings
from sim.files import parse_toml, read_text_bounded, write_atomic
from sim.games import GAMES, EngineError, Game
from sim.params import RuleError, parse_assignments

SPEC_NAME = "ladder.toml"           # the ladder's sweep spec, in its results folder
REPORT_NAME = "ladder.json"         # its ratings and win matrix, beside it (cluster/verify.py keeps both)
PART_SECONDS = 2.0                  # the automatic batch size aims at parts of about this long on one core


def _field(text: Optional[str]) -> list[str]:
    try:
        return field_of(text)
    except LadderError as e:
        fail(str(e))


def _shared_setup(g: Game, rules, overrides, setup, seats: Optional[int]) -> tuple[dict, int]:
    """The setup every line-up shares and the seats (cluster/ladder.py). A bad value: one line, exit 2."""
    try:
        return shared_setup(g, rules, overrides, setup, seats)
    except LadderError as e:
        fail(str(e))


def _check_field(g: Game, rules, overrides, setup, bots: list[str], seats: int) -> list[str]:
    """The field checked and named as the records name it (cluster/ladder.py). A bad bot: one line, exit 2."""
    try:
        return check_field(g, rules, overrides, setup, bots, seats)
    except LadderError as e:
        fail(str(e))


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return json.dumps(str(value))          # a TOML basic string: JSON's escapes are TOML's


def spec_text(raw: dict) -> str:
    """The ladder's sweep spec as TOML (values only: strings, integers, lists, tables of them, cells)."""
    lines = ["# a bot ladder: written by playtest ladder; one cell per line-up (docs/ladder.md)"]
    for key, value in raw.items():
        if not isinstance(value, (dict, list)) or key == "tables":
            lines.append(f"{key} = {_toml(value)}")
    for key in ("setup", "overrides"):
        if raw.get(key):
            lines.append(f"\n[{key}]")
            lines += [f"{json.dumps(k)} = {_toml(v)}" for k, v in raw[key].items()]
    for cell in raw["cells"]:
        lines.append("\n[[cells]]")
        lines += [f"{json.dumps(k)} = {_toml(v)}" for k, v in cell.items()]
    text = "\n".join(lines) + "\n"
    if tomllib.loads(text) != raw:        # the file must say exactly what is played
        raise AssertionError("the ladder spec does not read back as written")
    return text


def probe_batch_size(g: Game, rules, overrides, setup, bots: list[str], line: list[tuple[str, ...]],
                     seed: int, games: int) -> int:
    """Games per part for parts of about PART_SECONDS on one core: each bot is timed playing every seat
    (a line-up's game takes about the mean of its bots' times), the slowest line-up sets the size. Any
    bot kind, search bots included: nothing here knows what a bot is."""
    per_game = seconds_per_game(g, rules, overrides, setup, bots, seed, ENGINE)
    slowest = max(sum(per_game[b] for b in lineup) / len(lineup) for lineup in line)
    size = max(1, min(AUTO_BATCH[ENGINE], int(PART_SECONDS / max(slowest, 1e-9))))
    parts = math.ceil(games / size)
    return min(MAX_BATCH, math.ceil(games / parts))


def _report(out: Path, bots: list[str], seats: int, info: dict) -> dict:
    """Ratings and win matrix of the ladder's results in ``out``, as written to ladder.json."""
    results = [str(out)]
    anchor = ratings.anchor_of(bots)
    try:
        con = library.connect(results)
        try:
            library.add_seat_outcomes(con, results)
            meetings = ratings.read_meetings(con, results)
            played = ratings.games_played(con, results)
            outcomes = ratings.read_outcomes(con, results) if seats > 2 else None
            games = library.execute(con, "SELECT count(*) FROM games", results=results)[1][0][0]
        finally:
            con.close()
        rated = ratings.ratings(bots, meetings, anchor, games=played, outcomes=outcomes)
        fit = ratings.fit_of(bots, meetings, seats, outcomes, anchor)
        field = intransitive.analyse(bots, meetings, seats=seats)
    except (library.QueryError, library.ResultsError, ratings.RatingError) as e:
        fail(f"{out}: {e}")
    return {
        **info,
        "games": games,
        "bots": bots,
        "anchor": bots[anchor],
        "ratings": rated,
        "win_matrix": ratings.win_matrix(bots, meetings),
        "fit": fit,
        "intransitivity": field,
        "method": {
            "ratings": "Bradley-Terry by maximum likelihood over every meeting (two bots on opposing seats of a "
                       "game; a game nobody won counts half a win each), on the Elo scale (400 log10 odds) "
                       f"anchored at {bots[anchor]} = 0; a prior of {ratings.PRIOR_GAMES:g} virtual drawn game "
                       "per pair keeps a bot that never loses finite",
            "intervals": ("95%: rating +- 1.96 standard errors from the inverse Fisher information, relative to "
                          "the anchor") if seats == 2 else
                         (f"95%: rating +- 1.96 standard deviations over a bootstrap of the games "
                          f"({ratings.BOOTSTRAP} replicates, each line-up's games resampled; one game's "
                          "meetings are not independent), relative to the anchor"),
            "fit": ("Bradley-Terry against every pair's own win share (draws half): deviance on (pairs that met) - "
                    "(bots - 1) degrees of freedom, chi-square p; below 0.01 one rating per bot does not describe "
                    "the games") if seats == 2 else
                   ("the winner of each game somebody won against a model of one strength per bot and one effect "
                    "per seat side (a side wins with probability proportional to exp(its bots' strengths + its "
                    "effect): Luce's choice axiom), tested against every line-up's own win shares by the "
                    "likelihood-ratio deviance; chi-square p, or a parametric bootstrap's "
                    f"({ratings.TABLE_BOOTSTRAP} replicates) when expected counts are small; below 0.01 one "
                    "rating per bot does not describe the games; no degrees of freedom, no fit claimed"),
            "win_matrix": "the row bot's win share against the column bot over both seat orders (wins / "
                          "games; draws are the games nobody won), Wilson 95% interval",
            "intransitivity": "a cycle: bots each beating the next, the last the first, each with a Wilson 95% "
                              "interval above a half of the games one of the two won; the equilibrium: the Nash "
                              "equilibrium of the symmetric zero-sum game of score shares less one half (linear "
                              "programming; the mean of the equilibria that favour each bot); alpha-Rank (Omidshafiei "
                              "et al. 2019): the stationary distribution of a population of "
                              f"{intransitive.ALPHARANK_POPULATION} imitating players, selection intensity "
                              f"{intransitive.ALPHARANK_ALPHA:g}, over the same matrix; each with 95% intervals "
                              f"from a parametric bootstrap of the matrix ({intransitive.BOOTSTRAP} replicates)",
            "pairwise": "heads-up: one meeting per game" if seats == 2 else
                        "the winner's seats beat every opposing seat; two seats that both lost are no meeting; "
                        "nobody won: every two opposing seats drew",
        },
        "note": "bots, not people: every number here is one bot spec against another",
    }


def _print(report: dict) -> None:
    """The ratings, then the head-to-head matrix; when one rating per bot does not describe the games (the
    Bradley-Terry fit check), the fit's verdict and the matrix come first and the ratings are called an average."""
    fits = report["fit"]["fits"] is not False         # None: nothing to test, no claim either way
    if not fits:
        typer.echo(report["fit"]["says"])
        _print_matrix(report)
    rated = report["ratings"]
    several = report["seats"] > 2         # a game makes several meetings: show both counts
    cells = [[r["bot"], f"{round(r['elo'])}", f"{round(r['ci95_low'])}", f"{round(r['ci95_high'])}",
              f"{r['games']:,}"]
             + ([f"{r['meetings']:,}"] if several else []) for r in rated]
    typer.echo(fit_table(f"ladder: {report['game']}, {report['games']:,} games (bots, not people)"
                         + ("" if fits else "; ratings as an average only"),
                         ["bot", "Elo", "95% low", "95% high", "games"] + (["meetings"] if several else []), cells))
    for line in ratings.rating_lines(rated, report["bots"].index(report["anchor"])):
        typer.echo(line)
    if fits:
        typer.echo(report["fit"]["says"])
        _print_matrix(report)
    for line in report["intransitivity"]["says"]:
        typer.echo(line)


def _print_matrix(report: dict) -> None:
    bots = report["bots"]
    by_pair = {(m["bot"], m["opponent"]): m for m in report["win_matrix"]}
    rows = []
    for a in bots:
        row = [a]
        for b in bots:
            m = by_pair.get((a, b))
            row.append("" if m is None else f"{m['share']:.3f} [{m['ci95_low']:.3f}, {m['ci95_high']:.3f}] "
                                            f"n={m['games']:,}")
        rows.append(row)
    typer.echo(fit_table("win share of the row bot against the column bot (Wilson 95%, games)",
                         ["bot \\ against", *bots], rows))


def ladder(game: Annotated[str, typer.Argument(help=f"the game: {' or '.join(GAMES.names())}")],
           out: Annotated[str, typer.Option(help="results folder (local): the ladder's spec (ladder.toml), its "
                                                 "parts, manifest and ratings (ladder.json)")],
           bots: Annotated[Optional[str], typer.Option(
               help="the field, bot specs separated by commas, weakest first by intent (the first is the "
                    "rating anchor and skill_depth's level 0); default: " + ",".join(DEFAULT_FIELD))] = None,
           games: Annotated[int, typer.Option(help="games per line-up (each pairing in each seat order)")] = 1000,
           seed: Annotated[int, typer.Option(help="master seed: every line-up plays games 0..N-1 of it")] = 1,
           rules: Annotated[Optional[str], typer.Option(help="rule set preset (default: the game's)")] = None,
           set_: Annotated[Optional[list[str]], typer.Option("--set", help="rule override name=value "
                                                                           "(repeatable)")] = None,
           setup: Annotated[Optional[list[str]], typer.Option(
               "--setup", help="a setup value name=value shared by every line-up (repeatable), e.g. "
                               "board=explorer or mode=2v2")] = None,
           players: Annotated[Optional[int], typer.Option(
               help="seats per game (default 2: heads-up); more needs a game that seats them and at least "
                    "that many bots")] = None,
           workers: Annotated[Optional[int], typer.Option(help="tasks run at once (default: every core)")] = None,
           address: Annotated[Optional[str], typer.Option(help="HOST:PORT of a running Ray cluster to join")]
           = None,
           resume: Annotated[bool, typer.Option(help="finish the ladder already in --out (same settings)")] = False,
           batch_size: Annotated[int, typer.Option(
               help="games per part; 0: automatic, from the bots' measured speed (parts of about 2 s)")] = 0,
           progress: Annotated[bool, typer.Option(help="show a live progress bar")] = True) -> None:
    """Rate bots against each other: a round robin in every seat order, played as a sweep, then
    Bradley-Terry ratings (Elo scale) with 95% intervals and the win matrix (DIR/ladder.json)."""
    g = game_named(game)
    field = _field(bots)
    check_range("--games", games, 1, MAX_GAMES_PER_CELL)
    check_range("--seed", seed, 0, MAX_SEED)
    check_range("--batch-size", batch_size, 0, MAX_BATCH)
    check_range("--players", players, 2, 64)
    if (bad := workers_error(workers, address)) is not None:
        fail(bad)
    out = local_out(out, "a ladder", "its spec and ladder.json beside the parts")
    try:
        overrides = parse_assignments(set_ or [], where="--set")
        given_setup = parse_assignments(setup or [], where="--setup")
    except RuleError as e:
        fail(str(e))
    if "bots" in given_setup:
        fail("--setup bots=...: a ladder seats its --bots itself; give them with --bots")
    try:
        check_out_dir(out)
    except SweepError as e:
        fail(str(e))
    shared, seats = _shared_setup(g, rules, overrides, given_setup, players)
    field = _check_field(g, rules, overrides, shared, field, seats)
    line = lineups(field, seats)
    spec_path = out / SPEC_NAME
    stored = _stored_spec(spec_path) if resume else None
    if not resume and out.exists() and any(p.name != LOCK for p in out.iterdir()):
        fail(f"{out}: not empty; pass --resume to finish the ladder in it, or choose a new or empty --out")
    if stored is None and (out / "manifest.json").exists():
        fail(f"{out} holds a sweep that is not a ladder (no {SPEC_NAME}); choose another --out")

    raw: dict[str, Any] = {"name": f"ladder {g.name}", "game": g.name}
    if rules is not None:
        raw["rules"] = rules
    raw.update(seed=seed, games_per_cell=games, batch_size=batch_size, engine=ENGINE)
    if shared:
        raw["setup"] = shared
    if overrides:
        raw["overrides"] = overrides
    raw["cells"] = [{"bots": ",".join(lineup)} for lineup in line]
    if stored is not None and not batch_size and isinstance(stored.get("batch_size"), int):
        raw["batch_size"] = stored["batch_size"]          # the size the ladder started with
    if stored is not None and stored != raw:
        differ = sorted(k for k in set(stored) | set(raw) if stored.get(k) != raw.get(k))
        fail(f"{spec_path}: the ladder in {out} was started with other settings ({', '.join(differ)} differ); "
             "give the same options to finish it, or choose another --out")
    try:
        spec = parse_spec(raw, source=str(spec_path), base_dir=out)       # every cell checked before any game
    except SpecError as e:
        fail(str(e))
    with interrupts() as ints:      # Ctrl-C or SIGTERM anywhere: one line with what to run, exit 128 + signal
        try:
            _play_and_rate(g, raw, spec, spec_path, stored, field, line, seats, shared, overrides, rules, set_,
                           setup, players, games, seed, out, workers, address, resume, progress)
        except KeyboardInterrupt:
            again = _command(g.name, field, games, seed, rules, set_, setup, players, out, address,
                             raw["batch_size"])
            err.print(f"interrupted; resume with: {again} --resume", highlight=False, markup=False, soft_wrap=True)
            raise typer.Exit(code=128 + ints.signum)


def _play_and_rate(g, raw, spec, spec_path, stored, field, line, seats, shared, overrides, rules, set_, setup,
                   players, games, seed, out, workers, address, resume, progress) -> None:
    """Size the parts (probe), write the ladder's spec, play it (``cli.sweep.play_spec``: an interruption
    there prints its own resume hint), then rate it and write ``ladder.json``."""
    if not raw["batch_size"]:
        try:
            raw["batch_size"] = probe_batch_size(g, rules, overrides, shared, field, line, seed, games)
        except (EngineError, RuleError) as e:
            fail(str(e))
        spec = parse_spec(raw, source=str(spec_path), base_dir=out)
    text = spec_text(raw)
    if stored is None:
        write_atomic(spec_path, text)
    err.print(f"ladder of {len(field)} bots on {g.name}: {len(line)} line-ups ({_rotation(seats)}) x {games:,} "
              f"games", highlight=False, markup=False, soft_wrap=True)
    again = _command(g.name, field, games, seed, rules, set_, setup, players, out, address, raw["batch_size"])
    play_spec(spec, out, workers=workers, address=address, resume=resume, progress=progress, again=again)
    info = {"game": g.name, "rules": rules, "setup": shared, "overrides": overrides, "seats": seats,
            "lineups": _rotation(seats), "seed": seed, "games_per_lineup": games, "spec": SPEC_NAME}
    report = _report(out, field, seats, info)
    write_atomic(out / REPORT_NAME, json.dumps(report, indent=2) + "\n")
    _print(report)
    err.print(f"ratings and win matrix: {out / REPORT_NAME}; the games: playtest query NAME --results {out}",
              highlight=False, markup=False, soft_wrap=True)


def _rotation(seats: int) -> str:
    if seats == 2:
        return "every pair in both seat orders"
    return f"every {seats} bots in every seat order"


def _stored_spec(path: Path) -> Optional[dict]:
    """The spec a ladder being resumed started with (None when there is none yet)."""
    if not path.exists():
        return None
    try:
        return parse_toml(read_text_bounded(path, "ladder spec", SpecError), str(path), SpecError)
    except SpecError as e:
        fail(f"{path}: cannot read the ladder's spec ({e}); choose another --out")


def _command(game, field, games, seed, rules, set_, setup, players, out, address, batch) -> str:
    """The ladder command with these settings (to run again, or with --resume to finish it)."""
    words = ["playtest", "ladder", game, "--bots", ",".join(field), "--games", str(games), "--seed", str(seed)]
    words += ["--rules", rules] if rules else []
    for item in set_ or []:
        words += ["--set", item]
    for item in setup or []:
        words += ["--setup", item]
    words += ["--players", str(players)] if players else []
    words += ["--batch-size", str(batch), "--out", str(out)]
    words += ["--address", address] if address else []
    return shlex.join(words)


COMMANDS = {"ladder": ladder}
