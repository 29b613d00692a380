"""The default table never cuts a number: columns that do not fit are left out, and a last line names them."""

import re

from hypothesis import given, settings
from hypothesis import strategies as st
from budget import examples

from cli.common import fit_table

NAMES = st.text("abcdefghij_", min_size=1, max_size=14)
VALUES = st.one_of(st.integers(-10**9, 10**12).map(str), st.floats(0, 1).map(lambda f: f"{f:.4f}"),
                   st.text("abc xyz", min_size=1, max_size=16).map(str.strip).filter(bool))


@settings(max_examples=examples(60), deadline=None)
@given(columns=st.lists(NAMES, min_size=1, max_size=12, unique=True), width=st.integers(30, 200), data=st.data())
def test_every_shown_value_is_whole_and_every_hidden_column_is_named(columns, width, data):
    rows = data.draw(st.lists(st.lists(VALUES, min_size=len(columns), max_size=len(columns)), min_size=1,
                              max_size=4))
    out = fit_table("q", columns, rows, width=width)
    hint = re.search(r"\((\d+) more columns? not shown: (.*); --format csv", out)
    hidden = hint.group(2).split(", ") if hint else []
    shown = columns[:len(columns) - len(hidden)]
    assert hidden == columns[len(shown):] and shown            # the leftmost (the cell's keys) always stay
    body = out.split("\n(")[0]
    cells = [[c.strip() for c in line.strip("│").split("│")] for line in body.splitlines() if line.startswith("│")]
    assert cells == [r[:len(shown)] for r in rows]              # whole values, none cut or wrapped
    if len(shown) > 1:
        assert max(len(line) for line in body.splitlines()) <= width


def test_seat_advantage_in_a_120_column_terminal_keeps_5000_whole():
    cols = ["ruleset", "board", "players", "round_limit", "who", "games", "wins", "win_rate", "ci95_low",
            "ci95_high", "fair_share"]
    out = fit_table("seat_advantage", cols, [["v4", "beginner", "2", "0", "first player", "5000", "2554", "0.5108",
                                              "0.4980", "0.5235", "0.5000"]], width=120)
    assert "│  5000 │" in out and "…" not in out and "not shown: fair_share;" in out
