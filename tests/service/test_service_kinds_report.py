"""The report job kind (service/kind_report.py): a done run reported again with --target and --behind-after, through
the API and the form, into its own page, summary and verdict card; no results of its own; refusals in one line with
nothing stored."""

from __future__ import annotations

import httpx
import pytest
from results_helpers import give_results, sweep_folder  # noqa: F401 - a fixture
from service_helpers import Live, csrf_of, fake_done_job, make_users, wait_state

pytestmark = pytest.mark.service

XSS = "<script>alert(1)</script>"


@pytest.mark.slow
def test_a_run_reported_again_with_its_options_from_the_api_and_the_form(tmp_path, sweep_folder):  # noqa: F811
    with Live(tmp_path / "root") as live:
        users = make_users(live.app)
        source = fake_done_job(live.app, users["edit"], title="the sweep")
        give_results(live.app, source, sweep_folder)
        api = httpx.Client(base_url=live.url, headers={"Authorization": f"Bearer {users['edit'].token}"}, timeout=30)
        r = api.post("/api/runs", json={"kind": "report", "run": source, "target": "3-6", "behind_after": "2",
                                        "title": XSS, "description": XSS})
        assert r.status_code == 201, r.text
        assert r.json()["cost"] == f"2 cells (report of {source}, paws)"
        job = r.json()["id"]
        got = wait_state(api, job, ("done", "failed", "cancelled"))
        assert got["state"] == "done" and got["error"] is None, got
        assert got["summary"].startswith("400 games of Paws in Peril in 2 cell(s)")
        assert "players=2: Of the games somebody won, the first player wins" in got["verdict"]
        row = live.app.state.catalog.job(job)
        assert row["kind"] == "report"
        assert row["spec_text"] == f"playtest report runs/{source} --target 3-6 --behind-after 2"
        page = users["read"].page(live.app)
        run = page.get(f"/runs/{job}")
        assert "Open the report" in run.text and f"href='/runs/{job}/report'" in run.text and XSS not in run.text
        shown = page.get(f"/runs/{job}/report")
        assert shown.status_code == 200 and shown.headers["content-security-policy"].startswith("sandbox")
        assert "comebacks from behind after round 2" in shown.text and "players=4" in shown.text
        assert str(live.app.state.root) not in shown.text
        for route in ("sql", "queries", "download/games.csv"):         # no results folder of its own
            assert page.get(f"/runs/{job}/{route}").status_code == 404, route

        ed = users["edit"].page(live.app)
        form = ed.get("/submit", params={"kind": "report"})
        assert form.status_code == 200 and "name='target'" in form.text and "value='5-15'" in form.text
        data = {"csrf": csrf_of(form.text), "kind": "report", "run": source, "target": "5-15", "behind_after": "3"}
        checked = ed.post("/submit", data={**data, "action": "check"})
        assert checked.status_code == 200 and f"report of {source}" in checked.text
        started = ed.post("/submit", data={**data, "action": "start"}, follow_redirects=False)
        assert started.status_code == 303
        second = started.headers["location"].rsplit("/", 1)[1]
        assert wait_state(api, second, ("done", "failed", "cancelled"))["state"] == "done"
        assert "comebacks from behind after round 3" in page.get(f"/runs/{second}/report").text


@pytest.mark.parametrize("body, needle", [
    ({"run": "0123456789ab"}, "run: no run 0123456789ab on this service"),
    ({"run": "{queued}"}, "run: run {queued} is queued; only a done run can be read"),
    ({"run": "{bare}"}, "run: run {bare} has no results folder"),
    ({"run": "../runs/{done}"}, "is not a run id"),
    ({"run": XSS}, "is not a run id"),
    ({"run": ""}, "run: give a run id"),
    ({"run": "{done}", "target": "15-5"}, "--target '15-5': expected SHORTEST-LONGEST in rounds"),
    ({"run": "{done}", "target": XSS}, "target: 25 characters; at most 20"),
    ({"run": "{done}", "behind_after": "0"}, "--behind-after '0': expected an integer from 1 to 100000"),
    ({"run": "{done}", "behind_after": "x"}, "--behind-after 'x': expected an integer from 1 to 100000"),
])
def test_report_refusals_are_one_line_400_and_store_nothing(quiet_app, sweep_folder, body, needle):  # noqa: F811
    users = make_users(quiet_app)
    done = fake_done_job(quiet_app, users["edit"])
    give_results(quiet_app, done, sweep_folder)
    queued = fake_done_job(quiet_app, users["edit"])
    quiet_app.state.catalog.set_job(queued, state="queued")
    bare = fake_done_job(quiet_app, users["edit"])
    ids = {"done": done, "queued": queued, "bare": bare}
    body = {k: v.format(**ids) for k, v in body.items()}
    before = len(quiet_app.state.catalog.jobs())
    r = users["edit"].api(quiet_app).post("/api/runs", json={"kind": "report", **body})
    assert r.status_code == 400, r.text
    assert needle.format(**ids) in r.json()["error"] and "\n" not in r.json()["error"]
    form = users["edit"].page(quiet_app).post("/submit", data={"csrf": users["edit"].csrf, "kind": "report",
                                                               "action": "start", **body})
    assert form.status_code == 400 and XSS not in form.text
    assert len(quiet_app.state.catalog.jobs()) == before
