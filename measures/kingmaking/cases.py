"""Known answers of kingmaking beyond chance (sim/kit/kingmaking.py, measures/kingmaking/answer.py; docs/kingmaking.md).

The claim checked: "a seat that can no longer win decides which other seat wins at X% of its decisions beyond
what chance does", made only when the paired excess's 95% interval lies above zero.

- **The estimator, simulated** (``sim-*``): per game a number of out-seat decisions (most games none, a few
  many, as in Paws), per decision the two verdicts (the dealt options changed the winner; chance did). Null: the
  options change it exactly as often as chance (the same law, paired with a correlation); planted: besides, a
  share of the decisions is decided by the choice (options change the winner, chance never). The false-positive
  rate of the claim must not be shown above alpha; the planted excess must be claimed with the stated power.
- **A calibration game through the real code** (``calibration-*``): a tiny four-seat game with a hidden deck and
  dice in the paused-game interface; Player 4 cannot win and chooses among raiding Player 1, raiding Player 2 and
  ending the turn. In a *decisive* game the choice names the winner; otherwise the winner is the hidden top card
  plus a die (each option uses up a different number of dice first, as another choice does in a real game).
  Null: no game decisive (the old same-stream count fires at most decisions here: that is chance); planted: a
  known share decisive, which is the excess to find.
- **Rigged Paws** (``paws-*``): 4-player Beginner games of the core with heuristic bots, Player 4 out from the
  start. Planted: at Player 4's first decision with two options or more, its option k hands the game to Player
  k mod 3 + 1 and its own bot's choice to Player 1 (a rule that hands one seat the game): the excess is exactly the
  share of such decisions. Null: every option of Player 4 does what its bot would do (its choice cannot matter):
  the excess is exactly zero and nothing is claimed.
"""

from __future__ import annotations

import random

import numpy as np

from measures.known import ALPHA, Context, Outcome, case, rate_outcome
from measures.kingmaking.answer import paired_excess
from sim.games import GAMES, PausedGames
from sim.kit.kingmaking import game_row

POWER = 0.8              # the stated power of each planted simulated case
RUNS = 2000              # simulated answers per rate (the estimator)
GAMES_SIM = 300          # games per simulated answer
OUT_GAMES = 0.15         # the share of games with an out-seat decision (Paws 4-player Beginner: 14 of 100)
MEAN_DECISIONS = 8.0     # out-seat decisions in such a game, on average (Paws: 120 in 14 games)
PLANTED = 0.10           # the planted share of decisions the choice decides (simulated)
CAL_RUNS = 60            # calibration-game answers per rate
CAL_GAMES = 150          # calibration games per answer
CAL_PLANTED = 0.15       # the calibration game's decisive share (planted)


# -- the estimator, simulated --------------------------------------------------------------------------------------

