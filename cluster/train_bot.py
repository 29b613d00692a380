"""Train a game's learned bot by expert iteration on Ray (``playtest train-bot``; docs/learned-bots.md).

Each iteration:
1. **self-play** (seed + k): the game's skill line-ups (``Game.skill_setups``; ``--configurations all``: every
   configuration, :func:`self_play_setups`) with the search bot in every
   seat (from the second iteration on, the search guided by the last model: ``model=``, its rollouts,
   prior and evaluation at the depth cap); the core writes every searched decision as training samples:
   each option's features and its share of the search's visits, each seat's features, and the game's
   outcome (one Ray task per batch of games);
2. **fit**: the policy is a softmax over a decision's options of a linear score of their features, fitted
   to the search's visit shares (cross-entropy, the AlphaZero policy target); the value head is a softmax
   over the seats of a linear score of their features, fitted to the outcomes. Both by Newton's method
   with an L2 penalty, from zero: deterministic, the same samples give the same weights;
3. **ladder**: the new model's learned bot takes each seat of each skill line-up in turn against the
   heuristic bot (``edges``, as ``playtest tune-bot`` measures), on games of their own seed (seed + 1000 + k),
   with a 95% interval; and the value head's calibration on those games' positions (10 bins, Brier score,
   expected calibration error).

After the last iteration, **policy improvement** (``improve`` generations; 0 skips it): an evolution
strategy (Salimans et al. 2017: antithetic pairs, a step along the estimated slope) searches the policy
weights directly for the win share the ladder measures. Each generation tries ``population`` weight
vectors, pairs on either side of the current mean (the fitted policy at first), each against the heuristic
in every seat of every line-up on common random numbers (``improve_games`` games per seat, seed + 2000 +
generation); the pairs' differences estimate which way the score rises, and the mean steps that way.
Imitation alone gives a policy that plays like the heuristic where the search's visit shares are thin;
this stage keeps what the fit learned and the value head, and pushes the policy to where it wins. The
improved model's ladder is measured on games of a seed of its own (seed + 3000).

Every seed a run plays is below 2^63 (``% 2^63``); the seeds at or above are kept for measuring the model
afterwards (cluster/strength.py: ``evaluation_seed``), and ``cluster.strength.training_seeds`` lists a model's
from its provenance, so an evaluation on one of them is refused. Within a run the streams are apart: self-play
seed + k, the ladders seed + 1000 + k (k < 100), improvement seed + 2000 + g (g < 1000), the improved ladder
seed + 3000.

The samples of all iterations so far are fitted together. Everything a run produces goes into its work
folder (``--work``): each iteration's samples and model, so a stopped run resumes where it stopped (a work
folder of another spec is refused). The model file holds the weights and their provenance: the training
spec, the seed, the code version, the feature set and each iteration's ladder and calibration.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from pathlib import Path
from typing import Callable

import numpy as np

from cluster.train import edges, mean_edge
from sim.files import load_json_bounded, write_atomic
from sim.games import GAMES, EngineError, Game
from sim.kit.learned import MAX_HIDDEN, Model, model_files, read_model, resolve_model, rounded
from sim.params import RuleError


@dataclasses.dataclass(frozen=True)
class TrainSpec:
    """What decides a training run (and so its model's bytes)."""

    game: str
    name: str
    search: str = "mcts:iterations=64:depth=20"
    iterations: int = 3
    games: int = 200                  # self-play games per iteration (split over the skill line-ups)
    batch: int = 25                   # games per Ray task
    eval_games: int = 200             # ladder games per seat of each line-up
    seed: int = 1
    l2: float = 1e-2
    improve: int = 30                 # policy improvement generations after the last iteration (0: none)
    population: int = 24              # weight vectors per generation beside the mean (antithetic pairs)
    improve_games: int = 100          # games per seat of each line-up per weight vector
    improve_sigma: float = 0.25       # the spread of the weights tried around the mean
    network: int = 0                  # a network model's hidden units (0: a linear model)
    start: str = ""                   # the model the first iteration's search is guided by and the fit starts
                                      # from (a shipped name or a file; "": none, the search unguided at first)
    configurations: str = "skill"     # the self-play's configurations: "skill" (the game's skill line-ups) or
                                      # "all" (every configuration the game's differential cases play)

    IMPROVE_FIELDS = ("improve", "population", "improve_games", "improve_sigma")

    def fields(self) -> dict:
        """The spec as a dict; ``configurations`` only when it is not the default, so a spec from before it
        existed keeps its digests (and its work folder)."""
        out = dataclasses.asdict(self)
        if out["configurations"] == "skill":
            del out["configurations"]
        return out

    def iteration_fields(self) -> dict:
        """What decides the expert iterations' samples and models (not the policy improvement after them)."""
        return {k: v for k, v in self.fields().items() if k not in self.IMPROVE_FIELDS}

    def digest(self) -> str:
        """Of the expert iterations: a work folder holds one run's iterations, whatever improvement follows."""
        return hashlib.sha256(json.dumps(self.iteration_fields(), sort_keys=True).encode()).hexdigest()[:16]

    def improve_digest(self) -> str:
        """Of the whole run: each improvement of the same iterations keeps its own generations."""
        return hashlib.sha256(json.dumps(self.fields(), sort_keys=True).encode()).hexdigest()[:16]


CONFIGURATIONS = ("skill", "all")


def self_play_setups(game: Game, configurations: str) -> tuple:
    """The configurations the self-play plays (``--configurations``): the game's skill line-ups, or every
    configuration of the game (``Game.configurations``; Paws: v3 and v4, both boards, 2, 3 and 4 players and
    Teams; Tales: every mode), each once, the skill line-ups first."""
    if configurations == "skill":
        return tuple(game.skill_setups)
    out: dict[str, object] = {}
    for lu in (*game.skill_setups, *game.configurations):
        key = json.dumps([lu.rules, lu.overrides, lu.setup], sort_keys=True)
        out.setdefault(key, lu)
    return tuple(out.values())


def check_spec(spec: TrainSpec) -> Game:
    """The game, after checking the spec's bots resolve (before Ray starts)."""
    game = GAMES[spec.game]
    if game.features is None:
        raise RuleError(f"{spec.game} has no learned bot yet (no features are declared for it)")
    kind = spec.search.split(":")[0]
    if kind != "mcts":
        raise RuleError(f"--search {spec.search!r}: the training search must be mcts (its visit shares are the "
                        "policy's targets)")
    if "model=" in spec.search:
        raise RuleError(f"--search {spec.search!r}: leave out model=; each iteration guides the search with the "
                        "last model")
    if spec.configurations not in CONFIGURATIONS:
        raise RuleError(f"--configurations {spec.configurations!r} is not allowed; expected one of "
                        f"{', '.join(CONFIGURATIONS)}")
    for line_up in self_play_setups(game, spec.configurations):
        game.resolve(line_up.rules, line_up.overrides, {**line_up.setup, "bots": spec.search},
                     where=f"--search {spec.search!r}")
    if not 0 <= spec.network <= MAX_HIDDEN:
        raise RuleError(f"--network {spec.network}: expected hidden units from 1 to {MAX_HIDDEN} (0: a linear model)")
    if spec.start:
        start_model(game, spec)
    return game


def start_model(game: Game, spec: TrainSpec) -> Model | None:
    """The run's start model (``--start``), or None."""
    if not spec.start:
        return None
    return resolve_model(game.models_dir, game.features, spec.start, f"--start {spec.start}")


# -- self-play samples -----------------------------------------------------------------------------------
def _samples(game_name: str, configurations: str, line_up: int, bots: str, model_json: str | None, seed: int,
             start: int, count: int) -> dict[str, np.ndarray]:
    """One Ray task: ``count`` games of self-play configuration ``line_up`` as training samples (the model
    travels as its JSON text and is written to a file of the worker's own, so it reaches workers on other
    machines)."""
    game = GAMES[game_name]
    lu = self_play_setups(game, configurations)[line_up]
    with model_files(**({} if model_json is None else {"model": model_json})) as files:
        if model_json is not None:
            bots = f"{bots}:model={files['model']}"
        match = game.resolve(lu.rules, lu.overrides, {**lu.setup, "bots": bots})
        out = game.play_samples(match, seed, start, count)
    out["options"]["game"] += start           # the batch offset -> the game index
    out["seats"]["game"] += start
    out["start"] = np.array([start])
    return out


def _merge(parts: list[dict]) -> dict[str, np.ndarray]:
    """Samples of several tasks (of one line-up each) as one set; games renumbered to be unique."""
    sets = []
    for p in parts:
        o, s = p["options"].copy(), p["seats"].copy()
        o["game"] -= int(p["start"][0])
        s["game"] -= int(p["start"][0])
        sets.append({"options": o, "seats": s, "outcome_games": p["outcome"]})
    return _pool(sets) if sets else {"options": np.zeros(0), "seats": np.zeros(0), "outcome_games": np.zeros((0, 0))}


# -- the fits ---------------------------------------------------------------------------------------------
def _groups(keys: np.ndarray) -> np.ndarray:
    """Start offsets of runs of equal keys (rows are written decision by decision)."""
    change = np.flatnonzero(np.diff(keys)) + 1
    return np.concatenate([[0], change])


def softmax_fit(x: np.ndarray, starts: np.ndarray, target: np.ndarray, l2: float, prior: np.ndarray | None = None,
                steps: int = 30) -> tuple[np.ndarray, float]:
    """Weights w of a softmax over each group of rows (groups start at ``starts``) of the scores x @ w, fitted
    to ``target`` (each group's sums to 1) by Newton's method from ``prior`` (default 0) with a penalty
    l2 * |w - prior|^2 / 2 per group; and the mean cross-entropy per group."""
    n, k = x.shape
    w0 = np.zeros(k) if prior is None else np.asarray(prior, dtype=np.float64)
    w = w0.copy()
    ends = np.concatenate([starts[1:], [n]])
    sizes = ends - starts
    group = np.repeat(np.arange(len(starts)), sizes)
    lam = l2 * len(starts)

    def probabilities(w: np.ndarray) -> np.ndarray:
        z = x @ w
        z = z - np.maximum.reduceat(z, starts)[group]
        e = np.exp(z)
        return e / np.add.reduceat(e, starts)[group]

    def loss(w: np.ndarray) -> float:
        p = probabilities(w)
        return float(-(target * np.log(np.maximum(p, 1e-300))).sum() + lam * ((w - w0) @ (w - w0)) / 2)

    current = loss(w)
    for _ in range(steps):
        p = probabilities(w)
        grad = x.T @ (p - target) + lam * (w - w0)
        xp = np.add.reduceat(x * p[:, None], starts)          # per group: sum of p_i x_i
        hess = (x * p[:, None]).T @ x - xp.T @ xp + lam * np.eye(k)
        step = np.linalg.solve(hess, grad)
        t = 1.0
        while t > 1e-6:
            trial = w - t * step
            new = loss(trial)
            if new <= current:
                break
            t /= 2
        if new > current:                          # no step lowers the loss: at the optimum (to rounding)
            break
        done = current - new < 1e-10 * max(1.0, abs(current))
        w, current = trial, new
        if done:
            break
    return w, (current - lam * ((w - w0) @ (w - w0)) / 2) / len(starts)


def fit_model(game: Game, spec: TrainSpec, samples: dict, provenance: dict, start: Model | None = None) -> Model:
    """The policy and the value head fitted to the samples: a network model from ``start`` (the last model, or
    the run's start model) when the spec asks for one, else the linear fit; either keeps ``start``'s decisions
    block (:func:`with_block_of`)."""
    if spec.network:
        from cluster.net_fit import NetSpec, fit_network
        base = start or Model(game.name, spec.name, game.features.id, tuple(game.features.prior("policy")),
                              tuple(game.features.prior("value")))
        fitted = fit_network(game.features, base, samples, NetSpec(hidden=spec.network, seed=spec.seed), spec.name,
                             provenance)
        return with_block_of(start, fitted)
    o, s = samples["options"], samples["seats"]
    policy, policy_loss = softmax_fit(o["f"].astype(np.float64), _groups(o["game"] * 100_000 + o["decision"]),
                                      o["share"].astype(np.float64), spec.l2, np.array(game.features.prior("policy")))
    seats = s["seat"].astype(np.int64)
    target = samples["outcome_games"][s["game"], seats] if len(s) else np.zeros(0)
    # each decision's seats sum to 1 (a Teams winner's two seats hold 1/2 each)
    value, value_loss = softmax_fit(s["f"].astype(np.float64), _groups(s["game"] * 100_000 + s["decision"]),
                                    target.astype(np.float64), spec.l2, np.array(game.features.prior("value")))
    prov = {**provenance, "policy_loss": round(policy_loss, 6), "value_loss": round(value_loss, 6)}
    fitted = Model(game.name, spec.name, game.features.id, tuple(rounded(v) for v in policy),
                   tuple(rounded(v) for v in value), prov)
    return with_block_of(start, fitted)


def with_block_of(start: Model | None, fitted: Model) -> Model:
    """``fitted`` with ``start``'s decisions block, if it has one: the search labels only the policy's decisions,
    so the fit has nothing to say of the others, and a model trained from a start with a block plays them as the
    start did (its search's simulations too); train them with ``--decisions``."""
    if start is None or not start.decisions:
        return fitted
    return dataclasses.replace(fitted, decisions=start.decisions, decision_features=start.decision_features)


def value_predictions(model: Model, samples: dict) -> tuple[np.ndarray, np.ndarray]:
    """(predicted chance, outcome) for every seat row of the samples, by the model's value head (Teams: a
    seat's chance is its team's, its outcome whether its team won)."""
    s = samples["seats"]
    if not len(s):
        return np.zeros(0), np.zeros(0)
    if model.hidden:
        from cluster.net_fit import positions, value_chances
        p, y, _ = value_chances(model, positions(samples, GAMES[model.game].features))
        return p, y
    starts = _groups(s["game"] * 100_000 + s["decision"])
    z = s["f"].astype(np.float64) @ np.array(model.value)
    group = np.repeat(np.arange(len(starts)), np.diff(np.concatenate([starts, [len(s)]])))
    z = z - np.maximum.reduceat(z, starts)[group]
    e = np.exp(z)
    p = e / np.add.reduceat(e, starts)[group]
    outcome = samples["outcome_games"][s["game"], s["seat"].astype(np.int64)]
    return p, outcome


def calibration(p: np.ndarray, y: np.ndarray, bins: int = 10) -> dict:
    """Brier score, expected calibration error and the reliability table (10 equal-width bins)."""
    if not len(p):
        return {"positions": 0}
    which = np.minimum((p * bins).astype(int), bins - 1)
    table, ece = [], 0.0
    for b in range(bins):
        m = which == b
        if m.any():
            gap = abs(float(p[m].mean()) - float(y[m].mean()))
            ece += m.mean() * gap
            table.append({"bin": f"{b / bins:.1f}-{(b + 1) / bins:.1f}", "positions": int(m.sum()),
                          "predicted": round(float(p[m].mean()), 4), "observed": round(float(y[m].mean()), 4)})
    return {"positions": int(len(p)), "brier": round(float(((p - y) ** 2).mean()), 5), "ece": round(float(ece), 5),
            "bins": table}


def ladder(game_name: str, model_json: str, seed: int, games: int) -> dict:
    """The learned bot against the heuristic, each seat of each skill line-up in turn: its edge over the fair
    share (1 a win, the fair share a draw), with a 95% interval, and its wins, draws and losses; on ``seed``, a seed
    of the ladder's own that no self-play or improvement of the run plays (one Ray task; the model travels as
    text)."""
    from cluster.strength import edge_summary, results
    with model_files(model=model_json) as files:
        per = edges(game_name, f"learned:model={files['model']}", "heuristic", seed, games)
        return {"vs": "heuristic", "seed": seed, **edge_summary(per), **results(per)}


# -- policy improvement -----------------------------------------------------------------------------------
def candidate_edge(game_name: str, model_json: str, seed: int, games: int) -> float:
    """One Ray task: a candidate policy's mean edge over the fair share against the heuristic (every seat of
    every line-up, ``games`` each; the same games for every candidate of a generation)."""
    with model_files(model=model_json) as files:
        return mean_edge(edges(game_name, f"learned:model={files['model']}", "heuristic", seed, games))


def antithetic(mean: np.ndarray, spread, directions: np.ndarray) -> list[np.ndarray]:
    """An evolution strategy's candidates on common random numbers: ``mean`` itself, then the weights moved by
    ``spread`` along each direction, then against each (the antithetic pairs, k and pairs + k), each weight rounded
    as a model file keeps it (this step's and the exploiter's, cluster/exploit.py)."""
    return ([mean] + [np.array([rounded(v) for v in mean + sign * spread * d]) for sign in (1, -1) for d in directions])


def _improvement_step(spec: TrainSpec, generation: int, mean: np.ndarray, sigma: np.ndarray,
                      scores_of: Callable[[list[np.ndarray], int], list[float]]) -> tuple[np.ndarray, np.ndarray, dict]:
    """One generation of the evolution strategy: ``population // 2`` directions drawn at random, the weights
    moved both ways along each (antithetic pairs) and scored on one seed with ``mean`` itself first; the
    pairs' score differences estimate the slope, and the mean takes a step of half the spread along it
    (each weight's step scaled so their root mean square is half the spread). The spread then shrinks by
    3%, never below 0.4 of the first."""
    rng = np.random.default_rng([spec.seed, 31, generation])
    pairs = max(1, spec.population // 2)
    eps = rng.standard_normal((pairs, len(mean)))
    candidates = antithetic(mean, sigma, eps)
    seed = (spec.seed + 2000 + generation) % (1 << 63)
    scores = np.array(scores_of(candidates, seed))
    diff = scores[1:1 + pairs] - scores[1 + pairs:]
    slope = (diff[:, None] * eps).sum(axis=0) / (2 * pairs)
    size = float(np.sqrt((slope ** 2).mean()))
    step = 0.5 * sigma * slope / size if size > 0 else np.zeros(len(mean))
    new_mean = np.array([rounded(v) for v in mean + step])
    new_sigma = np.array([rounded(v) for v in np.maximum(sigma * 0.97, 0.4 * spec.improve_sigma)])
    row = {"generation": generation + 1, "mean_weights_edge": round(float(scores[0]), 4),
           "best_edge": round(float(scores.max()), 4), "median_edge": round(float(np.median(scores)), 4),
           "spread": round(float(new_sigma.mean()), 4)}
    return new_mean, new_sigma, row


def evolve(spec, mean: np.ndarray, scores_of: Callable[[list[np.ndarray], int], list[float]], say,
           state_of: Callable[[int], Path], what: str) -> tuple[np.ndarray, list]:
    """``spec.improve`` generations of the evolution strategy from ``mean`` (it reads a spec's seed, population,
    improve and improve_sigma only: the policy improvement here, the decisions block's in
    cluster/train_decisions.py). Resumable: generation g's mean, spread and rows are kept in ``state_of(g)``."""
    sigma = np.full(len(mean), spec.improve_sigma)
    rows: list[dict] = []
    for g in range(spec.improve):
        state = state_of(g)
        if state.exists():
            saved = load_json_bounded(state, f"{what} state", RuleError)
            mean, sigma, rows = np.array(saved["mean"]), np.array(saved["sigma"]), saved["rows"]
            continue
        mean, sigma, row = _improvement_step(spec, g, mean, sigma, scores_of)
        rows = rows + [row]
        write_atomic(state, json.dumps({"mean": list(mean), "sigma": list(sigma), "rows": rows}))
        say(f"{what} {g + 1}/{spec.improve}: the mean weights score {row['mean_weights_edge']:+.3f} over the fair "
            f"share against the heuristic, the best of the {2 * max(1, spec.population // 2) + 1} tried "
            f"{row['best_edge']:+.3f}")
    return mean, rows


def improve_policy(spec: TrainSpec, game: Game, model: Model, work: Path, scores_of, say) -> tuple[Model, list]:
    """``spec.improve`` generations of policy improvement from ``model``'s policy (resumable: each generation's
    mean and spread are kept in the work folder)."""
    mean, rows = evolve(spec, policy_vector(model), scores_of, say,
                        lambda g: work / f"improve-{spec.improve_digest()[:8]}-{g}.json", "policy improvement")
    return with_policy_vector(model, mean), rows


def policy_vector(model: Model) -> np.ndarray:
    """What the policy improvement moves: the linear policy's weights, and a network model's output weights
    (its hidden units are features the fit learned; their input weights stay)."""
    if not model.hidden:
        return np.array(model.policy, dtype=np.float64)
    return np.concatenate([np.array(model.policy, dtype=np.float64), model.layers().p_w2.astype(np.float64)])


def with_policy_vector(model: Model, vector: np.ndarray, provenance: dict | None = None) -> Model:
    """``model`` with the policy improvement's ``vector`` (policy_vector's layout) in place."""
    from sim.kit.learned import float32s
    n = len(model.policy)
    out = dataclasses.replace(model, policy=tuple(rounded(v) for v in vector[:n]))
    if model.hidden:
        layers = model.layers()
        layers = dataclasses.replace(layers, p_w2=np.asarray(vector[n:], dtype=np.float32))
        out = dataclasses.replace(out, network=float32s(layers.pack()))
    return out if provenance is None else dataclasses.replace(out, provenance=provenance)


# -- the run ----------------------------------------------------------------------------------------------
def _work_check(work: Path, spec: TrainSpec) -> None:
    marker = work / "train-spec.json"
    if marker.exists():
        old = load_json_bounded(marker, "training spec", RuleError)
        if old.get("digest") != spec.digest():
            raise RuleError(f"--work {work}: holds a run of another spec ({old.get('spec')}); give another folder "
                            "or the same options")
    else:
        work.mkdir(parents=True, exist_ok=True)
        write_atomic(marker, json.dumps({"digest": spec.digest(), "spec": spec.iteration_fields()}, indent=1))


def _save_samples(path: Path, samples: dict) -> None:
    """An iteration's samples as one Parquet file of three row groups' worth of tables: the option rows, the
    seat rows and each game's outcome, each a column set of its own (``table`` says which), features as
    fixed-size lists."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    tables = {"options": _to_table(samples["options"]), "seats": _to_table(samples["seats"]),
              "outcome_games": pa.table({"outcome": pa.FixedSizeListArray.from_arrays(
                  pa.array(samples["outcome_games"].ravel(), pa.float64()),
                  max(1, samples["outcome_games"].shape[1]))})}
    tmp = path.with_name(path.name + ".tmp")
    tmp.mkdir(parents=True, exist_ok=True)
    for name, table in tables.items():
        pq.write_table(table, tmp / f"{name}.parquet")
    if path.exists():
        import shutil
        shutil.rmtree(path)
    os.replace(tmp, path)


def _to_table(rows: np.ndarray):
    import pyarrow as pa
    columns = {}
    for name in rows.dtype.names:
        col = rows[name]
        if col.ndim == 2:
            columns[name] = pa.FixedSizeListArray.from_arrays(pa.array(col.ravel()), col.shape[1])
        else:
            columns[name] = pa.array(col)
    return pa.table(columns)


def _from_table(table) -> np.ndarray:
    """The structured rows _to_table wrote (a fixed-size list column: a field of that many values)."""
    import pyarrow as pa
    fields = []
    for f in table.schema:
        if pa.types.is_fixed_size_list(f.type):
            fields.append((f.name, f.type.value_type.to_pandas_dtype(), (f.type.list_size,)))
        else:
            fields.append((f.name, f.type.to_pandas_dtype()))
    dtype = np.dtype(fields)
    out = np.zeros(table.num_rows, dtype=dtype)
    for name in dtype.names:
        col = table.column(name).combine_chunks()
        if out[name].ndim == 2:
            out[name] = col.flatten().to_numpy(zero_copy_only=False).reshape(len(out), -1)
        else:
            out[name] = col.to_numpy(zero_copy_only=False)
    return out


def _load_samples(path: Path) -> dict:
    """An iteration's samples written by _save_samples (a work folder of this run: its spec was checked)."""
    import pyarrow.parquet as pq
    options = _from_table(pq.read_table(path / "options.parquet"))
    seats = _from_table(pq.read_table(path / "seats.parquet"))
    outcome = pq.read_table(path / "outcome_games.parquet").column("outcome").combine_chunks()
    width = outcome.type.list_size
    return {"options": options, "seats": seats,
            "outcome_games": outcome.flatten().to_numpy(zero_copy_only=False).reshape(-1, width)}


def _pool(sets: list[dict]) -> dict:
    """Several sets of samples (each numbering its games from 0) as one set, games renumbered."""
    options, seats, outcome = [], [], []
    base = 0
    for s in sets:
        o, t = s["options"].copy(), s["seats"].copy()
        o["game"] += base
        t["game"] += base
        options.append(o)
        seats.append(t)
        outcome.append(s["outcome_games"])
        base += len(s["outcome_games"])
    width = max(x.shape[1] for x in outcome)
    return {"options": np.concatenate(options), "seats": np.concatenate(seats),
            "outcome_games": np.concatenate([np.pad(x, ((0, 0), (0, width - x.shape[1])), constant_values=0)
                                             for x in outcome])}


@dataclasses.dataclass(frozen=True)
class TrainRun:
    """One training run, passed whole to :func:`train`: what decides the model (``spec``) and where and on what
    the run goes (none of which changes the model's bytes)."""

    spec: TrainSpec
    out: Path                                    # the model file to write
    work: Path                                   # the work folder: samples and each iteration's model (resumable)
    workers: int | None = None                   # Ray workers (None: every core)
    address: str | None = None                   # a Ray cluster to run on (None: an embedded runtime)
    code_version: str = ""                       # kept in the model's provenance
    progress: Callable[[str], None] | None = None   # gets a line after each iteration and generation


class _Remote:
    """The run's Ray tasks: self-play samples, the ladder, and a policy candidate's edge."""

    def __init__(self, ray, game: Game, spec: TrainSpec):
        self.ray, self.game, self.spec = ray, game, spec
        self.task = ray.remote(num_cpus=1)(_samples)
        self.judge = ray.remote(num_cpus=1)(ladder)
        self.score = ray.remote(num_cpus=1)(candidate_edge)

    def samples(self, model: Model | None, seed: int) -> dict:
        """One iteration's self-play samples, every configuration in batches of ``spec.batch`` games."""
        spec, line_ups = self.spec, len(self_play_setups(self.game, self.spec.configurations))
        per_line_up = max(1, spec.games // line_ups)
        model_json = model.to_json() if model is not None else None
        refs = [self.task.remote(spec.game, spec.configurations, lu, spec.search, model_json, seed, lo, min(spec.batch, per_line_up - lo))
                for lu in range(line_ups) for lo in range(0, per_line_up, spec.batch)]
        return _merge(self.ray.get(refs))

    def ladder(self, model: Model, seed: int) -> dict:
        return self.ray.get(self.judge.remote(self.game.name, model.to_json(), seed, self.spec.eval_games))

    def scores_of(self, model: Model):
        """``scores_of(candidates, seed)`` for the policy improvement: each candidate policy's edge (``model``'s
        value head)."""
        def scores(candidates: list[np.ndarray], seed: int) -> list[float]:
            jsons = [with_policy_vector(model, c, {}).to_json()
                     for c in candidates]
            return self.ray.get([self.score.remote(self.game.name, j, seed, self.spec.improve_games) for j in jsons])
        return scores


def train(run: TrainRun) -> Model:
    """Run (or resume) the training; write the model to ``run.out`` and return it."""
    from cluster.sweep import _start_ray
    spec, work = run.spec, run.work
    game = check_spec(spec)
    _work_check(work, spec)
    say = run.progress or (lambda text: None)
    started, slots, guard = _start_ray(run.workers, run.address)
    import ray
    remote = _Remote(ray, game, spec)
    try:
        sets: list[dict] = []
        model: Model | None = None
        history: list[dict] = []
        start = start_model(game, spec)
        for k in range(spec.iterations):
            model, history = _iteration(run, game, remote, k, model, sets, history, say, start)
        if model is not None:     # this run's spec and code version (resumed iterations hold their own run's)
            model = dataclasses.replace(model, provenance={
                **_provenance(spec, game, run.code_version, history), "samples_digest": samples_digest(sets)})
        if spec.improve and model is not None:
            model = _improved(spec, game, remote, model, work, say)
    finally:
        if started:
            ray.shutdown()
        if guard is not None:
            guard.close()
    if model is None:
        raise EngineError("no iteration ran")
    write_atomic(run.out, model.to_json())
    return model


def _iteration(run: TrainRun, game: Game, remote: _Remote, k: int, model: Model | None, sets: list[dict],
               history: list[dict], say, start: Model | None = None) -> tuple[Model, list[dict]]:
    """Expert iteration ``k`` (resumed from the work folder when it holds it): self-play (the search guided by
    the last model, or at first by the start model if any), the fit on every iteration's samples so far
    (appended to ``sets``), the ladder; the model and the history after it."""
    spec, work = run.spec, run.work
    sample_file = work / f"samples-{k}.parquet"
    model_file = work / f"model-{k}.json"
    if sample_file.exists() and model_file.exists():
        sets.append(_load_samples(sample_file))
        model = read_model(model_file, game.features)
        say(f"iteration {k + 1}/{spec.iterations}: resumed from {work}")
        return model, list(model.provenance.get("iterations", []))
    guide = model if model is not None else start
    samples = remote.samples(guide, (spec.seed + k) % (1 << 63))
    sets.append(samples)
    fresh = fit_model(game, spec, _pool(sets), {}, model if model is not None else start)
    rung = remote.ladder(fresh, (spec.seed + 1000 + k) % (1 << 63))
    p, y = value_predictions(fresh, samples)
    before = calibration(*value_predictions(guide, samples)) if guide is not None else None
    row = {"iteration": k + 1, "self_play_games": int(len(samples["outcome_games"])),
           "searched_decisions": int(len(np.unique(samples["options"]["game"] * 100_000
                                                   + samples["options"]["decision"]))),
           "guided_by_model": guide is not None, "policy_loss": fresh.provenance["policy_loss"],
           "value_loss": fresh.provenance["value_loss"], "ladder": rung,
           "value_calibration_on_this_iterations_games": calibration(p, y),
           # the last model's value head on these games, which it was not fitted on
           "previous_value_calibration_on_fresh_games": before}
    history = history + [row]
    model = dataclasses.replace(fresh, provenance=_provenance(spec, game, run.code_version, history))
    write_atomic(model_file, model.to_json())
    _save_samples(sample_file, samples)
    say(f"iteration {k + 1}/{spec.iterations}: {row['self_play_games']} self-play games, "
        f"{row['searched_decisions']:,} searched decisions; learned vs heuristic edge {rung['edge']:+.3f} "
        f"[{rung['edge_95'][0]:+.3f}, {rung['edge_95'][1]:+.3f}] over the fair share "
        f"({rung['games']:,} games)")
    return model, history


def _improved(spec: TrainSpec, game: Game, remote: _Remote, model: Model, work: Path, say) -> Model:
    """The policy improvement after the last iteration, with its own ladder in the model's provenance. A network
    model trained from a start model improves from the start model's policy with the fitted hidden units and
    output weights of zero (so from the start model's play): imitating the search's visit shares, thin over a
    dozen options, played worse than the start (docs/learned-bots.md "Network models"); the fit supplies the
    hidden units, the improvement finds what they are worth."""
    start = start_model(game, spec)
    origin = "the fitted model"
    if model.hidden and start is not None:
        from sim.kit.learned import float32s
        layers = model.layers()
        layers = dataclasses.replace(layers, p_w2=np.zeros_like(layers.p_w2))
        model = dataclasses.replace(model, policy=start.policy, network=float32s(layers.pack()))
        origin = f"{start.name}'s policy with the fitted hidden units, output weights 0"
    improved, rows = improve_policy(spec, game, model, work, remote.scores_of(model), say)
    rung = remote.ladder(improved, (spec.seed + 3000) % (1 << 63))
    prov = {**model.provenance, "improvement": {
        "method": "evolution strategy (antithetic pairs) on the policy weights, against the heuristic, "
                  "every seat in turn", "spread": spec.improve_sigma,
        "generations": spec.improve, "population": spec.population, "games_per_seat": spec.improve_games,
        "from": origin, "rows": rows, "ladder": rung}}
    say(f"improved policy: learned vs heuristic edge {rung['edge']:+.3f} [{rung['edge_95'][0]:+.3f}, "
        f"{rung['edge_95'][1]:+.3f}] over the fair share ({rung['games']:,} games)")
    return dataclasses.replace(improved, provenance=prov)


def samples_digest(sets: list[dict]) -> str:
    """SHA-256 of the samples the last fit read (every iteration's option rows, seat rows and outcomes, in
    order): the same digest means the same training data."""
    h = hashlib.sha256()
    for s in sets:
        for key in ("options", "seats", "outcome_games"):
            h.update(np.ascontiguousarray(s[key]).tobytes())
    return h.hexdigest()


def _provenance(spec: TrainSpec, game: Game, code_version: str, history: list[dict]) -> dict:
    out = {"trained_by": "playtest train-bot", "spec": spec.fields(), "seed": spec.seed,
           "code_version": code_version, "features": game.features.id,
           "skill_setups": [lu.label for lu in game.skill_setups], "iterations": history}
    if spec.configurations != "skill":
        out["self_play_setups"] = [lu.label for lu in self_play_setups(game, spec.configurations)]
    return out
