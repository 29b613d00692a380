"""Learned bots: their features, declared once per game, and their model files (docs/learned-bots.md).

A learned bot scores each option of a top-level decision with a linear policy over the option's features
and takes the best (core/kit/learned.pxi); its value head rates each seat's chance to win from the seat's
features. The features are declared here per game, in the rulebook's words, like rule parameters; the core
computes them in the same order (core/<game>/learned.pxi) and the declarations test holds the two together.

A model is a JSON file: the game, the feature set it was trained on (name, version and a digest of the
feature names), the weights (version 1: the linear scores alone; version 2: with a network's, sim/kit/network.py),
and its provenance (the training spec, seed, code version, each iteration's
ladder); optionally a decisions block: weights for the game's other decisions (Paws: combat cards, defenders,
monsters kept, cards taken, discards), each over features of its own, so the model plays every decision its seat
makes. Its digest covers what decides play (game, feature set, weights), so a bot spec names a model by
name and digest (``learned:model=paws-1@3fa2c1d09b1e``): records of two models never pool, and a model file
that changed under a name is refused. Every input is untrusted: a file too big, not JSON, of another game
or feature version, or with a weight that is not a finite number is refused in one line naming the file
and the field.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from sim.files import load_json_bounded
from sim.params import RuleError

MODEL_FORMAT = "playtest-model"
MODEL_VERSION = 1                 # a linear model's file
NETWORK_VERSION = 2               # a network model's file (the linear scores and a network's)
MAX_HIDDEN = 128                  # the core's most hidden units (core/kit/types.pxd MAXHIDDEN)
MAX_MODEL_BYTES = 1 << 20
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
DIGEST_CHARS = 12


@dataclass(frozen=True)
class DecisionFeatures:
    """The features of one kind of decision a model's decisions block scores (a game's decisions other than
    the top-level ones: Paws' combat cards, defenders, ...), each (name, meaning), in the core's order; and
    the weights under which the block's choice is the heuristic's at every decision (``heuristic``, by name)."""

    kind: str                         # the decision's name, as the model file's decisions block keys it
    features: tuple[tuple[str, str], ...]
    heuristic: tuple[tuple[str, float], ...] = ()

    def weights(self, given: dict[str, float] | None = None) -> tuple[float, ...]:
        """A weight per feature: the named ones ``given`` (default: the heuristic's), the others 0."""
        named = dict(self.heuristic if given is None else given)
        unknown = set(named) - {n for n, _ in self.features}
        if unknown:
            raise ValueError(f"{self.kind} has no feature {', '.join(sorted(unknown))}")
        return tuple(float(named.get(n, 0.0)) for n, _ in self.features)


@dataclass(frozen=True)
class Features:
    """A game's feature set: the option features its policy scores and the seat features its value head
    rates, each (name, meaning), in the core's order."""

    game: str
    version: int
    policy: tuple[tuple[str, str], ...]
    value: tuple[tuple[str, str], ...]
    # where a fit starts and what its penalty pulls toward, by feature name (the others 0): the heuristic's
    # pick for the policy, say, so a model trained on little data plays like the heuristic
    prior_policy: tuple[tuple[str, float], ...] = ()
    prior_value: tuple[tuple[str, float], ...] = ()
    max_seats: int = 4                # the core's seats (MAXP): a network's state holds this many seats' features
    # the decisions a model's decisions block may take, each with its features (none: the game takes no block)
    decisions: tuple[DecisionFeatures, ...] = ()

    def prior(self, head: str) -> list[float]:
        names = [n for n, _ in (self.policy if head == "policy" else self.value)]
        given = dict(self.prior_policy if head == "policy" else self.prior_value)
        return [float(given.get(n, 0.0)) for n in names]

    @property
    def id(self) -> str:
        """``paws-features-1@<digest of the names>``: a model fits a core only if this matches."""
        names = json.dumps([self.game, self.version, [n for n, _ in self.policy], [n for n, _ in self.value]])
        return f"{self.game}-features-{self.version}@{hashlib.sha256(names.encode()).hexdigest()[:8]}"

    @property
    def decisions_id(self) -> str:
        """``paws-decisions-1@<digest of the kinds and their features' names>``: a decisions block fits a core
        only if this matches (the action features' id stays apart, so models without a block are unchanged)."""
        names = json.dumps([self.game, self.version, [[d.kind, [n for n, _ in d.features]] for d in self.decisions]])
        return f"{self.game}-decisions-{self.version}@{hashlib.sha256(names.encode()).hexdigest()[:8]}"

    def decision(self, kind: str) -> DecisionFeatures:
        return next(d for d in self.decisions if d.kind == kind)

    def heuristic_decisions(self) -> tuple[tuple[str, tuple[float, ...]], ...]:
        """A decisions block under which every decision it holds is the heuristic's choice."""
        return tuple((d.kind, d.weights()) for d in self.decisions)


@dataclass(frozen=True)
class Model:
    """A learned model: weights of the option features (policy) and of the seat features (value); a network
    model also a network of ``hidden`` units (its float32 weights in ``network``, sim/kit/network.py's layout)."""

    game: str
    name: str
    features: str
    policy: tuple[float, ...]
    value: tuple[float, ...]
    provenance: dict = field(default_factory=dict, compare=False, hash=False)
    hidden: int = 0
    seats: int = 0                    # the seats the network's state holds (the core's MAXP)
    network: tuple[float, ...] = ()
    # the decisions block: (decision kind, weights) in the game's declared order, and its feature set's id
    # (empty: the model takes a turn's actions alone; its seat's other decisions are the heuristic's)
    decisions: tuple[tuple[str, tuple[float, ...]], ...] = ()
    decision_features: str = ""

    @property
    def digest(self) -> str:
        """What decides play: game, feature set and weights (not the provenance)."""
        fields = {"game": self.game, "features": self.features, "policy": list(self.policy), "value": list(self.value)}
        if self.hidden:
            fields["network"] = [self.hidden, self.seats, hashlib.sha256(self.network_block().tobytes()).hexdigest()]
        if self.decisions:
            fields["decisions"] = [self.decision_features, [[k, list(w)] for k, w in self.decisions]]
        blob = json.dumps(fields, sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:DIGEST_CHARS]

    def network_block(self):
        import numpy as np
        return np.asarray(self.network, dtype=np.float32)

    def layers(self):
        """The network's weights unpacked (sim.kit.network.Layers)."""
        from sim.kit.network import Layers
        return Layers.unpack(self.network, len(self.policy), len(self.value), self.seats, self.hidden)

    def core(self) -> tuple:
        """The model as the core takes it: (policy, value) or (policy, value, (hidden units, network weights)), and
        with a decisions block (policy, value, the network or None, {decision kind: weights})."""
        net = (self.hidden, self.network_block()) if self.hidden else None
        if self.decisions:
            return list(self.policy), list(self.value), net, {k: list(w) for k, w in self.decisions}
        if self.hidden:
            return list(self.policy), list(self.value), net
        return list(self.policy), list(self.value)

    def to_json(self) -> str:
        body = {"format": MODEL_FORMAT, "version": NETWORK_VERSION if self.hidden else MODEL_VERSION, "game": self.game,
                "name": self.name, "features": self.features, "digest": self.digest, "policy": list(self.policy),
                "value": list(self.value), "provenance": self.provenance}
        if self.hidden:
            body["network"] = {"hidden": self.hidden, "seats": self.seats, "weights": list(self.network)}
        if self.decisions:
            body["decision_features"] = self.decision_features
            body["decisions"] = {k: list(w) for k, w in self.decisions}
        return json.dumps(body, indent=1, sort_keys=True) + "\n"


def seat_chances(seat_features, value):
    """Each seat's chance to win by a value head from the seats' features (one list per seat): a softmax of
    their scores, as core/kit/learned.pxi ``learned_values`` (without the team sum). ``value``: a linear
    head's weights, or a Model (its network too, if it has one)."""
    import numpy as np
    f = np.asarray(seat_features, dtype=float)
    if isinstance(value, Model):
        z = f @ np.asarray(value.value, dtype=float)
        if value.hidden:
            from sim.kit.network import Layers, state_views, value_network
            seats = f.shape[0]
            max_seats = value.seats
            padded = np.zeros((1, max_seats, f.shape[1]))
            padded[0, :seats] = f
            views = state_views(padded, np.array([seats]), max_seats)[0, :seats]
            z = z + value_network(value.layers(), views)
    else:
        z = f @ np.asarray(value, dtype=float)
    e = np.exp(z - z.max())
    return e / e.sum()


def rounded(x: float) -> float:
    """A weight as a model file keeps it (9 significant digits: the same bytes from the same fit)."""
    return float(f"{x:.9g}")


def _weights(raw: Any, n: int, where: str) -> tuple[float, ...]:
    if not isinstance(raw, list) or len(raw) != n:
        raise RuleError(f"{where}: expected a list of {n} numbers")
    out = []
    for k, x in enumerate(raw):
        if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x) or abs(x) > 1e6:
            raise RuleError(f"{where}[{k}] = {x!r}: expected a finite number from -1e6 to 1e6")
        out.append(float(x))
    return tuple(out)


