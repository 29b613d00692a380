"""Known answers of the ladder's fit test ("does one rating per bot describe these games?", queries/ratings.py;
docs/ladder.md): ladders simulated many times from a truth that one rating per bot cannot describe (planted:
the test must say "does NOT describe" with the power stated) and from the one-rating model itself (null: it
may say so at most at its level, ``FIT_LEVEL`` = 1%).

Each simulated ladder plays every ``seats`` bots of a field of four in every seat order, ``games`` games per
line-up, as ``playtest ladder --players SEATS`` does; a game's winning side is drawn with probability
proportional to exp(its bots' strengths + its seats' effects + whatever the truth plants). Heads-up the fit is
Bradley-Terry's over the meetings; with more seats it is the Luce model's over the winners per line-up.
"""

from __future__ import annotations

import itertools
from typing import Callable, Sequence

import numpy as np

from measures.known import Context, Outcome, case, rate_outcome
from queries import ratings

MEASURE = "ladder-fit"
BOTS = ("a", "b", "c", "d")
THETA = (0.0, 0.3, 0.6, 0.9)            # the bots' strengths (natural log-odds)
SEAT = (0.2, 0.1, 0.0, 0.0)             # each seat's effect: the first seats do a little better
SAID = "one rating per bot does NOT describe these games"

Truth = Callable[[Sequence[int], int], float]     # (the bots per seat, by index; a seat) -> that seat's utility


def one_rating(lineup: Sequence[int], seat: int) -> float:
    """The one-rating model itself: a bot's strength plus its seat's effect."""
    return THETA[lineup[seat]] + SEAT[seat]


def strong_in_first_seat(extra: float) -> Truth:
    """Bot a is ``extra`` stronger in seat 0 only (a bot whose strength depends on its seat)."""
    return lambda lineup, seat: one_rating(lineup, seat) + (extra if seat == 0 and lineup[0] == 0 else 0.0)


def rock_paper_scissors(edge: float) -> Truth:
    """a beats b, b beats c, c beats a: a bot's utility gains ``edge`` for each bot at the table it beats and
    loses it for each that beats it (intransitive: no one number per bot says who wins a table)."""
    beats = {(0, 1), (1, 2), (2, 0)}

    def u(lineup: Sequence[int], seat: int) -> float:
        me = lineup[seat]
        return one_rating(lineup, seat) + edge * sum((me, o) in beats for o in lineup) \
            - edge * sum((o, me) in beats for o in lineup)
    return u


def simulate(truth: Truth, seats: int, games: int, rng: np.random.Generator, teams: bool = False,
             draw: float = 0.0) -> list[dict]:
    """One simulated ladder as ``read_outcomes`` rows (bots, seat_sides, winning_side, games): every ``seats``
    bots in every seat order, ``games`` games each; a share ``draw`` of the games nobody wins; teams: seats 0+2
    against 1+3, a side's utility the sum of its seats'."""
    sides = [s % 2 for s in range(seats)] if teams else list(range(seats))
    labels = sorted(set(sides))
    out = []
    for group in itertools.combinations(range(len(BOTS)), seats):
        for lineup in itertools.permutations(group):
            u = np.array([sum(truth(lineup, s) for s in range(seats) if sides[s] == side) for side in labels])
            p = np.exp(u - u.max())
            p = (1.0 - draw) * p / p.sum()
            counts = rng.multinomial(games, np.append(p, draw))
            for side, n in zip(labels + [-1], counts):
                if n:
                    out.append({"bots": [BOTS[i] for i in lineup], "seat_sides": sides, "winning_side": side,
                                "games": int(n)})
    return out


def meetings_of(outcomes: Sequence[dict]) -> list[dict]:
    """The meetings (bot, opponent, wins, draws, losses) of heads-up outcomes."""
    tally: dict[tuple[str, str], list[int]] = {}
    for o in outcomes:
        a, b = o["bots"]
        for me, other, side in ((a, b, 0), (b, a, 1)):
            t = tally.setdefault((me, other), [0, 0, 0])
            t[0 if o["winning_side"] == side else 1 if o["winning_side"] == -1 else 2] += o["games"]
    return [{"bot": a, "opponent": b, "wins": w, "draws": d, "losses": lose} for (a, b), (w, d, lose) in tally.items()]


def misfit(outcomes: Sequence[dict], seats: int) -> bool:
    """Does the ladder's fit test (as ``playtest ladder`` runs it) say one rating per bot does NOT fit?"""
    check = ratings.fit_of(list(BOTS), meetings_of(outcomes) if seats == 2 else [], seats, outcomes)
    return check["fits"] is False


