"""Fit a network model (sim/kit/network.py) to a search's self-play samples: the policy to the search's visit
shares, the value head to who won (docs/learned-bots.md "Network models").

The model is the linear model it starts from (``start``: its policy and value weights, the strongest shipped
model by default) plus a network of ``hidden`` ReLU units per head, whose output weights start at zero: before
the fit it plays exactly as the start model, and the fit moves it only as far as the samples ask. The loss is
the mean cross-entropy per decision (policy: the visit shares against a softmax over the options; value: the
outcome against a softmax over the seats) plus an L2 penalty pulling every weight toward its start.

Fitted by L-BFGS (scipy) on the whole sample set, from a start drawn from ``seed``: no minibatches, no
randomness after the start, one BLAS thread, so the same samples, start and seed give the same weights; the
model file keeps them as float32, what the core plays with.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from scipy.optimize import minimize

from sim.kit.learned import Features, Model, float32s, rounded
from sim.kit.network import Layers, block_size, relu, state_views

KEY = 100_000                      # decisions per game in a sample key (game * KEY + decision)


@dataclasses.dataclass(frozen=True)
class NetSpec:
    """What decides a network fit."""

    hidden: int = 32
    l2: float = 1e-3               # per decision, on every weight's distance from its start
    steps: int = 300               # L-BFGS iterations per head at most
    seed: int = 1
    target: str = "shares"         # the policy's target: the search's visit shares, or its choice ("choice":
                                   # the option it took, 1, the others 0)


@dataclasses.dataclass
class Positions:
    """Samples arranged for the fit: option rows grouped by decision, and each decision's seats."""

    x: np.ndarray                  # option features (rows, n_policy)
    share: np.ndarray              # the search's share of each option row
    starts: np.ndarray             # where each decision's option rows start
    row_decision: np.ndarray       # each option row's decision (index into the decisions)
    mover_view: np.ndarray         # each decision's state as its deciding seat sees it (decisions, n_state)
    seat_f: np.ndarray             # each decision's seats' features (decisions, max_seats, n_value)
    views: np.ndarray              # each seat's view of the state (decisions, max_seats, n_state)
    n_seats: np.ndarray            # each decision's seats
    outcome: np.ndarray            # each decision's seats' outcome (decisions, max_seats): 1 a win, 1/2 a
                                   # Teams partner's, 1/n each when nobody won; 0 for seats the game lacks


