"""Known answers of tension (docs/tension.md "Known answers"): rigged line-ups whose games are decided from the
start must read "decided early" far more often than the normal game, and the recalibrated oracle must pass its
held-out calibration check on the normal games.

Each case plays its games in memory (``Match.play_batch`` with the win_prob table, the core engine) and reads
the answer as ``playtest tension`` does (measures/tension/trace.py ``tension_of_batch``): the chances recalibrated on
the cell's own won games by cross-fitting, "decided early" = the winner's chance above 0.9 from the first half
of its turns to the end.
"""

from __future__ import annotations

from infra.stats import Z95
from measures.known import Context, Outcome, case, rate_outcome

MEASURE = "tension"
PAWS_RIGGED = "heuristic,heuristic:forbid=move,heuristic:forbid=move,heuristic:forbid=move"
TALES_RIGGED = "heuristic:forbid=equip,heuristic"
PAWS_MARGIN = 0.5          # the rigged Paws games decided early at least 50 points more often than the normal
TALES_MARGIN = 0.01        # Tales (short games, 83% for the side that equips): the difference's interval above 1 point


def _answer(game: str, setup: dict, seed: int, games: int, ctx: Context | None = None) -> dict:
    from measures.tension.trace import tension_of_batch
    from sim.games import GAMES
    oracle = {"paws": "paws-2", "tales": "tales-2"}[game]
    rules = ctx.rules if ctx is not None and ctx.variant else None
    overrides = dict(ctx.overrides) if ctx is not None and ctx.variant else None
    extra = dict(ctx.setup) if ctx is not None and ctx.variant else {}
    match = GAMES[game].resolve(rules=rules, overrides=overrides, setup={**setup, **extra},
                                tables=("games", "win_prob"), options={"win_prob": {"oracle": oracle}})
    return tension_of_batch(game, match.play_batch(seed, 0, games))


def _difference(rigged: dict, normal: dict) -> tuple[float, float, float]:
    """The difference of the decided-early shares with its normal 95% interval (two independent samples)."""
    a, b = rigged["decided_early"], normal["decided_early"]
    pa, na, pb, nb = a["share"], a["of"], b["share"], b["of"]
    # a Wilson-like floor on each variance so 0% or 100% does not read as certain (Agresti-Caffo: +1, +2)
    qa, qb = (pa * na + 1) / (na + 2), (pb * nb + 1) / (nb + 2)
    se = (qa * (1 - qa) / (na + 2) + qb * (1 - qb) / (nb + 2)) ** 0.5
    d = qa - qb
    return pa - pb, d - Z95 * se, d + Z95 * se


def _planted(game: str, setup: dict, bots: str, margin: float, ctx: Context, n: int) -> Outcome:
    games = ctx.games(n)
    normal = _answer(game, {**setup, "bots": "heuristic"}, ctx.seed, games, ctx)
    rigged = _answer(game, {**setup, "bots": bots}, ctx.seed + 1, games, ctx)
    for name, a in (("normal", normal), ("rigged", rigged)):
        if a["refused"]:
            return Outcome(f"the {name} games: {a['refused']}", False)
    diff, low, high = _difference(rigged, normal)
    r, m = rigged["decided_early"], normal["decided_early"]
    return Outcome(f"decided early: rigged {100 * r['share']:.1f}% [{100 * r['ci95'][0]:.1f}, {100 * r['ci95'][1]:.1f}] "
                   f"of {r['of']:,} won games, normal {100 * m['share']:.1f}% [{100 * m['ci95'][0]:.1f}, "
                   f"{100 * m['ci95'][1]:.1f}] of {m['of']:,}; difference {100 * diff:+.1f} points "
                   f"[{100 * low:+.1f}, {100 * high:+.1f}] (needs above {100 * margin:g})",
                   low > margin, diff, (low, high))


@case(MEASURE, "paws-three-seats-never-move", "planted",
      f"Paws 4 players, three seats heuristic:forbid=move: decided early more than {100 * PAWS_MARGIN:g} points more "
      "often than the normal game", game="paws", variant=True)
def paws_rigged(ctx: Context) -> Outcome:
    return _planted("paws", {"players": 4}, PAWS_RIGGED, PAWS_MARGIN, ctx, 1000)


@case(MEASURE, "tales-side-never-equips", "planted",
      f"Tales 1v1, one side heuristic:forbid=equip: decided early more often than the normal game (the "
      f"difference's 95% interval above {100 * TALES_MARGIN:g} point)", game="tales", variant=True)
