"""A bot ladder's field and line-ups, checked as ``playtest ladder`` checks them (cli/ladder.py plays and rates it):
here below the command line so that the service (``playtest serve``'s ladder jobs) refuses exactly what the command
refuses, in the same one line. Every check raises a :class:`LadderError` (a ValueError) of one line."""

from __future__ import annotations

import itertools
import math
import time
from typing import Any, Optional

from cluster.spec import MAX_CELLS
from sim.games import Game
from sim.params import RuleError

# The field when --bots is not given: random, the heuristic, its tuned weights, and the search bot at
# doubling budgets (the bots after the heuristic come with the search bots and weight presets)
DEFAULT_FIELD = ("random", "heuristic", "heuristic:preset=tuned",
                 *(f"mcts:iterations={n}:depth=20" for n in (16, 32, 64, 128, 256, 512, 1024)))


class LadderError(ValueError):
    """A ladder's options refused: the message is the one line ``playtest ladder`` prints."""


ENGINE = "core"                     # a ladder plays the compiled engine (record for record the reference's)
PROBE_SECONDS = 0.05                # each bot is timed over games until this long (or PROBE_GAMES)
PROBE_GAMES = 256


def seconds_per_game(g: Game, rules, overrides, setup, bots: list[str], seed: int, engine: str) -> dict[str, float]:
    """Each bot's seconds a game on one core, playing every seat (over about PROBE_SECONDS, or PROBE_GAMES games);
    a line-up's game takes about the mean of its bots'. Any bot kind, search bots included: nothing here knows what
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
