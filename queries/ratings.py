"""Bot ratings from pairwise results: Bradley-Terry by maximum likelihood on the Elo scale, the win matrix,
and what ``skill_depth`` says in words.

A meeting is two bots on opposing seats of one game (``bot_meetings``, queries/library.py): the row bot
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
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from queries.library import MEETINGS_VIEW, SEAT_VIEW, execute
from queries import stats
from queries.stats import Z95, wilson

ELO_SCALE = 400.0 / math.log(10.0)    # Elo points per unit of theta (natural log-odds)
PRIOR_GAMES = 1.0                     # virtual drawn games between every two bots that met
MAX_ITERATIONS = 200
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
    Newton's method on the log-likelihood plus ``prior`` virtual drawn games per pair that met.

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
    theta = np.zeros(len(s))

    def loglik(t: np.ndarray) -> float:
        d = t[:, None] - t[None, :]
        return float(-(s * np.logaddexp(0.0, -d)).sum())

    current = loglik(theta)
    info = np.zeros((len(s), len(s)))
    for it in range(1, MAX_ITERATIONS + 1):
        d = theta[:, None] - theta[None, :]
        p = 1.0 / (1.0 + np.exp(-d))
        w = games * p * (1.0 - p)
        grad = (s - games * p).sum(axis=1)
        info = np.diag(w.sum(axis=1)) - w        # Fisher information (negative Hessian)
        sub = info[np.ix_(free, free)]
        step = np.linalg.solve(sub, grad[free])
        scale = 1.0
        while True:                               # Newton with step halving: the likelihood never falls
            trial = theta.copy()
            trial[free] += scale * step
            value = loglik(trial)
            if value >= current - 1e-12 or scale < 1e-6:
                break
            scale /= 2.0
        theta, current = trial, value
        if np.max(np.abs(scale * step)) < 1e-10:
            break
    d = theta[:, None] - theta[None, :]
    p = 1.0 / (1.0 + np.exp(-d))
    w = games * p * (1.0 - p)
    info = np.diag(w.sum(axis=1)) - w
    cov = np.zeros_like(info)
    cov[np.ix_(free, free)] = np.linalg.inv(info[np.ix_(free, free)])
    if not (np.all(np.isfinite(theta)) and np.all(np.isfinite(cov))):
        raise RatingError("the ratings did not converge to finite values")
    return Fit(theta, cov, it)


FIT_LEVEL = 0.01          # a Bradley-Terry fit whose deviance test has p below this does not describe the games


def fit_check(scores: np.ndarray) -> dict:
    """Does one rating per bot describe the meetings? Bradley-Terry against the saturated model (every pair its
    own win share): deviance 2 * sum over ordered pairs of s_ij * log(s_ij / (n_ij * p_ij)), on (pairs that met)
    - (bots - 1) degrees of freedom, with its chi-square p-value (no prior: the maximum-likelihood fit itself).
    A game of more than two seats makes several meetings that are not independent, which inflates the deviance:
    its p-value is then a warning sign, not a test at its stated level."""
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
