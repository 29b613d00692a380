"""A bot ladder's field and line-ups, checked as ``playtest ladder`` checks them, and its sweep planned: the spec
(one cell per line-up, ``DIR/ladder.toml``) built, checked against the one a ladder being resumed started with, its
parts sized and written (:func:`plan`, :func:`ready`). Here below the command line so that the command and the
service's ladder steps (service/steps.py) refuse exactly the same, in the same one line, and play the same sweep
(cluster/play.py); queries/ladder_report.py rates it. Every check raises a :class:`LadderError` (a ValueError) of
one line."""

from __future__ import annotations

import itertools
import json
import math
import shlex
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from cluster.spec import AUTO_BATCH, MAX_BATCH, MAX_CELLS, SpecError, SweepSpec, auto_batch_size, parse_spec
from cluster.sweep import LOCK, SweepError, check_out_dir
from sim.files import parse_toml, read_text_bounded, write_atomic
from sim.games import EngineError, Game
from sim.params import RuleError

# The field when --bots is not given: random, the heuristic, its tuned weights, and the search bot at
# doubling budgets (the bots after the heuristic come with the search bots and weight presets)
DEFAULT_FIELD = ("random", "heuristic", "heuristic:preset=tuned",
                 *(f"mcts:iterations={n}:depth=20" for n in (16, 32, 64, 128, 256, 512, 1024)))


class LadderError(ValueError):
    """A ladder's options refused: the message is the one line ``playtest ladder`` prints."""


ENGINE = "core"                     # a ladder plays the compiled engine (record for record the reference's)
PROBE_SECONDS = 0.05                # each bot is timed over games until this long (or PROBE_GAMES): a cost estimate
PROBE_GAMES = 256
# The automatic batch size counts work, not time, so a ladder's parts follow from its spec and seed alone (two runs
# write the same bytes however loaded the machine): a game's work is its core's counts of what it did, in units of
# about a microsecond of the core on one core of the development machine (a search bot's simulation ~6-25 us, a
# top-level decision ~0.2-1 us, a game's set-up and record ~20 us; measured on Paws and Tales, all bot kinds)
WORK_PER_GAME = 20.0
WORK = {"decisions": 0.5, "rollouts": 10.0}
PROBE_WORK = 50_000.0               # each bot's work is counted over games until this much (or PROBE_GAMES)


def seconds_per_game(g: Game, rules, overrides, setup, bots: list[str], seed: int, engine: str) -> dict[str, float]:
    """Each bot's seconds a game on one core, playing every seat (over about PROBE_SECONDS, or PROBE_GAMES games);
    a line-up's game takes about the mean of its bots'. A cost estimate (the service's), never a part's size
    (:func:`probe_batch_size` counts work). Any bot kind, search bots included: nothing here knows what
    a bot is (so a deep search bot's one game is timed whole)."""
    per_game = {}
    for b in bots:
        match = g.resolve(rules, overrides, {**setup, "bots": b}, where="--bots")
        n, spent, played = 1, 0.0, 0
        while spent < PROBE_SECONDS and played < PROBE_GAMES:
            t = time.perf_counter()
            match.play_batch(seed, played, n, engine)
            spent += time.perf_counter() - t
            played += n
            n *= 2
        per_game[b] = spent / played
    return per_game


def work_per_game(g: Game, rules, overrides, setup, bots: list[str], seed: int) -> dict[str, float] | None:
    """Each bot's work a game playing every seat (WORK: its core's counts of top-level decisions and search
    simulations over games 0, 1, 2 ... of ``seed`` until PROBE_WORK or PROBE_GAMES), a function of the bots, the
    rules and the seed alone; None when the game's core keeps no counts (``Game.play_counted``)."""
    per_game = {}
    for b in bots:
        match = g.resolve(rules, overrides, {**setup, "bots": b}, where="--bots")
        n, work, played = 1, 0.0, 0
        while work < PROBE_WORK and played < PROBE_GAMES:
            _, counts = g.play_counted(match, seed, played, n)
            if not counts:
                return None
            work += WORK_PER_GAME * n + sum(w * counts.get(k, 0) for k, w in WORK.items())
            played += n
            n *= 2
        per_game[b] = work / played
    return per_game


def lineups(bots: list[str], seats: int) -> list[tuple[str, ...]]:
    """Every ``seats`` bots of the field, in field order, each in every seat order: heads-up, each pair in
    both seat orders; with more seats every bot of a group sits in every seat equally often and, in a game
    of teams, every two bots of the group meet on opposing sides (cyclic rotations alone would keep the
    same teammates together: a, b, c, d and b, c, d, a both put a with c against b with d)."""
    out = []
    for group in itertools.combinations(bots, seats):
        out += list(itertools.permutations(group))
    return out


