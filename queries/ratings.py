"""Bot ratings from pairwise results: Bradley-Terry by maximum likelihood on the Elo scale, the win matrix,
and what ``skill_depth`` says in words.

A meeting is two bots on opposing seats of one game (``bot_meetings``, queries/connection.py): the row bot
won it, drew it (nobody won) or lost it. Bradley-Terry gives each bot a strength ``theta`` with
P(i beats j) = 1 / (1 + exp(theta_j - theta_i)); a draw counts half a win each way. The fit maximises the
likelihood plus a tiny prior: ``PRIOR_GAMES`` virtual drawn game between every two bots that met, so a
bot that never loses gets a large but finite rating instead of an infinite one (the plain MLE diverges).
Ratings are shown on the Elo scale (400 log10 of the odds), anchored at random (when the field has it,
else the first bot) = 0; each 95%
interval is rating +- 1.96 standard errors from the inverse Fisher information of the fit (observed and
expected information agree for Bradley-Terry), relative to the anchor. tests/queries/test_ratings.py
checks by simulation that these intervals cover the true strengths about 95% of the time.

With more than 2 seats one game makes several meetings (the winner beat every opposing seat; two seats
that both lost are no meeting), which are not independent, so the Fisher information overstates what the
games tell. There the standard errors come from a bootstrap over games instead: the games of each line-up
are resampled (``BOOTSTRAP`` replicates, a fixed seed: the same results give the same intervals) and the
ratings refitted; the interval is rating +- 1.96 bootstrap standard deviations. Under a model where a
seat wins with probability proportional to exp(theta) (Luce's choice axiom) each meeting is still a
Bradley-Terry comparison, so the fit is right; the tests check the coverage of both kinds of interval.

Whether one rating per bot describes the games (:func:`fit_of`): heads-up, Bradley-Terry against every pair's
own share (:func:`fit_check`); with more seats, the winner of each game against Luce's choice model with one
effect per seat side, tested against every line-up's own win shares (:func:`table_fit`; docs/ladder.md).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from queries.connection import execute
from queries.sqlfiles import MEETINGS_VIEW, SEAT_VIEW
from infra import stats
from infra.stats import Z95, wilson

ELO_SCALE = 400.0 / math.log(10.0)    # Elo points per unit of theta (natural log-odds)
PRIOR_GAMES = 1.0                     # virtual drawn games between every two bots that met
MAX_ITERATIONS = 200
GRADIENT_TOLERANCE = 1e-14            # per game of the busiest pair: the fit stops when the gradient is below it
BOOTSTRAP = 200                       # replicates for the intervals of games of more than 2 seats
BOOTSTRAP_SEED = 20261205


class RatingError(ValueError):
    """Results that cannot be rated (no meetings, bots never connected by games); one line saying why."""


@dataclass(frozen=True)
class Fit:
    """A Bradley-Terry fit: strengths ``theta`` (natural log-odds, ``theta[anchor] = 0``) and their
    covariance (the inverse Fisher information; the anchor's row and column are 0)."""

    theta: np.ndarray
    cov: np.ndarray
    iterations: int

    def se(self) -> np.ndarray:
        return np.sqrt(np.maximum(np.diag(self.cov), 0.0))


def _components(games: np.ndarray) -> list[list[int]]:
    """The groups of bots joined by games (connected components of the meeting graph)."""
    n = len(games)
    seen, groups = [False] * n, []
    for start in range(n):
        if seen[start]:
            continue
        stack, group = [start], []
        seen[start] = True
        while stack:
            i = stack.pop()
            group.append(i)
            for j in np.flatnonzero(games[i] > 0):
                if not seen[j]:
                    seen[j] = True
                    stack.append(int(j))
        groups.append(sorted(group))
    return groups


def bradley_terry(scores: np.ndarray, prior: float = PRIOR_GAMES, anchor: int = 0,
                  names: Sequence[str] | None = None) -> Fit:
    """Fit Bradley-Terry strengths to ``scores[i, j]``, bot i's score against bot j (wins + draws / 2), by
    maximum likelihood (scipy.optimize) with ``prior`` virtual drawn games per pair that met.

    Raises RatingError when there are fewer than 2 bots, no games, or bots that no chain of games connects
    (their strengths are not comparable)."""
    s = np.asarray(scores, dtype=float)
    names = list(names) if names is not None else [str(i) for i in range(len(s))]
    if s.ndim != 2 or s.shape[0] != s.shape[1] or len(s) < 2:
        raise RatingError(f"ratings need a square table of at least 2 bots; got shape {s.shape}")
    if not np.all(np.isfinite(s)) or np.any(s < 0):
        raise RatingError("ratings need finite, non-negative scores")
    np.fill_diagonal(s, 0.0)
    games = s + s.T
    if games.sum() <= 0:
        raise RatingError("no games between different bots: nothing to rate")
    groups = _components(games)
    if len(groups) > 1:
        shown = "; ".join(", ".join(names[i] for i in g) for g in groups)
        raise RatingError(f"the bots fall into {len(groups)} groups that never met ({shown}): their ratings "
                          "cannot be compared; play every group against another")
    met = games > 0
    s = s + met * (prior / 2.0)                  # the prior: half a virtual win each way per pair that met
    games = s + s.T
    free = [i for i in range(len(s)) if i != anchor]
    res = _maximise(s, games, free)
    theta = np.zeros(len(s))
    theta[free] = res.x
    cov = np.zeros((len(s), len(s)))
    cov[np.ix_(free, free)] = np.linalg.inv(_information(theta, games)[np.ix_(free, free)])
    if not (np.all(np.isfinite(theta)) and np.all(np.isfinite(cov))):
        raise RatingError("the ratings did not converge to finite values")
    return Fit(theta, cov, int(res.nit))


def _information(theta: np.ndarray, games: np.ndarray) -> np.ndarray:
    """The Fisher information of the strengths (the negative Hessian of the log-likelihood)."""
    p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))
    w = games * p * (1.0 - p)
    return np.diag(w.sum(axis=1)) - w


