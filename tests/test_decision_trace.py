"""Decision traces (sim/kit/trace.py, core/kit/trace.pxi; docs/decision-trace.md).

Held here, in both games:
- the kit's contract: both engines list every decision's options in the same order, so the core's trace and
  the reference engine's trace of the same games are byte for byte the same (random and heuristic bots,
  every board and mode), and tracing changes no record of the core;
- a game with core-only bots (mcts, flat) replays in the reference engine from the core's trace with no
  disagreement and the same record, over thousands of games (slow) and a sample (fast);
- a search note puts the search's choice first, rates options in [0, 1] and comes once per search;
- a trace that is broken, short, long or altered is refused in one line naming the byte or the decision.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from budget import examples, thin

from sim import games as registry
from sim.events import EventLog
from sim.kit import trace
from sim.kit.trace import Choice, Note, TraceError, TraceMismatch, decode, encode

# (game, setup): random and heuristic bots on every board and mode, both rule sets of Paws
CONTRACT = [
    ("paws", {"bots": "random"}),
    ("paws", {"board": "explorer", "players": 2, "bots": "random"}),
    ("paws", {"board": "explorer", "bots": "heuristic,random,heuristic:aggression=3,random"}),
    ("paws", {"mode": "teams", "bots": "heuristic,random,random,heuristic"}, "v3"),
    ("paws", {"players": 3, "bots": "heuristic"}),
    ("tales", {"mode": "standard", "bots": "random"}),
    ("tales", {"mode": "standard", "bots": "heuristic,random"}),
    ("tales", {"mode": "2v2", "bots": "random,heuristic,heuristic,random"}),
]
# core-only bots in some seats (cheap budgets: the replay, not the search, is under test)
SEARCH = [
    ("paws", {"bots": "mcts:iterations=4:depth=6,heuristic,flat:rollouts=1:depth=4,random"}),
    ("paws", {"board": "explorer", "players": 2, "bots": "mcts:iterations=3:rollout=random:depth=5,flat:rollouts=2:depth=3"}),
    ("paws", {"mode": "teams", "bots": "mcts:iterations=4:depth=5"}),
    ("tales", {"mode": "standard", "bots": "mcts:iterations=4:depth=4,flat:rollouts=1:depth=3"}),
    ("tales", {"mode": "2v2", "bots": "flat:rollouts=1:depth=3,heuristic,mcts:iterations=3:depth=4,random"}),
]


def match(case, tables=("games",)):
    game, setup, *rules = case
    return registry.get(game).resolve(rules[0] if rules else None, {}, setup, {}, tables=tables)


def label(case) -> str:
    game, setup, *rules = case
    return f"{game}-{rules[0] if rules else 'default'}-" + "-".join(str(v) for v in setup.values())


def check_contract(case, games: int, seed: int) -> None:
    m = match(case, ("games", trace.TABLE))
    core = m.play_batch(seed, 0, games, "core")
    ref = m.play_batch(seed, 0, games, "reference")
    plain = match(case).play_batch(seed, 0, games, "core")["games"]
    assert core["games"].equals(plain), "tracing changed a record of the core"
    assert core["games"].to_pylist() == ref["games"].to_pylist()
    ours, theirs = core[trace.TABLE]["trace"].to_pylist(), ref[trace.TABLE]["trace"].to_pylist()
    differ = [i for i in range(games) if ours[i] != theirs[i]]
    assert differ == [], f"the engines' traces differ in games {differ[:10]}"
    assert core[trace.TABLE]["game_index"].to_pylist() == list(range(games))
    assert all(len(decode(b)) > 0 for b in ours)


@pytest.mark.parametrize("case", thin([(c,) for c in CONTRACT]), ids=label)
def test_both_engines_list_every_decision_in_the_same_order(case):
    check_contract(case, 120, seed=11)


@pytest.mark.slow
@pytest.mark.parametrize("case", CONTRACT, ids=label)
def test_both_engines_list_every_decision_in_the_same_order_on_thousands_of_games(case):
    check_contract(case, 800, seed=2026)


def replay_all(case, games: int, seed: int) -> dict:
    """Every game of a batch with core-only bots replayed from its trace; the counts of what was checked."""
    m = match(case, ("games", trace.TABLE))
    counts: dict = {}
    tables, counts = m.definition.play_counted(m, seed, 0, games)
    rows = tables["games"].to_pylist()
    blobs = tables[trace.TABLE]["trace"].to_pylist()
    notes = decisions = 0
    plain = match(case)
    for i, (row, blob) in enumerate(zip(rows, blobs)):
        log = EventLog()
        rec = trace.replay(plain, seed, i, blob, log)
        differ = sorted(k for k in row if rec[k] != row[k])
        assert differ == [], f"game {i}: the replay differs from the core's row in {differ}"
        choices = decode(blob)
        decisions += len(choices)
        noted = [c for c in choices if c.note is not None]
        notes += len(noted)
        assert sum(1 for e in log.events if e["kind"] == "search") == len(noted)
    assert notes == counts["searches"] > 0            # one note for every decision a search took
    return {"games": games, "decisions": decisions, "notes": notes}


@pytest.mark.parametrize("case", SEARCH, ids=label)
def test_search_bot_games_replay_through_the_reference_engine(case):
    done = replay_all(case, 25, seed=5)
    assert done["decisions"] > done["notes"]


@pytest.mark.slow
@pytest.mark.parametrize("case", SEARCH, ids=label)
def test_thousands_of_search_bot_games_replay_with_no_disagreement(case):
    replay_all(case, 600, seed=31)


@pytest.mark.parametrize("case", SEARCH[:1] + SEARCH[3:4], ids=label)
def test_a_search_note_puts_the_choice_first_and_rates_within_0_and_1(case):
    m = match(case, ("games", trace.TABLE))
    bots = m.definition.reference_bots(m.setup)
    budgets = {b.name: (b.params.iterations if b.name == "mcts" else b.params.rollouts)
               for b in bots if hasattr(b, "params")}
    for blob in m.play_batch(3, 0, 20, "core")[trace.TABLE]["trace"].to_pylist():
        for c in decode(blob):
            if c.note is None:
                continue
            n = c.note
            assert n.top[0][0] == c.index                          # the option taken is the one rated best
            assert all(0 <= v <= 1 for _, v in n.top) and len({k for k, _ in n.top}) == len(n.top)
            assert [v for _, v in n.top] == sorted((v for _, v in n.top), reverse=True)
            assert n.budget == budgets["mcts" if n.kind == "visits" else "flat"]
            if n.kind == "visits":
                assert sum(v for _, v in n.top) <= 1.0 + 3e-4


# -- the trace's bytes ------------------------------------------------------------------------------------
notes = st.builds(Note, st.sampled_from(["visits", "reward"]), st.integers(1, 65535),
                  st.lists(st.tuples(st.integers(0, 20000), st.integers(0, 10000).map(lambda q: q / 10000)),
                           min_size=1, max_size=3).map(tuple))
choices = st.lists(st.builds(Choice, st.integers(0, 65535), st.none() | notes), max_size=50)


@settings(max_examples=examples(300), deadline=None)
@given(choices)
def test_a_trace_decodes_to_what_was_encoded(cs):
    assert decode(encode(cs)) == cs


def test_an_index_takes_one_byte_below_254_and_three_above():
    assert encode([0, 253, 254, 16383]) == bytes([1, 0, 253, 254, 254, 0, 254, 0xFF, 0x3F])


@settings(max_examples=examples(200), deadline=None)
@given(choices)
def test_the_cores_writer_and_the_python_encoder_write_the_same_bytes(cs):
    from core.paws_scenario import trace_bytes
    kinds = {v: k for k, v in trace.NOTE_KINDS.items()}
    given_ = [c.index if c.note is None else (c.index, (kinds[c.note.kind], c.note.budget, list(c.note.top)))
              for c in cs]
    assert trace_bytes(given_) == encode(cs)


@pytest.mark.parametrize("blob, message", [
    (b"", "empty (a trace starts with its version byte)"),
    (bytes([2, 0]), "byte 0: version 2; this playtest reads version 1"),
    (bytes([1, 254, 3]), "byte 1: the trace ends inside a wide option index"),
    (bytes([1, 254, 3, 0]), "byte 1: option index 3 written wide (it fits one byte)"),
    (bytes([1, 255, 1, 1]), "byte 1: the trace ends inside a note"),
    (bytes([1, 255, 9, 1, 64, 0, 0, 0, 0, 0]), "byte 2: note kind 9; expected one of 1, 2"),
    (bytes([1, 255, 1, 0, 64, 0, 0]), "byte 3: a note of 0 options; expected 1 to 3"),
    (bytes([1, 255, 1, 1, 64, 0, 0, 0x11, 0x27, 0]), "byte 7: a note's value 1.0001 is above 1"),
    (bytes([1, 255, 1, 1, 64, 0, 0, 0, 0]), "byte 1: a note with no choice after it"),
    (bytes([1, 255, 1, 1, 64, 0, 255]), "byte 6: a note where an option index belongs"),
])
def test_a_broken_trace_is_refused_naming_the_byte(blob, message):
    with pytest.raises(TraceError) as e:
        decode(blob)
    assert str(e.value) == message


@pytest.fixture(scope="module")
def search_game():
    m = match(SEARCH[0])
    record, blob = trace.core_game(m, 7, 2)
    return m, record, blob


def test_a_short_trace_names_the_decision_it_lacks(search_game):
    m, _, blob = search_game
    cs = decode(blob)
    with pytest.raises(TraceMismatch, match=rf"^decision {len(cs)} \(round \d+, Player \d, [a-z ]+\): the trace has "
                                            rf"only {len(cs) - 1} decisions; the game asks for more$"):
        trace.replay(m, 7, 2, encode(cs[:-1]))


def test_a_long_trace_is_refused_at_the_end(search_game):
    m, _, blob = search_game
    cs = decode(blob)
    with pytest.raises(TraceMismatch, match=rf"^the game ended after decision {len(cs)}; the trace has {len(cs) + 1}$"):
        trace.replay(m, 7, 2, encode(cs + [Choice(0)]))


def test_a_choice_beyond_the_options_is_refused(search_game):
    m, _, blob = search_game
    cs = decode(blob)
    cs[0] = Choice(200, cs[0].note)
    with pytest.raises(TraceMismatch, match=r"^decision 1 \(round \d+, Player \d, [a-z ]+\): the trace takes option "
                                            r"201 of \d+$"):
        trace.replay(m, 7, 2, encode(cs))


def test_an_altered_choice_of_a_checked_seat_names_the_first_decision_that_differs():
    """Seats 2-4 are heuristics: the reference engine's heuristic decides, and must take the recorded option."""
    m = match(("paws", {"bots": "mcts:iterations=4:depth=6,heuristic,heuristic,heuristic"}))
    _, blob = trace.core_game(m, 7, 2)
    cs = decode(blob)
    run = trace.TraceReplay(cs, m.definition.bot_specs(m.setup), m.definition.reference_bots(m.setup),
                            m.definition.option_words)
    asked: list[tuple[int, int]] = []            # (seat, options) of each decision, in order

    class Seen:
        def __init__(self, bot):
            self.bot = bot

        def decide(self, g, seat, kind, options):
            asked.append((seat, len(options)))
            return self.bot.decide(g, seat, kind, options)

    m.play_one(7, 2, None, bots=[Seen(b) for b in run.bots])
    run.finish()
    assert len(asked) == len(cs)
    k = next(i for i, (seat, _) in enumerate(asked) if seat != 0)
    was = cs[k].index
    cs[k] = Choice((was + 1) % asked[k][1])
    with pytest.raises(TraceMismatch) as e:
        trace.replay(m, 7, 2, encode(cs))
    text = str(e.value)
    assert text.startswith(f"decision {k + 1} (round ") and f", Player {asked[k][0] + 1}, " in text
    assert f": the core chose option {cs[k].index + 1} (" in text
    assert f"), the reference engine's heuristic bot option {was + 1} (" in text


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_mangled_trace_replays_or_is_refused_in_one_line(search_game, data):
    """Any bytes at all: the replay either plays a game or raises a TraceError of one line (never another
    exception)."""
    m, _, blob = search_game
    b = bytearray(blob)
    for _ in range(data.draw(st.integers(1, 4))):
        op = data.draw(st.sampled_from(["flip", "cut", "insert"]))
        at = data.draw(st.integers(0, max(0, len(b) - 1)))
        if op == "flip" and b:
            b[at] = data.draw(st.integers(0, 255))
        elif op == "cut":
            del b[at:at + data.draw(st.integers(1, 8))]
        else:
            b[at:at] = bytes(data.draw(st.lists(st.integers(0, 255), min_size=1, max_size=4)))
    try:
        trace.replay(m, 7, 2, bytes(b))
    except TraceError as e:
        assert "\n" not in str(e) and str(e)
