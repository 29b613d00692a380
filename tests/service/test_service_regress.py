"""The regress and tune job kinds (service/kind_regress.py): a regress job played to done, once against its own
baseline (pass) and once against a baseline with other values (regression), its verdict column and report page with
the failing cells' anchors; a tune job played to done with its answer page; refusals in one line, nothing stored."""

from __future__ import annotations

import json

import pytest
from regress_helpers import TINY_SUITE, TINY_TUNE, made_up_baseline, real_baseline
from service_helpers import Live, make_users, wait_state

from service.app import Settings, create_app

pytestmark = pytest.mark.service


@pytest.fixture(scope="module")
def baseline(tmp_path_factory) -> str:
    return real_baseline(tmp_path_factory.mktemp("regress-baseline"))


def seeded_regression(text: str) -> str:
    """The real baseline with other values: the first player won every game of the 2-player cell and the cell's
    games had another digest."""
    data = json.loads(text)
    cell = next(c for c in data["cells"] if c["values"] == {"players": 2})
    n = cell["metrics"]["seat_win_rate"]["first player"][1]
    cell["metrics"]["seat_win_rate"]["first player"] = [n, n]
    cell["records"] = {k: "f" * 64 for k in cell["records"]}
    return json.dumps(data)


@pytest.mark.slow
def test_a_regress_job_passes_against_its_baseline_and_finds_a_seeded_regression(tmp_path, baseline):
    with Live(tmp_path / "root") as live:
        users = make_users(live.app)
        api = users["edit"].api(live.app)
        jobs = {}
        for want, base in (("pass", baseline), ("regression", seeded_regression(baseline))):
            r = api.post("/api/runs", json={"kind": "regress", "suite": TINY_SUITE, "baseline": base,
                                            "title": f"tiny {want}"})
            assert r.status_code == 201, r.text
            assert r.json()["kind"] == "regress" and r.json()["games"] == 120
            jobs[want] = r.json()["id"]
        for want, job in jobs.items():
            got = wait_state(api, job, ("done", "failed"), timeout=240)
            assert got["state"] == "done", got
            row = live.app.state.catalog.job(job)
            assert row["verdict"] == want and row["kind"] == "regress"
        assert [r["id"] for r in live.app.state.catalog.jobs(verdict="regression")] == [jobs["regression"]]
        page = users["read"].page(live.app)
        run = page.get(f"/runs/{jobs['regression']}")
        assert run.status_code == 200 and f"/runs/{jobs['regression']}/report" in run.text
        report = page.get(f"/runs/{jobs['regression']}/report")
        assert report.status_code == 200 and "REGRESSION" in report.text
        assert "id='cell-c000'" in report.text                 # the per-cell section the failing cells link to
        assert "PASS" in page.get(f"/runs/{jobs['pass']}/report").text
        root = live.app.state.root
        assert (root / "runs" / jobs["pass"] / "seed-1" / "manifest.json").is_file()   # the games: --work


@pytest.mark.slow
def test_a_tune_job_plays_to_done_with_its_answer_page(tmp_path):
    with Live(tmp_path / "root") as live:
        users = make_users(live.app)
        api = users["edit"].api(live.app)
        r = api.post("/api/runs", json={"kind": "tune", "spec": TINY_TUNE})
        assert r.status_code == 201, r.text
        assert r.json()["cost"].startswith("2 cells, at most 400 games, about ") and r.json()["seconds"] > 0
        got = wait_state(api, r.json()["id"], ("done", "failed"), timeout=180)
        assert got["state"] == "done", got
        row = live.app.state.catalog.job(got["id"])
        assert row["verdict"].startswith("explorer_mansions_2p=")
        page = users["read"].page(live.app)
        assert f"/runs/{got['id']}/pages/answer" in page.get(f"/runs/{got['id']}").text
        answer = page.get(f"/runs/{got['id']}/pages/answer")
        assert answer.status_code == 200 and "id='best'" in answer.text and row["verdict"] in answer.text
        assert answer.headers["content-security-policy"].startswith("sandbox")
        assert page.get(f"/runs/{got['id']}/sql").status_code == 200          # a race is a sweep folder


@pytest.mark.parametrize("inputs, said", [
    ({"suite": TINY_SUITE, "baseline": "{not json"}, "baseline.json: corrupt baseline: not valid JSON"),
    ({"suite": TINY_SUITE, "baseline": json.dumps({"format": "other"})}, "baseline.json: not a regression baseline"),
    ({"suite": TINY_SUITE, "baseline": made_up_baseline().replace('"games_per_cell": 60', '"games_per_cell": 61')},
     "baseline.json: corrupt baseline"),
    ({"suite": TINY_SUITE.replace("players = [2, 3]", "players = [2, 4]"), "baseline": made_up_baseline()},
     "is not a cell of suite.toml"),
    ({"suite": "x = " * 100_000, "baseline": made_up_baseline()}, "suite.toml: 400,000 bytes; at most 262,144"),
    ({"suite": "", "baseline": made_up_baseline()}, "suite.toml: empty"),
    ({"suite": TINY_SUITE + "bogus = 1\n", "baseline": made_up_baseline()}, "unknown key 'bogus'; valid:"),
])
def test_bad_regress_inputs_are_refused_in_one_line(quiet_app, inputs, said):
    users = make_users(quiet_app)
    r = users["edit"].api(quiet_app).post("/api/runs", json={"kind": "regress", **inputs})
    assert r.status_code in (400, 413), r.text
    if r.status_code == 400:
        error = r.json()["error"]
        assert said in error and "\n" not in error, error
        assert str(quiet_app.state.root) not in error            # never a server path
    assert quiet_app.state.catalog.jobs() == []


def test_a_bad_tune_spec_is_refused_in_one_line_with_the_allowed_values(quiet_app):
    users = make_users(quiet_app)
    r = users["edit"].api(quiet_app).post("/api/runs", json={"kind": "tune", "spec": TINY_TUNE.replace(
        'target = 0.5', 'target = 0.5\ncombine = "best"')})
    assert r.status_code == 400
    error = r.json()["error"]
    assert error.startswith("tune.toml:") and "combine" in error and "\n" not in error, error
    assert quiet_app.state.catalog.jobs() == []


def test_the_regress_form_takes_uploads_and_shows_the_cost(tmp_path):
    app = create_app(Settings(root=tmp_path / "root"), start_runner=False)
    users = make_users(app)
    ed = users["edit"]
    c = ed.page(app)
    form = c.get("/submit?kind=regress")
    assert form.status_code == 200 and "name='baseline_file'" in form.text and "name='suite'" in form.text
    r = c.post("/submit", data={"csrf": ed.csrf, "kind": "regress", "action": "check"},
               files={"suite_file": ("s.toml", TINY_SUITE.encode()),
                      "baseline_file": ("b.json", made_up_baseline().encode())})
    assert r.status_code == 200 and "2 cells, 120 games, about " in r.text, r.text[-2000:]
    assert "from start to end (from a pilot on this machine, not yet calibrated on a finished run) (tiny-nightly, " \
        "paws)" in r.text  # the seeds' time, piloted
    r = c.post("/submit", data={"csrf": ed.csrf, "kind": "regress", "action": "check", "suite": TINY_SUITE,
                                "baseline": "<script>alert(1)</script>"})
    assert r.status_code == 400 and "<script>alert" not in r.text and "&lt;script&gt;" in r.text
    app.state.catalog.close()