def _maximise(s: np.ndarray, games: np.ndarray, free: list[int]):
    """The maximum-likelihood strengths of the ``free`` bots (the anchor held at 0) by scipy's trust-region
    Newton on the concave log-likelihood, with its exact gradient and Hessian."""
    from scipy.optimize import minimize

    def full(x: np.ndarray) -> np.ndarray:
        t = np.zeros(len(s))
        t[free] = x
        return t

    def objective(x: np.ndarray):
        t = full(x)
        d = t[:, None] - t[None, :]
        p = 1.0 / (1.0 + np.exp(-d))
        return float((s * np.logaddexp(0.0, -d)).sum()), -(s - games * p).sum(axis=1)[free]

    def hessian(x: np.ndarray) -> np.ndarray:
        return _information(full(x), games)[np.ix_(free, free)]

    res = minimize(objective, np.zeros(len(free)), jac=True, hess=hessian, method="trust-exact",
                   options={"gtol": GRADIENT_TOLERANCE * max(1.0, float(games.max())), "maxiter": MAX_ITERATIONS})
    # Near the maximum the log-likelihood's changes fall below its rounding before the gradient does, so the
    # trust region can stop a step short: one Newton step on the gradient finishes it (quadratic convergence).
    res.x = res.x - np.linalg.solve(hessian(res.x), objective(res.x)[1])
    return res


FIT_LEVEL = 0.01          # a Bradley-Terry fit whose deviance test has p below this does not describe the games


