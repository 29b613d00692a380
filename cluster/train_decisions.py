"""Train a learned model's decisions block by policy improvement (``playtest train-bot GAME --decisions KINDS
--start MODEL``; docs/learned-bots.md "Which decisions").

A model's decisions block scores the options of every decision a seat makes besides the ones its policy takes
(Paws: combat cards, defenders, monsters kept, cards taken, discards; Tales: the potions and the Champion's
choice; each game's sim/<game>/bots/features.py DECISIONS). The search bots search only the policy's
decisions, so no search labels these; the block is trained for wins directly, by
the evolution strategy of the policy improvement (cluster/train_bot.py ``evolve``: antithetic pairs on
common random numbers, a step along the estimated slope), starting from the heuristic-equivalent weights (so
from the start model's play) or from the start model's own block. The start model's policy, value head and
network stay as they are: the model written is the start model with the block.

Each generation's candidates take every seat of every skill line-up, heuristics in the others, ``improve_games``
games a seat, on seed + 2000 + generation; the trained block's ladder is measured on seed + 3000 (below 2^63,
as every training seed: cluster/strength.py ``training_seeds`` lists them from the provenance). Resumable: the
work folder keeps each generation's mean and spread.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path
from typing import Callable

import numpy as np

from cluster.train_bot import candidate_edge, evolve, ladder
from sim.files import write_atomic
from sim.games import GAMES, EngineError, Game
from sim.kit.learned import Model, resolve_model, rounded
from sim.params import RuleError


@dataclasses.dataclass(frozen=True)
class DecisionsSpec:
    """What decides a decisions block's training (and so its bytes)."""

    game: str
    name: str
    start: str                        # the model whose block is trained (a shipped name or a file)
    kinds: tuple[str, ...]            # the decision kinds trained (the block keeps the start's others)
    seed: int = 1
    improve: int = 30                 # generations
    population: int = 24              # weight vectors per generation beside the mean (antithetic pairs)
    improve_games: int = 100          # games per seat of each line-up per weight vector
    improve_sigma: float = 0.25       # the spread of the weights tried around the mean, at first
    eval_games: int = 200             # the trained block's ladder: games per seat of each line-up

    def digest(self) -> str:
        return hashlib.sha256(json.dumps(dataclasses.asdict(self), sort_keys=True).encode()).hexdigest()[:16]


@dataclasses.dataclass
class DecisionsRun:
    """A training run: the spec, where the model goes, the work folder, and where it runs."""

    spec: DecisionsSpec
    out: Path
    work: Path
    workers: int | None = None
    address: str | None = None
    code_version: str = ""
    progress: Callable[[str], None] | None = None


def decision_kinds(game: Game, text: str) -> tuple[str, ...]:
    """``--decisions``: ``all`` or a comma list of the game's decision kinds (a RuleError in one line)."""
    known = [d.kind for d in (game.features.decisions if game.features is not None else ())]
    if not known:
        raise RuleError(f"--decisions: {game.name} takes no decisions block (its learned bot decides every decision "
                        "it has features for)")
    given = known if text.strip() == "all" else [k.strip() for k in text.split(",") if k.strip()]
    bad = [k for k in given if k not in known]
    if bad or not given:
        raise RuleError(f"--decisions {text!r}: expected all or some of {', '.join(known)}")
    return tuple(k for k in known if k in given)


def start_of(spec: DecisionsSpec) -> tuple[Game, Model]:
    """The game and the start model, checked before any game is played."""
    game = GAMES[spec.game]
    decision_kinds(game, ",".join(spec.kinds))
    if not spec.start:
        raise RuleError("--decisions trains a model's decisions block: name the model with --start")
    return game, resolve_model(game.models_dir, game.features, spec.start, f"--start {spec.start}")


def decisions_vector(game: Game, model: Model, kinds: tuple[str, ...]) -> np.ndarray:
    """What the strategy moves: the weights of ``kinds``, one after another, from the model's block (a kind it
    lacks: the heuristic-equivalent weights)."""
    block = dict(model.decisions)
    return np.concatenate([np.array(block.get(k, game.features.decision(k).weights()), dtype=np.float64)
                           for k in kinds])


def with_decisions_vector(game: Game, model: Model, kinds: tuple[str, ...], vector: np.ndarray) -> Model:
    """``model`` with ``vector`` (decisions_vector's layout) as the block's weights of ``kinds``; its other kinds
    as they were."""
    block, at = dict(model.decisions), 0
    for k in kinds:
        n = len(game.features.decision(k).features)
        block[k] = tuple(rounded(v) for v in vector[at:at + n])
        at += n
    ordered = tuple((d.kind, block[d.kind]) for d in game.features.decisions if d.kind in block)
    return dataclasses.replace(model, decisions=ordered, decision_features=game.features.decisions_id)


def improve_decisions(spec: DecisionsSpec, game: Game, model: Model, work: Path,
                      scores_of: Callable[[list[np.ndarray], int], list[float]], say) -> tuple[Model, list]:
    """``spec.improve`` generations from ``model``'s block (resumable: each generation's mean and spread are kept
    in the work folder)."""
    mean, rows = evolve(spec, decisions_vector(game, model, spec.kinds), scores_of, say,
                        lambda g: work / f"decisions-{spec.digest()[:8]}-{g}.json", "decisions block")
    return with_decisions_vector(game, model, spec.kinds, mean), rows


def train_decisions(run: DecisionsRun) -> Model:
    """Run (or resume) the training; write the model (the start model with the trained block) to ``run.out``."""
    from cluster.sweep import _start_ray
    spec, work = run.spec, run.work
    game, start = start_of(spec)
    work.mkdir(parents=True, exist_ok=True)
    say = run.progress or (lambda text: None)
    started, _, guard = _start_ray(run.workers, run.address)
    import ray
    score = ray.remote(num_cpus=1)(candidate_edge)
    judge = ray.remote(num_cpus=1)(ladder)
    base = dataclasses.replace(start, name=spec.name, provenance={})

    def scores(candidates: list[np.ndarray], seed: int) -> list[float]:
        jsons = [with_decisions_vector(game, base, spec.kinds, c).to_json() for c in candidates]
        return ray.get([score.remote(game.name, j, seed, spec.improve_games) for j in jsons])

    try:
        trained, rows = improve_decisions(spec, game, base, work, scores, say)
        rung = ray.get(judge.remote(game.name, trained.to_json(), (spec.seed + 3000) % (1 << 63), spec.eval_games))
    finally:
        if started:
            ray.shutdown()
        if guard is not None:
            guard.close()
    if not rows and spec.improve:
        raise EngineError("no generation ran")
    prov = {**start.provenance, "decisions_training": {
        "method": "evolution strategy (antithetic pairs) on the decisions block's weights, against the heuristic, "
                  "every seat in turn", "from": f"{start.name}@{start.digest}" + (
                      "'s block" if start.decisions else " with the heuristic-equivalent block"),
        "kinds": list(spec.kinds), "seed": spec.seed, "spec": dataclasses.asdict(spec),
        "code_version": run.code_version, "rows": rows, "ladder": rung}}
    model = dataclasses.replace(trained, provenance=prov)
    say(f"trained decisions block: learned vs heuristic edge {rung['edge']:+.3f} [{rung['edge_95'][0]:+.3f}, "
        f"{rung['edge_95'][1]:+.3f}] over the fair share ({rung['games']:,} games)")
    write_atomic(run.out, model.to_json())
    return model
