"""Pages that answer the question asked (issue 40, item 8): a run's page and verdict card lead with what its spec
varies (a round limit: the games it ends and how many of those are ties, counted as SQL counts them; a team
target: length and stalls; otherwise the first player's edge); a finished job never reads as not started; the
cost estimate is a range calibrated on what this machine's finished runs took, and the run's page sets the time
it took beside it."""

from __future__ import annotations

import json

import pytest
from service_helpers import TINY, make_users

from cluster.spec import parse_spec
from cluster.sweep import run_sweep
from service import kinds
from service.app import verdict_card
from service.kinds import Checked, calibrated
from service.pages import no_progress, progress_html, time_text

pytestmark = pytest.mark.service


@pytest.fixture(scope="module")
def limited(tmp_path_factory):
    """Paws v4, 4 players, no round limit and a limit of 8 rounds: 300 games a cell."""
    d = tmp_path_factory.mktemp("limit")
    raw = {"name": "rl", "game": "paws", "rules": "v4", "seed": 2, "games_per_cell": 300,
           "setup": {"players": 4}, "grid": {"round_limit": [0, 8]}}
    run_sweep(parse_spec(raw, source="rl"), d / "rl", progress=False, workers=2)
    return d / "rl"


def test_a_round_limit_run_leads_with_the_games_the_limit_ends_and_its_ties(limited, tmp_path):
    import queries.report as rep
    from queries import connection
    r = rep.build(str(limited), tmp_path / "page.html")
    cells = {c.values["round_limit"]: c for c in r.cells}
    assert rep.headlines(r, cells["0"])[0].startswith("No round limit in this cell")
    con = connection.connect([str(limited)])
    try:
        ended, ties = con.execute(           # a tie: the limit ended it and nobody won (no winning seat)
            "SELECT count(*) FILTER (WHERE end_reason = 'round_limit'), count(*) FILTER (WHERE end_reason = "
            "'round_limit' AND coalesce(winner_seat, -1) < 0) FROM games WHERE CAST(round_limit AS VARCHAR) = '8'"
        ).fetchone()
    finally:
        con.close()
    head = rep.headlines(r, cells["8"])[0]
    c = cells["8"]
    k = dict(c.ends)["round_limit"]
    assert 0 < k < c.games
    assert head.startswith(f"The round limit (8) ends {rep.pct(k / c.games)} of games ({k:,} of {c.games:,}; 95%:")
    assert ended == k and 0 < ties < k
    assert f"{ties:,} of those are ties, nobody winning" in head, head
    # the first player's edge is still there, after the lead
    assert any(h.startswith("Of the games somebody won") for h in rep.headlines(r, c)[1:])
    page = (tmp_path / "page.html").read_text()
    assert page.index("No round limit in this cell") < page.index("Of the games somebody won")     # cell 0 first
    assert page.index("The round limit (8) ends") < page.rindex("Of the games somebody won")


def test_the_verdict_card_leads_with_the_lead_and_says_how_many_games_nobody_won():
    facts = {"games": 300, "code_version": "c", "spec_digest": "d", "cells": [
        {"label": "round_limit=8", "games": 300, "bots": ["heuristic in every seat"], "no_winner": 21,
         "headlines": ["The round limit (8) ends 25.3% of games (76 of 300; 95%: 20.7 to 30.5%); 21 of those are "
                       "ties, nobody winning (27.6%; 95%: 18.8 to 38.6%).", "Of the games somebody won, ..."],
         "ends": [["vp", 224], ["round_limit", 76]]}]}
    card = verdict_card({"title": "t", "spec_name": "rl", "game": "paws"}, facts, "http://x/runs/1")
    line = [x for x in card.splitlines() if x.startswith("- round_limit=8")][0]
    assert line.startswith("- round_limit=8: The round limit (8) ends 25.3% of games")
    assert "Nobody wins: 7.0%." in line and "round_limit 25.3%" in line


@pytest.mark.parametrize("job, says", [
    ({"state": "done", "games": 0}, "Done: this job played no games (it reads finished runs); its answer is below."),
    ({"state": "done", "games": 400}, "Done: its 400 games were played (the results are below)."),
    ({"state": "queued", "games": 400}, "Queued: waiting for its turn; no game played yet."),
    ({"state": "running", "games": 400}, "Started: no part of its sweep has finished yet."),
    ({"state": "failed", "games": 400}, "Failed before any part of a sweep was recorded."),
])
def test_no_manifest_is_said_as_the_state_is(job, says):
    assert no_progress(job) == says
    assert "No progress yet" not in progress_html(None, job)


