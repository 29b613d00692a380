"""The oracle's chances recalibrated on the games they describe (docs/tension.md "Calibration").

A learned model's value head is calibrated where it was trained (4-player Paws, Tales 1v1) and not elsewhere
(2-player Paws: ECE 0.053; Tales 2 vs. 2: 0.113, a Brier score worse than always saying one half), and it never
rates a side much above 0.9, so a measure that reads "decided" off the raw chances cannot see a decided game. A
chance is calibrated only for a population of games: the rules, the board, the seats and mode, and the bots
playing them (a line-up in which three seats never move is decided from the first turn, which no value head
that sees only the board can know). So the chances are recalibrated *per configuration*, on the very sweep
that is measured, by **cross-fitting**: the games are split in two folds by game index (even, odd); a map is
fitted by maximum likelihood on one fold and applied to the other, and the other way round, so no game's own
outcome ever touches its own chances, and every reported calibration number is held out.

The map (multinomial logistic recalibration, Platt/temperature scaling with a few terms): for a turn row with
the oracle's side chances p_1..p_k, its round r and the side whose turn begins m,

    z_j = (a + b u) log p_j + c [j = m] + d_j,    u = r / (r + R),    q = softmax(z)

(a: the temperature; b: how it changes through the game, R the training fold's median round; c: the edge of
the side about to act; d_j: each side's own edge, d_1 = 0). q is each side's chance to be the winner, of the
games somebody won (the games nobody won are counted apart by tension, and left out here). The check, on the
held-out predictions (every side of every turn row of the won games): the expected calibration error in ten
equal-width bins (as ``playtest train-bot`` computes it) under :data:`MAX_ECE`, and a Brier score below the
uninformed forecast's (1/k for every side). A configuration that fails, or has too few won games to fit
(:data:`MIN_WON`), is refused in one line (:attr:`Calibration.refusal`), never given a number.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

MAX_ECE = 0.03          # held-out expected calibration error a configuration must stay under
MIN_WON = 200           # won games a configuration needs (both folds together) before a fit is tried
BINS = 10
FOLDS = 2
EPS = 1e-6


@dataclass(frozen=True)
class Calibration:
    """The held-out check of one configuration's recalibration (both folds' predictions together)."""

    won: int                                # won games (their turn rows are the positions)
    positions: int = 0                      # side predictions checked (rows x sides)
    ece: float | None = None
    brier: float | None = None
    uninformed: float | None = None         # the Brier score of 1/k for every side
    raw_ece: float | None = None            # the oracle's own chances, on the same positions
    raw_brier: float | None = None
    params: tuple = field(default=(), compare=False)      # each fold's (a, b, c, d_2..d_k, R)
    refusal: str | None = None              # the one line said instead of a number; None when it passes

    @property
    def passed(self) -> bool:
        return self.refusal is None

    def as_dict(self) -> dict:
        r = lambda x: None if x is None else round(float(x), 5)     # noqa: E731
        return {"method": "cross-fitted recalibration (folds: even and odd game index; docs/tension.md)",
                "won_games": self.won, "positions": self.positions, "ece": r(self.ece), "brier": r(self.brier),
                "uninformed_brier": r(self.uninformed), "raw_ece": r(self.raw_ece), "raw_brier": r(self.raw_brier),
                "max_ece": MAX_ECE, "passed": self.passed, "refusal": self.refusal}

    def words(self) -> str:
        if self.ece is None:
            return self.refusal or ""
        return (f"the recalibrated oracle, held out (cross-fitted on {self.won:,} won games): calibration error "
                f"{self.ece:.3f} (limit {MAX_ECE:g}; the oracle's own {self.raw_ece:.3f}), Brier {self.brier:.3f} "
                f"against {self.uninformed:.3f} for the uninformed forecast")


def design(p: np.ndarray, rounds: np.ndarray, mover: np.ndarray, R: float) -> np.ndarray:
    """The map's inputs per (row, side, term): log p_j, u log p_j, [j = m], then one column per side 2..k."""
    n, k = p.shape
    lp = np.log(np.clip(p, EPS, 1.0))
    u = (rounds / (rounds + R))[:, None]
    x = np.zeros((n, k, 3 + k - 1))
    x[:, :, 0] = lp
    x[:, :, 1] = u * lp
    x[np.arange(n), mover, 2] = 1.0
    for j in range(1, k):
        x[:, j, 2 + j] = 1.0
    return x