def fit_check(scores: np.ndarray) -> dict:
    """Does one rating per bot describe the meetings? Bradley-Terry against the saturated model (every pair its
    own win share): deviance 2 * sum over ordered pairs of s_ij * log(s_ij / (n_ij * p_ij)), on (pairs that met)
    - (bots - 1) degrees of freedom, with its chi-square p-value (no prior: the maximum-likelihood fit itself).
    For heads-up games only (:func:`fit_of`): a game of more than two seats makes several meetings that are not
    independent, and when every game seats every bot this fit reproduces the meetings exactly (deviance 0
    whatever the games): those games get :func:`table_fit`."""
    s = np.asarray(scores, dtype=float).copy()
    np.fill_diagonal(s, 0.0)
    games = s + s.T
    fit = bradley_terry(s, prior=1e-9)
    d = fit.theta[:, None] - fit.theta[None, :]
    p = 1.0 / (1.0 + np.exp(-d))
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(s > 0, s * np.log(s / (games * p)), 0.0)
    deviance = max(0.0, 2.0 * float(terms.sum()))
    pairs = int(np.triu(games > 0, 1).sum())
    df = pairs - (len(s) - 1)
    pvalue = stats.chi2_sf(deviance, df) if df > 0 else 1.0
    return {"deviance": deviance, "df": df, "p": pvalue, "fits": df <= 0 or pvalue >= FIT_LEVEL}


def fit_line(check: dict) -> str:
    """The fit check in words."""
    if check["df"] <= 0:
        return ("fit: every pair of bots has its own rating difference here (as many pairs as ratings), so the "
                "ratings are the head-to-head results themselves")
    head = (f"Bradley-Terry fit: deviance {check['deviance']:.1f} on {check['df']} degree"
            f"{'s' if check['df'] != 1 else ''} of freedom (p {check['p']:.2g})")
    if check["fits"]:
        return f"{head}: one rating per bot describes these games"
    return (f"{head}: one rating per bot does NOT describe these games (some bot does better or worse against "
            "one opponent than its ratings say); read the head-to-head matrix first, the ratings are an average")


def win_chance(elo: float) -> float:
    """The share of their games a bot rated ``elo`` above another wins (Bradley-Terry on the Elo scale)."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def score_table(bots: Sequence[str], meetings: Sequence[dict]) -> np.ndarray:
    """``scores[i, j]``: bot i's wins + draws / 2 against bot j, from meetings rows (bot, opponent, wins,
    draws, losses); a meeting of a bot outside ``bots`` is a RatingError."""
    index = {b: i for i, b in enumerate(bots)}
    scores = np.zeros((len(bots), len(bots)))
    for m in meetings:
        for key in ("bot", "opponent"):
            if m[key] not in index:
                raise RatingError(f"the results hold games of bot {m[key]!r}, which is not one of the ladder's "
                                  f"bots ({', '.join(bots)})")
        scores[index[m["bot"]], index[m["opponent"]]] += m["wins"] + m["draws"] / 2.0
    return scores


def read_meetings(con, results: Sequence[Any] = ()) -> list[dict]:
    """Every ordered pair of bots that met in the connection's games (``bot_meetings``), as dicts."""
    cols, rows = execute(con, f"SELECT bot, opponent, wins, draws, losses FROM {MEETINGS_VIEW} "
                              "ORDER BY bot, opponent", where="bot meetings", results=results)
    return [dict(zip(cols, r)) for r in rows]


def win_matrix(bots: Sequence[str], meetings: Sequence[dict]) -> list[dict]:
    """For each ordered pair of the ``bots`` (in that order): games, wins, draws, losses, the row bot's win
    share and its Wilson 95% interval. Pairs that never met are left out."""
    by_pair = {(m["bot"], m["opponent"]): m for m in meetings}
    out = []
    for a in bots:
        for b in bots:
            m = by_pair.get((a, b))
            if a == b or m is None:
                continue
            n = int(m["wins"] + m["draws"] + m["losses"])
            low, high = wilson(int(m["wins"]), n, Z95)
            out.append({"bot": a, "opponent": b, "games": n, "wins": int(m["wins"]), "draws": int(m["draws"]),
                        "losses": int(m["losses"]), "share": m["wins"] / n if n else None,
                        "ci95_low": low if n else None, "ci95_high": high if n else None})
    return out


def anchor_of(bots: Sequence[str]) -> int:
    """The bot rated 0: random when the field has it, else the first."""
    return list(bots).index("random") if "random" in bots else 0


