"""When one rating per bot is not the answer: cycles in the win matrix and the Nash equilibrium of the field.

Bradley-Terry ratings (queries/ratings.py) assume the field is a ladder: if A beats B and B beats C, A beats
C. A field of strategies can be a rock-paper-scissors instead, and then "which bot is best" has no answer
while "which bots matter" still has one (Balduzzi et al., "Re-evaluating Evaluation", NeurIPS 2018):

- **A cycle** is a round of bots each of which beats the next and the last beats the first, where "beats"
  means: of the games one of the two won, the first won a share whose Wilson 95% interval lies above one
  half (a real edge, not noise). The shortest cycle is shown (three bots when there is one).
- **The equilibrium** is the mix of bots that no single bot beats on average: the Nash equilibrium of the
  symmetric zero-sum game whose payoff is a bot's score share against another (a game nobody won counts half
  a win each) less one half, solved by linear programming (scipy's HiGHS). A game can have several
  equilibria (they form a convex set); the one shown is the mean of, for each bot, the equilibrium that
  gives that bot the most weight, so every bot that takes part in some equilibrium gets weight and the
  answer does not depend on the order of the bots. Bots with weight are the ones that matter: each of the
  others is beaten on average by the mix. Two bots that never met count as even.
- **α-Rank** (Omidshafiei, Papadimitriou, Piliouras, Tuyls, Rowland, Lespiau, Czarnecki, Lanctot, Perolat,
  Munos, "α-Rank: Multi-Agent Evaluation by Evolution", Scientific Reports 2019) beside the equilibrium: the
  share of time a population of ``ALPHARANK_POPULATION`` players spends on each bot when now and then one
  player switches to another bot and the switch spreads or dies out by how the two bots score against the
  population (selection intensity ``ALPHARANK_ALPHA``; the stationary distribution of that Markov chain).
  Unlike the equilibrium it is unique, with no choice among equilibria, and it ranks every bot.
  Both are computed on the pairwise matrix, for any number of seats: the ladder never seats one bot twice, so
  a bot's score at a table among copies of another, which α-Rank of the many-player game itself needs, is
  never played; the pairwise matrix is the game of two bots that the meetings measure.
- **Intervals** come from a parametric bootstrap of the matrix (each pair's games redrawn from its measured
  shares, ``BOOTSTRAP`` replicates, a fixed seed): the 2.5th and 97.5th percentiles of each bot's weight,
  and how often it is in the mix at all.
"""

from __future__ import annotations

from collections import deque
from typing import Sequence

import numpy as np

from infra.stats import Z95, wilson

BOOTSTRAP = 200
BOOTSTRAP_SEED = 20261206
WEIGHT_FLOOR = 1e-6          # a weight below this is no weight (the solver's rounding)
ALPHARANK_POPULATION = 50    # alpha-Rank's population size m
ALPHARANK_ALPHA = 100.0      # its selection intensity, on score shares in [0, 1] (large: near the paper's limit)


def tallies(bots: Sequence[str], meetings: Sequence[dict]) -> tuple[np.ndarray, np.ndarray]:
    """(wins[i, j]: games bot i won against bot j, draws[i, j]: their games nobody won) from meetings rows
    (bot, opponent, wins, draws, losses); a meeting of a bot outside ``bots`` is ignored."""
    index = {b: i for i, b in enumerate(bots)}
    wins = np.zeros((len(bots), len(bots)))
    draws = np.zeros((len(bots), len(bots)))
    for m in meetings:
        i, j = index.get(m["bot"]), index.get(m["opponent"])
        if i is None or j is None or i == j:
            continue
        wins[i, j] += m["wins"]
        draws[i, j] += m["draws"]
    return wins, draws


def beats(wins: np.ndarray) -> np.ndarray:
    """beats[i, j]: of the games i or j won against the other, i won a share whose Wilson 95% interval lies
    above one half."""
    n = len(wins)
    out = np.zeros((n, n), dtype=bool)
    for i in range(n):
        for j in range(n):
            decided = int(wins[i, j] + wins[j, i])
            if i != j and decided:
                out[i, j] = wilson(int(wins[i, j]), decided, Z95)[0] > 0.5
    return out


def shortest_cycle(edges: np.ndarray) -> list[int] | None:
    """The shortest cycle of the directed graph ``edges[i, j]`` (i -> j) as a list of nodes, the first the
    lowest index among the shortest; None when the graph has none."""
    n = len(edges)
    best: list[int] | None = None
    for start in range(n):
        parent = {start: -1}
        queue = deque([start])
        found = None
        while queue and found is None:
            node = queue.popleft()
            for nxt in range(n):
                if not edges[node, nxt]:
                    continue
                if nxt == start:
                    found = node
                    break
                if nxt not in parent and nxt > start:     # a cycle is found from its lowest node
                    parent[nxt] = node
                    queue.append(nxt)
        if found is None:
            continue
        path = [found]
        while parent[path[-1]] != -1:
            path.append(parent[path[-1]])
        cycle = path[::-1]
        if best is None or len(cycle) < len(best):
            best = cycle
    return best