def apply(theta: np.ndarray, x: np.ndarray) -> np.ndarray:
    z = x @ theta
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def fit(x: np.ndarray, winner: np.ndarray) -> np.ndarray:
    """Maximum-likelihood weights (with a small ridge toward the identity map a = 1) of the rows ``x`` whose
    side ``winner`` won."""
    from scipy.optimize import minimize
    n, k, t = x.shape
    prior = np.zeros(t)
    prior[0] = 1.0
    ridge = 1e-4
    rows = np.arange(n)

    def loss(theta):
        z = x @ theta
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        s = e.sum(axis=1)
        q = e / s[:, None]
        nll = -(z[rows, winner] - np.log(s)).mean() + ridge * ((theta - prior) ** 2).sum()
        q[rows, winner] -= 1.0
        grad = np.einsum("nk,nkt->t", q, x) / n + 2 * ridge * (theta - prior)
        return nll, grad
    res = minimize(loss, prior, jac=True, method="L-BFGS-B", bounds=[(-50, 50)] * t)
    return res.x


def reliability(q: np.ndarray, y: np.ndarray, bins: int = BINS) -> tuple[float, float]:
    """(expected calibration error in ``bins`` equal-width bins, Brier score) of predictions ``q`` of 0/1
    outcomes ``y`` (cluster/train_bot.py ``calibration``, the same bins)."""
    p, o = q.ravel(), y.ravel()
    which = np.minimum((p * bins).astype(int), bins - 1)
    gap = np.abs(np.bincount(which, p, bins) - np.bincount(which, o, bins))
    return float(gap.sum() / len(p)) if len(p) else 0.0, float(((p - o) ** 2).mean()) if len(p) else 0.0


def crossfit(p: np.ndarray, rounds: np.ndarray, mover: np.ndarray, winner: np.ndarray, game: np.ndarray,
             won_games: int) -> tuple[np.ndarray | None, Calibration]:
    """The recalibrated chances of the turn rows of won games (``p``: the oracle's side chances, rows x sides;
    ``rounds``; ``mover``: the side whose turn begins; ``winner``: the side that won the row's game; ``game``:
    its game index, which picks the fold), each from the map fitted on the other fold; and the held-out check.
    None (and the refusal) when there are too few won games or a fold has none."""
    k = p.shape[1] if p.ndim == 2 else 0
    if won_games < MIN_WON or k < 2:
        return None, Calibration(won_games, refusal=(
            f"tension refused: {won_games:,} won games are too few to calibrate the oracle in this configuration "
            f"(at least {MIN_WON}: play more games)"))
    p = np.asarray(p, float)
    rounds = np.asarray(rounds, float)
    fold = np.asarray(game) % FOLDS
    q = np.empty_like(p)
    params = []
    for f in range(FOLDS):
        train, test = fold != f, fold == f
        if not train.any() or not test.any():
            return None, Calibration(won_games, refusal="tension refused: the won games all fall in one fold "
                                                        "(even or odd game index): nothing held out to check")
        R = float(max(1.0, np.median(rounds[train])))
        theta = fit(design(p[train], rounds[train], mover[train], R), winner[train])
        q[test] = apply(theta, design(p[test], rounds[test], mover[test], R))
        params.append(tuple(round(float(x), 5) for x in theta) + (R,))
    y = np.zeros_like(p)
    y[np.arange(len(p)), winner] = 1.0
    ece, brier = reliability(q, y)
    raw_ece, raw_brier = reliability(p, y)
    uninformed = float(((1.0 / k - y) ** 2).mean())
    refusal = None
    if not ece < MAX_ECE:
        refusal = (f"tension refused: the oracle cannot be calibrated in this configuration (held-out calibration "
                   f"error {ece:.3f}, limit {MAX_ECE:g}; Brier {brier:.3f}, uninformed {uninformed:.3f})")
    elif not brier < uninformed:
        refusal = (f"tension refused: the recalibrated oracle forecasts no better than 1/{k} for every side here "
                   f"(held-out Brier {brier:.3f}, uninformed {uninformed:.3f})")
    return (q if refusal is None else None), Calibration(won_games, p.size, ece, brier, uninformed, raw_ece,
                                                          raw_brier, tuple(params), refusal)
