"""Decision traces: every choice of a game's bots, so that the reference engine can replay a game the core
played, whatever its bots (docs/decision-trace.md).

On request the core writes, for each game, the index of the option each bot chose among the options the
engines list (a choice of one is not asked and not written), and a search bot's note of what it saw before
its choice (core/kit/trace.pxi has the byte layout). Both engines list every decision's options in the same
order: that is the kit's contract (tests/test_decision_trace.py checks it on thousands of games of every
game). To replay, each core-only seat gets a :class:`ScriptedBot` that takes the recorded choices, and every
other seat keeps its own reference bot, whose every choice is checked against the trace: the first decision
that differs is a :class:`TraceMismatch` naming it.

A trace is untrusted input (it comes from a results folder): :func:`decode` refuses a broken one in one
line, and a replay refuses a choice or a note outside the options listed.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

import numpy as np
import pyarrow as pa

from sim.kit.bots import LearnedBot, SearchBot, refuse_core_only

TRACE_VERSION = 1
WIDE = 254                     # an index of 254 or more follows in two bytes, little-endian
NOTE = 255                     # a search note precedes the next choice
NOTE_KINDS = {1: "visits", 2: "reward"}     # core/kit/trace.pxi NOTE_VISITS, NOTE_REWARD
MAX_NOTED = 3
MAX_TRACE_BYTES = 1 << 24      # one game's trace (a paws game with search bots writes a few kilobytes)

TABLE = "decisions"            # the result table of traces: one row per game
SCHEMA = pa.schema([pa.field("seed", pa.uint64(), nullable=False),
                    pa.field("game_index", pa.int64(), nullable=False),
                    pa.field("trace", pa.large_binary(), nullable=False)])
COLUMN_DOCS = {
    "seed": "master seed of the batch",
    "game_index": "game number within the batch",
    "trace": "the game's decision trace: each bot choice as the index of the option taken (a byte where it "
             "fits), search notes before their choice (docs/decision-trace.md)",
}


class TraceError(ValueError):
    """A broken trace, or one that does not fit the game replayed; the message is one line."""


class TraceMismatch(TraceError):
    """The replay and the trace disagree at a decision (the message names it)."""


@dataclass(frozen=True)
class Note:
    """What a search saw before a choice: its best-rated options (index, value), best first; ``kind``
    'visits' (mcts: share of the root's visits) or 'reward' (flat: mean reward of its rollouts)."""

    kind: str
    budget: int                # iterations (mcts) or rollouts per option (flat)
    top: tuple[tuple[int, float], ...]


@dataclass(frozen=True)
class Choice:
    """One decision of the trace: the option index taken, and the search's note if one was written."""

    index: int
    note: Note | None = None


def _index(blob: bytes, at: int) -> tuple[int, int]:
    if at >= len(blob):
        raise TraceError(f"byte {at}: the trace ends inside an entry")
    b = blob[at]
    if b == NOTE:
        raise TraceError(f"byte {at}: a note where an option index belongs")
    if b < WIDE:
        return b, at + 1
    if at + 3 > len(blob):
        raise TraceError(f"byte {at}: the trace ends inside a wide option index")
    k = blob[at + 1] | blob[at + 2] << 8
    if k < WIDE:
        raise TraceError(f"byte {at}: option index {k} written wide (it fits one byte)")
    return k, at + 3


def _u16(blob: bytes, at: int) -> int:
    if at + 2 > len(blob):
        raise TraceError(f"byte {at}: the trace ends inside a note")
    return blob[at] | blob[at + 1] << 8


def decode(blob: bytes) -> list[Choice]:
    """The choices of one game's trace, in order; a TraceError naming the first byte that is wrong."""
    if not isinstance(blob, (bytes, bytearray, memoryview)):
        raise TraceError(f"a trace is bytes, not {type(blob).__name__}")
    blob = bytes(blob)
    if len(blob) > MAX_TRACE_BYTES:
        raise TraceError(f"{len(blob):,} bytes; a game's trace is at most {MAX_TRACE_BYTES:,}")
    if not blob:
        raise TraceError("empty (a trace starts with its version byte)")
    if blob[0] != TRACE_VERSION:
        raise TraceError(f"byte 0: version {blob[0]}; this playtest reads version {TRACE_VERSION}")
    out: list[Choice] = []
    at = 1
    while at < len(blob):
        note = None
        if blob[at] == NOTE:
            start = at
            if at + 5 > len(blob):
                raise TraceError(f"byte {at}: the trace ends inside a note")
            kind, n, budget = blob[at + 1], blob[at + 2], _u16(blob, at + 3)
            if kind not in NOTE_KINDS:
                raise TraceError(f"byte {at + 1}: note kind {kind}; expected one of {', '.join(map(str, NOTE_KINDS))}")
            if not 1 <= n <= MAX_NOTED:
                raise TraceError(f"byte {at + 2}: a note of {n} options; expected 1 to {MAX_NOTED}")
            at += 5
            top = []
            for _ in range(n):
                k, at = _index(blob, at)
                v = _u16(blob, at)
                if v > 10000:
                    raise TraceError(f"byte {at}: a note's value {v / 10000:g} is above 1")
                at += 2
                top.append((k, v / 10000))
            if at >= len(blob):
                raise TraceError(f"byte {start}: a note with no choice after it")
            note = Note(NOTE_KINDS[kind], budget, tuple(top))
        k, at = _index(blob, at)
        out.append(Choice(k, note))
    return out


def _put_index(out: bytearray, k: int) -> None:
    if not 0 <= k < 1 << 16:
        raise ValueError(f"option index {k} does not fit a trace")
    out.extend([k] if k < WIDE else [WIDE, k & 0xFF, k >> 8])


def encode(choices: Iterable[Choice | int]) -> bytes:
    """A trace of these choices (ints or :class:`Choice`), as the core writes it."""
    out = bytearray([TRACE_VERSION])
    for c in choices:
        c = c if isinstance(c, Choice) else Choice(int(c))
        if c.note is not None:
            kind = {v: k for k, v in NOTE_KINDS.items()}[c.note.kind]
            budget = min(c.note.budget, 65535)
            out.extend([NOTE, kind, len(c.note.top), budget & 0xFF, budget >> 8])
            for k, v in c.note.top:
                _put_index(out, k)
                q = int(v * 10000 + 0.5)
                out.extend([q & 0xFF, q >> 8])
        _put_index(out, c.index)
    return bytes(out)


def core_table(seed: int, start: int, data: np.ndarray, starts: np.ndarray) -> pa.Table:
    """The decisions table from a core batch's traces end to end (``starts``: count + 1 offsets)."""
    count = len(starts) - 1
    traces = pa.LargeBinaryArray.from_buffers(pa.large_binary(), count,
                                              [None, pa.py_buffer(np.ascontiguousarray(starts, np.int64)),
                                               pa.py_buffer(np.ascontiguousarray(data, np.uint8))])
    return pa.Table.from_arrays([pa.array(np.full(count, seed, np.uint64)),
                                 pa.array(np.arange(start, start + count, dtype=np.int64)), traces], schema=SCHEMA)


def table(seed: int, start: int, blobs: Sequence[bytes]) -> pa.Table:
    """The decisions table of games ``start ..`` from their traces."""
    return pa.Table.from_arrays([pa.array([seed] * len(blobs), pa.uint64()),
                                 pa.array(range(start, start + len(blobs)), pa.int64()),
                                 pa.array(blobs, pa.large_binary())], schema=SCHEMA)


class _Recording:
    """A reference bot that also writes its choices down (the reference engine's trace)."""

    def __init__(self, bot, out: list[int]):
        self.bot, self.out, self.name = bot, out, getattr(bot, "name", "")

    def decide(self, g, seat: int, kind, options: list) -> int:
        k = self.bot.decide(g, seat, kind, options)
        self.out.append(k)
        return k


def recording(bots: Sequence) -> tuple[list, list[int]]:
    """The bots, each writing its choices into the returned list (encode() it for the game's trace)."""
    out: list[int] = []
    return [_Recording(b, out) for b in bots], out


# a game's words for one option of a decision: (game state, seat, decision kind, option) -> text
OptionWords = Callable[[object, int, object, object], str]


class TraceReplay:
    """One game's trace, replayed: :attr:`bots` are the seats' bots for the reference engine (a core-only
    seat's a :class:`ScriptedBot`, every other seat's its own bot, checked), :meth:`finish` checks at the
    end that the game took every recorded choice."""

    def __init__(self, choices: Sequence[Choice], specs: Sequence[str], bots: Sequence, words: OptionWords):
        self.choices, self.words, self.at = list(choices), words, 0
        self.bots = [ScriptedBot(self, spec, bot) if isinstance(bot, (SearchBot, LearnedBot)) else
                     CheckedBot(self, bot, spec) for spec, bot in zip(specs, bots)]

    def where(self, g, seat: int, kind) -> str:
        name = getattr(kind, "name", str(kind)).lower().replace("_", " ")
        return f"decision {self.at + 1} (round {getattr(g, 'round', 0)}, {g.seat_name(seat)}, {name})"

    def take(self, g, seat: int, kind, options: list) -> Choice:
        """The next recorded choice, which must be one of ``options``."""
        if self.at >= len(self.choices):
            raise TraceMismatch(f"{self.where(g, seat, kind)}: the trace has only {len(self.choices)} decisions; "
                                "the game asks for more")
        c = self.choices[self.at]
        if c.index >= len(options):
            raise TraceMismatch(f"{self.where(g, seat, kind)}: the trace takes option {c.index + 1} of "
                                f"{len(options)}")
        if c.note is not None and any(k >= len(options) for k, _ in c.note.top):
            raise TraceMismatch(f"{self.where(g, seat, kind)}: the search note names an option beyond the "
                                f"{len(options)} listed")
        return c

    def advance(self) -> None:
        self.at += 1

    def finish(self) -> None:
        if self.at != len(self.choices):
            raise TraceMismatch(f"the game ended after decision {self.at}; the trace has {len(self.choices)}")

    def option(self, g, seat: int, kind, options: list, k: int) -> str:
        return f"option {k + 1} ({self.words(g, seat, kind, options[k])})"


class ScriptedBot:
    """A core-only seat (a search or learned bot) in the reference engine: it takes the recorded choices, and
    tells the log what its search saw (the note before a choice); a restricted learned bot's choice must be
    one it allows (never a forbidden kind while another option is listed)."""

    def __init__(self, replay: TraceReplay, spec: str, bot=None):
        self.replay, self.spec, self.name, self.bot = replay, spec, spec.split(":")[0], bot

    def decide(self, g, seat: int, kind, options: list) -> int:
        c = self.replay.take(g, seat, kind, options)
        if hasattr(self.bot, "allows") and not self.bot.allows(kind, options, c.index):
            r = self.replay
            raise TraceMismatch(f"{r.where(g, seat, kind)}: the core's {self.spec} bot took "
                                f"{r.option(g, seat, kind, options, c.index)}, a kind it is forbidden, while "
                                "another option was listed")
        if c.note is not None:
            g.emit("search", note_text(g, seat, self.name, kind, options, c.note, self.replay.words), seat, 1)
        self.replay.advance()
        return c.index


class CheckedBot:
    """A seat whose bot the reference engine has: it decides, and its choice must be the recorded one."""

    def __init__(self, replay: TraceReplay, bot, spec: str):
        self.replay, self.bot, self.spec, self.name = replay, bot, spec, getattr(bot, "name", "")

    def decide(self, g, seat: int, kind, options: list) -> int:
        c = self.replay.take(g, seat, kind, options)
        k = self.bot.decide(g, seat, kind, options)
        if k != c.index:
            r = self.replay
            raise TraceMismatch(f"{r.where(g, seat, kind)}: the core chose {r.option(g, seat, kind, options, c.index)}"
                                f", the reference engine's {self.spec} bot {r.option(g, seat, kind, options, k)}")
        self.replay.advance()
        return k


def note_text(g, seat: int, name: str, kind, options: list, note: Note, words: OptionWords) -> str:
    """One line of what a search saw: ``Player 2 (mcts) weighs: raid Player 3 61%, invade 22%, end turn 17%
    of 64 iterations``."""
    shown = [words(g, seat, kind, options[k]) for k, _ in note.top]
    if note.kind == "visits":
        rated = ", ".join(f"{w} {v:.0%}" for w, (_, v) in zip(shown, note.top))
        tail = f"share of {note.budget:,} simulations"
    else:
        rated = ", ".join(f"{w} {v:.2f}" for w, (_, v) in zip(shown, note.top))
        tail = f"expected reward, {note.budget:,} rollouts each"
    return f"{g.seat_name(seat)} ({name}) weighs: {rated} ({tail})"


def trace_match(match):
    """``match`` with the decisions table (a copy; the tables it had stay)."""
    return dataclasses.replace(match, tables=tuple(dict.fromkeys(match.tables + (TABLE,))))


def core_game(match, seed: int, game_index: int) -> tuple[dict, bytes]:
    """One game played by the core with its decision trace: (the record, the trace)."""
    tables = trace_match(match).play_batch(seed, game_index, 1, "core")
    return tables["games"].to_pylist()[0], tables[TABLE]["trace"][0].as_py()


def replay(match, seed: int, game_index: int, blob: bytes, log: list | None = None) -> dict:
    """The reference engine's record of the game whose decision trace is ``blob`` (its log into ``log``):
    core-only seats take the recorded choices, every other seat's choice is checked against them. A
    TraceError (one line) if the trace is broken or the game departs from it."""
    definition = match.definition
    run = TraceReplay(decode(blob), definition.bot_specs(match.setup), definition.reference_bots(match.setup),
                      definition.option_words)
    record = match.play_one(seed, game_index, log, bots=run.bots)
    run.finish()
    return record


def reference_tables(definition, match, seed: int, start: int, count: int, play_game, to_table,
                     cards_table) -> dict[str, pa.Table]:
    """The reference engine's tables of ``match.tables`` for games ``start .. start+count-1``: each game played
    by ``play_game(setup, rules, seed, index, data, stats=, bots=)``, the records by ``to_table``, the card
    rows by ``cards_table``, and each game's decision trace (the reference engine's own, which equals the
    core's)."""
    refuse_core_only(definition.bot_specs(match.setup), "{kind} is core-only; use engine = core")
    stats: list | None = [] if "cards" in match.tables else None
    games, traces = [], []
    for i in range(start, start + count):
        bots, choices = recording(definition.reference_bots(match.setup))
        games.append(play_game(match.setup, match.rules, seed, i, match.data, stats=stats, bots=bots))
        traces.append(encode(choices))
    out = {"games": to_table(games)}
    if stats is not None:
        out["cards"] = cards_table(stats)
    if TABLE in match.tables:
        out[TABLE] = table(seed, start, traces)
    return out