def tales_rigged(ctx: Context) -> Outcome:
    return _planted("tales", {"mode": "standard"}, TALES_RIGGED, TALES_MARGIN, ctx, 2000)


def _null(game: str, setup: dict, ctx: Context, n: int) -> Outcome:
    a = _answer(game, {**setup, "bots": "heuristic"}, ctx.seed, ctx.games(n), ctx)
    c = a["calibration"]
    if c is None or c["ece"] is None:
        return Outcome(a["refused"] or "no calibration", False)
    words = (f"held-out calibration error {c['ece']:.3f} (limit {c['max_ece']:g}; the oracle's own "
             f"{c['raw_ece']:.3f}), Brier {c['brier']:.3f} against {c['uninformed_brier']:.3f} uninformed, over "
             f"{c['won_games']:,} won games")
    return Outcome(words, bool(c["passed"]), c["ece"], None)


@case(MEASURE, "paws-4p-calibrated", "null",
      "Paws 4 players, heuristic everywhere: the recalibrated oracle's held-out calibration error under 0.03 and "
      "its Brier score below the uninformed forecast's", game="paws", variant=True)
def paws_null(ctx: Context) -> Outcome:
    return _null("paws", {"players": 4}, ctx, 1000)


@case(MEASURE, "tales-1v1-calibrated", "null",
      "Tales 1v1, heuristic everywhere: the recalibrated oracle's held-out calibration error under 0.03 and its "
      "Brier score below the uninformed forecast's", game="tales", variant=True)
def tales_null(ctx: Context) -> Outcome:
    return _null("tales", {"mode": "standard"}, ctx, 2000)


@case(MEASURE, "normal-paws-not-decided-early", "null",
      "Paws 4 players, heuristic everywhere (a race to the VP target): decided early in under 5% of won games",
      game="paws")
def paws_not_early(ctx: Context) -> Outcome:
    a = _answer("paws", {"players": 4, "bots": "heuristic"}, ctx.seed, ctx.games(1000))
    if a["refused"]:
        return Outcome(a["refused"], False)
    s = a["decided_early"]
    return Outcome(f"decided early in {100 * s['share']:.1f}% [{100 * s['ci95'][0]:.1f}, {100 * s['ci95'][1]:.1f}] "
                   f"of {s['of']:,} won games (limit 5%)", s["ci95"][1] < 0.05, s["share"], tuple(s["ci95"]))


# -- error rates by simulation: the same comparison over many seeds (slow) -----------------------------------------
SEEDS = 40                 # samples a rate is measured over
SEED_GAMES = 600           # games a sample


def _over_seeds(ctx: Context, rigged: bool) -> tuple[int, int]:
    """(claims, samples): how often the decided-early difference of two Paws 4-player samples on fresh seeds has a
    95% interval above zero, the first sample rigged (three seats forbidden to move) or normal."""
    hits = 0
    for k in range(SEEDS):
        seed = ctx.seed * 1_000_003 + 2 * k
        first = _answer("paws", {"players": 4, "bots": PAWS_RIGGED if rigged else "heuristic"}, seed, SEED_GAMES)
        second = _answer("paws", {"players": 4, "bots": "heuristic"}, seed + 1, SEED_GAMES)
        if first["refused"] or second["refused"]:
            continue
        _, low, _ = _difference(first, second)
        hits += low > 0
    return hits, SEEDS


@case(MEASURE, "rigged-paws-over-seeds", "planted", f"Paws with three seats forbidden to move against the normal game, "
      f"{SEEDS} fresh seeds of {SEED_GAMES} games: decided early more often in at least 90% of them", game="paws",
      slow=True)
def rigged_over_seeds(ctx: Context) -> Outcome:
    hits, runs = _over_seeds(ctx, rigged=True)
    return rate_outcome(hits, runs, null=False, rate=0.9, what="decided early more often")


@case(MEASURE, "normal-paws-over-seeds", "null", f"two samples of the normal Paws game, {SEEDS} fresh seeds of "
      f"{SEED_GAMES} games: decided early more often in at most 5% of them", game="paws", slow=True)
def normal_over_seeds(ctx: Context) -> Outcome:
    hits, runs = _over_seeds(ctx, rigged=False)
    return rate_outcome(hits, runs, null=True, rate=0.05, what="decided early more often")
