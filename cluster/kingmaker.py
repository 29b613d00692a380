"""Kingmaking: can a player who can no longer win decide who does? (``playtest kingmaker``; docs/kingmaking.md).

A game of three or more sides is replayed decision by decision in the engine core (the paused games of the
core's scenario module). Before each decision the oracle, a learned model's value head (docs/learned-bots.md:
each seat's chance to win from what every player can see), rates every seat; a seat whose chance falls under
``threshold`` is **out** from then on. At every later decision of an out seat, each of its options is taken in
turn on a copy of the game and the copy played to the end by the same bots on the same random stream (common
random numbers: what differs is the choice and what follows from it, the later dice included). The decision
**makes a king** when two of its options end differently for the other seats (different winners among
them, or a winner and none); an option that makes the out seat itself win is counted apart (the oracle was
wrong about it).

Per game: whether a seat went out before the end, whether any out-seat decision made a king. Shares with
Wilson 95% intervals; the kinds of option that changed the winner, in the rulebook's words.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from sim.games import GAMES, Match
from sim.kit.learned import seat_chances
from sim.params import RuleError
from sim.sequential import wilson_interval

THRESHOLD = 0.05
BATCH = 50


def check(match: Match, oracle) -> None:
    """Refuse (RuleError) a match kingmaking cannot apply to, before any game."""
    game = match.definition
    paused = game.paused_game(match)
    if paused is None:
        raise RuleError(f"{game.name}: kingmaking replays paused games of the engine core, which this game's "
                        "core does not offer")
    n = paused.sides
    if n < 3:
        raise RuleError(f"{game.name} as set up is played between {n} sides: kingmaking needs 3 or more (a "
                        "player who cannot win can then decide which of the others does)")
    if oracle is None:
        raise RuleError(f"{game.name} has no learned model to rate the seats' chances (--oracle NAME)")


def kingmaker_batch(game_name: str, rules: str | None, overrides: dict, setup: dict, seed: int, start: int,
                    count: int, threshold: float, value: list[float]) -> dict:
    """One Ray task: games start..start+count-1, their counts (see :func:`summary`)."""
    game = GAMES[game_name]
    match = game.resolve(rules, overrides, setup)
    games = game.paused_game(match)
    v = np.asarray(value, dtype=float)
    out = {"games": 0, "out_games": 0, "king_games": 0, "out_decisions": 0, "king_decisions": 0,
           "playouts": 0, "self_rescues": 0, "kinds": {}}
    for index in range(start, start + count):
        pg = games.new(seed, index, 0)
        final = pg.copy()
        final.play_on(-1)
        out["games"] += 1
        actual = games.winner(final.record())
        gone: set[int] = set()
        king = False
        while pg.paused:
            seat = pg.seat
            _, seats = pg.learned_features()
            p = seat_chances(seats, v)
            gone |= {s for s in range(len(p)) if p[s] < threshold}
            if seat in gone:
                options = pg.options()
                winners = []
                for k in range(len(options)):
                    c = pg.copy()
                    c.take(k)
                    c.play_on(-1)
                    winners.append(games.winner(c.record()))
                out["playouts"] += len(options)
                out["out_decisions"] += 1
                mine = games.side_of(seat)
                out["self_rescues"] += sum(w == mine for w in winners)
                others = {w for w in winners if w != mine}
                if len(others) > 1:
                    out["king_decisions"] += 1
                    king = True
                    for k, w in enumerate(winners):         # the options that hand the win to another
                        if w != mine and w != actual:
                            kind = games.kind(pg, options[k])
                            out["kinds"][kind] = out["kinds"].get(kind, 0) + 1
            pg.play_on(pg.decisions + 1)
        out["out_games"] += bool(gone)
        out["king_games"] += king
    return out


def merge(parts: list[dict]) -> dict:
    total = {k: 0 for k in parts[0] if k != "kinds"} if parts else {}
    kinds: dict[str, int] = {}
    for p in parts:
        for k in total:
            total[k] += p[k]
        for k, n in p["kinds"].items():
            kinds[k] = kinds.get(k, 0) + n
    total["kinds"] = dict(sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0])))
    return total


def share(k: int, n: int) -> dict:
    """k of n as a share with its Wilson 95% interval (None where n is 0)."""
    low, high = wilson_interval(n, k) if n else (None, None)
    return {"count": k, "of": n, "share": k / n if n else None, "ci95": [low, high]}


def summary(counts: dict, threshold: float) -> dict:
    return {"threshold": threshold, **counts,
            "kingmaker_games": share(counts["king_games"], counts["games"]),
            "kingmaker_games_among_out": share(counts["king_games"], counts["out_games"]),
            "games_with_a_seat_out": share(counts["out_games"], counts["games"]),
            "kingmaker_decisions": share(counts["king_decisions"], counts["out_decisions"])}


def kingmaking(game_name: str, rules: str | None, overrides: dict, setup: dict, seed: int, games: int,
               threshold: float, oracle, workers: int | None = None, address: str | None = None,
               progress: Callable[[int, int], None] | None = None) -> dict:
    """Every game's counts on Ray (one task a batch of ``BATCH`` games), merged, with intervals."""
    from cluster.sweep import ray_session
    match = GAMES[game_name].resolve(rules, overrides, setup)
    check(match, oracle)
    with ray_session(workers, address) as ray:
        task = ray.remote(num_cpus=1)(kingmaker_batch)
        refs = [task.remote(game_name, rules, overrides, setup, seed, lo, min(BATCH, games - lo), threshold,
                            list(oracle.value)) for lo in range(0, games, BATCH)]
        parts, pending = [], list(refs)
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            parts.append(ray.get(done[0]))
            if progress:
                progress(sum(p["games"] for p in parts), games)
    result = summary(merge(parts), threshold)
    bots = [str(b) for b in GAMES[game_name].setup_values(match.setup)["bots"]]
    return {"game": game_name, "rules": rules, "overrides": overrides, "setup": setup, "bots": bots, "seed": seed,
            "oracle": f"{oracle.name}@{oracle.digest}", **result,
            "method": (f"a seat is out once the oracle ({oracle.name}@{oracle.digest}, value head) rates its chance "
                       f"under {threshold:g}; every option of each later decision of an out seat is taken on a copy "
                       "and the copy played to the end on the same random stream; a decision makes a king when "
                       "two of its options end differently for the other seats (another winner, or none); Wilson 95%"),
            "note": "bots, not people: how these bots would let a losing seat decide the winner"}


def sentences(r: dict) -> list[str]:
    def pct(s: dict) -> str:
        if s["share"] is None:
            return "n/a"
        return f"{100 * s['share']:.1f}% (95%: {100 * s['ci95'][0]:.1f} to {100 * s['ci95'][1]:.1f}; {s['count']:,} of {s['of']:,})"
    out = [f"a seat went out (the oracle rates its chance under {r['threshold']:g}) before the end in "
           f"{pct(r['games_with_a_seat_out'])} of the games",
           f"kingmaking: in {pct(r['kingmaker_games'])} of the games a seat that could no longer win had a choice "
           f"that decides which other seat wins ({pct(r['kingmaker_games_among_out'])} of the games with a seat "
           "out)",
           f"of the out seats' decisions, {pct(r['kingmaker_decisions'])} made a king"]
    if r["kinds"]:
        out.append("the options that changed the winner: " + ", ".join(f"{k} {n:,}" for k, n in r["kinds"].items()))
    if r["self_rescues"]:
        out.append(f"{r['self_rescues']:,} options would have made the out seat itself win: the oracle called it "
                   "out too soon there")
    return out