def outcome_scores(bots: Sequence[str], outcomes: Sequence[dict]) -> np.ndarray:
    """Per distinct outcome (bots per seat, seat_sides, winning_side), one game's meeting scores: [k, i, j]
    is bot i's wins + draws / 2 against bot j in one game of outcome k (as bot_meetings counts them)."""
    index = {b: i for i, b in enumerate(bots)}
    out = np.zeros((len(outcomes), len(bots), len(bots)))
    for k, o in enumerate(outcomes):
        seated, sides, won = o["bots"], o["seat_sides"], o["winning_side"]
        for a, b in itertools.permutations(range(len(seated)), 2):
            if sides[a] == sides[b] or seated[a] == seated[b]:
                continue
            if seated[a] not in index or seated[b] not in index:
                raise RatingError(f"the results hold games of bot {seated[a] if seated[a] not in index else seated[b]!r}"
                                  f", which is not one of the ladder's bots ({', '.join(bots)})")
            if won == sides[a]:
                out[k, index[seated[a]], index[seated[b]]] += 1.0
            elif won == -1:
                out[k, index[seated[a]], index[seated[b]]] += 0.5
    return out


def bootstrap_se(bots: Sequence[str], outcomes: Sequence[dict], anchor: int = 0, replicates: int = BOOTSTRAP,
                 seed: int = BOOTSTRAP_SEED) -> np.ndarray:
    """Standard deviations of the ratings (theta, relative to the anchor) over a bootstrap of games: each
    line-up's games resampled with its own count (a stratified bootstrap), the ratings refitted."""
    per_game = outcome_scores(bots, outcomes)
    counts = np.array([o["games"] for o in outcomes], dtype=float)
    strata: dict[tuple, list[int]] = {}
    for k, o in enumerate(outcomes):
        strata.setdefault(tuple(o["bots"]), []).append(k)
    rng = np.random.default_rng(seed)
    thetas = []
    for _ in range(replicates):
        drawn = np.zeros_like(counts)
        for ks in strata.values():
            n = counts[ks]
            drawn[ks] = rng.multinomial(int(n.sum()), n / n.sum())
        try:
            thetas.append(bradley_terry(np.tensordot(drawn, per_game, axes=1), anchor=anchor).theta)
        except RatingError:        # a replicate whose bots no longer all met: it says nothing of the spread
            continue
    if len(thetas) < 2:
        raise RatingError("the bootstrap found no replicate where every bot met another")
    return np.std(np.array(thetas), axis=0, ddof=1)


def ratings(bots: Sequence[str], meetings: Sequence[dict], anchor: int = 0,
            games: dict[str, int] | None = None, outcomes: Sequence[dict] | None = None) -> list[dict]:
    """Each bot's Elo rating (anchored at ``bots[anchor]`` = 0) with its 95% interval, the games it played
    (``games``; by default its meetings, which is the same heads-up) and its meetings, in the order of
    ``bots``. The interval is from the Fisher information, or with ``outcomes`` (read_outcomes: games of
    more than 2 seats) from a bootstrap over the games."""
    scores = score_table(bots, meetings)
    fit = bradley_terry(scores, anchor=anchor, names=bots)
    se = fit.se() if outcomes is None else bootstrap_se(bots, outcomes, anchor)
    met = {b: 0 for b in bots}
    for m in meetings:
        met[m["bot"]] += int(m["wins"] + m["draws"] + m["losses"])
    out = []
    for i, b in enumerate(bots):
        elo = ELO_SCALE * float(fit.theta[i])
        half = ELO_SCALE * Z95 * float(se[i])
        out.append({"bot": b, "elo": elo, "ci95_low": elo - half, "ci95_high": elo + half,
                    "games": int((games or met).get(b, 0)), "meetings": met[b]})
    return out


def read_outcomes(con, results: Sequence[Any] = ()) -> list[dict]:
    """The distinct game outcomes of ``seat_outcomes`` (bots, seat_sides, winning_side) and how many games
    ended so: what the bootstrap resamples."""
    cols, rows = execute(con, f"SELECT bots, seat_sides, winning_side, count(*) AS games FROM {SEAT_VIEW} "
                              "GROUP BY ALL ORDER BY ALL", where="game outcomes", results=results)
    return [dict(zip(cols, r)) for r in rows]


