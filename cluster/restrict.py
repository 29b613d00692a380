"""Restricted play: what each kind of option is worth to a bot (``playtest restrict``; docs/restricted-play.md).

Jaffe, Miller, Andersen, Liu, Karlin and Popović, "Evaluating Competitive Game Balance with Restricted Play"
(AIIDE 2012): a bot forbidden one kind of option plays against the unrestricted bot; how much it loses says
what the option is worth. Here the restricted bot (``heuristic:forbid=invade``) takes each seat of each of the
game's skill line-ups in turn against the unrestricted bot in every other seat, and the unrestricted bot plays
the same seats of the same games (common random numbers: the same seed and game index, so the two games are
one game until the first forbidden choice). The change is the paired per-game difference of their scores
(1 a win, the fair share a draw, 0 a loss), the line-ups weighted equally, with a 95% interval (normal, the
line-ups' variances added): cluster.train.gains.

Verdicts, on the cost of forbidding (the unrestricted score less the restricted):
- **dominant**: its whole interval is above ``threshold`` (default 5 points of win share): the bot's play
  leans on this option;
- **useless**: its whole interval lies within +-``margin`` (default 1 point): forbidding it changes nothing;
- **overused**: its whole interval is below 0: the bot does better without it (it takes it when it should not);
- **matters**: above 0 but not shown above the threshold;
- **unclear**: the interval is too wide to say (more games).
"""

from __future__ import annotations

from typing import Callable, Sequence

from cluster.train import Gain, gains, seatings
from sim.games import GAMES
from sim.params import RuleError, fields

THRESHOLD = 0.05
MARGIN = 0.01


def forbiddable(game_name: str) -> tuple[str, ...]:
    """The options a heuristic bot of the game can be forbidden (its weights' ``forbid`` choices less none)."""
    by = {f.name: f for f in fields(GAMES[game_name].bot_weights)}
    if "forbid" not in by:
        return ()
    return tuple(c for c in by["forbid"].metadata["choices"] if c != "none")


def restricted_spec(base: str, option: str) -> str:
    return f"{base}:forbid={option}"


def check(game_name: str, base: str, options: Sequence[str]) -> None:
    """Refuse (RuleError, one line) a base bot that is not a heuristic, or an option the game does not have,
    before any game."""
    allowed = forbiddable(game_name)
    if not allowed:
        raise RuleError(f"{game_name}: its heuristic bot has no options to forbid")
    if base.split(":")[0].strip() != "heuristic" or "forbid=" in base:
        raise RuleError(f"--bot {base!r}: restricted play forbids options of a heuristic bot (heuristic or "
                        "heuristic:preset=NAME, with weights), without forbid=")
    for o in options:
        if o not in allowed:
            raise RuleError(f"--forbid {o!r}: {game_name} has no such option; allowed: {', '.join(allowed)}")
    for o in options:
        seatings(GAMES[game_name], restricted_spec(base, o), base)     # every spec resolves


def games_to_play(game_name: str, base: str, options: Sequence[str], games: int) -> int:
    """The games the run plays: for each option, each seating twice (restricted and unrestricted)."""
    return len(options) * len(seatings(GAMES[game_name], base, base)) * games * 2


def verdict(cost: float, low: float, high: float, threshold: float = THRESHOLD, margin: float = MARGIN) -> str:
    if low > threshold:
        return "dominant"
    if -margin <= low and high <= margin:
        return "useless"
    if high < 0:
        return "overused"
    if low > 0:
        return "matters"
    return "unclear"


SAYS = {"dominant": "the bot's play leans on it: forbidding it costs more than {t} points",
        "useless": "forbidding it changes nothing (within {m} point{s})",
        "overused": "the bot does better without it: it takes it when it should not",
        "matters": "forbidding it costs something, not shown to be over {t} points",
        "unclear": "too few games to say"}


def option_row(game_name: str, base: str, option: str, seed: int, games: int) -> dict:
    """One Ray task: the paired cost of forbidding ``option``, per line-up and overall."""
    rows: list[Gain] = gains(game_name, restricted_spec(base, option), base, base, seed, games)
    over = rows[-1]
    return {"option": option, "restricted": restricted_spec(base, option), "games": over.games,
            "cost": -over.diff, "cost_95": [-over.high, -over.low],
            "line_ups": [{"line_up": r.label, "games": r.games, "cost": -r.diff, "cost_95": [-r.high, -r.low]}
                         for r in rows[:-1]]}


def restricted_play(game_name: str, base: str, options: Sequence[str], seed: int, games: int,
                    threshold: float = THRESHOLD, margin: float = MARGIN, workers: int | None = None,
                    address: str | None = None, progress: Callable[[str], None] | None = None) -> dict:
    """Every option's cost with its verdict (one Ray task an option; inputs checked before Ray starts)."""
    from cluster.sweep import ray_session
    check(game_name, base, options)
    with ray_session(workers, address) as ray:
        task = ray.remote(num_cpus=1)(option_row)
        refs = {o: task.remote(game_name, base, o, seed, games) for o in options}
        out = []
        for o, ref in refs.items():
            row = ray.get(ref)
            low, high = row["cost_95"]
            row["verdict"] = verdict(row["cost"], low, high, threshold, margin)
            out.append(row)
            if progress:
                progress(f"forbid={o}: cost {points(row['cost'])} points ({points(low)} to {points(high)})")
    return {"game": game_name, "bot": base, "seed": seed, "games_per_seat": games,
            "line_ups": [lu.label for lu in GAMES[game_name].skill_setups], "threshold": threshold, "margin": margin,
            "options": out,
            "method": "each option forbidden to the bot in one seat of each skill line-up in turn, the unrestricted "
                      "bot in every other seat; the same seats of the same games played by the unrestricted bot; "
                      "cost = its score less the restricted bot's (1 a win, the fair share a draw), line-ups "
                      "weighted equally, 95% normal interval of the paired differences",
            "note": "bots, not people: what an option is worth to this bot's play"}


def points(x: float) -> str:
    """A share as signed points of win share, one decimal (never "-0.0")."""
    return f"{round(100 * x, 1) + 0.0:+.1f}"


def sentences(result: dict) -> list[str]:
    t, m = 100 * result["threshold"], 100 * result["margin"]
    out = []
    for r in sorted(result["options"], key=lambda r: -r["cost"]):
        low, high = r["cost_95"]
        said = SAYS[r["verdict"]].format(t=f"{t:g}", m=f"{m:g}", s="" if m == 1 else "s")
        out.append(f"forbid {r['option']}: {r['verdict']}, it costs {points(r['cost'])} points of win share "
                   f"(95%: {points(low)} to {points(high)}; {r['games']:,} paired games): {said}")
    return out

