"""Tension: is a game tense to the end, or decided early? (``playtest tension``; docs/tension.md).

Each game is replayed decision by decision in the engine core (the paused games of the core's scenario
module); before every top-level decision the oracle, a learned model's value head (docs/learned-bots.md:
each seat's chance to win from what every player can see), rates each side (a team's chance is the sum of
its seats'). From the eventual winner's curve:

- **lowest chance**: the lowest chance the eventual winner had (drama: how far behind it was);
- **comeback**: the winner was once under half its fair share (1 / sides / 2);
- **leader changes**: how often the side the oracle rates highest changes;
- **decisive point**: where in the game (share of its decisions) the winner's chance rises above
  ``decided`` (0.9) for good; a game is **decided early** when that is in its first half;
- **lead for good**: where in the game the eventual winner becomes the side rated highest for good.

Means with t 95% intervals, shares with Wilson 95% intervals; games nobody won are counted apart. The
curve of the winner's chance and of the others' against progress through the game (20 steps), median and
quartiles, for the plot.
"""

from __future__ import annotations

import math
import numpy as np

from cluster.kingmaker import share
from sim.games import GAMES
from sim.kit.learned import seat_chances
from sim.params import RuleError

DECIDED = 0.9
BATCH = 100
STEPS = 20


def check(match, oracle) -> None:
    game = match.definition
    if game.paused_game(match) is None:
        raise RuleError(f"{game.name}: tension replays paused games of the engine core, which this game's core "
                        "does not offer")
    if oracle is None:
        raise RuleError(f"{game.name} has no learned model to rate the sides' chances (--oracle NAME)")


def side_curve(pg_new, games, seed: int, index: int, value: np.ndarray) -> tuple[np.ndarray, int]:
    """(each side's chance before every top-level decision, one row each; the winning side or -1)."""
    pg = pg_new(seed, index, 0)
    rows = []
    while pg.paused:
        p = seat_chances(pg.learned_features()[1], value)
        side = np.zeros(games.sides)
        for seat, x in enumerate(p):
            side[games.side_of(seat)] += x
        rows.append(side)
        pg.play_on(pg.decisions + 1)
    return np.array(rows).reshape(-1, games.sides), int(games.winner(pg.record()))


def game_measures(curve: np.ndarray, winner: int, sides: int, decided: float = DECIDED) -> dict | None:
    """One won game's measures from its curve (None for a game nobody won or with no decision)."""
    if winner < 0 or not len(curve):
        return None
    w = curve[:, winner]
    leaders = curve.argmax(axis=1)
    above = w > decided
    # the first decision from which the winner stays above ``decided`` to the end (none: the end)
    tail = np.flatnonzero(~above)
    first = 0 if not len(tail) else int(tail[-1]) + 1
    behind = np.flatnonzero(leaders != winner)
    leads = 0 if not len(behind) else int(behind[-1]) + 1
    return {"lowest": float(w.min()), "comeback": bool(w.min() < 0.5 / sides),
            "leader_changes": int((leaders[1:] != leaders[:-1]).sum()),
            "decisive": first / len(w), "decided_early": first / len(w) < 0.5, "leads_from": leads / len(w)}


def progress_rows(curve: np.ndarray, winner: int, steps: int = STEPS) -> tuple[np.ndarray, np.ndarray]:
    """The winner's chance and the others' mean chance at each of ``steps`` + 1 points of progress (0 to 1:
    the chance before the decision at that share of the game)."""
    n = len(curve)
    at = np.minimum((np.arange(steps + 1) / steps * n).astype(int), n - 1)
    others = np.delete(curve, winner, axis=1).mean(axis=1) if curve.shape[1] > 1 else np.zeros(n)
    return curve[at, winner], others[at]


def tension_batch(game_name: str, rules: str | None, overrides: dict, setup: dict, seed: int, start: int,
                  count: int, value: list[float], decided: float = DECIDED, keep: bool = False) -> dict:
    """One Ray task: games start..start+count-1, their measures and progress rows (and, ``keep``, every
    game's whole curve)."""
    game = GAMES[game_name]
    match = game.resolve(rules, overrides, setup)
    games = game.paused_game(match)
    v = np.asarray(value, dtype=float)
    out = {"measures": [], "winner_curve": [], "others_curve": [], "undecided": 0, "games": 0, "traces": []}
    for index in range(start, start + count):
        curve, winner = side_curve(games.new, games, seed, index, v)
        out["games"] += 1
        if keep:
            out["traces"].append({"game_index": index, "winner": winner, "sides": games.sides,
                                  "chances": [round(float(x), 5) for x in curve.ravel()]})
        m = game_measures(curve, winner, games.sides, decided)
        if m is None:
            out["undecided"] += 1
            continue
        out["measures"].append(m)
        w, o = progress_rows(curve, winner)
        out["winner_curve"].append(w.tolist())
        out["others_curve"].append(o.tolist())
    return out