def games_played(con, results: Sequence[Any] = ()) -> dict[str, int]:
    """How many games each bot spec played (a game counts once however many seats it held)."""
    _, rows = execute(con, "SELECT bot, count(*) FROM (SELECT unnest(list_distinct(bots)) AS bot FROM games) "
                           "GROUP BY bot", where="results", results=results)
    return {b: int(n) for b, n in rows}


def _count(n: int) -> str:
    return f"{n:,} game{'s' if n != 1 else ''}"


def rating_lines(rated: Sequence[dict], anchor: int = 0) -> list[str]:
    """Each rating in plain words, against the anchor (``rated[anchor]``)."""
    base = rated[anchor]
    name = base["bot"]
    lines = [f"{name} is the anchor, rated 0 Elo (from {_count(base['games'])})"]
    for r in rated:
        if r is base:
            continue
        word = "above" if round(r["elo"]) >= 0 else "below"
        lines.append(f"{r['bot']} is rated {abs(round(r['elo']))} Elo {word} {name} (95%: {round(r['ci95_low'])} "
                     f"to {round(r['ci95_high'])}), from {_count(r['games'])}: it would win "
                     f"{100 * win_chance(r['elo']):.0f}% of their meetings (95%: {100 * win_chance(r['ci95_low']):.0f} "
                     f"to {100 * win_chance(r['ci95_high']):.0f}%)")
    return lines


# ---------------------------------------------------------------------------------------------------
# skill_depth: the query's checks and its sentence
# ---------------------------------------------------------------------------------------------------

def ladder_problem(con, results: Sequence[Any] = ()) -> str | None:
    """Why the connection's games are not a ladder (a round robin of distinct bots), or None."""
    _, rows = execute(con, "SELECT count(*) FILTER (WHERE len(list_distinct(bots)) < len(bots)), count(*) "
                           "FROM games", where="results", results=results)
    repeated, total = rows[0]
    if total == 0:
        return "it holds no games"
    if repeated:
        return f"{repeated:,} of its {total:,} games seat one bot spec twice (a ladder seats distinct bots)"
    _, rows = execute(con, "SELECT DISTINCT unnest(bots) FROM games", where="results", results=results)
    bots = sorted(b for (b,) in rows)
    if len(bots) < 2:
        return "it holds games of one bot only"
    met = {(m["bot"], m["opponent"]) for m in read_meetings(con, results)}
    missing = [(a, b) for a in bots for b in bots if a != b and (a, b) not in met]
    if missing:
        a, b = missing[0]
        return f"{a} and {b} never met ({len(missing)} ordered pairs of its {len(bots)} bots never met)"
    return None


CHECKS = {"skill_depth": ladder_problem}       # canned queries that read only a ladder's results


def skill_sentence(columns: Sequence[str], rows: Sequence[tuple]) -> str | None:
    """The answer of ``skill_depth`` in one plain sentence: how the bot that does best against random (or,
    without random, against the lowest level) scores against it."""
    recs = [dict(zip(columns, r)) for r in rows]
    if not recs:
        return None
    if any(r["opponent"] == "random" for r in recs):
        base = "random"
    else:
        base = next((r["opponent"] for r in recs if r["level"] == 1 and r["against"] == "level below"), None)
    against = [r for r in recs if r["opponent"] == base and r["games"] and r["score"] is not None]
    if not against:
        return None
    best = max(against, key=lambda r: (r["score"], -r["level"]))
    score, low, high = best["score"], best["ci95_low"], best["ci95_high"]
    said = (f"the best bot against {base}, {best['bot']}, scores {score:.1%} against it (95%: {low:.1%} to "
            f"{high:.1%}, {_count(best['games'])})")
    if high < 0.6:
        verdict = "this game is mostly luck: skill barely shows"
    elif low > 0.8:
        verdict = "skill matters a lot in this game"
    else:
        verdict = "skill matters, but luck decides many games"
    return f"{verdict}: {said}. Bots, not people: a stronger bot may find more."


SUMMARIES = {"skill_depth": skill_sentence}     # canned queries whose answer ends in a sentence


