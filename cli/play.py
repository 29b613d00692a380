"""``playtest play``, ``run`` and ``bench``: one game with its log, a local batch to Parquet, engine speed."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated, Optional

import typer

from cli.common import (MAX_GAME_INDEX, MAX_GAMES, MAX_SEED, BoardOpt, BotsOpt, DataOpt, EngineOpt, GameArg,
                        ItemsOpt, MatchOptions, ModeOpt, MonstersOpt, PeopleOpt, PlayersOpt, RulesOpt, SeedOpt, SetOpt,
                        SetupOpt, check_output_file, check_range, err, fail, match_options, note, warn)
from cli.report import summary_lines as report_summary
from cluster import replay
from sim import output
from infra.bench import BenchError, run_bench, run_bot_bench, run_core_speed
from infra.replay_page import build_page
from sim import games as registry
from sim.events import EventLog, render, write_jsonl
from sim.games import GAMES, EngineError, Match, check_engine
from sim.kit import trace
from sim.params import RuleError, parse_assignments
from infra.progress import GamesBar


def resolve_match(opts: MatchOptions, tables: tuple[str, ...] = ("games",)) -> Match:
    """Validate everything before any game is played and return the game's Match (and, once it resolves, the
    one-line note on the per-game aliases given, deprecated).

    ``opts.setup``: ``--setup key=value`` (any setup value of any game, by the game's own name for it)."""
    people = opts.alias("--people")
    given = (("board", opts.alias("--board")), ("mode", opts.alias("--mode")), ("players", opts.alias("--players")),
             ("bots", opts.bots), ("people", people.split(",") if people and "," in people else people))
    setup = {k: v for k, v in given if v is not None}
    flag_of = {k: f"--{k}" for k in setup}
    try:
        check_engine(opts.engine)
        g = registry.get(opts.game)
        for key, value in given:       # a setup flag the game does not have: named as the user typed it
            if value is not None and key not in g.setup_keys:
                fail(f"--{key}: {g.name} has no {key} setup value; its setup values: {', '.join(g.setup_keys)}")
        extra = parse_assignments(list(opts.setup), where="--setup")
        g.check_keys(setup=extra, where="--setup")
        for key, text in extra.items():
            if key in setup:
                fail(f"--setup {key}={text}: {key} is given as {flag_of[key]} too; give it once")
            setup[key] = int(text) if text.isdigit() else text.split(",") if "," in text else text
            flag_of[key] = "--setup"
        files = parse_assignments(list(opts.data), where="--data")
        g.check_keys(data=files, where="--data")
        for key in ("items", "monsters"):
            if opts.alias(f"--{key}") is not None:
                if key in files:
                    fail(f"--data {key}={files[key]}: {key} is given as --{key} too; give it once")
                files[key] = str(opts.alias(f"--{key}"))
        try:
            match = g.resolve(opts.rules, parse_assignments(list(opts.overrides), where="--set"), setup, files,
                              tables=tables, where="--set")
        except RuleError as e:
            _blame_setup_flag(g, opts.rules, setup, flag_of)     # a setup value wrong on its own: named by its flag
            raise e
        match.check_engine(opts.engine)       # e.g. a rule parameter the core has no field for: before any work
    except (RuleError, ValueError, EngineError) as e:  # card-data errors are ValueErrors naming file, card and field
        fail(str(e))
    if opts.deprecation():             # after the checks: a refused command stays one error line
        note(opts.deprecation())
    return match


def _blame_setup_flag(g, rules: Optional[str], setup: dict, flag_of: dict[str, str]) -> None:
    """When one setup flag's value is refused on its own (``--board moon``, ``--players 5``), fail with its error
    naming that flag, as the user typed it; return when every value passes alone (the combination, a --set or a
    --data value is what was refused)."""
    for key, value in setup.items():
        try:
            g.resolve(rules, {}, {key: value}, {}, where=f"--{key}")
        except (RuleError, ValueError) as e:
            text = str(e)
            for head in ("--set: ", f"--{key}: ", f"{key}: ", f"{key}: "):
                text = text.removeprefix(head)
            fail(f"{flag_of[key]}: {text}")


def engine_call(fn):
    """Run an engine call; an engine that cannot play this configuration is a clear error, not a traceback."""
    try:
        return fn()
    except (EngineError, RuleError) as e:
        fail(str(e))


def play(ctx: typer.Context, game: Annotated[Optional[str], typer.Argument(
             help=f"the game: {' or '.join(GAMES.names())} (with --from: the sweep's)")] = None,
         rules: RulesOpt = None, board: BoardOpt = None, mode: ModeOpt = None,
         players: PlayersOpt = None, bots: BotsOpt = None, people: PeopleOpt = None,
         seed: SeedOpt = 0,
         game_index: Annotated[int, typer.Option(help="which game of the batch (with --from: of the cell)")] = 0,
         set_: SetOpt = None, setup_: SetupOpt = None, engine: EngineOpt = "core",
         as_json: Annotated[bool, typer.Option("--json", help="print the game record as JSON")] = False,
         items: ItemsOpt = None, monsters: MonstersOpt = None, data: DataOpt = None,
         brief: Annotated[bool, typer.Option("--brief", help="leave the individual dice rolls out of the log")]
         = False,
         events_out: Annotated[Optional[Path], typer.Option(
             "--events", help="also write the game's events here, one JSON object a line (docs/replay.md)")] = None,
         html_out: Annotated[Optional[Path], typer.Option(
             "--html", help="also write a self-contained replay page of the game here")] = None,
         from_dir: Annotated[Optional[Path], typer.Option(
             "--from", help="replay a game of this sweep's results folder (with --cell and --game-index)")] = None,
         cell: Annotated[Optional[str], typer.Option(help="the sweep cell (c000, ...), with --from")] = None) -> None:
    """Play one game and print its turn-by-turn log (or its record with --json); --html draws it."""
    check_range("--seed", seed, 0, MAX_SEED)
    check_range("--game-index", game_index, 0, MAX_GAME_INDEX)
    for flag, path in (("--events", events_out), ("--html", html_out)):
        if path is not None:
            check_output_file(flag, path)
    if from_dir is not None:
        given = [f for f, v in (("--rules", rules), ("--board", board), ("--mode", mode), ("--players", players),
                                ("--bots", bots), ("--people", people), ("--set", set_), ("--items", items),
                                ("--monsters", monsters), ("--data", data), ("--setup", setup_)) if v]
        if given:
            fail(f"--from {from_dir}: the sweep's spec decides the game; leave out {', '.join(given)}")
        m, seed, stored, where, blob, engine = sweep_game(from_dir, cell, game_index, game)
    else:
        if cell is not None:
            fail("--cell: only with --from DIR (a sweep's results folder)")
        if game is None:
            fail(f"missing the game: {' or '.join(GAMES.names())} (or --from DIR --cell ID)")
        m = resolve_match(match_options(ctx.params))
        stored, where, blob = None, f"seed {seed}, game {game_index}", None
    log = EventLog()
    rec = replayed(m, seed, game_index, log, engine, stored, blob, where)
    page = None
    if html_out is not None:
        try:
            page = build_page(m.definition, log.events, log.meta, f"{m.definition.title}: {where}",
                              m.definition.result_line(rec), record=rec)
        except FileNotFoundError as e:     # a game without its replay.js
            fail(f"--html: {e}")
    try:
        if events_out is not None:
            write_jsonl(log.events, events_out)
        if page is not None:
            html_out.write_text(page, encoding="utf-8")
    except OSError as e:
        fail(f"cannot write the replay ({e.strerror or e})")
    if as_json:
        typer.echo(json.dumps(rec))
        return
    for line in render(log.events, brief):
        typer.echo(line)
    typer.echo(f"result: {m.definition.result_line(rec)}")


def replayed(m: Match, seed: int, game_index: int, log: EventLog, engine: str, stored: dict | None,
             blob: bytes | None, where: str) -> dict:
    """The game's record, its log into ``log`` (cluster.replay.replayed); a game that cannot be replayed is one line
    and exit 2."""
    try:
        return replay.replayed(m, seed, game_index, log, engine, stored, blob, where, warn=warn, note=note)
    except replay.ReplayError as e:
        fail(str(e))


def sweep_game(folder: Path, cell: Optional[str], game_index: int,
               game: Optional[str]) -> tuple[Match, int, dict | None, str, bytes | None, str]:
    """``--from``: a game of a sweep (cluster.replay.sweep_game); a folder, cell or index that is not the sweep's
    is one line and exit 2."""
    try:
        return replay.sweep_game(folder, cell, game_index, game, warn=warn)
    except replay.ReplayError as e:
        fail(str(e))


def run(ctx: typer.Context, game: GameArg, out: Annotated[Path, typer.Option(help="Parquet file to write")],
        rules: RulesOpt = None, board: BoardOpt = None, mode: ModeOpt = None, players: PlayersOpt = None,
        bots: BotsOpt = None, people: PeopleOpt = None,
        games: Annotated[int, typer.Option(help="number of games")] = 1000,
        seed: SeedOpt = 0,
        start: Annotated[int, typer.Option(help="first game index")] = 0,
        set_: SetOpt = None, setup_: SetupOpt = None, engine: EngineOpt = "core",
        items: ItemsOpt = None, monsters: MonstersOpt = None, data: DataOpt = None,
        chunk: Annotated[Optional[int], typer.Option(help="games per chunk in memory (default: the engine's)")]
        = None,
        cards_out: Annotated[Optional[Path], typer.Option(
            help="also write the per-card table (one row per game, seat and card) here (games that keep "
                 "one: " + ", ".join(n for n in GAMES.names() if "cards" in GAMES[n].schemas) + ")")]
        = None,
        trace_out: Annotated[Optional[Path], typer.Option(
            "--trace", help="also write each game's decision trace here (one row per game: every bot choice, and "
                            "what search bots saw; docs/decision-trace.md)")] = None,
        force: Annotated[bool, typer.Option("--force", help="replace --out (and --cards-out, --trace) if it exists")]
        = False) -> None:
    """Play a local batch of games and write one Parquet file (more with --cards-out, --trace), with a progress bar.

    An existing --out, --cards-out or --trace file is kept unless --force is given (as a sweep keeps its folder)."""
    check_range("--games", games, 1, MAX_GAMES)
    check_range("--seed", seed, 0, MAX_SEED)
    check_range("--start", start, 0, MAX_GAME_INDEX - games + 1)
    check_range("--chunk", chunk, 1, MAX_GAMES)
    check_output_file("--out", out)
    outputs = {"games": ("--out", out), "cards": ("--cards-out", cards_out), trace.TABLE: ("--trace", trace_out)}
    seen: dict[Path, str] = {}
    for flag, path in outputs.values():
        if path is None:
            continue
        if path.exists() and not force:
            fail(f"{flag} {path}: the file exists; pass --force to replace it, or give another name")
        check_output_file(flag, path)
        if path.resolve() in seen:
            fail(f"{flag} {path}: the same file as {seen[path.resolve()]}; give another name")
        seen[path.resolve()] = flag
    tables = tuple(t for t, (_, path) in outputs.items() if path is not None)
    m = resolve_match(match_options(ctx.params), tables)
    meta = {"playtest.rules_digest": m.rules_digest, "playtest.cards_digest": m.data_digest,
            "playtest.seed": str(seed), "playtest.engine": engine, "playtest.game": m.game}
    paths = {t: path for t, (_, path) in outputs.items()}
    t0 = time.perf_counter()
    bar = GamesBar(games, console=err)
    try:
        with bar:
            rows = engine_call(lambda: output.write_parquet_tables(
                m.iter_batches(seed, start, games, engine, chunk), {t: paths[t] for t in tables}, m.schemas,
                metadata=meta, on_chunk=bar.advance))
    except OSError as e:   # a full disk or a folder that went away: the temporary file is already removed
        fail(f"--out {out}: cannot write the results ({e.strerror or e}); nothing was written")
    wall = time.perf_counter() - t0
    err.print(f"{rows:,} games in {wall:.1f} s ({rows / wall:,.0f} games/s) -> "
              + " and ".join(str(paths[t]) for t in tables), markup=False, highlight=False)
    for line in report_summary(str(out), str(cards_out) if cards_out else None):   # games, first player, ends
        err.print(line, markup=False, highlight=False, soft_wrap=True)


def bench(out: Annotated[Path, typer.Option(help="where to write the results (.json; a .md table is written "
                                                 "beside it)")] = Path("bench/bench.json"),
          games: Annotated[int, typer.Option(help="core games per preset")] = 20000,
          reference_games: Annotated[int, typer.Option(help="reference-engine games per preset (same seeds)")] = 300,
          seed: Annotated[int, typer.Option(help="master seed")] = 1,
          game: Annotated[Optional[str], typer.Option(help="only this game's presets (default: all games)")] = None,
          profile: Annotated[bool, typer.Option(help="also measure where the core spends its time")] = True,
          bots: Annotated[Optional[list[str]], typer.Option(
              "--bots", help="instead of the presets: this bot level in every seat of the game's profiled preset, "
                             "games/s, decisions/s and rollouts/s on one core (repeatable: "
                             "--bots heuristic --bots mcts:iterations=64)")] = None,
          bot_games: Annotated[int, typer.Option(help="games per bot level (with --bots)")] = 20,
          bot_seconds: Annotated[Optional[float], typer.Option(
              help="with --bots: fewer than --bot-games for a level whose two warm-up games say they would take "
                   "longer than this many seconds")] = None,
          strength: Annotated[bool, typer.Option(
              "--strength", help="with --bots: also each level's strength against the heuristic in every other "
                                 "seat, each seat of the game's skill line-ups in turn, with a 95% interval")] = False,
          strength_games: Annotated[int, typer.Option(
              help="with --strength: the most games a seat (fewer for a slow bot: see --strength-seconds)")] = 2000,
          strength_seconds: Annotated[float, typer.Option(
              help="with --strength: about how long each level may play, from its measured speed (at least 10 "
                   "games a seat)")] = 60.0,
          core_speed: Annotated[bool, typer.Option(
              "--core-speed", help="instead of the presets: the core's speed on the game's profiled preset "
                                   "(heuristic games/s and turns/s, random-bot turns/s, search bots' rollouts/s: "
                                   "the --bots levels, mcts:iterations=64 and flat:rollouts=8 by default), written to "
                                   "--out (default bench/core-speed.json)")] = False,
          baseline: Annotated[Optional[Path], typer.Option(
              help="with --core-speed: another checkout with a built core (e.g. a worktree of main), measured "
                   "in the same run, alternating with this one")] = None,
          rounds: Annotated[int, typer.Option(help="with --core-speed: alternating samples of each build")] = 3,
          random_games: Annotated[int, typer.Option(help="with --core-speed: random-bot games per sample")] = 10000,
          ) -> None:
    """Benchmark (not a test): games/s per core of both engines on fixed presets, same seeds, and the ratio."""
    check_range("--games", games, 1, MAX_GAMES)
    check_range("--reference-games", reference_games, 1, MAX_GAMES)
    check_range("--seed", seed, 0, MAX_SEED)
    check_range("--bot-games", bot_games, 1, MAX_GAMES)
    check_range("--rounds", rounds, 1, 100)
    check_range("--random-games", random_games, 1, MAX_GAMES)
    if baseline is not None and not core_speed:
        fail("--baseline: only with --core-speed")
    check_range("--strength-games", strength_games, 10, MAX_GAMES)
    if bot_seconds is not None and not (0.1 <= bot_seconds <= 86_400.0):
        fail(f"--bot-seconds {bot_seconds!r} is not allowed; expected 0.1 to 86400")
    if not (1.0 <= strength_seconds <= 86_400.0):
        fail(f"--strength-seconds {strength_seconds!r} is not allowed; expected 1 to 86400")
    if strength and not bots:
        fail("--strength: only with --bots (the levels whose strength to measure)")
    if core_speed and out == Path("bench/bench.json"):
        out = Path("bench/core-speed.json")
    check_output_file("--out", out)
    try:
        if core_speed:
            run_core_speed(out=out, baseline=baseline, rounds=rounds, games=games, random_games=random_games,
                           bot_games=bot_games, specs=bots or ["mcts:iterations=64", "flat:rollouts=8"], seed=seed,
                           game=game, console=err)
            return
        if bots:
            run_bot_bench(out=out, specs=bots, games=bot_games, seed=seed, game=game, console=err,
                          strength=_strength_of(seed, strength_games, strength_seconds) if strength else None,
                          seconds=bot_seconds)
            return
        run_bench(out=out, games=games, reference_games=reference_games, seed=seed, game=game, profile=profile,
                  console=err)
    except (RuleError, EngineError, BenchError) as e:
        fail(str(e))


def _strength_of(seed: int, most: int, seconds: float):
    """bench --strength's measure: a level's strength, with as many games a seat as its speed allows."""
    def measure(game: str, spec: str, games_per_s: float) -> dict:
        from cluster.strength import strength
        from sim.games import GAMES
        seats = sum(len(GAMES[game].resolve(lu.rules, lu.overrides, lu.setup).setup.bots)
                    for lu in GAMES[game].skill_setups)
        per_seat = int(min(most, max(10, games_per_s * seconds / seats)))
        return strength(game, spec, seed, per_seat)
    return measure


COMMANDS = {"play": play, "run": run, "bench": bench}
