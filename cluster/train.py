"""Tune a game's heuristic bot by self-play on Ray (``playtest tune-bot``; docs/bot-tuning.md).

The bot under test takes each seat in turn of each of the game's skill line-ups (``Game.skill_setups``)
against a fixed field (default: the heuristic bot with its default weights). A candidate's *edge* is its
mean score minus the fair share (1 for a win, the fair share for a draw, 0 otherwise; the fair share is
1 / the seats or teams competing), averaged over the line-ups and seats with equal weight. Every candidate
plays the same games (the same seeds: common random numbers), so two candidates differ by their play,
not their luck.

Three phases, each on its own seed stream so no figure is judged on the games that chose it:
1. **search** (seed): Optuna's TPE sampler proposes weights in their declared ranges, ``parallel`` at a
   time, each evaluated as one Ray task; the default weights are the first trial;
2. **validation** (seed + 1): the best ``finalists`` of the search replay four times as many games;
   the best of them is the tuned bot;
3. **gain** (seed + 2): the tuned bot and the default bot each take every seat of the same games; the
   per-game difference of their scores gives the gain with a 95% interval (paired, normal), per
   line-up and overall.
"""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path
from typing import Any, Callable

import numpy as np

from sim.games import GAMES, Game, Match
from infra.stats import Z95
from sim.params import as_dict, fields

SEED_SPACE = 1 << 63              # tuning seeds stay below 2^63: evaluation seeds (cluster/strength.py) lie above


def bot_spec(weights: dict[str, int]) -> str:
    """The heuristic bot spec that sets exactly these weights."""
    return "heuristic" + "".join(f":{k}={v}" for k, v in weights.items())


def seatings(game: Game, candidate: str, field: str) -> list[tuple[str, int, Match]]:
    """(line-up label, the candidate's seat, the match) for every seat of every skill line-up."""
    out = []
    for line_up in game.skill_setups:
        probe = game.resolve(line_up.rules, line_up.overrides, line_up.setup)
        seats = len(probe.setup.bots)
        for seat in range(seats):
            bots = [field] * seats
            bots[seat] = candidate
            match = game.resolve(line_up.rules, line_up.overrides, {**line_up.setup, "bots": bots},
                                 where=f"line-up {line_up.label}")
            out.append((line_up.label, seat, match))
    return out


def seat_scores(match: Match, seat: int, seed: int, start: int, count: int) -> np.ndarray:
    """Per game, the score of the bot in ``seat`` minus the fair share: a win (its team's, in a team
    game) scores 1, a draw the fair share, anything else 0."""
    import duckdb

    games = match.play_batch(seed, start, count)["games"]
    cc = match.definition.compare_columns
    con = duckdb.connect()
    con.register("games", games)
    # the expressions are the game class's own SQL (code, not user text); the seat is bound
    sql = (f"SELECT CASE WHEN {cc.draw} THEN 1.0 / ({cc.units}) "
           f"WHEN ({cc.unit}) = 'seat' THEN CAST(({cc.winner}) = $seat AS DOUBLE) "
           f"ELSE CAST(({cc.winner}) = $seat % 2 AS DOUBLE) END - 1.0 / ({cc.units}) AS edge FROM games")
    return con.execute(sql, {"seat": seat}).fetchnumpy()["edge"].astype(np.float64)


def edges(game_name: str, candidate: str, field: str, seed: int, games: int) -> dict[str, np.ndarray]:
    """The candidate's per-game edge in each seating, keyed 'line-up / seat N'."""
    game = GAMES[game_name]
    return {f"{label} / seat {seat + 1}": seat_scores(m, seat, seed, 0, games)
            for label, seat, m in seatings(game, candidate, field)}


def mean_edge(per_seating: dict[str, np.ndarray]) -> float:
    """Equal-weight mean over line-ups of the mean over their seats (each seat plays as many games)."""
    by_line_up: dict[str, list[float]] = {}
    for key, e in per_seating.items():
        by_line_up.setdefault(key.split(" / ")[0], []).append(float(e.mean()))
    return float(np.mean([np.mean(v) for v in by_line_up.values()]))


@dataclasses.dataclass
class Gain:
    """The tuned bot's score minus the default bot's in the same games and seats, with a 95% interval."""
    label: str
    games: int
    tuned: float          # the tuned bot's edge over the fair share
    default: float        # the default bot's
    diff: float
    low: float
    high: float


def paired_gain(label: str, tuned: np.ndarray, default: np.ndarray) -> Gain:
    d = tuned - default
    se = float(d.std(ddof=1) / math.sqrt(len(d))) if len(d) > 1 else float("inf")
    m = float(d.mean())
    return Gain(label, len(d), float(tuned.mean()), float(default.mean()), m, m - Z95 * se, m + Z95 * se)


def gains(game_name: str, tuned: str, default: str, field: str, seed: int, games: int) -> list[Gain]:
    """Per line-up (its seats pooled: each seat plays the same number of games) and overall (the
    equal-weight mean of the line-ups, whose variances add)."""
    t = edges(game_name, tuned, field, seed, games)
    d = edges(game_name, default, field, seed, games)
    rows: list[Gain] = []
    for label in dict.fromkeys(k.split(" / ")[0] for k in t):
        keys = [k for k in t if k.split(" / ")[0] == label]
        rows.append(paired_gain(label, np.concatenate([t[k] for k in keys]), np.concatenate([d[k] for k in keys])))
    return rows + [equal_weight(rows)]