def field_of(text: Optional[str]) -> list[str]:
    """``--bots`` as the list of bot specs (the default field when None): at least 2, none empty, none twice."""
    bots = list(DEFAULT_FIELD) if text is None else [b.strip() for b in text.split(",")]
    if any(not b for b in bots):
        raise LadderError(f"--bots {text!r}: an empty bot spec; expected bot specs separated by commas, e.g. "
                          "random,heuristic,heuristic:aggression=5")
    if len(bots) < 2:
        raise LadderError(f"--bots {text!r}: a ladder needs at least 2 bots, separated by commas")
    seen = set()
    for b in bots:
        if b in seen:
            raise LadderError(f"--bots: {b!r} is listed twice; every bot of a ladder is a different spec")
        seen.add(b)
    return bots


def shared_setup(g: Game, rules, overrides, setup, seats: Optional[int]) -> tuple[dict, int]:
    """The setup every line-up shares (the seat count set where the game has a setup value for it) and the
    seats."""
    setup = dict(setup)
    if g.seats_column in g.setup_keys and g.seats_column not in setup:
        setup[g.seats_column] = seats or 2
    try:
        g.check_keys(setup=setup, where="--setup")
        base = g.resolve(rules, overrides, setup, where="--set")
    except (RuleError, ValueError) as e:
        raise LadderError(str(e)) from None
    have = len(g.setup_values(base.setup)["bots"])
    if seats is not None and have != seats:
        how = (f"--setup {g.seats_column}={seats}" if g.seats_column in g.setup_keys
               else f"a setup that seats {seats} ({', '.join(f'{k}: {v}' for k, v in g.setup_keys.items())})")
        raise LadderError(f"--players {seats}: this {g.name} setup seats {have}; give {how}")
    return setup, have


def check_field(g: Game, rules, overrides, setup, bots: list[str], seats: int) -> list[str]:
    """Enough bots for the seats, not too many line-ups for one sweep, and every bot spec valid for the game
    (its own validation: any kind it accepts); the field as the records name it (a learned model's digest
    pinned: ``learned:model=paws-2@55a1f45255b4``)."""
    if len(bots) < seats:
        raise LadderError(f"--bots: {len(bots)} bots for {seats} seats; a ladder of {seats} seats needs at least "
                          f"{seats} different bots")
    count = math.comb(len(bots), seats) * math.factorial(seats)      # counted before any is built
    if count > MAX_CELLS:
        raise LadderError(f"--bots: {len(bots)} bots at {seats} seats make {count:,} line-ups; one ladder plays at "
                          f"most {MAX_CELLS:,} (fewer bots, or fewer seats)")
    named = []
    for b in bots:
        try:
            m = g.resolve(rules, overrides, {**setup, "bots": b}, where="--bots")
        except (RuleError, ValueError) as e:
            msg = str(e)
            raise LadderError(msg if msg.startswith("--bots") else f"--bots: {msg}") from None
        canonical = str(g.setup_values(m.setup)["bots"][0])
        if canonical in named:
            raise LadderError(f"--bots: {b!r} is {canonical!r}, listed already; every bot of a ladder is a "
                              "different bot")
        named.append(canonical)
    return named


def check(g: Game, bots: Optional[str], rules: Optional[str], overrides: dict[str, Any], setup: dict[str, Any],
          players: Optional[int]) -> tuple[list[str], dict, int, list[tuple[str, ...]]]:
    """Every check of a ladder's field and setup, in the command's order: (the field as the records name it, the
    shared setup, the seats, the line-ups)."""
    field = field_of(bots)
    if "bots" in setup:
        raise LadderError("--setup bots=...: a ladder seats its --bots itself; give them with --bots")
    shared, seats = shared_setup(g, rules, overrides, setup, players)
    field = check_field(g, rules, overrides, shared, field, seats)
    return field, shared, seats, lineups(field, seats)


# the ladder's sweep -------------------------------------------------------------------------------------------

SPEC_NAME = "ladder.toml"           # the ladder's sweep spec, in its results folder
REPORT_NAME = "ladder.json"         # its ratings and win matrix, beside it (cluster/verify.py keeps both)
PART_WORK = 2_000_000.0             # the automatic batch size aims at parts of this much work: about 2 s on one core


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
    """Games per part for parts of about PART_WORK (about 2 s on one core): each bot's work a game playing every
    seat is counted (:func:`work_per_game`; a line-up's game is about the mean of its bots'), the slowest
    line-up sets the size. Counted, not timed: the size, and so every part's bytes, follow from the spec and
    the seed alone. Any bot kind, search bots included: nothing here knows what a bot is. A game whose core keeps
    no counts gets the sweeps' automatic size."""
    per_game = work_per_game(g, rules, overrides, setup, bots, seed)
    if per_game is None:
        return auto_batch_size(games, ENGINE)
    slowest = max(sum(per_game[b] for b in lineup) / len(lineup) for lineup in line)
    size = max(1, min(AUTO_BATCH[ENGINE], int(PART_WORK / max(slowest, 1e-9))))
    parts = math.ceil(games / size)
    return min(MAX_BATCH, math.ceil(games / parts))