def _network(raw: dict, features: Features, where: str) -> tuple[int, tuple[float, ...]]:
    """A version-2 file's network: its hidden units and its weights (float32 values, the size they must be)."""
    from sim.kit.network import block_size
    net = raw.get("network")
    if not isinstance(net, dict):
        raise RuleError(f"{where}: network must be a table (hidden, seats, weights) in a version {NETWORK_VERSION} model")
    hidden = net.get("hidden")
    if isinstance(hidden, bool) or not isinstance(hidden, int) or not 1 <= hidden <= MAX_HIDDEN:
        raise RuleError(f"{where}: network.hidden = {hidden!r}; expected a whole number from 1 to {MAX_HIDDEN}")
    if net.get("seats") != features.max_seats or isinstance(net.get("seats"), bool):
        raise RuleError(f"{where}: network.seats = {net.get('seats')!r}; {features.game}'s core holds "
                        f"{features.max_seats}")
    size = block_size(len(features.policy), len(features.value), features.max_seats, hidden)
    weights = _weights(net.get("weights"), size, f"{where}: network.weights")
    return hidden, float32s(weights)


def _decisions(raw: dict, features: Features, where: str) -> tuple[tuple[tuple[str, tuple[float, ...]], ...], str]:
    """A file's optional decisions block: {decision kind: weights}, each kind one the game declares, with as many
    weights as its features, and ``decision_features`` the game's decisions id; absent: ((), "")."""
    block = raw.get("decisions")
    if block is None:
        return (), ""
    kinds = [d.kind for d in features.decisions]
    if not kinds:
        raise RuleError(f"{where}: decisions: {features.game} takes no decisions block")
    if not isinstance(block, dict) or not block:
        raise RuleError(f"{where}: decisions must be a table of decision kinds ({', '.join(kinds)}) to weights")
    if raw.get("decision_features") != features.decisions_id:
        raise RuleError(f"{where}: decision_features = {raw.get('decision_features')!r}; {features.game} has "
                        f"{features.decisions_id} (retrain the decisions block)")
    unknown = [k for k in block if k not in kinds]
    if unknown:
        raise RuleError(f"{where}: decisions.{unknown[0]}: no such decision kind; expected some of {', '.join(kinds)}")
    out = tuple((d.kind, _weights(block[d.kind], len(d.features), f"{where}: decisions.{d.kind}"))
                for d in features.decisions if d.kind in block)
    return out, features.decisions_id


