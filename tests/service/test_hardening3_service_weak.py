"""The weaker items of the service's third hardening round, each fixed: the replay pages' cache is bounded (pages and
bytes, the least recently shown removed first), and the others below."""

from __future__ import annotations

import os

import pytest

from service import replays

pytestmark = pytest.mark.service


# the replay cache ---------------------------------------------------------------------------------------------------

def pages(root, spec: dict[str, tuple[int, float]]):
    """Replay pages ``{"JOB/NAME": (bytes, last shown)}`` under ``root``'s jobs."""
    out = {}
    for key, (size, when) in spec.items():
        job, name = key.split("/")
        f = root / "jobs" / job / "replays" / f"{name}.html"
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_bytes(b"x" * size)
        os.utime(f, (when, when))
        out[key] = f
    return out


def left(files: dict) -> set[str]:
    return {k for k, f in files.items() if f.exists()}


def test_the_least_recently_shown_pages_go_first_past_the_count(tmp_path):
    files = pages(tmp_path, {"a/c000-1": (10, 1000.0), "a/c000-2": (10, 3000.0), "b/c001-0": (10, 2000.0),
                             "b/c001-5": (10, 4000.0)})
    assert replays.keep_within(tmp_path, pages=2, size=10**9, now=10**6) == 2
    assert left(files) == {"a/c000-2", "b/c001-5"}


def test_past_the_bytes_pages_go_until_the_rest_fits(tmp_path):
    files = pages(tmp_path, {"a/c000-1": (600, 1000.0), "a/c000-2": (300, 2000.0), "b/c001-0": (300, 3000.0)})
    assert replays.keep_within(tmp_path, pages=100, size=700, now=10**6) == 1
    assert left(files) == {"a/c000-2", "b/c001-0"}
    assert replays.keep_within(tmp_path, pages=100, size=700, now=10**6) == 0


def test_a_page_shown_in_the_last_minute_stays(tmp_path):
    files = pages(tmp_path, {"a/c000-1": (10, 1000.0), "a/c000-2": (10, 1990.0)})
    assert replays.keep_within(tmp_path, pages=0, size=0, now=2000.0) == 1
    assert left(files) == {"a/c000-2"}


def test_showing_a_kept_page_makes_it_the_last_to_go(tmp_path):
    files = pages(tmp_path, {"0123456789ab/c000-1": (10, 1000.0), "0123456789ab/c000-2": (10, 2000.0)})
    assert replays.draw(tmp_path, "0123456789ab", "c000", 1) == files["0123456789ab/c000-1"]   # kept: no child
    replays.keep_within(tmp_path, pages=1, size=10**9, now=files["0123456789ab/c000-1"].stat().st_mtime + 3600)
    assert left(files) == {"0123456789ab/c000-1"}