def _mean(x: list[float]) -> dict:
    a = np.asarray(x, dtype=float)
    if len(a) < 2:
        return {"mean": float(a.mean()) if len(a) else None, "ci95": [None, None], "n": len(a)}
    half = 1.959964 * float(a.std(ddof=1)) / math.sqrt(len(a))
    return {"mean": float(a.mean()), "ci95": [float(a.mean()) - half, float(a.mean()) + half], "n": len(a)}


def _share(flags: list[bool]) -> dict:
    return share(int(sum(flags)), len(flags))


def summarise(parts: list[dict], decided: float = DECIDED) -> dict:
    ms = [m for p in parts for m in p["measures"]]
    games = sum(p["games"] for p in parts)
    undecided = sum(p["undecided"] for p in parts)
    wc = np.array([c for p in parts for c in p["winner_curve"]]).reshape(-1, STEPS + 1)
    oc = np.array([c for p in parts for c in p["others_curve"]]).reshape(-1, STEPS + 1)
    q = (lambda a: np.percentile(a, [25, 50, 75], axis=0).round(4).tolist() if len(a) else [[], [], []])
    return {"games": games, "won": len(ms), "undecided": share(undecided, games),
            "decided_at": decided,
            "lowest_chance_of_winner": _mean([m["lowest"] for m in ms]),
            "comebacks": _share([m["comeback"] for m in ms]),
            "leader_changes": _mean([m["leader_changes"] for m in ms]),
            "decisive_point": _mean([m["decisive"] for m in ms]),
            "decided_early": _share([m["decided_early"] for m in ms]),
            "winner_leads_from": _mean([m["leads_from"] for m in ms]),
            "curve": {"progress": [k / STEPS for k in range(STEPS + 1)], "winner_quartiles": q(wc),
                      "others_quartiles": q(oc)}}


def tension(game_name: str, rules: str | None, overrides: dict, setup: dict, seed: int, games: int, oracle,
            workers: int | None = None, address: str | None = None, decided: float = DECIDED,
            keep: bool = False) -> tuple[dict, list[dict]]:
    """(the answer, every game's trace if ``keep``) on Ray, one task a batch of ``BATCH`` games."""
    from cluster.sweep import ray_session
    match = GAMES[game_name].resolve(rules, overrides, setup)
    check(match, oracle)
    with ray_session(workers, address) as ray:
        task = ray.remote(num_cpus=1)(tension_batch)
        refs = [task.remote(game_name, rules, overrides, setup, seed, lo, min(BATCH, games - lo), list(oracle.value),
                            decided, keep) for lo in range(0, games, BATCH)]
        parts = ray.get(refs)
    traces = [t for p in parts for t in p["traces"]]
    bots = [str(b) for b in GAMES[game_name].setup_values(match.setup)["bots"]]
    answer = {"game": game_name, "rules": rules, "overrides": overrides, "setup": setup, "bots": bots, "seed": seed,
              "oracle": f"{oracle.name}@{oracle.digest}", **summarise(parts, decided),
              "method": (f"each side's chance before every top-level decision by the value head of {oracle.name}@"
                         f"{oracle.digest} (a team's: the sum of its seats'); per won game: the winner's lowest "
                         f"chance, a comeback (under half the fair share), leader changes, the decisive point (the "
                         f"share of the game after which the winner stays above {decided:g}); means with t 95%, "
                         "shares with Wilson 95% intervals"),
              "note": "bots, not people: how tense these bots' games are, by this oracle"}
    return answer, traces


def sentences(r: dict) -> list[str]:
    def mean(m: dict, scale: float = 1.0, unit: str = "", digits: int = 2) -> str:
        if m["mean"] is None or m["ci95"][0] is None:
            return "n/a"
        return (f"{scale * m['mean']:.{digits}f}{unit} (95%: {scale * m['ci95'][0]:.{digits}f} to "
                f"{scale * m['ci95'][1]:.{digits}f})")

    def pct(s: dict) -> str:
        if s["share"] is None:
            return "n/a"
        return f"{100 * s['share']:.1f}% (95%: {100 * s['ci95'][0]:.1f} to {100 * s['ci95'][1]:.1f})"
    return [f"of {r['games']:,} games, {r['won']:,} were won; {pct(r['undecided'])} ended with no winner (not in "
            "the numbers below)",
            f"the eventual winner's lowest chance: {mean(r['lowest_chance_of_winner'])} on average; it came back from "
            f"under half its fair share in {pct(r['comebacks'])} of the won games",
            f"the side the oracle rates highest changed {mean(r['leader_changes'])} times a game",
            f"the eventual winner was rated highest for good from {mean(r['winner_leads_from'], 100, '%', 1)} of the "
            "way through the game",
            f"the winner was sure (above {r['decided_at']:g} to the end) from {mean(r['decisive_point'], 100, '%', 1)} of "
            f"the way through; decided in the first half: {pct(r['decided_early'])} of the won games"]