# ---------------------------------------------------------------------------------------------------
# The fit test of games of more than 2 seats: who won each game, per line-up (Luce with side effects)
# ---------------------------------------------------------------------------------------------------

TABLE_RIDGE = 1e-4            # a tiny prior on the model's parameters: a bot that never wins stays finite
TABLE_BOOTSTRAP = 200         # parametric bootstrap replicates when the chi-square approximation is not safe
TABLE_BOOTSTRAP_SEED = 20261207
COCHRAN_SMALL = 5.0           # Cochran's rule: at most 20% of expected counts below 5, none below 1
COCHRAN_SHARE = 0.2


@dataclass(frozen=True)
class Tables:
    """The decided games of each line-up (the bots per seat and each seat's side), as arrays for the model:
    ``x[l, s]`` the design row of side slot s of line-up l (one column per bot but the anchor: how many of its
    seats that bot holds; one per side label but 0: 1 on that side), ``wins[l, s]`` the games that side won,
    ``valid[l, s]`` whether slot s is a side of line-up l, ``draws[l]`` its games nobody won."""

    lineups: list[tuple[tuple[str, ...], tuple[int, ...]]]
    x: np.ndarray
    wins: np.ndarray
    valid: np.ndarray
    draws: np.ndarray
    columns: list[str]


def tables_of(bots: Sequence[str], outcomes: Sequence[dict], anchor: int = 0) -> Tables:
    """Group ``read_outcomes`` rows (bots, seat_sides, winning_side, games) by line-up; a bot outside ``bots``
    or a winning side that is not one of the line-up's sides is a RatingError."""
    index = {b: i for i, b in enumerate(bots)}
    by: dict[tuple, dict] = {}
    for o in outcomes:
        seated, sides = tuple(o["bots"]), tuple(int(s) for s in o["seat_sides"])
        if len(seated) != len(sides):
            raise RatingError(f"a game seats {len(seated)} bots on {len(sides)} seat sides")
        for b in seated:
            if b not in index:
                raise RatingError(f"the results hold games of bot {b!r}, which is not one of the ladder's bots "
                                  f"({', '.join(bots)})")
        rec = by.setdefault((seated, sides), {"wins": {}, "draws": 0})
        won = int(o["winning_side"])
        if won == -1:
            rec["draws"] += int(o["games"])
        elif won in sides:
            rec["wins"][won] = rec["wins"].get(won, 0) + int(o["games"])
        else:
            raise RatingError(f"a game of line-up {', '.join(seated)} was won by side {won}, which no seat holds")
    lineups = sorted(by)
    labels = sorted({s for _, sides in lineups for s in sides})
    free = [b for i, b in enumerate(bots) if i != anchor]
    columns = free + [f"side {s}" for s in labels[1:]]
    width = max((len(set(sides)) for _, sides in lineups), default=0)
    x = np.zeros((len(lineups), width, len(columns)))
    wins = np.zeros((len(lineups), width))
    valid = np.zeros((len(lineups), width), dtype=bool)
    draws = np.zeros(len(lineups))
    col = {b: k for k, b in enumerate(free)}
    side_col = {s: len(free) + k for k, s in enumerate(labels[1:])}
    for li, (seated, sides) in enumerate(lineups):
        for si, side in enumerate(sorted(set(sides))):
            valid[li, si] = True
            wins[li, si] = by[(seated, sides)]["wins"].get(side, 0)
            for b, s in zip(seated, sides):
                if s == side and b in col:
                    x[li, si, col[b]] += 1.0
            if side in side_col:
                x[li, si, side_col[side]] = 1.0
        draws[li] = by[(seated, sides)]["draws"]
    return Tables(lineups, x, wins, valid, draws, columns)


def _side_probabilities(t: Tables, beta: np.ndarray) -> np.ndarray:
    u = np.where(t.valid, t.x @ beta, -np.inf)
    u = u - u.max(axis=1, keepdims=True)
    e = np.where(t.valid, np.exp(u), 0.0)
    return e / e.sum(axis=1, keepdims=True)


