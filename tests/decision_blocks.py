"""Models with a decisions block for the block tests (tests/test_learned_decisions.py for Paws,
tests/test_learned_decisions_tales.py for Tales, tests/test_decision_block_files.py for both): a linear model whose
action policy is the heuristic's pick and whose block holds the weights asked for, its file, and weights with
opinions of their own."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from sim.kit.learned import Features, Model


def block_model(features: Features, made_by: str, decisions: dict[str, dict[str, float]] | None = None,
                name: str = "block", policy: dict | None = None) -> Model:
    """A linear model (its action policy the heuristic's pick, or ``policy``) with a decisions block: each kind's
    weights by feature name (a kind not named: the heuristic-equivalent weights)."""
    names = [n for n, _ in features.policy]
    pw = [0.0] * len(names)
    for k, v in (policy or {"heuristic_pick": 1.0}).items():
        pw[names.index(k)] = v
    block = tuple((d.kind, d.weights((decisions or {}).get(d.kind))) for d in features.decisions)
    return Model(features.game, name, features.id, tuple(pw), tuple([1.0] + [0.0] * (len(features.value) - 1)),
                 {"made_by": made_by}, decisions=block, decision_features=features.decisions_id)


def write(path: Path, model: Model) -> Path:
    path.write_text(model.to_json())
    return path


def opinions(features: Features, seed: int) -> dict[str, dict[str, float]]:
    """Weights with opinions of their own on every feature of every kind (and a little on the heuristic's pick)."""
    rng = np.random.default_rng(seed)
    return {d.kind: {n: round(float(rng.normal(0, 1)), 6) if n != "heuristic_pick" else 0.3 for n, _ in d.features}
            for d in features.decisions}


def redigest(d: dict) -> dict:
    """A model file's dict (with a decisions block) with its digest made right again, so a check under test is the
    block's, not the digest's."""
    m = Model(d["game"], d["name"], d["features"], tuple(d["policy"]), tuple(d["value"]),
              decisions=tuple((k, tuple(v)) for k, v in d["decisions"].items()),
              decision_features=d["decision_features"])
    return {**d, "digest": m.digest}