def positions(samples: dict, features: Features, target: str = "shares") -> Positions:
    """The samples (cluster.train_bot's: options, seats, outcome_games) as positions for the fit; each option
    row's target is its share of the search's visits, or (``target="choice"``) 1 for the option it took."""
    o, s = samples["options"], samples["seats"]
    max_seats, nv = features.max_seats, len(features.value)
    okey = o["game"].astype(np.int64) * KEY + o["decision"]
    skey = s["game"].astype(np.int64) * KEY + s["decision"]
    decisions = np.unique(okey)
    order = np.argsort(okey, kind="stable")
    okey, o = okey[order], o[order]
    starts = np.searchsorted(okey, decisions)
    row_decision = np.searchsorted(decisions, okey)
    mover = o["seat"][starts].astype(np.int64)
    seat_f = np.zeros((len(decisions), max_seats, nv))
    n_seats = np.zeros(len(decisions), dtype=np.int64)
    where = np.searchsorted(decisions, skey)
    found = (where < len(decisions)) & (decisions[np.minimum(where, len(decisions) - 1)] == skey)
    seat_f[where[found], s["seat"][found].astype(np.int64)] = s["f"][found]
    np.maximum.at(n_seats, where[found], s["seat"][found].astype(np.int64) + 1)
    views = state_views(seat_f, n_seats, max_seats)
    games = (decisions // KEY).astype(np.int64)
    outcome = np.zeros((len(decisions), max_seats))
    width = min(max_seats, samples["outcome_games"].shape[1])
    outcome[:, :width] = samples["outcome_games"][games, :width]
    share = o["share"] if target == "shares" else o["chosen"]
    return Positions(o["f"].astype(np.float64), share.astype(np.float64), starts, row_decision,
                     views[np.arange(len(decisions)), mover], seat_f, views, n_seats, outcome)


def _group_softmax(z: np.ndarray, starts: np.ndarray, group: np.ndarray) -> np.ndarray:
    z = z - np.maximum.reduceat(z, starts)[group]
    e = np.exp(z)
    return e / np.add.reduceat(e, starts)[group]


class _PolicyLoss:
    """The policy head's loss and gradient over (linear weights, input weights, biases, output weights)."""

    def __init__(self, pos: Positions, w0: np.ndarray, hidden: int, l2: float):
        self.pos, self.w0, self.h, self.l2 = pos, w0, hidden, l2
        self.n_in = pos.x.shape[1] + pos.mover_view.shape[1]
        self.lam = l2 * len(pos.starts)

    def split(self, w: np.ndarray):
        np_, h = self.pos.x.shape[1], self.h
        lin = w[:np_]
        w1 = w[np_:np_ + self.n_in * h].reshape(self.n_in, h)
        b1 = w[np_ + self.n_in * h:np_ + self.n_in * h + h]
        w2 = w[np_ + self.n_in * h + h:]
        return lin, w1, b1, w2

    def __call__(self, w: np.ndarray) -> tuple[float, np.ndarray]:
        pos, np_ = self.pos, self.pos.x.shape[1]
        lin, w1, b1, w2 = self.split(w)
        a = pos.x @ w1[:np_] + (pos.mover_view @ w1[np_:] + b1)[pos.row_decision]
        hid = relu(a)
        z = pos.x @ lin + hid @ w2
        p = _group_softmax(z, pos.starts, pos.row_decision)
        loss = -(pos.share * np.log(np.maximum(p, 1e-300))).sum()
        dz = p - pos.share
        dh = (dz[:, None] * w2[None, :]) * (a > 0)
        g_lin = pos.x.T @ dz
        g_w1 = np.concatenate([pos.x.T @ dh, pos.mover_view.T @ np.add.reduceat(dh, pos.starts)])
        grad = np.concatenate([g_lin, g_w1.ravel(), dh.sum(axis=0), hid.T @ dz])
        diff = w - self.w0
        return (float(loss + self.lam * (diff @ diff) / 2) / len(pos.starts),
                (grad + self.lam * diff) / len(pos.starts))


def _seat_rows(pos: Positions):
    """The seats each position's game has, one row each: (features, view of the state, outcome, position,
    where each position's rows start)."""
    d, m, nv = pos.seat_f.shape
    present = (np.arange(m)[None, :] < pos.n_seats[:, None]).ravel()
    return (pos.seat_f.reshape(d * m, nv)[present], pos.views.reshape(d * m, -1)[present], pos.outcome.ravel()[present],
            np.repeat(np.arange(d), pos.n_seats), np.concatenate([[0], np.cumsum(pos.n_seats)[:-1]]))


class _ValueLoss:
    """The value head's loss and gradient: a softmax over each decision's seats against the outcome."""

    def __init__(self, pos: Positions, w0: np.ndarray, hidden: int, l2: float):
        self.f, self.v, self.y, self.group, self.starts = _seat_rows(pos)
        self.w0, self.h, self.d = w0, hidden, len(pos.n_seats)
        self.lam = l2 * self.d

    def split(self, w: np.ndarray):
        nv, ns, h = self.f.shape[1], self.v.shape[1], self.h
        return w[:nv], w[nv:nv + ns * h].reshape(ns, h), w[nv + ns * h:nv + ns * h + h], w[nv + ns * h + h:]

    def scores(self, w: np.ndarray):
        lin, w1, b1, w2 = self.split(w)
        a = self.v @ w1 + b1
        hid = relu(a)
        return self.f @ lin + hid @ w2, a, hid

    def __call__(self, w: np.ndarray) -> tuple[float, np.ndarray]:
        lin, w1, b1, w2 = self.split(w)
        z, a, hid = self.scores(w)
        p = _group_softmax(z, self.starts, self.group)
        loss = -(self.y * np.log(np.maximum(p, 1e-300))).sum()
        dz = p - self.y
        dh = (dz[:, None] * w2[None, :]) * (a > 0)
        grad = np.concatenate([self.f.T @ dz, (self.v.T @ dh).ravel(), dh.sum(axis=0), hid.T @ dz])
        diff = w - self.w0
        return float(loss + self.lam * (diff @ diff) / 2) / self.d, (grad + self.lam * diff) / self.d


def _fit(loss, w0: np.ndarray, steps: int) -> tuple[np.ndarray, float]:
    result = minimize(loss, w0, jac=True, method="L-BFGS-B", options={"maxiter": steps, "maxcor": 20})
    return result.x, float(result.fun)


def _start_layers(features: Features, spec: NetSpec) -> Layers:
    """Input weights drawn from ``spec.seed`` (He's scale), biases and output weights zero: a network that adds
    nothing until the fit moves its output weights."""
    rng = np.random.default_rng([spec.seed, spec.hidden, 42])
    n_policy, nv, h = len(features.policy), len(features.value), spec.hidden
    n_state = features.max_seats * nv
    zeros = np.zeros(h, dtype=np.float32)
    return Layers(rng.normal(0, np.sqrt(2 / (n_policy + n_state)), (n_policy + n_state, h)).astype(np.float32),
                  zeros, zeros, rng.normal(0, np.sqrt(2 / n_state), (n_state, h)).astype(np.float32), zeros, zeros)


def fit_network(features: Features, start: Model, samples: dict, spec: NetSpec, name: str,
                provenance: dict) -> Model:
    """A network model fitted to ``samples`` from ``start`` (a linear model of the game's feature set, or a
    network model of ``spec.hidden`` units to go on from)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:                                   # numpy without threadpoolctl: the environment's
        threadpool_limits = None
    pos = positions(samples, features, spec.target)
    layers = start.layers() if start.hidden == spec.hidden else _start_layers(features, spec)
    p_lin0, v_lin0 = np.array(start.policy, dtype=np.float64), np.array(start.value, dtype=np.float64)
    p0 = np.concatenate([p_lin0, layers.p_w1.ravel(), layers.p_b1, layers.p_w2]).astype(np.float64)
    v0 = np.concatenate([v_lin0, layers.v_w1.ravel(), layers.v_b1, layers.v_w2]).astype(np.float64)
    policy_loss = _PolicyLoss(pos, p0, spec.hidden, spec.l2)
    value_loss = _ValueLoss(pos, v0, spec.hidden, spec.l2)
    limit = threadpool_limits(1) if threadpool_limits is not None else None
    try:
        p, p_fun = _fit(policy_loss, p0, spec.steps)
        v, v_fun = _fit(value_loss, v0, spec.steps)
    finally:
        if limit is not None:
            limit.unregister()
    lin, w1, b1, w2 = policy_loss.split(p)
    vlin, vw1, vb1, vw2 = value_loss.split(v)
    block = Layers(w1.astype(np.float32), b1.astype(np.float32), w2.astype(np.float32), vw1.astype(np.float32),
                   vb1.astype(np.float32), vw2.astype(np.float32)).pack()
    assert len(block) == block_size(len(features.policy), len(features.value), features.max_seats, spec.hidden)
    prov = {**provenance, "policy_loss": round(p_fun, 6), "value_loss": round(v_fun, 6),
            "decisions": int(len(pos.starts))}
    return Model(features.game, name, features.id, tuple(rounded(x) for x in lin), tuple(rounded(x) for x in vlin),
                 prov, spec.hidden, features.max_seats, float32s(block))


def value_chances(model: Model, pos: Positions) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(each present seat's chance by the model's value head, its outcome, its decision) at every position."""
    f, views, y, group, starts = _seat_rows(pos)
    z = f @ np.array(model.value)
    if model.hidden:
        from sim.kit.network import value_network
        z = z + value_network(model.layers(), views)
    return _group_softmax(z, starts, group), y, group
