"""A game's play as structured events: the event stream and the text log rendered from it.

A reference engine narrates a game through :meth:`sim.kit.state.GameState.emit`. Passing an
:class:`EventLog` as the game's ``log`` keeps every event as a plain dict (one JSON object each, schema in
docs/replay.md); a plain list keeps the text lines only, as before. The text of an event *is* the log
line, so the text log and the replay drawn from the events never disagree.

Each event carries ``change``: the drawn state's values that differ from the state after the event
before (the first event carries the whole drawn state). Applying every change in order, key by key,
gives the drawn state after each event; the last one is the game's end state. The drawn state is the
game's own ``view()`` (plain JSON values), so this module names no game.
"""

from __future__ import annotations

import json
from typing import Any, Iterable

# the fields of every event, in order (docs/replay.md)
FIELDS = ("seq", "round", "turn", "actor", "kind", "depth", "text", "change")
ROLL = "roll"                     # the event kind of one dice roll: left out of a --brief log


class EventLog(list):
    """The text lines of a game's log (a list, as a plain log), plus ``events`` and the board ``meta``."""

    def __init__(self) -> None:
        super().__init__()
        self.events: list[dict[str, Any]] = []
        self.meta: dict[str, Any] = {}
        self.view: dict[str, Any] = {}       # the drawn state after the last event

    def add(self, round_: int, turn: int, actor: str | None, kind: str, depth: int, text: str,
            view: dict[str, Any]) -> None:
        """Append one event; ``view`` is the drawn state after it."""
        change = {k: v for k, v in view.items() if self.view.get(k, _MISSING) != v}
        self.view = view
        self.events.append({"seq": len(self.events), "round": round_, "turn": turn, "actor": actor,
                            "kind": kind, "depth": depth, "text": text, "change": change})
        self.append(indent(depth, text))

    def settle(self, view: dict[str, Any]) -> None:
        """Fold what changed after the last event (the end of the game) into that event's change."""
        if not self.events:
            return
        late = {k: v for k, v in view.items() if self.view.get(k, _MISSING) != v}
        self.events[-1]["change"].update(late)
        self.view = view


_MISSING = object()


def indent(depth: int, text: str) -> str:
    return "  " * depth + text


def render(events: Iterable[dict[str, Any]], brief: bool = False) -> list[str]:
    """The text log of a game's events (``brief``: without the individual dice rolls)."""
    return [indent(e["depth"], e["text"]) for e in events if not (brief and e["kind"] == ROLL)]


def replay_states(events: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The drawn state after each event: the changes applied in order (what the replay page does)."""
    state: dict[str, Any] = {}
    out = []
    for e in events:
        state = {**state, **e["change"]}
        out.append(state)
    return out


def write_jsonl(events: Iterable[dict[str, Any]], path) -> None:
    """One JSON object per line."""
    with open(path, "w", encoding="utf-8") as f:
        for e in events:
            f.write(json.dumps(e, separators=(",", ":")) + "\n")
