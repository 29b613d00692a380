"""What a stalled Paws in Peril game looks like: the position at a round and the play after it (the stall study,
bench/stall-study.py; docs/findings.md section 11).

A game stalls when nobody has won by the round cap (``max_rounds``, end reason ``stalled``). Both functions read
a game's event stream (sim/events.py; the drawn state is ``sim.paws.state.Game.view()``), so they see what the
replay page shows, named as the book names it:

- :func:`position`: the homes and mansions (§4) at a round: claimed or not, barricaded by their owner or not
  (§11: nobody else can loot or invade a barricaded tile), the players out of the game (§8.7) and the VP (§13).
  A **locked board** has every home and mansion claimed and barricaded by its owner: no VP can change hands by
  looting (§4) or invasion (§6); a player reaches 4 VP only after another is knocked out of their last life
  (§8.7: their homes and mansions are cleared and can be looted again), or wins as the last player with lives
  left (§13).
- :func:`play_after`: what the players did from that round on: their actions (§3) by kind, knockouts (§8),
  players out of the game, homes and mansions claimed or taken.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, NamedTuple

from sim.events import replay_states

BUILDINGS = ("home", "mansion")
# what a position is (position().kind), most open first
KINDS = {
    "unclaimed": "a home or mansion is unclaimed: it can be looted (§4)",
    "invadable": "every home and mansion is claimed, one is not barricaded by its owner: it can be invaded (§6)",
    "locked": "every home and mansion is claimed and barricaded by its owner (§11): VP change hands only after a "
              "player is knocked out of their last life (§8.7)",
}
# the turn's actions (§3) as the event stream names them; a home or mansion looted is its claim or its
# "stays unclaimed" event (its monster fights are events of their own)
ACTIONS = ("move", "loot", "building", "buy", "raid", "invade", "barricade")
_ACTION_OF = {"move": "move", "loot": "loot", "claim": "building", "unclaimed": "building", "buy": "buy",
              "raid": "raid", "invade": "invade", "barricade": "barricade"}


class Position(NamedTuple):
    """The homes and mansions and the players at a moment of the game."""

    kind: str                     # one of KINDS
    buildings: int                # homes and mansions on the board
    claimed: int                  # ... owned by a player
    barricaded: int               # ... owned and barricaded by their owner
    vp: tuple[int, ...]           # each seat's VP, seat 0 first
    out: tuple[int, ...]          # seats out of the game (no lives left)

    @property
    def standings(self) -> str:
        """The VP, highest first, of the players still in the game: '3-3-2'."""
        return "-".join(str(v) for v in sorted((v for s, v in enumerate(self.vp) if s not in self.out),
                                               reverse=True))


def position(view: Mapping[str, Any]) -> Position:
    """The position in a drawn state (``Game.view()``, or the state after an event)."""
    cells = [c for c, t in enumerate(view["tile"]) if t in BUILDINGS]
    owner, barricade = view["owner"], view["barricade"]
    claimed = [c for c in cells if owner[c] >= 0]
    barricaded = [c for c in claimed if barricade[c] == owner[c]]
    kind = ("unclaimed" if len(claimed) < len(cells) else
            "invadable" if len(barricaded) < len(claimed) else "locked")
    out = tuple(s for s, lives in enumerate(view["lives"]) if lives <= 0)
    return Position(kind, len(cells), len(claimed), len(barricaded), tuple(view["vp"]), out)


def state_at_round(events: Iterable[Mapping[str, Any]], round_: int) -> dict | None:
    """The drawn state as round ``round_`` begins (its 'round' event); None if the game ended before it."""
    events = list(events)
    for e, state in zip(events, replay_states(events)):
        if e["kind"] == "round" and e["round"] == round_:
            return state
    return None


def play_after(events: Iterable[Mapping[str, Any]], round_: int) -> dict[str, int]:
    """From round ``round_`` to the end: rounds and turns begun, each action of ACTIONS taken, knockouts,
    players out of the game, homes and mansions claimed (looted) and taken (invaded)."""
    out = dict.fromkeys(("rounds", "turns", *ACTIONS, "knockouts", "out", "claimed", "taken"), 0)
    for e in events:
        if e["round"] < round_:
            continue
        kind = e["kind"]
        if kind in ("round", "turn"):
            out[kind + "s"] += 1
        if kind in _ACTION_OF and e["depth"] == 1:
            out[_ACTION_OF[kind]] += 1
        out["knockouts"] += kind == "knockout"
        out["out"] += kind == "out"
        out["claimed"] += kind == "claim"
        out["taken"] += kind == "take_building"
    return out


def at_round(round_: int) -> Callable[[Mapping[str, Any]], bool]:
    """A predicate on a paused game's record: the game is in round ``round_`` or later (sim.kit.handover)."""
    return lambda record: record["rounds"] >= round_