def float32s(values) -> tuple[float, ...]:
    """Values as float32 holds them (what the core plays with), as Python floats."""
    import numpy as np
    return tuple(float(v) for v in np.asarray(values, dtype=np.float32))


@contextmanager
def model_files(**texts: str) -> Iterator[dict[str, Path]]:
    """Each model's JSON text (by name) in a file of a temporary folder of its own, removed afterwards: a model
    travels to a Ray worker, which may be another machine, as its text, and bots name a model by its file."""
    with tempfile.TemporaryDirectory() as tmp:
        paths = {name: Path(tmp) / f"{name}.json" for name in texts}
        for name, text in texts.items():
            paths[name].write_text(text)
        yield paths


def read_model(path: str | Path, features: Features) -> Model:
    """The model in ``path``, checked against the game's feature set; a RuleError naming the file and field."""
    raw = load_json_bounded(path, "model file", RuleError, limit=MAX_MODEL_BYTES)
    where = str(path)
    if not isinstance(raw, dict) or raw.get("format") != MODEL_FORMAT:
        raise RuleError(f"{where}: not a playtest model (format must be {MODEL_FORMAT!r})")
    if raw.get("version") not in (MODEL_VERSION, NETWORK_VERSION) or isinstance(raw.get("version"), bool):
        raise RuleError(f"{where}: version = {raw.get('version')!r}; this playtest reads versions {MODEL_VERSION} "
                        f"(linear) and {NETWORK_VERSION} (network)")
    if raw.get("game") != features.game:
        raise RuleError(f"{where}: a model of {raw.get('game')!r}, not of {features.game!r}")
    if raw.get("features") != features.id:
        raise RuleError(f"{where}: features = {raw.get('features')!r}; {features.game} has {features.id} (retrain "
                        f"the model: playtest train-bot {features.game})")
    name = raw.get("name")
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise RuleError(f"{where}: name = {name!r}; expected letters, digits, '_', '.', '-' (at most 64)")
    prov = raw.get("provenance", {})
    if not isinstance(prov, dict):
        raise RuleError(f"{where}: provenance must be a table")
    hidden, network = _network(raw, features, where) if raw["version"] == NETWORK_VERSION else (0, ())
    decisions, decisions_id = _decisions(raw, features, where)
    model = Model(features.game, name, features.id, _weights(raw.get("policy"), len(features.policy), f"{where}: policy"),
                  _weights(raw.get("value"), len(features.value), f"{where}: value"), prov, hidden,
                  features.max_seats if hidden else 0, network, decisions, decisions_id)
    if raw.get("digest") != model.digest:
        raise RuleError(f"{where}: digest = {raw.get('digest')!r}, but its weights digest to {model.digest} "
                        "(the file was changed by hand or is damaged)")
    return model