def payoff(wins: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """The zero-sum payoff: a bot's score share against another (draws half) less one half; 0 where two
    bots never met and on the diagonal."""
    games = wins + wins.T + draws + draws.T
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(games > 0, (wins + (draws + draws.T) / 2.0) / games, 0.5)
    out = share - 0.5
    np.fill_diagonal(out, 0.0)
    return out


def _maximin(a: np.ndarray, favour: int | None = None, value: float | None = None) -> np.ndarray:
    """A mix p maximising min_j sum_i p_i a[i, j] (``favour`` None), or, with ``value`` given, the mix
    that gives bot ``favour`` the most weight while still guaranteeing ``value``."""
    from scipy.optimize import linprog
    n = len(a)
    if favour is None:
        # variables p_0..p_n-1, v: maximise v s.t. v - sum_i p_i a[i, j] <= 0, sum p = 1
        c = np.zeros(n + 1)
        c[-1] = -1.0
        a_ub = np.hstack([-a.T, np.ones((n, 1))])
        res = linprog(c, A_ub=a_ub, b_ub=np.zeros(n), A_eq=np.hstack([np.ones((1, n)), [[0.0]]]), b_eq=[1.0],
                      bounds=[(0, 1)] * n + [(None, None)], method="highs")
        return np.clip(res.x[:n], 0.0, 1.0)
    c = np.zeros(n)
    c[favour] = -1.0
    res = linprog(c, A_ub=-a.T, b_ub=-np.full(n, value), A_eq=np.ones((1, n)), b_eq=[1.0], bounds=[(0, 1)] * n,
                  method="highs")
    return np.clip(res.x, 0.0, 1.0) if res.success else np.zeros(n)


def equilibrium(a: np.ndarray, spread: bool = True) -> np.ndarray:
    """The mean, over the bots, of the equilibrium of payoff ``a`` that gives each the most weight (``spread``
    False: the solver's one equilibrium, for the bootstrap's redrawn matrices, whose equilibrium is unique
    but for ties of probability zero)."""
    n = len(a)
    p = _maximin(a)
    if not spread:
        p[p < WEIGHT_FLOOR] = 0.0
        return p / p.sum()
    value = float((p @ a).min()) - 1e-9
    mixes = [m for m in (_maximin(a, k, value) for k in range(n)) if m.sum() > 0]
    mix = np.mean(mixes, axis=0) if mixes else p
    mix[mix < WEIGHT_FLOOR] = 0.0
    return mix / mix.sum()


def shares(a: np.ndarray) -> np.ndarray:
    """Score shares from the zero-sum payoff (:func:`payoff`): a + 1/2, a half on the diagonal."""
    return np.asarray(a, dtype=float) + 0.5


def fixation(share: np.ndarray, resident: int, mutant: int, alpha: float = ALPHARANK_ALPHA,
             m: int = ALPHARANK_POPULATION) -> float:
    """The chance that one ``mutant`` player in a population of ``m`` playing ``resident`` takes it over
    (Fermi imitation with selection intensity ``alpha``; Omidshafiei et al. 2019, single population): with k
    mutants, each scores its mean share against the m - 1 others; rho = 1 / (1 + sum_l prod_{k<=l}
    exp(-alpha (f_mutant(k) - f_resident(k))))."""
    from scipy.special import logsumexp
    k = np.arange(1, m)
    f_mut = ((k - 1) * share[mutant, mutant] + (m - k) * share[mutant, resident]) / (m - 1)
    f_res = (k * share[resident, mutant] + (m - k - 1) * share[resident, resident]) / (m - 1)
    steps = -alpha * np.cumsum(f_mut - f_res)
    return float(np.exp(-logsumexp(np.concatenate([[0.0], steps]))))


def stationary(c: np.ndarray) -> np.ndarray:
    """The stationary distribution of the Markov chain with transition matrix ``c`` by the
    Grassmann-Taksar-Heyman elimination (no subtraction: exact to rounding however small the transitions)."""
    p = np.array(c, dtype=float)
    n = len(p)
    for k in range(n - 1, 0, -1):
        s = p[k, :k].sum()
        p[:k, k] /= max(s, 1e-300)
        p[:k, :k] += np.outer(p[:k, k], p[k, :k])
    pi = np.zeros(n)
    pi[0] = 1.0
    for k in range(1, n):
        pi[k] = pi[:k] @ p[:k, k]
    return pi / pi.sum()


def alpharank(share: np.ndarray, alpha: float = ALPHARANK_ALPHA, m: int = ALPHARANK_POPULATION) -> np.ndarray:
    """α-Rank of a field whose bot i scores ``share[i, j]`` against bot j (a half against itself): the
    stationary distribution of the chain that moves from a population of one bot to one of another with chance
    fixation / (bots - 1)."""
    share = np.array(share, dtype=float)
    np.fill_diagonal(share, 0.5)
    n = len(share)
    if n == 1:
        return np.ones(1)
    c = np.zeros((n, n))
    for s in range(n):
        for t in range(n):
            if s != t:
                c[s, t] = max(fixation(share, s, t, alpha, m), 1e-300) / (n - 1)
        c[s, s] = 1.0 - c[s].sum()
    return stationary(c)


def analyse(bots: Sequence[str], meetings: Sequence[dict], replicates: int = BOOTSTRAP, seats: int = 2) -> dict:
    """The cycle (or None), the equilibrium and α-Rank with bootstrap intervals, and what they say in words
    (``seats``: the ladder's, for the words)."""
    wins, draws = tallies(bots, meetings)
    cycle = shortest_cycle(beats(wins))
    mix = equilibrium(payoff(wins, draws))
    ranked = alpharank(shares(payoff(wins, draws)))
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    games = wins + wins.T + draws + draws.T
    boot = np.zeros((replicates, len(bots)))
    boot_rank = np.zeros((replicates, len(bots)))
    iu = np.triu_indices(len(bots), 1)
    for r in range(replicates):
        w, d = np.zeros_like(wins), np.zeros_like(draws)
        for i, j in zip(*iu):
            n = int(games[i, j])
            if n:
                probs = np.array([wins[i, j], wins[j, i], draws[i, j] + draws[j, i]]) / n
                w[i, j], w[j, i], d[i, j] = rng.multinomial(n, probs)
        boot[r] = equilibrium(payoff(w, d), spread=False)
        boot_rank[r] = alpharank(shares(payoff(w, d)))
    low, high = np.percentile(boot, [2.5, 97.5], axis=0)
    rows = [{"bot": b, "weight": float(mix[k]), "ci95_low": float(low[k]), "ci95_high": float(high[k]),
             "in_mix_share": float((boot[:, k] > 0).mean())} for k, b in enumerate(bots)]
    rank_low, rank_high = np.percentile(boot_rank, [2.5, 97.5], axis=0)
    rank_rows = [{"bot": b, "mass": float(ranked[k]), "ci95_low": float(rank_low[k]),
                  "ci95_high": float(rank_high[k])} for k, b in enumerate(bots)]
    named = [bots[k] for k in cycle] if cycle else None
    return {"cycle": named, "equilibrium": rows, "alpharank": rank_rows,
            "says": sentences(named, rows) + [alpharank_sentence(rank_rows, seats)], "replicates": replicates,
            "alpharank_method": {"population": ALPHARANK_POPULATION, "alpha": ALPHARANK_ALPHA}}


def alpharank_sentence(rows: Sequence[dict], seats: int = 2) -> str:
    """α-Rank in plain words: each bot's long-run share, highest first (shares under 0.005 are named as none)."""
    shown = sorted(rows, key=lambda r: -round(r["mass"], 6))
    parts = ", ".join(f"{r['bot']} {r['mass']:.2f} (95%: {r['ci95_low']:.2f} to {r['ci95_high']:.2f})"
                      for r in shown if r["mass"] >= 0.005)
    none = [r["bot"] for r in shown if r["mass"] < 0.005]
    line = (f"alpha-Rank (the share of the long run an evolving population of {ALPHARANK_POPULATION} players spends "
            f"on each bot, selection intensity {ALPHARANK_ALPHA:g}): {parts}")
    if none:
        line += f"; {', '.join(none)} next to none"
    if seats > 2:
        line += (f"; with {seats} seats both this and the equilibrium read the pairwise meetings: the ladder never "
                 "seats a bot twice, so a bot's score among copies of another, which the many-player game's own "
                 "alpha-Rank needs, is not played")
    return line


def sentences(cycle: Sequence[str] | None, rows: Sequence[dict]) -> list[str]:
    """The cycle and the equilibrium in plain words."""
    out = []
    if cycle:
        loop = " beats ".join(list(cycle) + [cycle[0]])
        out.append(f"not a ladder: {loop} (each of the games one of the two won, 95% interval above a half), so "
                   "no single bot is best and the ratings are an average over this field")
    else:
        out.append("no cycle: no round of bots each beating the next with a real edge (95%)")
    mixed = sorted((r for r in rows if r["weight"] > 0), key=lambda r: -round(r["weight"], 6))
    left = [r["bot"] for r in rows if r["weight"] == 0]
    parts = ", ".join(f"{r['bot']} {r['weight']:.2f} (95%: {r['ci95_low']:.2f} to {r['ci95_high']:.2f})"
                      for r in mixed)
    line = f"which bots matter (the Nash equilibrium of the win matrix, the mix no single bot beats on average): {parts}"
    if left:
        line += f"; {', '.join(left)} get{'s' if len(left) == 1 else ''} no weight (the mix beats each on average)"
    out.append(line)
    return out
