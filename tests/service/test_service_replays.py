"""Replay pages per run (service/replays.py): on a done run with results, the form (cell, game index) and the replay of
that one game, byte for byte the page ``playtest play --from DIR --cell ID --game-index N --html`` writes, served
sandboxed and cached; bounded inputs refused in one line (400), runs without results 404."""

from __future__ import annotations

import subprocess
import sys

import pytest
from results_helpers import give_results, sweep_folder  # noqa: F401 - a fixture
from service_helpers import fake_done_job, make_users

from service.runner import layout

pytestmark = pytest.mark.service

XSS = "<script>alert(1)</script>"


@pytest.fixture
def run(quiet_app, sweep_folder):  # noqa: F811
    users = make_users(quiet_app)
    job = fake_done_job(quiet_app, users["edit"], title=XSS)
    give_results(quiet_app, job, sweep_folder)
    return users, job


def test_a_game_of_a_run_is_drawn_as_playtest_play_draws_it(quiet_app, run, sweep_folder, tmp_path):  # noqa: F811
    users, job = run
    page = users["read"].page(quiet_app)
    shown = page.get(f"/runs/{job}")
    assert f"href='/runs/{job}/replay'" in shown.text
    form = page.get(f"/runs/{job}/replay")
    assert form.status_code == 200 and XSS not in form.text
    assert "<option value='c000'>c000: players=2</option>" in form.text and "c001: players=4" in form.text
    assert "0 to 199" in form.text
    got = page.get(f"/runs/{job}/replay/game", params={"cell": "c001", "index": "5"})
    assert got.status_code == 200, got.text
    assert got.headers["content-security-policy"].startswith("sandbox")
    assert "sweep &#x27;tiny&#x27;, cell c001, game 5" in got.text or "cell c001, game 5" in got.text
    mine = tmp_path / "cli.html"
    r = subprocess.run([sys.executable, "-c", "from cli.main import app; app()", "play", "--from", str(sweep_folder),
                        "--cell", "c001", "--game-index", "5", "--html", str(mine)], capture_output=True, text=True,
                       timeout=120, check=False)
    assert r.returncode == 0, r.stderr
    assert got.text == mine.read_text(encoding="utf-8")                 # the CLI's page, byte for byte
    cached = layout(quiet_app.state.root, job)["own"] / "replays" / "c001-5.html"
    assert cached.is_file()
    assert page.get(f"/runs/{job}/replay/game", params={"cell": "c001", "index": "5"}).text == got.text


@pytest.mark.parametrize("params, needle", [
    ({"cell": "c999", "index": "0"}, "cell &#x27;c999&#x27;: expected one of c000, c001"),
    ({"cell": "../../etc/passwd", "index": "0"}, "cell &#x27;../../etc/passwd&#x27;: expected one of c000, c001"),
    ({"cell": XSS, "index": "0"}, "cell &#x27;&lt;script&gt;alert(1)&lt;/sc"),
    ({"index": "0"}, "cell &#x27;&#x27;: expected one of c000, c001"),
    ({"cell": "c000", "index": "200"}, "index &#x27;200&#x27;: expected an integer from 0 to 199"),
    ({"cell": "c000", "index": "-1"}, "index &#x27;-1&#x27;: expected an integer from 0 to 199"),
    ({"cell": "c000", "index": "1e3"}, "index &#x27;1e3&#x27;: expected an integer"),
    ({"cell": "c000", "index": "9" * 40}, "expected an integer from 0 to 199"),
    ({"cell": "c000", "index": XSS}, "index &#x27;&lt;script&gt;"),
    ({"cell": "c000"}, "index &#x27;&#x27;: expected an integer"),
])
def test_bad_inputs_are_one_line_400(quiet_app, run, params, needle):
    users, job = run
    r = users["read"].page(quiet_app).get(f"/runs/{job}/replay/game", params=params)
    assert r.status_code == 400 and needle in r.text, r.text[-600:]
    assert XSS not in r.text and r.text.count("class='error'") == 1
    assert not (layout(quiet_app.state.root, job)["own"] / "replays").exists() or \
        not any((layout(quiet_app.state.root, job)["own"] / "replays").iterdir())


def test_runs_without_results_and_anonymous_callers(quiet_app, run):
    users, job = run
    page = users["read"].page(quiet_app)
    bare = fake_done_job(quiet_app, users["edit"])                     # done, no results folder
    queued = fake_done_job(quiet_app, users["edit"])
    quiet_app.state.catalog.set_job(queued, state="queued")
    for other in (bare, queued, "0123456789ab", "..", "%2e%2e%2fetc"):
        for route in ("replay", "replay/game?cell=c000&index=0"):
            assert page.get(f"/runs/{other}/{route}").status_code == 404, (other, route)
    assert f"/runs/{bare}/replay" not in page.get(f"/runs/{bare}").text
    anon = users["anonymous"].page(quiet_app)
    r = anon.get(f"/runs/{job}/replay/game", params={"cell": "c000", "index": "0"}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/login"