def equal_weight(rows: list[Gain]) -> Gain:
    """The equal-weight mean of the line-ups' gains, with their variances added (``gains``' last row)."""
    m = float(np.mean([r.diff for r in rows]))
    half = math.sqrt(sum(((r.high - r.diff) / len(rows)) ** 2 for r in rows))
    return Gain("all line-ups (equal weight)", sum(r.games for r in rows),
                float(np.mean([r.tuned for r in rows])), float(np.mean([r.default for r in rows])),
                m, m - half, m + half)


def _evaluate(game_name: str, candidate: str, field: str, seed: int, games: int) -> float:
    return mean_edge(edges(game_name, candidate, field, seed, games))


@dataclasses.dataclass
class TuneResult:
    game: str
    field: str
    seed: int
    trials: int
    games: int                       # per seating in the search
    games_played: int                # every game of the three phases
    default_spec: str
    best_spec: str
    best_weights: dict[str, int]
    search_edge: float               # the chosen bot's edge in the search games (optimistic)
    validation: list[tuple[str, float]]  # finalists: spec, edge on the validation games
    gain: list[Gain]

    def to_json(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["gain"] = [dataclasses.asdict(g) for g in self.gain]
        return d


@dataclasses.dataclass(frozen=True)
class TuneRun:
    """One tuning run of a game's heuristic, passed whole to :func:`tune_heuristic` (see the module docstring)."""

    game: str
    trials: int                                  # weight sets tried in the search (the default weights first)
    games: int                                   # games per seating of one trial (validation and gain: 4x)
    seed: int                                    # the search's seed (validation: +1, gain: +2)
    field: str = "heuristic"                     # the bot in every other seat
    parallel: int | None = None                  # trials per round (None: one per Ray slot)
    finalists: int = 4                           # the search's best, replayed on the validation games
    workers: int | None = None                   # Ray workers (None: every core)
    address: str | None = None                   # a Ray cluster to run on (None: an embedded runtime)
    progress: Callable[[int, int, float], None] | None = None   # (done, trials, best edge so far) after each round


def tune_heuristic(run: TuneRun) -> TuneResult:
    """Tune the heuristic's weights of ``run.game`` (see the module docstring). Inputs are validated before Ray
    starts."""
    import optuna

    from cluster.sweep import _start_ray

    game_name, trials, games, seed, field = run.game, run.trials, run.games, run.seed, run.field
    game = GAMES[game_name]
    seatings(game, "heuristic", field)           # the field is a valid bot of the game: refused before Ray
    weights_cls = game.bot_weights
    # the numeric weights (restricted play's forbid is a choice, not a weight to tune)
    space = {f.name: optuna.distributions.IntDistribution(f.metadata["min"], f.metadata["max"])
             for f in fields(weights_cls) if not f.metadata["choices"]}
    default = {k: v for k, v in as_dict(weights_cls()).items() if k in space}
    started, slots, guard = _start_ray(run.workers, run.address)
    import ray

    evaluate = ray.remote(num_cpus=1)(_evaluate)
    try:
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        sampler = optuna.samplers.TPESampler(seed=seed % (1 << 32), multivariate=True,
                                             n_startup_trials=min(16, max(1, trials // 4)))
        study = optuna.create_study(direction="maximize", sampler=sampler)
        study.enqueue_trial(default)
        batch = max(1, run.parallel or slots)
        done = 0
        while done < trials:
            asked = [study.ask(space) for _ in range(min(batch, trials - done))]
            specs = [bot_spec({k: t.params[k] for k in default}) for t in asked]
            values = ray.get([evaluate.remote(game_name, s, field, seed, games) for s in specs])
            for t, v in zip(asked, values):
                study.tell(t, v)
            done += len(asked)
            if run.progress:
                run.progress(done, trials, study.best_value)
        ranked = sorted(study.trials, key=lambda t: (-t.value, t.number))
        top = [bot_spec({k: t.params[k] for k in default}) for t in ranked[:run.finalists]]
        top = list(dict.fromkeys(top))
        vseed = (seed + 1) % SEED_SPACE
        vals = ray.get([evaluate.remote(game_name, s, field, vseed, 4 * games) for s in top])
        best_i = max(range(len(top)), key=lambda i: (vals[i], -i))
        best = top[best_i]
        gain = gains(game_name, best, bot_spec(default), field, (seed + 2) % SEED_SPACE, 4 * games)
    finally:
        if started:
            ray.shutdown()
        if guard is not None:
            guard.close()
    per_eval = len(seatings(game, "heuristic", field))
    played = per_eval * (games * trials + 4 * games * len(top) + 2 * 4 * games)
    search_value = {bot_spec({k: t.params[k] for k in default}): t.value for t in reversed(ranked)}
    best_weights = {k: int(v) for k, v in (a.split("=") for a in best.split(":")[1:])}
    return TuneResult(game_name, field, seed, trials, games, played, bot_spec(default), best, best_weights,
                      float(search_value[best]), list(zip(top, vals)), gain)


def write_preset(path: Path, name: str, weights: dict[str, int], about: str) -> None:
    """Set table ``[name]`` of a weight-preset TOML file, keeping its other tables (written whole, then
    renamed into place)."""
    from sim.files import load_toml_bounded

    tables: dict[str, dict] = {}
    if path.exists():       # bounded in size and nesting, one line when it is not a preset file (ValueError)
        tables = load_toml_bounded(path, "weight-preset file", ValueError)
    tables[name] = {"about": about, **weights}
    lines = ["# Named weight sets of the heuristic bot: heuristic:preset=NAME (written by playtest tune-bot).", ""]
    for table, values in tables.items():
        lines.append(f"[{table}]")
        for k, v in values.items():
            lines.append(f"{k} = {json.dumps(v) if isinstance(v, str) else int(v)}")
        lines.append("")
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text("\n".join(lines))
    tmp.replace(path)
