"""A played ladder's answer (``playtest ladder`` and the service's ladder step write it to ``DIR/ladder.json``):
Bradley-Terry ratings on the Elo scale with their intervals, the win matrix, the fit check and the field's
intransitivity (queries/ratings.py, queries/intransitive.py), read from the ladder's results folder."""

from __future__ import annotations

from pathlib import Path

from queries import connection, errors, intransitive, ratings


class LadderReportError(ValueError):
    """The ladder's results could not be rated: the message is one line."""


def rate(out: Path, bots: list[str], seats: int, info: dict, anchor: int | None = None) -> dict:
    """Ratings and win matrix of the ladder's results in ``out``, as written to ladder.json (``info``: the
    ladder's settings, cluster.ladder.Plan.info; ``anchor``: the bot rated 0, by default random when the field
    has it, else the first); a LadderReportError of one line when they cannot be read."""
    results = [str(out)]
    anchor = ratings.anchor_of(bots) if anchor is None else anchor
    try:
        con = connection.connect(results)
        try:
            connection.add_seat_outcomes(con, results)
            meetings = ratings.read_meetings(con, results)
            played = ratings.games_played(con, results)
            outcomes = ratings.read_outcomes(con, results) if seats > 2 else None
            games = connection.execute(con, "SELECT count(*) FROM games", results=results)[1][0][0]
        finally:
            con.close()
        rated = ratings.ratings(bots, meetings, anchor, games=played, outcomes=outcomes)
        fit = ratings.fit_of(bots, meetings, seats, outcomes, anchor)
        field = intransitive.analyse(bots, meetings, seats=seats)
    except (errors.QueryError, errors.ResultsError, ratings.RatingError) as e:
        raise LadderReportError(f"{out}: {e}") from None
    return {
        **info,
        "games": games,
        "bots": bots,
        "anchor": bots[anchor],
        "ratings": rated,
        "win_matrix": ratings.win_matrix(bots, meetings),
        "fit": fit,
        "intransitivity": field,
        "method": {
            "ratings": "Bradley-Terry by maximum likelihood over every meeting (two bots on opposing seats of a "
                       "game; a game nobody won counts half a win each), on the Elo scale (400 log10 odds) "
                       f"anchored at {bots[anchor]} = 0; a prior of {ratings.PRIOR_GAMES:g} virtual drawn game "
                       "per pair keeps a bot that never loses finite",
            "intervals": ("95%: rating +- 1.96 standard errors from the inverse Fisher information, relative to "
                          "the anchor") if seats == 2 else
                         (f"95%: rating +- 1.96 standard deviations over a bootstrap of the games "
                          f"({ratings.BOOTSTRAP} replicates, each line-up's games resampled; one game's "
                          "meetings are not independent), relative to the anchor"),
            "fit": ("Bradley-Terry against every pair's own win share (draws half): deviance on (pairs that met) - "
                    "(bots - 1) degrees of freedom, chi-square p; below 0.01 one rating per bot does not describe "
                    "the games") if seats == 2 else
                   ("the winner of each game somebody won against a model of one strength per bot and one effect "
                    "per seat side (a side wins with probability proportional to exp(its bots' strengths + its "
                    "effect): Luce's choice axiom), tested against every line-up's own win shares by the "
                    "likelihood-ratio deviance; chi-square p, or a parametric bootstrap's "
                    f"({ratings.TABLE_BOOTSTRAP} replicates) when expected counts are small; below 0.01 one "
                    "rating per bot does not describe the games; no degrees of freedom, no fit claimed"),
            "win_matrix": "the row bot's win share against the column bot over both seat orders (wins / "
                          "games; draws are the games nobody won), Wilson 95% interval",
            "intransitivity": "a cycle: bots each beating the next, the last the first, each with a Wilson 95% "
                              "interval above a half of the games one of the two won; the equilibrium: the Nash "
                              "equilibrium of the symmetric zero-sum game of score shares less one half (linear "
                              "programming; the mean of the equilibria that favour each bot); alpha-Rank (Omidshafiei "
                              "et al. 2019): the stationary distribution of a population of "
                              f"{intransitive.ALPHARANK_POPULATION} imitating players, selection intensity "
                              f"{intransitive.ALPHARANK_ALPHA:g}, over the same matrix; each with 95% intervals "
                              f"from a parametric bootstrap of the matrix ({intransitive.BOOTSTRAP} replicates)",
            "pairwise": "heads-up: one meeting per game" if seats == 2 else
                        "the winner's seats beat every opposing seat; two seats that both lost are no meeting; "
                        "nobody won: every two opposing seats drew",
        },
        "note": "bots, not people: every number here is one bot spec against another",
    }
