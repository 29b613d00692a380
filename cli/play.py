"""``playtest play``, ``run`` and ``bench``: one game with its log, a local batch to Parquet, engine speed."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Annotated, Optional

import pyarrow as pa
import pyarrow.parquet as pq
import typer

from cli.common import (MAX_GAME_INDEX, MAX_GAMES, MAX_SEED, check_output_file, check_range, err, fail, note,
                        per_game, warn)
from cli.replay import build_page
from cli.report import summary_lines as report_summary
from cluster.manifest import ManifestError, load_manifest
from cluster.part import part_path
from cluster.spec import SpecError, parse_spec
from sim import output
from infra.bench import BenchError, run_bench, run_bot_bench, run_core_speed
from sim import games as registry
from sim.events import EventLog, render, write_jsonl
from infra.folder import part_problem
from sim.games import GAMES, EngineError, Match, check_engine
from sim.kit import trace
from sim.kit.bots import CORE_ONLY
from sim.params import RuleError, parse_assignments
from infra.progress import GamesBar


def _setup_help(key: str) -> str:
    """What the games that have setup value ``key`` allow for it (help text from the registry)."""
    return per_game(lambda g: g.setup_keys.get(key, ""))


def _data_help(key: str) -> str:
    return per_game(lambda g: g.data_keys.get(key, ""))


GameArg = Annotated[str, typer.Argument(help=f"the game: {' or '.join(GAMES.names())}")]
RulesOpt = Annotated[Optional[str], typer.Option("--rules", help="rule set preset (" + per_game(
    lambda g: ", ".join(g.presets) + (f"; {g.preset_note}" if g.preset_note else "")) + ")")]
BoardOpt = Annotated[Optional[str], typer.Option(help=f"board ({_setup_help('board')})")]
ModeOpt = Annotated[Optional[str], typer.Option(help=f"mode ({_setup_help('mode')})")]
PlayersOpt = Annotated[Optional[int], typer.Option(help=f"players ({_setup_help('players')})")]
PeopleOpt = Annotated[Optional[str], typer.Option(help=f"people, comma separated ({_setup_help('people')})")]
BotsOpt = Annotated[Optional[str], typer.Option(help="bot per seat, comma separated (random, heuristic, "
                                                     "heuristic:aggression=3); one name = every seat")]
SetOpt = Annotated[Optional[list[str]], typer.Option("--set", help="rule override name=value (repeatable)")]
SetupOpt = Annotated[Optional[list[str]], typer.Option(
    "--setup", help="any setup value of the game as key=value (repeatable; the game's own words, e.g. "
                    "--setup players=3): " + "; ".join(f"{n}: {', '.join(GAMES[n].setup_keys)}" for n in GAMES.names()))]
EngineOpt = Annotated[str, typer.Option(help="engine: core (Cython, default) or reference (pure Python)")]
ItemsOpt = Annotated[Optional[Path], typer.Option(help=f"the items data file, as --data items=PATH "
                                                       f"({_data_help('items')}; default: the packaged stand-ins)")]
MonstersOpt = Annotated[Optional[Path], typer.Option(help=f"the monsters data file, as --data monsters=PATH "
                                                          f"({_data_help('monsters')}; default: the packaged "
                                                          f"stand-ins)")]
DataOpt = Annotated[Optional[list[str]], typer.Option(
    "--data", help="a card data file name=PATH (repeatable; " + per_game(lambda g: ", ".join(g.data_keys)) + ")")]


def resolve_match(game: str, rules: Optional[str], board: Optional[str], mode: Optional[str],
                  players: Optional[int], bots: Optional[str], overrides: Optional[list[str]],
                  items: Optional[Path] = None, monsters: Optional[Path] = None,
                  data: Optional[list[str]] = None, engine: str = "core", tables: tuple[str, ...] = ("games",),
                  people: Optional[str] = None, setup_values: Optional[list[str]] = None) -> Match:
    """Validate everything before any game is played and return the game's Match.

    ``setup_values``: ``--setup key=value`` (any setup value of any game, by the game's own name for it)."""
    given = (("board", board), ("mode", mode), ("players", players), ("bots", bots),
             ("people", people.split(",") if people and "," in people else people))
    setup = {k: v for k, v in given if v is not None}
    flag_of = {k: f"--{k}" for k in setup}
    try:
        check_engine(engine)
        g = registry.get(game)
        for key, value in given:       # a setup flag the game does not have: named as the user typed it
            if value is not None and key not in g.setup_keys:
                fail(f"--{key}: {g.name} has no {key} setup value; its setup values: {', '.join(g.setup_keys)}")
        extra = parse_assignments(setup_values or [], where="--setup")
        g.check_keys(setup=extra, where="--setup")
        for key, text in extra.items():
            if key in setup:
                fail(f"--setup {key}={text}: {key} is given as {flag_of[key]} too; give it once")
            setup[key] = int(text) if text.isdigit() else text.split(",") if "," in text else text
            flag_of[key] = "--setup"
        files = parse_assignments(data or [], where="--data")
        g.check_keys(data=files, where="--data")
        for key, path in (("items", items), ("monsters", monsters)):
            if path is not None:
                files[key] = str(path)
        try:
            match = g.resolve(rules, parse_assignments(overrides or [], where="--set"), setup, files,
                              tables=tables, where="--set")
        except RuleError as e:
            _blame_setup_flag(g, rules, setup, flag_of)     # a setup value wrong on its own: named by its flag
            raise e
        match.check_engine(engine)       # e.g. a rule parameter the core has no field for: before any work
        return match
    except (RuleError, ValueError, EngineError) as e:  # card-data errors are ValueErrors naming file, card and field
        fail(str(e))


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


def play(game: Annotated[Optional[str], typer.Argument(
             help=f"the game: {' or '.join(GAMES.names())} (with --from: the sweep's)")] = None,
         rules: RulesOpt = None, board: BoardOpt = None, mode: ModeOpt = None,
         players: PlayersOpt = None, bots: BotsOpt = None, people: PeopleOpt = None,
         seed: Annotated[int, typer.Option(help="master seed")] = 0,
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
        m = resolve_match(game, rules, board, mode, players, bots, set_, items, monsters, data, engine,
                          people=people, setup_values=setup_)
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
    """The game's record, its log into ``log``. The core keeps no log: it plays the game with its decision
    trace (unless ``blob``, a stored trace, is given), and the reference engine replays the trace, its
    core-only seats (search bots) taking the recorded choices and every other seat's choice checked against
    them (sim/kit/trace.py). ``engine`` reference with nothing stored: the reference engine plays alone.
    ``stored``: a sweep's row, which the replay must equal (a warning names the columns that differ)."""
    if engine == "reference" and blob is None:
        rec = engine_call(lambda: m.play_one(seed, game_index, log))   # e.g. a search bot: refused, core-only
        core = stored
    else:
        core = None
        if blob is None:
            core, blob = engine_call(lambda: trace.core_game(m, seed, game_index))
        try:
            rec = engine_call(lambda: trace.replay(m, seed, game_index, blob, log))
        except trace.TraceError as e:
            fail(f"{where}: the {'stored ' if core is None else ''}decision trace does not replay: {e}")
        core_only = [f"{m.definition.seat_word} {s + 1} ({spec})" for s, spec in
                     enumerate(m.definition.bot_specs(m.setup)) if spec.split(":")[0] in CORE_ONLY]
        if core_only:
            searched = sum(1 for e in log.events if e["kind"] == "search")
            note(f"{', '.join(core_only)}: core-only; the log is the reference engine's replay of the core's "
                 f"{len(trace.decode(blob)):,} decisions"
                 + (f" ({searched:,} searched, with what the search saw)" if searched else "")
                 + ", every other seat's checked: all agreed")
    if stored is not None:
        differ = sorted(k for k in rec if k in stored and stored[k] != rec[k])
        if differ:
            warn(f"the replayed game differs from the stored row in {', '.join(differ)}; the sweep was played by "
                 "another code version or card data")
        else:
            note(f"the replayed record equals the stored row of {where}")
    elif core is not None:
        differ = sorted(k for k in rec if k in core and core[k] != rec[k])
        if differ:
            fail(f"{where}: the core and the reference engine took the same decisions but disagree on "
                 f"{', '.join(differ)}; an engine bug (tests/test_decision_trace.py should catch it)")
        rec = core
    return rec


def stored_trace(folder: Path, manifest: dict, cell: str, game_index: int, batch: int) -> bytes | None:
    """The decision trace a sweep stored for one game (its ``decisions`` table), or None; a part that is
    not the file the sweep wrote (a regular file in the folder with the manifest's size and SHA-256), or
    unreadable, is one line and exit 2."""
    part = part_path(folder, trace.TABLE, cell, batch)
    try:
        problem = part_problem(folder, manifest, trace.TABLE, cell, batch)
        if problem:
            fail(f"--from {folder}: {problem}; the stored decision trace is not the one the sweep wrote")
        rows = pq.read_table(part, columns=["game_index", "trace"],
                             filters=[("game_index", "=", game_index)]).to_pylist()
    except (OSError, ValueError, pa.ArrowException) as e:
        fail(f"{part}: cannot read the stored decision trace ({str(e).splitlines()[0][:120]})")
    if len(rows) != 1:
        fail(f"{part}: {len(rows)} stored decision traces for game {game_index}; expected one")
    return rows[0]["trace"]


def sweep_game(folder: Path, cell: Optional[str], game_index: int,
               game: Optional[str]) -> tuple[Match, int, dict | None, str, bytes | None, str]:
    """A game of a sweep: the cell's Match rebuilt from the manifest's spec, the seed, the stored row, a label,
    the stored decision trace (if the sweep kept its ``decisions`` table) and the sweep's engine."""
    if not folder.is_dir():
        fail(f"--from {folder}: not a folder (a sweep's results folder, with manifest.json)")
    try:
        manifest = load_manifest(folder)
    except ManifestError as e:
        fail(f"--from {folder}: {e}")
    if manifest is None:
        fail(f"--from {folder}: no sweep here (no manifest.json)")
    try:
        spec = parse_spec(manifest["spec"], source=manifest["spec_file"], base_dir=Path(manifest["spec_file"]).parent)
    except SpecError as e:
        fail(f"--from {folder}: its stored spec no longer resolves ({e})")
    if game is not None and game != spec.game:
        fail(f"--from {folder}: the sweep is of {spec.game!r}, not {game!r}")
    ids = [c.id for c in spec.cells]
    if cell is None or cell not in ids:
        shown = ", ".join(ids[:8]) + (f", ... ({len(ids)} cells)" if len(ids) > 8 else "")
        fail(f"--cell {cell!r} is not a cell of {folder}; expected one of {shown}" if cell is not None
             else f"--cell: which cell of {folder}? expected one of {shown}")
    if game_index >= spec.games_per_cell:
        fail(f"--game-index {game_index} is out of range; expected an integer from 0 to {spec.games_per_cell - 1} "
             f"(games per cell of {folder})")
    match = spec.cells[ids.index(cell)].match
    part = part_path(folder, "games", cell, game_index // spec.batch_size)
    stored = None
    problem = part_problem(folder, manifest, "games", cell, game_index // spec.batch_size)
    readable = problem is None
    if problem and os.path.lexists(part):
        warn(f"--from {folder}: {problem}; replaying without the check")
    if readable:
        try:
            table = pq.read_table(part, filters=[("game_index", "=", game_index)])
            rows = table.to_pylist()
            stored = rows[0] if rows else None
        except (OSError, ValueError, pa.ArrowException) as e:
            warn(f"{part}: cannot read the stored row ({str(e).splitlines()[0][:120]}); replaying without the check")
    if stored is None:
        warn(f"no stored row for {cell} game {game_index} ({part} is missing or lacks it); the replay is not checked")
    blob = (stored_trace(folder, manifest, cell, game_index, game_index // spec.batch_size)
            if trace.TABLE in spec.tables else None)
    return match, spec.seed, stored, f"sweep {spec.name!r}, cell {cell}, game {game_index}", blob, spec.engine


def run(game: GameArg, out: Annotated[Path, typer.Option(help="Parquet file to write")],
        rules: RulesOpt = None, board: BoardOpt = None, mode: ModeOpt = None, players: PlayersOpt = None,
        bots: BotsOpt = None, people: PeopleOpt = None,
        games: Annotated[int, typer.Option(help="number of games")] = 1000,
        seed: Annotated[int, typer.Option(help="master seed")] = 0,
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
    m = resolve_match(game, rules, board, mode, players, bots, set_, items, monsters, data, engine, tables, people,
                      setup_)
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
