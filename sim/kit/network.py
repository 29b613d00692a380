"""A learned model's network, in numpy: the same layout and arithmetic as the core's (core/kit/learned.pxi), for
the fit, the value head's calibration and the measures that read a model's value head outside a game.

A network model adds to each linear score (sim.kit.learned.Model.policy and .value) a network's: one hidden
layer of ReLU units. The policy's input is the option's features followed by the **state as the deciding seat
sees it**: every seat's features (the value head's, which hold only what every player may see), the deciding
seat first and the others round the table, seats the game does not have as zeros; the value network's input
is the state as the rated seat sees it. The weights are one float32 block:

    policy: (n_policy + n_state) x hidden input weights (an input's row to every unit), hidden biases,
            hidden output weights;
    value:  n_state x hidden input weights, hidden biases, hidden output weights;

where n_state = the core's seats (the game's most) x the seat features.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def block_size(n_policy: int, n_value: int, max_seats: int, hidden: int) -> int:
    """The network's weights for these feature counts (core/kit/learned.pxi net_size)."""
    n_state = max_seats * n_value
    return (n_policy + n_state + 2) * hidden + (n_state + 2) * hidden


@dataclass(frozen=True)
class Layers:
    """The network's weights, unpacked (float32, as the core holds them)."""

    p_w1: np.ndarray      # (n_policy + n_state, hidden)
    p_b1: np.ndarray      # (hidden,)
    p_w2: np.ndarray      # (hidden,)
    v_w1: np.ndarray      # (n_state, hidden)
    v_b1: np.ndarray
    v_w2: np.ndarray

    @classmethod
    def unpack(cls, block, n_policy: int, n_value: int, max_seats: int, hidden: int) -> "Layers":
        w = np.asarray(block, dtype=np.float32)
        n_state = max_seats * n_value
        if len(w) != block_size(n_policy, n_value, max_seats, hidden):
            raise ValueError(f"{len(w)} weights; a network of {hidden} units takes "
                             f"{block_size(n_policy, n_value, max_seats, hidden)}")
        at = 0
        parts = []
        for size in ((n_policy + n_state) * hidden, hidden, hidden, n_state * hidden, hidden, hidden):
            parts.append(w[at:at + size])
            at += size
        return cls(parts[0].reshape(n_policy + n_state, hidden), parts[1], parts[2],
                   parts[3].reshape(n_state, hidden), parts[4], parts[5])

    def pack(self) -> np.ndarray:
        return np.concatenate([self.p_w1.ravel(), self.p_b1, self.p_w2, self.v_w1.ravel(), self.v_b1,
                               self.v_w2]).astype(np.float32)


def state_views(seat_features: np.ndarray, n_seats: np.ndarray, max_seats: int) -> np.ndarray:
    """Every seat's view of the state at each position: ``seat_features`` (positions, max_seats, n_value), the
    seats a position's game has first (``n_seats`` per position); out (positions, max_seats, max_seats *
    n_value): row s holds seat s's features, then seat s + 1's round the table, ..., zeros past the game's."""
    pos, _, nv = seat_features.shape
    out = np.zeros((pos, max_seats, max_seats * nv), dtype=np.float64)
    for n in np.unique(n_seats):
        rows = np.flatnonzero(n_seats == n)
        for s in range(int(n)):
            for r in range(int(n)):
                out[rows, s, r * nv:(r + 1) * nv] = seat_features[rows, (s + r) % n]
    return out


def relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0)


def policy_network(layers: Layers, option_features: np.ndarray, states: np.ndarray) -> np.ndarray:
    """The policy network's score of each option row (its features and its decision's state as the deciding
    seat sees it, one row each)."""
    w1 = layers.p_w1.astype(np.float64)
    n_policy = option_features.shape[1]
    z = option_features @ w1[:n_policy] + states @ w1[n_policy:] + layers.p_b1.astype(np.float64)
    return relu(z) @ layers.p_w2.astype(np.float64)


def value_network(layers: Layers, views: np.ndarray) -> np.ndarray:
    """The value network's score of each seat from its view of the state (rows of views)."""
    z = views @ layers.v_w1.astype(np.float64) + layers.v_b1.astype(np.float64)
    return relu(z) @ layers.v_w2.astype(np.float64)
