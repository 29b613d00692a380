"""A game of learned bots handed over, at a chosen decision, to other bots (the stall study, bench/stall-study.py).

The engine core continues a paused game only with the bots it was set up with (``PausedGame``,
:class:`sim.games.PausedGames`). To hand a game over, the same game (master seed, game index) is set up twice,
once with the original bots and once with the successors, and the two are walked in lockstep, one top-level
decision at a time: the original game's bot decides (a learned bot's choice is its policy's best-scored option,
the first listed on ties, as core/kit/learned.pxi's ``learned_choose``), and the successor takes the same option.
The decisions inside an action (combat cards, defenders, discards, cards taken) are the heuristic's with the
bot's weights for a learned and for a search bot alike, and neither draws from the game's generator, so up to the
handover both games are the same game: the same record, the same hidden cards, the same generator. That is
checked at the handover (:class:`HandoverError` if not: a model that took the decisions inside an action itself
would make the two games drift, and is refused there rather than answered). From there the successor plays on with its own bots, on
the same dice (the game's generator as it stands), or on other dice (``reseed``).

Only a learned seat can be handed over: its choice is read off the paused game (``learned_scores``); a heuristic
or search seat's choice is not exposed by the paused game.
"""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Any, Callable, Mapping, NamedTuple

from sim.kit.bots import spec_fields


class HandoverError(ValueError):
    """A game that cannot be handed over (a seat whose choice cannot be read, games that drifted); one line."""


class Handover(NamedTuple):
    """The same game paused at the same decision twice: with the original bots and with the successors."""

    original: Any          # the paused game with the original bots (play_on continues the game as played)
    successor: Any         # the paused game with the successors' bots, in the same state
    decision: int          # top-level decisions taken before the handover


def learned_choice(paused) -> int:
    """The option a learned seat takes at ``paused``'s decision: its policy's best score, the first listed on
    ties; a decision of one option is not asked (0)."""
    if len(paused.options()) <= 1:
        return 0
    try:
        scores = paused.learned_scores()[0]
    except ValueError as e:                     # the core: "seat N's bot has no model"
        raise HandoverError(f"decision {paused.decisions}: {e}; only a learned seat can be handed over") from None
    return max(range(len(scores)), key=scores.__getitem__)


def hand_over(original, successors, seed: int, index: int,
              at: Callable[[Mapping[str, Any]], bool]) -> Handover | None:
    """Game ``index`` of master ``seed`` of match ``original`` (a :class:`sim.games.Match`, every seat a learned bot)
    played up to the first top-level decision whose record satisfies ``at``, and the same game at that decision
    set up as match ``successors`` (the same match with other bots); None when the game ends first."""
    games = _paused(original, successors)
    a = games[0].new(seed, index, 0)
    b = games[1].new(seed, index, 0)
    while a.paused:
        if at(a.record()):
            _check_same(a, b)
            return Handover(a, b, a.decisions)
        choice = learned_choice(a)
        step = a.decisions + 1
        a.play_on(step)
        b.take(choice)
        b.play_on(step)
    return None


def _paused(original, successors) -> tuple:
    """The two matches' paused games, refusing (HandoverError) matches that differ in more than their bots or an
    original seat that is not a learned bot."""
    game = original.definition
    others = [s for s in game.bot_specs(original.setup)
              if spec_fields(s)[0] != "learned" or spec_fields(s)[1].get("forbid", "none") != "none"]
    if others:
        raise HandoverError(f"bot {others[0]!r}: only an unrestricted learned seat can be handed over (its choice "
                            "is read off the paused game)")
    same = dataclasses.replace(successors.setup, bots=original.setup.bots) == original.setup
    if successors.game != original.game or not same or successors.rules != original.rules \
            or successors.data_digest != original.data_digest:
        raise HandoverError("the successors' match differs from the original in more than its bots")
    paused = game.paused_game(original), game.paused_game(successors)
    if paused[0] is None:
        raise HandoverError(f"{game.name}: its core offers no paused games to hand over")
    return paused


def _check_same(a, b) -> None:
    ra, rb = a.record(), b.record()
    if ra != rb or not b.paused or b.decisions != a.decisions:
        differ = sorted(k for k in ra if ra[k] != rb.get(k))
        raise HandoverError(f"decision {a.decisions}: the successors' game drifted from the original "
                            f"({', '.join(differ) or 'paused state'} differ)")
    if hasattr(a, "hidden") and a.hidden(0) != b.hidden(0):
        raise HandoverError(f"decision {a.decisions}: the successors' game drifted from the original (hidden cards)")


def dice_seed(seed: int, index: int, stream: int) -> int:
    """The 64-bit seed of other dice number ``stream`` (1, 2, ...) for game ``index`` of master ``seed``."""
    key = f"handover-dice {seed} {index} {stream}".encode()
    return int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "little")


def played_on(paused, dice: int | None = None) -> dict:
    """The record of a copy of ``paused`` played to the end by its own bots: on the game's own dice
    (``dice`` None) or with the game's generator reseeded from ``dice`` (other dice; the decks keep their order)."""
    c = paused.copy()
    if dice is not None:
        c.reseed(dice)
    c.play_on(-1)
    return c.record()