def model_path(models_dir: Path | None, ref: str) -> Path:
    """A model named by a spec: a shipped model's name (``<game package>/bots/models/NAME.json``) or a path
    to a ``.json`` file."""
    if ref.endswith(".json") or "/" in ref:
        return Path(ref)
    if not NAME.fullmatch(ref):
        raise RuleError(f"model {ref!r}: expected a shipped model's name or a path to a .json file")
    if models_dir is None:
        raise RuleError(f"model {ref!r}: this game ships no models")
    return models_dir / f"{ref}.json"


INDEX_FILE = "index.toml"       # beside the shipped models: which plays ``learned`` alone, which is the oracle
INDEX_ROLES = {"strongest": "the model `learned` with no model= plays",
               "oracle": "the model whose value head rates the seats when no oracle is named"}


def indexed_model(models_dir: Path | None, role: str, spec: str) -> str:
    """The shipped model the models folder's index.toml names for ``role`` (strongest, oracle); chosen there by
    the held-out measurements in bench/ and docs/learned-bots.md. A RuleError in one line if the game names none."""
    from sim.files import load_toml_bounded
    path = models_dir / INDEX_FILE if models_dir is not None else None
    if path is None or not path.is_file():
        raise RuleError(f"{spec}: which model? name one with model=NAME (this game names no {role} model)")
    index = load_toml_bounded(path, "models index", RuleError)
    name = index.get(role)
    if not isinstance(name, str) or not NAME.fullmatch(name) or not (models_dir / f"{name}.json").is_file():
        raise RuleError(f"{path}: {role} = {name!r}; expected the name of a shipped model "
                        f"({', '.join(shipped_models(models_dir)) or 'none'})")
    return name


def strongest_model(models_dir: Path | None, spec: str) -> str:
    """The shipped model ``learned`` with no model= plays (index.toml's ``strongest``)."""
    return indexed_model(models_dir, "strongest", f"bot {spec!r}")


def shipped_models(models_dir: Path | None) -> list[str]:
    return sorted(p.stem for p in models_dir.glob("*.json")) if models_dir and models_dir.is_dir() else []


def resolve_model(models_dir: Path | None, features: Features | None, value: str, spec: str) -> Model:
    """``model=NAME`` or ``model=NAME@DIGEST`` of a bot spec: the model, whose digest must be the one named."""
    if features is None:
        raise RuleError(f"bot {spec!r}: this game has no learned bot yet (no features are declared for it)")
    ref, _, pinned = value.partition("@")
    try:
        path = model_path(models_dir, ref)
    except RuleError as e:              # said of the bot spec it came in, as every refusal here is
        raise RuleError(f"bot {spec!r}: {e}") from None
    if not path.exists():
        known = shipped_models(models_dir)
        raise RuleError(f"bot {spec!r}: no model {ref!r} ({path} does not exist); shipped models: "
                        f"{', '.join(known) or 'none'}")
    model = read_model(path, features)
    if pinned and pinned != model.digest:
        raise RuleError(f"bot {spec!r}: the spec pins model digest {pinned}, but {path} is {model.digest} (another "
                        "model: results of two models are never pooled)")
    return model
