"""What the service keeps between requests so that 50 users cost little during a sweep (docs/service.md, "Load"):
a kept console answer is the same statement over the same done parts, and a new part is a new answer; the shared
progress snapshot moves when the manifest changes; the console's gate answers 503 in one line when it is full."""

from __future__ import annotations

import functools
import threading
import time
from pathlib import Path

import pytest
from results_helpers import give_results, sweep_folder  # noqa: F401 - a fixture
from service_helpers import fake_done_job, make_users

from cluster.manifest import save_manifest
from queries import sources
from service import console, live
from service.app import Settings, create_app

pytestmark = pytest.mark.service


@pytest.fixture
def run(tmp_path, sweep_folder):  # noqa: F811
    """An app (runner not started) with users and one done run holding TINY's results (2 cells, a part each)."""
    app = create_app(Settings(root=tmp_path / "root"), start_runner=False)
    users = make_users(app)
    job = fake_done_job(app, users["edit"])
    out = give_results(app, job, sweep_folder)
    yield app, users, job, out
    app.state.catalog.close()


def set_part(out, state: str) -> None:
    """The second cell's part marked ``state`` in the run's manifest (saved, signed, as the sweep saves it)."""
    m = sources.read_manifest(out)
    m["cells"][1]["parts"][0]["state"] = state
    save_manifest(out, m)


def ask(app, who, job: str, sql: str):
    return who.page(app).post(f"/runs/{job}/sql", data={"csrf": who.csrf, "sql": sql})


def test_a_kept_console_answer_changes_when_a_new_part_lands(run, monkeypatch):
    app, users, job, out = run
    monkeypatch.setattr(console, "FRESH_S", 0.0)          # the snapshot looks at the manifest at every request
    set_part(out, "pending")
    sql = "SELECT count(*) AS games FROM games"
    first = ask(app, users["read"], job, sql)
    assert first.status_code == 200 and "<td>200</td>" in first.text and "(kept:" not in first.text
    again = ask(app, users["admin"], job, "  " + sql + "\n")   # the same statement (another user, other spaces)
    assert again.status_code == 200 and "<td>200</td>" in again.text and "(kept:" in again.text
    api = users["read"].api(app).post(f"/api/runs/{job}/sql", json={"sql": sql})
    assert api.status_code == 200 and api.json()["rows"] == [[200]]
    other = ask(app, users["read"], job, "SELECT count(*) AS n FROM games")   # another statement: its own answer
    assert other.status_code == 200 and "(kept:" not in other.text
    set_part(out, "done")                                   # the part lands
    landed = ask(app, users["read"], job, sql)
    assert landed.status_code == 200 and "<td>400</td>" in landed.text and "(kept:" not in landed.text
    assert users["read"].api(app).post(f"/api/runs/{job}/sql", json={"sql": sql}).json()["rows"] == [[400]]


def test_a_refused_or_failed_statement_is_not_kept(run):
    app, users, job, _ = run
    for _ in range(2):
        r = ask(app, users["read"], job, "SELECT no_such_column FROM games")
        assert r.status_code == 400 and "(kept:" not in r.text
    assert not app.state.console._answers


def test_the_kept_answers_are_bounded():
    shared = console.Shared(lambda out: ("parts", False), size=3)
    for i in range(5):
        shared.answer(Path("/r"), ("sql", "j", str(i)), console.ConsoleLimits(),
                      lambda i=i: console.Answer(["x"], [(i,)]))
    assert len(shared._answers) == 3
    kept = shared.answer(Path("/r"), ("sql", "j", "4"), console.ConsoleLimits(), lambda: console.Answer())
    assert kept.cached and kept.rows == [(4,)] and kept.stale_s is None


def test_while_the_sweep_plays_the_last_answer_is_shown_and_a_newer_one_made():
    now = {"fp": ("a", True)}
    shared = console.Shared(lambda out: now["fp"])
    made = threading.Event()

    def work(n):
        def run():
            if n == 2:
                made.set()
            return console.Answer(["n"], [(n,)])
        return run
    ask = functools.partial(shared.answer, Path("/r"), ("sql", "j", "q"), console.ConsoleLimits())
    first = ask(work(1))
    assert first.rows == [(1,)] and not first.cached
    now["fp"] = ("b", True)                                  # a part landed; the sweep plays on
    shown = ask(work(2))
    assert shown.rows == [(1,)] and shown.cached and shown.stale_s is not None
    assert made.wait(30)
    deadline = time.monotonic() + 30
    while shared._making and time.monotonic() < deadline:    # the background answer kept
        time.sleep(0.01)
    fresh = ask(work(3))
    assert fresh.rows == [(2,)] and fresh.cached and fresh.stale_s is None
    now["fp"] = ("c", False)                                 # the sweep ended: no older answer is shown
    assert ask(work(4)).rows == [(4,)]


