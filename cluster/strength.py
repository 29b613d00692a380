"""How strong a bot is: its results against a field of another bot, each seat of each of the game's skill
line-ups in turn (``playtest bench --bots ... --strength``; the ladder of ``playtest train-bot``).

The score of a game is 1 for a win (its team's, in a team game), the fair share for a draw and 0 otherwise;
the edge is the score minus the fair share (1 / sides), so 0 is the field's own strength. Every seat plays
the same number of games on the same seeds, and the line-ups count equally. Beside the edge, the games are
counted as **wins, draws (no winner) and losses**, each with its Wilson 95% interval: a score counts a draw as a
fair share of a win, so it is never called a win share (``win_share`` is the wins alone).

**Held-out seeds.** A model's strength is measured on games it never saw. Training (``playtest train-bot``) and
tuning (``playtest tune-bot``) play master seeds below 2^63 only; an evaluation plays the seed 2^63 + (the seed
given, modulo 2^63) (:func:`evaluation_seed`), a stream no training run can reach. On top of that,
:func:`check_unseen` refuses, in one line, a seed that a named model's provenance says its run played
(self-play, its ladders, policy improvement). Two bots compared are compared on the same games
(:func:`paired`): the per-game difference of their scores, with its 95% interval.
"""

from __future__ import annotations

import math

import numpy as np

from cluster.train import Z95, edges, gains, mean_edge
from sim.games import GAMES
from sim.params import RuleError
from infra.sequential import share

TRAINING_SPACE = 1 << 63          # training and tuning master seeds lie below; evaluation seeds at or above
EVAL_BASE = TRAINING_SPACE


def evaluation_seed(seed: int) -> int:
    """The held-out master seed an evaluation named ``seed`` plays: 2^63 + (seed mod 2^63); a seed already at or
    above 2^63 is itself. Never a seed of a training or tuning run (those are below 2^63)."""
    return seed if seed >= EVAL_BASE else EVAL_BASE + seed % TRAINING_SPACE


def training_seeds(provenance: dict) -> dict[int, str]:
    """Every master seed a ``playtest train-bot`` run played, by its provenance: seed -> what played it
    (cluster/train_bot.py: self-play seed + k, the ladders seed + 1000 + k, policy improvement seed + 2000 + g,
    the improved policy's ladder seed + 3000; a decisions block's training, cluster/train_decisions.py, its own
    seed + 2000 + g and + 3000). Empty when the provenance names no training run."""
    out: dict[int, str] = {}
    block = provenance.get("decisions_training")
    if isinstance(block, dict) and isinstance(block.get("seed"), int) and not isinstance(block.get("seed"), bool):
        d = int(block["seed"])
        for g in range(len(block.get("rows") or [])):
            out[(d + 2000 + g) % TRAINING_SPACE] = f"the decisions block's training, generation {g + 1}"
        out[(d + 3000) % TRAINING_SPACE] = "the decisions block's ladder"
    spec = provenance.get("spec") if isinstance(provenance.get("spec"), dict) else None
    if spec is None or not isinstance(spec.get("seed"), int):
        return out
    s = int(spec["seed"])
    iterations = max(int(spec.get("iterations") or 0), len(provenance.get("iterations") or []))
    for k in range(iterations):
        out[(s + k) % TRAINING_SPACE] = f"self-play of iteration {k + 1}"
        out.setdefault((s + 1000 + k) % TRAINING_SPACE, f"the ladder of iteration {k + 1}")
    if "improvement" in provenance:
        for g in range(int(provenance["improvement"].get("generations") or spec.get("improve") or 0)):
            out.setdefault((s + 2000 + g) % TRAINING_SPACE, f"policy improvement, generation {g + 1}")
        out.setdefault((s + 3000) % TRAINING_SPACE, "the improved policy's ladder")
    return out


def models_named(game_name: str, specs: list[str]) -> list[tuple[str, object]]:
    """(the bot spec, its model) for every ``model=`` a bot spec names (a comma list of seats, or several)."""
    from sim.kit.learned import resolve_model
    game = GAMES[game_name]
    out = []
    for spec in specs:
        for bot in str(spec).split(","):
            for part in bot.strip().split(":")[1:]:
                key, _, value = part.partition("=")
                if key.strip() == "model" and value.strip():
                    out.append((bot.strip(), resolve_model(getattr(game, "models_dir", None), game.features,
                                                           value.strip(), bot.strip())))
    return out