def luce_fit(t: Tables, wins: np.ndarray | None = None, ridge: float = TABLE_RIDGE,
             start: np.ndarray | None = None) -> np.ndarray:
    """The maximum-likelihood parameters (``t.columns``) of the model: each decided game is won by one of its
    line-up's sides with probability proportional to exp(the sum of its bots' strengths + its side's effect)
    (Luce's choice axiom; a conditional logit), by scipy's trust-region Newton on the concave log-likelihood
    plus ``ridge`` / 2 |beta|^2. ``wins`` replaces the line-ups' win counts (the bootstrap's redrawn games);
    ``start``: where the search starts (zeros by default)."""
    from scipy.optimize import minimize
    n = t.wins if wins is None else wins
    total = n.sum(axis=1)
    flat = t.x.reshape(-1, t.x.shape[2])
    observed = n.reshape(-1) @ flat

    def objective(beta):
        u = np.where(t.valid, t.x @ beta, -np.inf)
        top = u.max(axis=1)
        log_z = top + np.log(np.where(t.valid, np.exp(u - top[:, None]), 0.0).sum(axis=1))
        ll = float((np.where(n > 0, n * u, 0.0)).sum() - (total * log_z).sum())
        p = _side_probabilities(t, beta)
        grad = observed - (total[:, None] * p).reshape(-1) @ flat
        return -ll + 0.5 * ridge * beta @ beta, -grad + ridge * beta

    def hessian(beta):
        p = _side_probabilities(t, beta)
        weight = (total[:, None] * p).reshape(-1)
        mean = (p[:, :, None] * t.x).sum(axis=1)
        second = (flat * weight[:, None]).T @ flat
        return second - (mean * total[:, None]).T @ mean + ridge * np.eye(len(beta))

    first = np.zeros(t.x.shape[2]) if start is None else start
    res = minimize(objective, first, jac=True, hess=hessian, method="trust-exact",
                   options={"gtol": 1e-8, "maxiter": MAX_ITERATIONS})
    if not np.all(np.isfinite(res.x)):
        raise RatingError("the table model did not converge to finite values")
    return res.x


def _deviance(wins: np.ndarray, p: np.ndarray) -> float:
    """G = 2 sum n log(n / (N p)) over the cells that hold games: the model against each line-up its own shares."""
    expected = wins.sum(axis=1, keepdims=True) * p
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(wins > 0, wins * np.log(wins / expected), 0.0)
    return max(0.0, 2.0 * float(terms.sum()))


def _free_parameters(t: Tables, played: np.ndarray) -> int:
    """How many of the model's parameters the played line-ups identify: the rank of the differences between
    each side's design row and its line-up's first side's."""
    rows = [t.x[li, si] - t.x[li, 0] for li in np.flatnonzero(played) for si in range(1, t.x.shape[1])
            if t.valid[li, si]]
    return int(np.linalg.matrix_rank(np.array(rows))) if rows else 0