def simulated(planted: float, games: int, seed: int, runs: int) -> list[dict]:
    """``runs`` answers of :func:`measures.kingmaking.answer.paired_excess` on simulated games: per game out
    decisions (0 with probability 1 - OUT_GAMES, else 1 + geometric), a game's chance rate p ~ Beta(4, 1.5)
    (winners open late in a game); per decision chance's verdict ~ Bernoulli(p) and the options' the same verdict with probability
    0.5, else a fresh Bernoulli(p) (paired, the same law: the null); with probability ``planted`` the decision is
    instead decided by the choice (options change the winner, chance does not)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(runs):
        n = np.where(rng.random(games) < OUT_GAMES, 1 + rng.geometric(1 / MEAN_DECISIONS, games), 0)
        p = np.repeat(rng.beta(4.0, 1.5, games), n)
        c = rng.random(p.size) < p
        o = np.where(rng.random(p.size) < 0.5, c, rng.random(p.size) < p)
        decided = rng.random(p.size) < planted
        o, c = o | decided, c & ~decided
        ends = np.cumsum(n)
        starts = ends - n
        per = lambda x: np.array([x[a:b].sum() for a, b in zip(starts, ends)])   # noqa: E731
        out.append(paired_excess(n, per(o), per(c)))
    return out


@case("kingmaking", "sim-no-excess", "null", f"options that change the winner exactly as often as chance: "
      f"kingmaking beyond chance claimed in at most {ALPHA:.0%} of runs")
def sim_null(ctx: Context) -> Outcome:
    said = [r["verdict"] == "shown" for r in simulated(0.0, ctx.games(GAMES_SIM), ctx.seed, RUNS)]
    return rate_outcome(sum(said), len(said), null=True, rate=ALPHA, what="kingmaking beyond chance")


@case("kingmaking", "sim-planted-10-points", "planted", f"{PLANTED:.0%} of the out seats' decisions decided by "
      f"the choice ({GAMES_SIM} games): kingmaking beyond chance claimed in at least {POWER:.0%} of runs")
def sim_planted(ctx: Context) -> Outcome:
    said = [r["verdict"] == "shown" for r in simulated(PLANTED, ctx.games(GAMES_SIM), ctx.seed, RUNS)]
    return rate_outcome(sum(said), len(said), null=False, rate=POWER, what="kingmaking beyond chance")


# -- a calibration game, through the real code -----------------------------------------------------------------

END, RAID_P1, RAID_P2 = "end the turn", "raid Player 1", "raid Player 2"


class Calibration:
    """A four-seat game in the paused-game interface (sim.games.PausedGames). Decisions 0-2: Players 1-3 end the
    turn; decision 3: Player 4 (out: its seat features put it far behind) chooses among raiding Player 1,
    raiding Player 2 and ending the turn (its bot ends the turn); then the game ends. A decisive game's winner
    is the choice's (Player 1, Player 2, Player 3); otherwise the hidden deck's top card plus a die (mod 3), the
    option k first using up k dice. ``redeal`` shuffles the deck (what Player 4 cannot see), ``reseed`` the dice."""

    def __init__(self, decisive: bool, seed: str):
        self.decisive, self.dice = decisive, random.Random(seed)
        self.deck = [0, 1, 2]
        self.dice.shuffle(self.deck)
        self.decisions, self.paused, self.winner = 0, False, -1

    @property
    def seat(self) -> int:
        return self.decisions

    def options(self) -> list[str]:
        return [RAID_P1, RAID_P2, END] if self.decisions == 3 else [END]

    def take(self, k: int) -> None:
        if self.decisions == 3:
            if self.decisive:
                self.winner = k
            else:
                for _ in range(k):
                    self.dice.random()
                self.winner = (self.deck[-1] + self.dice.randrange(3)) % 3
        self.decisions += 1
        self.paused = False

    def play_on(self, stop_at: int = -1) -> bool:
        while self.decisions < 4:
            if self.decisions == stop_at:
                self.paused = True
                return True
            self.take(2 if self.decisions == 3 else 0)
        self.paused = False
        return False

    def copy(self) -> "Calibration":
        c = Calibration.__new__(Calibration)
        c.decisive, c.deck, c.decisions, c.paused, c.winner = self.decisive, list(self.deck), self.decisions, \
            self.paused, self.winner
        c.dice = random.Random()
        c.dice.setstate(self.dice.getstate())
        return c

    def redeal(self, observer: int, seed: int) -> None:
        random.Random(seed).shuffle(self.deck)

    def reseed(self, seed: int) -> None:
        self.dice = random.Random(seed ^ 0x5EED)

    def record(self) -> dict:
        return {"winner_seat": self.winner}

    def learned_features(self):
        return [], [[0.0], [0.0], [0.0], [-10.0]]     # with value [1.0]: Player 4's chance about 0.00002


def calibration_games(share: float) -> PausedGames:
    """The calibration game, decisive in a share ``share`` of the games (drawn per seed and game)."""
    def new(seed, index, stop_at):
        g = Calibration(random.Random(f"decisive {seed} {index}").random() < share, f"deal {seed} {index}")
        g.play_on(stop_at)
        return g
    return PausedGames(new=new, winner=lambda rec: rec["winner_seat"], kind=lambda pg, option: option,
                       side_of=lambda seat: seat, sides=4)


def calibration_answer(share: float, seed: int, games: int) -> tuple[dict, int, int]:
    """(the paired excess, the decisive games, same-stream kings) of ``games`` calibration games of ``seed``."""
    pg = calibration_games(share)
    rows = [game_row(pg, [1.0], 0.05, seed, i) for i in range(games)]
    decisive = sum(random.Random(f"decisive {seed} {i}").random() < share for i in range(games))
    r = paired_excess([x["out_decisions"] for x in rows], [x["dealt_king_decisions"] for x in rows],
                      [x["chance_king_decisions"] for x in rows])
    return r, decisive, sum(x["king_decisions"] for x in rows)


def _calibration_runs(share: float, ctx: Context) -> list[tuple[dict, int, int]]:
    return [calibration_answer(share, ctx.seed * 1000 + k, ctx.games(CAL_GAMES)) for k in range(CAL_RUNS)]


@case("kingmaking", "calibration-no-decisive-choice", "null", "a game where Player 4's choice only shifts the "
      f"dice: kingmaking beyond chance claimed in at most {ALPHA:.0%} of runs")
def calibration_null(ctx: Context) -> Outcome:
    runs = _calibration_runs(0.0, ctx)
    out = rate_outcome(sum(r["verdict"] == "shown" for r, _, _ in runs), len(runs), null=True, rate=ALPHA,
                       what="kingmaking beyond chance")
    same = sum(k for _, _, k in runs) / sum(r["decisions"] for r, _, _ in runs)
    return Outcome(f"{out.measured}; the same-stream count fired at {100 * same:.0f}% of the decisions (chance)",
                   out.passed, out.value, out.interval)


@case("kingmaking", "calibration-decisive-share", "planted", f"Player 4's choice names the winner in "
      f"{CAL_PLANTED:.0%} of the games: kingmaking beyond chance claimed in at least {POWER:.0%} of runs, reading "
      "the decisive share on average")
def calibration_planted(ctx: Context) -> Outcome:
    runs = _calibration_runs(CAL_PLANTED, ctx)
    out = rate_outcome(sum(r["verdict"] == "shown" for r, _, _ in runs), len(runs), null=False, rate=POWER,
                       what="kingmaking beyond chance")
    read = float(np.mean([r["excess"]["rate"] for r, _, _ in runs]))
    known = float(np.mean([d / r["decisions"] for r, d, _ in runs]))
    return Outcome(f"{out.measured}; read {100 * read:.1f}% on average, the decisive share {100 * known:.1f}%",
                   out.passed, out.value, out.interval)


# -- rigged Paws --------------------------------------------------------------------------------------------------

OUT = 3                  # Player 4, out from the start


class Rigged:
    """A core paused game of Paws with Player 4 out from the start (its seat features far behind) and one rule
    changed. ``planted``: at Player 4's first decision with two options or more, option k hands the game to
    Player k mod 3 + 1, its bot's own choice to Player 1. ``placebo``: every option of Player 4 is what its bot
    would do."""

    def __init__(self, pg, mode: str, named: int | None = None):
        self.pg, self.mode, self.named = pg, mode, named

    paused = property(lambda self: self.pg.paused)
    seat = property(lambda self: self.pg.seat)
    decisions = property(lambda self: self.pg.decisions)

    def options(self):
        return self.pg.options()

    def _rig_here(self) -> bool:
        return (self.mode == "planted" and self.named is None and self.pg.paused and self.pg.seat == OUT
                and len(self.pg.options()) > 1)

    def take(self, k: int) -> None:
        if self._rig_here():
            self.named = k % 3
        if self.mode == "placebo" and self.pg.seat == OUT:
            self.pg.play_on(self.pg.decisions + 1)            # its bot's own choice, whatever k
        else:
            self.pg.take(k)

    def play_on(self, stop_at: int = -1) -> bool:
        while self.mode == "planted" and self.named is None:  # step to Player 4's rigged decision, if any
            if self.pg.paused and self.pg.decisions == stop_at:
                return True
            if self._rig_here():
                self.named = 0
                break
            if not self.pg.play_on(self.pg.decisions + (1 if self.pg.paused else 0)):
                return False                                   # the game ended first
        return self.pg.play_on(stop_at)

    def copy(self) -> "Rigged":
        return Rigged(self.pg.copy(), self.mode, self.named)

    def redeal(self, observer: int, seed: int) -> None:
        self.pg.redeal(observer, seed)

    def reseed(self, seed: int) -> None:
        self.pg.reseed(seed)

    def record(self) -> dict:
        rec = self.pg.record()
        return rec if self.named is None else {**rec, "rigged_winner": self.named}

    def learned_features(self):
        return self.pg.learned_features()[0], [[0.0], [0.0], [0.0], [-10.0]]


def rigged_rows(mode: str, seed: int, games: int) -> list[dict]:
    """The kingmaking rows of ``games`` rigged 4-player Beginner games (heuristic bots) of ``seed``."""
    paws = GAMES["paws"]
    real = paws.paused_game(paws.resolve(None, {}, {"players": 4, "bots": ["heuristic"] * 4}))

    def new(s, index, stop_at):
        g = Rigged(real.new(s, index, 0), mode)
        g.play_on(stop_at)
        return g

    def winner(rec):
        return rec["rigged_winner"] if "rigged_winner" in rec else real.winner(rec)
    games_ = PausedGames(new=new, winner=winner, kind=real.kind, side_of=real.side_of, sides=real.sides)
    return [game_row(games_, [1.0], 0.05, seed, i) for i in range(games)]


def _excess(rows: list[dict]) -> dict:
    return paired_excess([r["out_decisions"] for r in rows], [r["dealt_king_decisions"] for r in rows],
                         [r["chance_king_decisions"] for r in rows])


def _words(r: dict) -> str:
    ex = r["excess"]
    return (f"{r['verdict']}: excess {100 * ex['rate']:+.1f} points [{100 * ex['ci95'][0]:+.1f}, "
            f"{100 * ex['ci95'][1]:+.1f}] of {r['decisions']:,} decisions in {r['games']} games")


@case("kingmaking", "paws-choice-hands-the-game", "planted", "Paws 4-player Beginner, Player 4's first real choice "
      "hands the game to another: the excess is exactly the share of those decisions, claimed", game="paws")
def paws_planted(ctx: Context) -> Outcome:
    rows = rigged_rows("planted", ctx.seed, ctx.games(30))
    r = _excess(rows)
    rigged = sum(x["dealt_king_decisions"] for x in rows)
    known = rigged / r["decisions"] if r["decisions"] else None
    exact = all(x["chance_king_decisions"] == 0 and x["dealt_king_decisions"] <= 1 for x in rows)
    ok = known is not None and rigged > 0 and exact and abs(r["excess"]["rate"] - known) < 1e-12 \
        and r["verdict"] == "shown"
    return Outcome(f"{_words(r)}; known {100 * (known or 0):.1f} points ({rigged} rigged decisions)", ok,
                   r["excess"]["rate"], tuple(r["excess"]["ci95"]) if r["excess"]["ci95"][0] is not None else None)


@case("kingmaking", "paws-choice-cannot-matter", "null", "Paws 4-player Beginner, every option of Player 4 is its "
      "bot's own choice: excess exactly 0, nothing claimed", game="paws")
def paws_null(ctx: Context) -> Outcome:
    rows = rigged_rows("placebo", ctx.seed, ctx.games(30))
    r = _excess(rows)
    exact = all(x["dealt_king_at"] == x["chance_king_at"] and x["king_decisions"] == 0 for x in rows)
    ok = exact and r["decisions"] > 0 and r["excess"]["rate"] == 0 and r["verdict"] != "shown"
    return Outcome(f"{_words(r)}; chance alone changed the winner at {100 * r['chance']['rate']:.1f}% of them", ok,
                   r["excess"]["rate"], tuple(r["excess"]["ci95"]) if r["excess"]["ci95"][0] is not None else None)