def test_a_finished_comparison_page_never_says_not_started(quiet_app):
    users = make_users(quiet_app)
    catalog = quiet_app.state.catalog
    owner = catalog.user_by_token(users["edit"].token)
    job = catalog.add_job(owner=owner, title="a comparison", description="", spec_name="compare a vs b",
                          game="paws", spec_text="playtest compare runs/a runs/b", cells=0, games=0, kind="compare")
    catalog.set_job(job, state="done", started=10.0, ended=13.0)
    page = users["read"].page(quiet_app).get(f"/runs/{job}").text
    for stale in ("No progress yet", "has not written its manifest", "waiting for the first finished part",
                  "not started"):
        assert stale not in page
    assert "Done: this job played no games" in page


def test_an_eighty_times_slow_pilot_is_corrected_by_the_runs_it_was_wrong_about():
    """The issue's numbers: a pilot said 47 min for a sweep that took 35 s. Calibrated on that run, the next
    sweep of the same size is estimated within 2x of 35 s and its range holds 35 s; half the size, about half."""
    assert calibrated(47 * 60, []).low == (kinds.START_S + 47 * 60) / 2                 # x2 either way, uncalibrated
    history = [(47 * 60, 35.0)]
    est = calibrated(47 * 60, history)
    assert est.low <= 35 <= est.high and est.high / est.low <= kinds.MAX_SPREAD ** 2
    mid = (est.low * est.high) ** 0.5
    assert 35 / 2 <= mid <= 35 * 2
    half = calibrated(47 * 30, history)
    assert half.high < est.high and half.low >= kinds.START_S / kinds.MAX_SPREAD
    # three runs, each pilot off by its own factor around x80: the range takes in the worst of them
    runs = [(2820, 35.0), (600, 12.0), (5000, 70.0)]
    wide = calibrated(1000, runs)
    for p, t in runs:
        got = calibrated(p, runs)
        assert got.low <= t <= got.high, (p, t, got)
    assert wide.runs == 3 and "calibrated on the 3 latest finished run(s)" in wide.words()


def test_the_cost_is_a_range_and_the_run_page_sets_the_time_taken_beside_it(quiet_app):
    users = make_users(quiet_app)
    catalog = quiet_app.state.catalog
    api = users["edit"].api(quiet_app)
    said = api.post("/api/runs", json={"spec": TINY, "check_only": True}).json()
    if said.get("seconds") is None:
        pytest.skip("the pilot was not run (another pilot at once, or it outlasted its wait)")
    assert said["estimate"]["runs"] == 0 and said["estimate"]["low_s"] < said["estimate"]["high_s"]
    assert " to " in said["cost"] and "not yet calibrated" in said["cost"]
    # a finished run of the kind, its pilot 10x too slow: the next cost is calibrated on it
    owner = catalog.user_by_token(users["edit"].token)
    done = catalog.add_job(owner=owner, title="done", description="", spec_name="tiny", game="paws",
                           spec_text=TINY, cells=2, games=400, pilot_s=said["seconds"] * 10, estimate="1 s to 2 s")
    catalog.set_job(done, state="done", started=100.0, ended=100.0 + kinds.START_S + said["seconds"])
    assert catalog.timings("sweep") == [(pytest.approx(said["seconds"] * 10), pytest.approx(kinds.START_S +
                                                                                            said["seconds"]))]
    again = api.post("/api/runs", json={"spec": TINY, "check_only": True}).json()
    if again.get("seconds") is not None:
        assert again["estimate"]["runs"] == 1 and "calibrated on the 1 latest finished run(s)" in again["cost"]
    page = users["read"].page(quiet_app).get(f"/runs/{done}").text
    assert "estimated 1 s to 2 s; took " in page
    started = api.post("/api/runs", json={"spec": TINY, "title": "queued"}).json()
    row = catalog.job(started["id"])
    if row["pilot_s"] is not None:            # what was shown before Start is kept with the run
        assert row["estimate"] == calibrated(row["pilot_s"], catalog.timings("sweep")).text()
        assert time_text(row) == f"estimated {row['estimate']}"


def test_time_text_of_a_run_without_a_pilot():
    assert time_text({"estimate": "", "state": "done", "started": 1.0, "ended": 36.0}) == \
        "not estimated (no pilot); took 35 s"
    assert time_text({"estimate": "20 s to 1 min", "state": "queued", "started": None, "ended": None}) == \
        "estimated 20 s to 1 min"


def test_checked_cost_words_without_a_catalog():
    c = Checked(kind="sweep", name="tiny", game="paws", cells=2, games=400, text="", seconds=2.0)
    assert c.cost() == f"2 cells, 400 games, about {calibrated(2.0, []).text()} from start to end (from a pilot on " \
                       "this machine, not yet calibrated on a finished run) (tiny, paws)"
    assert json.dumps(calibrated(2.0, []).__dict__)