def test_the_progress_snapshot_moves_when_the_manifest_changes(run, monkeypatch):
    app, users, job, out = run
    app.state.catalog.set_job(job, state="running", ended=None)
    set_part(out, "pending")
    api = users["read"].api(app)
    p = api.get(f"/api/runs/{job}/progress").json()["progress"]
    assert (p["parts_done"], p["games_done"]) == (1, 200)
    assert api.get(f"/api/runs/{job}").json()["progress"]["games_done"] == 200
    set_part(out, "done")
    monkeypatch.setattr(live, "MIN_REREAD_S", 0.0)        # no wait between snapshots (made in the background)
    deadline = time.monotonic() + 30
    while (p := api.get(f"/api/runs/{job}/progress").json()["progress"])["games_done"] != 400:
        assert p["games_done"] == 200 and time.monotonic() < deadline, p       # the last state until the new one
        time.sleep(0.01)
    assert (p["parts_done"], p["games_done"], p["cells"][1]["games_read"]) == (2, 400, 200)
    set_part(out, "pending")
    app.state.catalog.set_job(job, state="done", ended=2.0)   # an ended run: its manifest is looked at every time
    monkeypatch.setattr(live, "MIN_REREAD_S", 3600.0)
    p = api.get(f"/api/runs/{job}/progress").json()["progress"]
    assert (p["parts_done"], p["games_done"]) == (1, 200)
    assert api.get(f"/api/runs/{job}").json()["progress"]["games_done"] == 200


def test_a_snapshot_is_shared_until_the_file_changes(tmp_path):
    snaps = live.Snapshots()
    (tmp_path / "manifest.json").write_text("one")
    calls = []

    def read(out):
        calls.append(1)
        return (out / "manifest.json").read_text()
    hour = 3600.0
    assert [snaps.get(tmp_path, "text", read, every=hour) for _ in range(3)] == ["one"] * 3 and len(calls) == 1
    (tmp_path / "manifest.json").write_text("two, longer")
    assert snaps.get(tmp_path, "text", read, every=hour) == "one"          # not looked at again within `every`
    assert snaps.get(tmp_path, "text", read, fresh=True) == "two, longer" and len(calls) == 2
    assert snaps.get(tmp_path, "text", read, fresh=True) == "two, longer" and len(calls) == 2   # same file: kept
    assert snaps.get(tmp_path, "other", lambda out: "its own", every=hour) == "its own"        # one value per name
    assert snaps.get(tmp_path, "text", read, every=hour) == "two, longer" and len(calls) == 2


def test_the_console_answers_503_in_one_line_when_it_is_full(run):
    app, users, job, _ = run
    shared = app.state.console
    shared.wait_s = 0.01
    for _ in range(shared.at_once):                        # every turn taken
        assert shared.gate.acquire(timeout=1)
    try:
        r = ask(app, users["read"], job, "SELECT 1 AS one FROM games LIMIT 1")
        assert r.status_code == 503
        line = r.text.split("id='answer-error'>", 1)[1].split("</p>", 1)[0]
        assert line.startswith("the console is busy") and "\n" not in line
        api = users["read"].api(app).post(f"/api/runs/{job}/sql", json={"sql": "SELECT 2 AS two FROM games LIMIT 1"})
        assert api.status_code == 503 and api.json()["error"].startswith("the console is busy")
        assert "\n" not in api.json()["error"]
        q = users["read"].page(app).get(f"/runs/{job}/queries/first_player_advantage", params={"run": "1"})
        assert q.status_code == 503 and "the console is busy" in q.text
    finally:
        for _ in range(shared.at_once):
            shared.gate.release()
    r = ask(app, users["read"], job, "SELECT 1 AS one FROM games LIMIT 1")
    assert r.status_code == 200 and "<td>1</td>" in r.text