def table_fit(bots: Sequence[str], outcomes: Sequence[dict], anchor: int = 0,
              replicates: int = TABLE_BOOTSTRAP, seed: int = TABLE_BOOTSTRAP_SEED) -> dict:
    """Does one rating per bot describe games of more than two seats? The winner of each decided game
    (``read_outcomes``: games nobody won are left out) against a model of one strength per bot and one
    effect per side (seat, or team), where a side wins with probability proportional to exp(its bots'
    strengths + its effect) (:func:`luce_fit`), tested against the saturated model (every line-up, bots in
    seat order, its own win shares; the side effects are the seats' edge, or the teams') by the likelihood-ratio deviance on (the line-ups' free shares) - (the
    model's identified parameters) degrees of freedom. The p-value is the chi-square's when the expected
    counts are large enough (Cochran: at most 20% below 5, none below 1), else a parametric bootstrap's
    (``replicates`` data sets drawn from the fitted model, refitted; (1 + as large) / (1 + replicates)).

    Seat rotations give the test its degrees of freedom: with every bot at every table (as many bots as
    seats) it can still find a bot whose strength depends on its seat or on who sits where, though not one
    that does better with or against some bots than others, which needs tables of different bots (4 bots in
    2 vs. 2 teams: three ratings fit the three ways to split them exactly)."""
    t = tables_of(bots, outcomes, anchor)
    played = t.wins.sum(axis=1) > 0
    cells = int(np.maximum(t.valid[played].sum(axis=1) - 1, 0).sum())
    df = cells - _free_parameters(t, played)
    draws = int(t.draws.sum())
    decided = int(t.wins.sum())
    seats = max((len(s) for s, _ in t.lineups), default=0)
    every = len(bots) <= seats
    base = {"model": "luce", "df": df, "games": decided, "draws": draws, "lineups": int(played.sum()),
            "every_bot_every_game": every, "method": "none"}
    if df <= 0:
        return {**base, "deviance": 0.0, "p": 1.0, "fits": None}
    beta = luce_fit(t)
    p = _side_probabilities(t, beta)
    deviance = _deviance(t.wins, p)
    expected = (t.wins.sum(axis=1, keepdims=True) * p)[t.valid & played[:, None]]
    safe = bool(expected.min() >= 1.0 and np.mean(expected < COCHRAN_SMALL) <= COCHRAN_SHARE)
    if safe:
        pvalue, method = stats.chi2_sf(deviance, df), "chi-square"
    else:
        rng = np.random.default_rng(seed)
        total = t.wins.sum(axis=1).astype(np.int64)
        larger = 0
        for _ in range(replicates):
            drawn = rng.multinomial(total, np.where(t.valid, p, 0.0)).astype(float)
            larger += _deviance(drawn, _side_probabilities(t, luce_fit(t, drawn, start=beta))) >= deviance - 1e-9
        pvalue, method = (1 + larger) / (1 + replicates), f"parametric bootstrap ({replicates} replicates)"
    effects = {c: float(beta[k]) for k, c in enumerate(t.columns) if c.startswith("side ")}
    return {**base, "deviance": deviance, "p": float(pvalue), "fits": bool(pvalue >= FIT_LEVEL), "method": method,
            "side_effects": effects}


def table_fit_line(check: dict) -> str:
    """The table fit test in words."""
    games = f"{check['games']:,} games somebody won, {check['lineups']:,} line-ups"
    if check["fits"] is None:
        return (f"fit: these games ({games}) leave no degrees of freedom to test one rating per bot against each "
                "line-up's own results, so no fit is claimed")
    head = (f"fit of one rating per bot and one effect per seat side (Luce) against each line-up's own win shares "
            f"({games}): deviance {check['deviance']:.1f} on {check['df']} degree{'s' if check['df'] != 1 else ''}"
            f" of freedom (p {check['p']:.2g}, {check['method']})")
    scope = ("; every game seats every bot, so this tests whether a bot's strength depends on its seat or on who "
             "sits where, not whether it does better with or against some bots than others (that needs more bots "
             "than seats)"
             if check["every_bot_every_game"] else "")
    if check["fits"]:
        return f"{head}: one rating per bot describes these games{scope}"
    return (f"{head}: one rating per bot does NOT describe these games (some bot does better or worse in some "
            f"line-ups or seats than its rating says){scope}; read the head-to-head matrix first, the ratings are "
            "an average")


def fit_of(bots: Sequence[str], meetings: Sequence[dict], seats: int, outcomes: Sequence[dict] | None = None,
           anchor: int = 0) -> dict:
    """The fit test a ladder of ``seats`` seats gets, with its line (``says``): heads-up, Bradley-Terry
    against every pair's own share (:func:`fit_check`); more seats, the winners per line-up
    (:func:`table_fit`, which needs ``outcomes``): there one game's meetings are not independent and, with
    every bot at every table, Bradley-Terry reproduces the meetings exactly, so its deviance tests nothing."""
    if seats <= 2:
        check = {"model": "bradley-terry", **fit_check(score_table(bots, meetings))}
        return {**check, "says": fit_line(check)}
    if outcomes is None:
        raise RatingError("the fit of games of more than 2 seats needs their outcomes per line-up")
    check = table_fit(bots, outcomes, anchor)
    return {**check, "says": table_fit_line(check)}