def rate(ctx: Context, truth: Truth, seats: int, games: int, runs: int, *, null: bool, rate_: float,
         teams: bool = False, draw: float = 0.0) -> Outcome:
    rng = np.random.default_rng(ctx.seed)
    n = ctx.games(runs, least=50)
    hits = sum(misfit(simulate(truth, seats, games, rng, teams, draw), seats) for _ in range(n))
    return rate_outcome(hits, n, null=null, rate=rate_, what=f'"{SAID}"')


# ---------------------------------------------------------------------------------------------------------
# planted: truths one rating per bot cannot describe
# ---------------------------------------------------------------------------------------------------------

@case(MEASURE, "strong-in-first-seat-4-seats", "planted",
      'four bots at four seats (every bot in every game), bot a 0.5 log-odds stronger in seat 0 only, '
      '500 games per line-up: "does NOT describe" in at least 80% of ladders')
def strong_in_first_seat_4_seats(ctx: Context) -> Outcome:
    return rate(ctx, strong_in_first_seat(0.5), 4, 500, 200, null=False, rate_=0.80)


@case(MEASURE, "rock-paper-scissors-3-seats", "planted",
      'four bots at three seats, a beats b beats c beats a (0.25 log-odds per bot beaten at the table), 100 '
      'games per line-up: "does NOT describe" in at least 90% of ladders')
def rock_paper_scissors_3_seats(ctx: Context) -> Outcome:
    return rate(ctx, rock_paper_scissors(0.25), 3, 100, 300, null=False, rate_=0.90)


@case(MEASURE, "strong-in-first-seat-2-vs-2", "planted",
      'four bots in 2 vs. 2 teams (seats 0+2 against 1+3), bot a 0.6 log-odds stronger in seat 0 only (its '
      'team mate in seat 2), 200 games per line-up: "does NOT describe" in at least 80% of ladders')
def strong_in_first_seat_2_vs_2(ctx: Context) -> Outcome:
    return rate(ctx, strong_in_first_seat(0.6), 4, 200, 300, null=False, rate_=0.80, teams=True)


@case(MEASURE, "rock-paper-scissors-heads-up", "planted",
      'four bots heads-up, a beats b beats c beats a (0.25 log-odds), 200 games per line-up: "does NOT '
      'describe" in at least 90% of ladders')
def rock_paper_scissors_heads_up(ctx: Context) -> Outcome:
    return rate(ctx, rock_paper_scissors(0.25), 2, 200, 300, null=False, rate_=0.90)


# ---------------------------------------------------------------------------------------------------------
# null: the one-rating model itself (with seat effects and draws)
# ---------------------------------------------------------------------------------------------------------

@case(MEASURE, "one-rating-4-seats", "null",
      'four bots at four seats from one rating per bot and one effect per seat, 10% draws, 100 games per '
      'line-up: "does NOT describe" in at most 1% of ladders')
def one_rating_4_seats(ctx: Context) -> Outcome:
    return rate(ctx, one_rating, 4, 100, 500, null=True, rate_=ratings.FIT_LEVEL, draw=0.1)


@case(MEASURE, "one-rating-3-seats", "null",
      'four bots at three seats from one rating per bot and one effect per seat, 100 games per line-up: '
      '"does NOT describe" in at most 1% of ladders')
def one_rating_3_seats(ctx: Context) -> Outcome:
    return rate(ctx, one_rating, 3, 100, 500, null=True, rate_=ratings.FIT_LEVEL)


@case(MEASURE, "one-rating-2-vs-2", "null",
      'four bots in 2 vs. 2 teams, a side as strong as the sum of its bots, 100 games per line-up: "does NOT '
      'describe" in at most 1% of ladders')
def one_rating_2_vs_2(ctx: Context) -> Outcome:
    return rate(ctx, one_rating, 4, 100, 500, null=True, rate_=ratings.FIT_LEVEL, teams=True)


@case(MEASURE, "one-rating-heads-up", "null",
      'four bots heads-up from one rating per bot (and a first-seat edge), 200 games per line-up: "does NOT '
      'describe" in at most 1% of ladders')
def one_rating_heads_up(ctx: Context) -> Outcome:
    return rate(ctx, one_rating, 2, 200, 500, null=True, rate_=ratings.FIT_LEVEL)


@case(MEASURE, "one-rating-3-seats-few-games", "null",
      'four bots at three seats from one rating per bot, 4 games per line-up (too few for the chi-square: the '
      'parametric bootstrap decides): "does NOT describe" in at most 1% of ladders', slow=True)
def one_rating_3_seats_few_games(ctx: Context) -> Outcome:
    return rate(ctx, one_rating, 3, 4, 120, null=True, rate_=ratings.FIT_LEVEL)