def check_unseen(game_name: str, specs: list[str], seed: int) -> None:
    """Refuse (RuleError, one line) a master seed that the training run of a model named in ``specs`` played."""
    for bot, model in models_named(game_name, specs):
        used = training_seeds(model.provenance)
        if seed in used:
            raise RuleError(f"seed {seed}: {bot} was trained on it ({used[seed]}); measure a model on seeds it never "
                            f"saw (evaluation seeds are 2^63 + n: seed {evaluation_seed(seed)})")


def edge_summary(per: dict[str, np.ndarray]) -> dict:
    """The mean edge over the line-ups with a 95% interval (normal, over every game played)."""
    values = np.concatenate(list(per.values())) if per else np.zeros(0)
    m = mean_edge(per) if per else float("nan")
    half = Z95 * float(values.std(ddof=1)) / math.sqrt(len(values)) if len(values) > 1 else float("inf")
    return {"games": int(len(values)), "edge": round(m, 4), "edge_95": [round(m - half, 4), round(m + half, 4)]}


def results(per: dict[str, np.ndarray]) -> dict:
    """Wins, draws (nobody won) and losses of the bot over every game played, each a share with its Wilson 95%
    interval, and its share of the decided games (wins over wins and losses). From the per-game edges: a win
    scores above the fair share, a draw exactly it, a loss below."""
    values = np.concatenate(list(per.values())) if per else np.zeros(0)
    n = len(values)
    wins, draws = int((values > 1e-12).sum()), int((np.abs(values) <= 1e-12).sum())
    losses = n - wins - draws

    def r(s: dict) -> dict:
        return {"count": s["count"], "share": None if s["share"] is None else round(s["share"], 4),
                "ci95": [None if x is None else round(float(x), 4) for x in s["ci95"]]}
    return {"wins": r(share(wins, n)), "draws": r(share(draws, n)), "losses": r(share(losses, n)),
            "share_of_decided": r(share(wins, wins + losses))}


def fair_share(game_name: str) -> float | None:
    """The fair share of the game's skill line-ups (1 / sides) when they all have the same, else None."""
    import duckdb
    game = GAMES[game_name]
    shares = set()
    for lu in game.skill_setups:
        m = game.resolve(lu.rules, lu.overrides, lu.setup)
        con = duckdb.connect()
        con.register("games", m.play_batch(0, 0, 1)["games"])
        # the game class's own SQL expression (code, not user text): the sides a game is played between
        shares.add(round(con.execute(f"SELECT 1.0 / ({m.definition.compare_columns.units}) FROM games").fetchone()[0], 6))
        con.close()
    return shares.pop() if len(shares) == 1 else None


def strength(game_name: str, spec: str, seed: int, games: int, field: str = "heuristic") -> dict:
    """``spec`` against ``field`` in every other seat, ``games`` games a seat of each skill line-up, on the
    held-out seed :func:`evaluation_seed` (``seed``) (refused when a named model's run played it): the edge, the
    score (draws as the fair share), and the wins, draws and losses."""
    played = evaluation_seed(seed)
    check_unseen(game_name, [spec, field], played)
    game = GAMES[game_name]
    per = edges(game_name, spec, field, played, games)
    out = {"bot": spec, "vs": f"{field} in every other seat, each seat in turn",
           "line_ups": [lu.label for lu in game.skill_setups], "games_per_seat": games, "seed": played,
           "seed_given": seed, **edge_summary(per), **results(per)}
    out["win_share"] = out["wins"]["share"]
    out["win_share_95"] = out["wins"]["ci95"]
    fair = fair_share(game_name)
    if fair is not None:
        out["fair_share"] = fair
        out["score"] = round(out["edge"] + fair, 4)
        out["score_95"] = [round(x + fair, 4) for x in out["edge_95"]]
    return out


def paired(game_name: str, a: str, b: str, seed: int, games: int, field: str = "heuristic") -> dict:
    """``b`` against ``a`` on the same games: each takes every seat of every skill line-up against ``field``,
    ``games`` games a seat on the held-out seed :func:`evaluation_seed` (``seed``); per line-up and over them
    (equal weight), b's score minus a's on each game, with a paired 95% interval; and each bot's results."""
    played = evaluation_seed(seed)
    check_unseen(game_name, [a, b, field], played)
    rows = gains(game_name, b, a, field, played, games)
    return {"a": a, "b": b, "vs": f"{field} in every other seat, each seat in turn", "seed": played,
            "seed_given": seed, "games_per_seat": games,
            "rows": [{"line_up": g.label, "games": g.games, "a_edge": round(g.default, 4), "b_edge": round(g.tuned, 4),
                      "b_minus_a": round(g.diff, 4), "ci95": [round(g.low, 4), round(g.high, 4)]} for g in rows]}