def rotation(seats: int) -> str:
    """How the line-ups seat the field, in words."""
    if seats == 2:
        return "every pair in both seat orders"
    return f"every {seats} bots in every seat order"


@dataclass
class Plan:
    """A ladder's sweep, checked and ready to size and play: the game, the spec's raw table and the spec, the
    spec a resumed ladder started with, the field as the records name it, the line-ups, the seats, the shared
    setup and overrides, and the options that say it again (``sets``, ``setups``: as given)."""

    g: Game
    raw: dict
    spec: SweepSpec
    stored: Optional[dict]
    field: list[str]
    line: list[tuple[str, ...]]
    seats: int
    shared: dict
    overrides: dict
    rules: Optional[str]
    sets: list[str]
    setups: list[str]
    players: Optional[int]
    games: int
    seed: int
    out: Path

    @property
    def spec_path(self) -> Path:
        return self.out / SPEC_NAME

    def command(self, address: Optional[str] = None) -> str:
        """The ladder command with these settings (to run again, or with --resume to finish it)."""
        words = ["playtest", "ladder", self.g.name, "--bots", ",".join(self.field), "--games", str(self.games),
                 "--seed", str(self.seed)]
        words += ["--rules", self.rules] if self.rules else []
        for item in self.sets:
            words += ["--set", item]
        for item in self.setups:
            words += ["--setup", item]
        words += ["--players", str(self.players)] if self.players else []
        words += ["--batch-size", str(self.raw["batch_size"]), "--out", str(self.out)]
        words += ["--address", address] if address else []
        return shlex.join(words)

    def info(self) -> dict:
        """What ladder.json says of the ladder's settings, before its ratings."""
        return {"game": self.g.name, "rules": self.rules, "setup": self.shared, "overrides": self.overrides,
                "seats": self.seats, "lineups": rotation(self.seats), "seed": self.seed,
                "games_per_lineup": self.games, "spec": SPEC_NAME}


def stored_spec(path: Path) -> Optional[dict]:
    """The spec a ladder being resumed started with (None when there is none yet)."""
    if not path.exists():
        return None
    try:
        return parse_toml(read_text_bounded(path, "ladder spec", SpecError), str(path), SpecError)
    except SpecError as e:
        raise LadderError(f"{path}: cannot read the ladder's spec ({e}); choose another --out") from None


def plan(g: Game, field: list[str], shared: dict, seats: int, overrides: dict, *, rules: Optional[str],
         sets: list[str], setups: list[str], players: Optional[int], games: int, seed: int, batch_size: int,
         out: Path, resume: bool) -> Plan:
    """The ladder's sweep over a checked field (:func:`check`): refused in one line (LadderError) when ``out``
    holds something else, or a ladder started with other settings; every cell checked before any game."""
    try:
        check_out_dir(out)
    except SweepError as e:
        raise LadderError(str(e)) from None
    line = lineups(field, seats)
    spec_path = out / SPEC_NAME
    stored = stored_spec(spec_path) if resume else None
    if not resume and out.exists() and any(p.name != LOCK for p in out.iterdir()):
        raise LadderError(f"{out}: not empty; pass --resume to finish the ladder in it, or choose a new or empty "
                          "--out")
    if stored is None and (out / "manifest.json").exists():
        raise LadderError(f"{out} holds a sweep that is not a ladder (no {SPEC_NAME}); choose another --out")
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
        raise LadderError(f"{spec_path}: the ladder in {out} was started with other settings ({', '.join(differ)} "
                          "differ); give the same options to finish it, or choose another --out")
    try:
        spec = parse_spec(raw, source=str(spec_path), base_dir=out)       # every cell checked before any game
    except SpecError as e:
        raise LadderError(str(e)) from None
    return Plan(g, raw, spec, stored, field, line, seats, shared, overrides, rules, list(sets), list(setups),
                players, games, seed, out)


def ready(p: Plan) -> str:
    """Size the parts (a probe of the bots, when the batch size is automatic) and write the ladder's spec into its
    folder (a resumed ladder keeps its own); returns what it will play, in one line."""
    if not p.raw["batch_size"]:
        try:
            p.raw["batch_size"] = probe_batch_size(p.g, p.rules, p.overrides, p.shared, p.field, p.line, p.seed,
                                                   p.games)
        except (EngineError, RuleError) as e:
            raise LadderError(str(e)) from None
        p.spec = parse_spec(p.raw, source=str(p.spec_path), base_dir=p.out)
    if p.stored is None:
        write_atomic(p.spec_path, spec_text(p.raw))
    return (f"ladder of {len(p.field)} bots on {p.g.name}: {len(p.line)} line-ups ({rotation(p.seats)}) x "
            f"{p.games:,} games")
