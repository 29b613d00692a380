"""The nightly trend chart, drawn by matplotlib like every other plot (regress.html.trend_plot): what it draws."""

import base64

from matplotlib.colors import to_hex

from regress.html import TREND_FLAGGED, TREND_LINE, trend_figure, trend_plot, trend_words

POINTS = [{"date": "2026-12-01", "code": "v1", "value": 0.5, "flagged": False},
          {"date": "2026-12-02", "code": "v1", "value": 0.55, "flagged": False},
          {"date": "2026-12-03", "code": "v2", "value": 0.8, "flagged": True},
          {"date": "2026-12-04", "code": "v3", "value": 0.6, "flagged": False}]


def test_one_dot_per_run_red_when_flagged_and_a_dashed_line_per_code_change():
    fig = trend_figure("first player", POINTS)
    ax = fig.axes[0]
    dots = ax.collections[0]
    assert [tuple(p) for p in dots.get_offsets()] == [(0, 0.5), (1, 0.55), (2, 0.8), (3, 0.6)]
    assert [to_hex(c) for c in dots.get_facecolors()] == [TREND_LINE, TREND_LINE, TREND_FLAGGED, TREND_LINE]
    dashed = [ln for ln in ax.lines if ln.get_linestyle() == "--"]
    assert [ln.get_xdata()[0] for ln in dashed] == [1.5, 2.5]       # v1 -> v2, v2 -> v3
    solid = [ln for ln in ax.lines if ln.get_linestyle() == "-"]
    assert len(solid) == 1 and list(solid[0].get_ydata()) == [0.5, 0.55, 0.8, 0.6]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["12-01\nv1", "12-02\nv1", "12-03\nv2", "12-04\nv3"]


def test_many_runs_label_the_first_and_last_and_one_run_draws_no_line():
    many = [{"date": f"2026-11-{d:02d}", "code": "v1", "value": d / 30, "flagged": False} for d in range(1, 13)]
    ax = trend_figure("m", many).axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["11-01\nv1", "11-12\nv1"]
    one = trend_figure("m", POINTS[:1]).axes[0]
    assert not one.lines and len(one.collections[0].get_offsets()) == 1


def test_the_page_gets_a_png_and_words_saying_what_it_shows():
    got = trend_plot("first player", POINTS)
    assert base64.b64decode(got["png"]).startswith(b"\x89PNG")
    assert got["alt"] == trend_words("first player", POINTS)
    assert got["alt"].startswith("first player across 4 runs, the code version changed 2 times, 1 flagged: ")
    assert "2026-12-03 code v2: 0.8 (flagged)" in got["alt"]
