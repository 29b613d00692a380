"""The compare job kind (service/kind_compare.py): two done runs A vs B (or one split by a parameter) submitted through
the API and the form, played to done by the runner, its page (both runs' cells, no server path, sandboxed), its verdict
in the catalog, no results of its own (the console's routes answer 404); refusals in one line with nothing stored."""

from __future__ import annotations

import httpx
import pytest
from results_helpers import give_results, sweep_folder  # noqa: F401 - a fixture
from service_helpers import Live, csrf_of, fake_done_job, make_users, wait_state

pytestmark = pytest.mark.service

XSS = "<script>alert(1)</script>"


@pytest.mark.slow
def test_compare_two_runs_from_the_api_and_one_run_by_players_from_the_form(tmp_path, sweep_folder):  # noqa: F811
    with Live(tmp_path / "root") as live:
        users = make_users(live.app)
        a = fake_done_job(live.app, users["edit"], title="run A")
        b = fake_done_job(live.app, users["edit"], title="run B")
        for job in (a, b):
            give_results(live.app, job, sweep_folder)
        api = httpx.Client(base_url=live.url, headers={"Authorization": f"Bearer {users['edit'].token}"}, timeout=30)
        checked = api.post("/api/runs", json={"kind": "compare", "a": a, "b": b, "check_only": True})
        assert checked.status_code == 200 and checked.json()["cost"] == f"no games to play (compare {a} vs {b}, paws)"
        r = api.post("/api/runs", json={"kind": "compare", "a": a, "b": b, "title": XSS, "description": XSS})
        assert r.status_code == 201, r.text
        job = r.json()["id"]
        got = wait_state(api, job, ("done", "failed", "cancelled"))
        assert got["state"] == "done" and got["error"] is None, got
        row = live.app.state.catalog.job(job)
        assert row["kind"] == "compare" and row["verdict"] == "no real difference"   # the same games on both sides
        page = users["read"].page(live.app)
        run = page.get(f"/runs/{job}")
        assert "Open the comparison" in run.text and f"href='/runs/{job}/pages/compare'" in run.text
        assert XSS not in run.text and "&lt;script&gt;" in run.text
        shown = page.get(f"/runs/{job}/pages/compare")
        assert shown.status_code == 200 and shown.headers["content-security-policy"].startswith("sandbox")
        assert "players=2" in shown.text and "players=4" in shown.text          # both runs' matched cells
        assert f"A = run {a}; B = run {b}" in shown.text and str(live.app.state.root) not in shown.text
        assert "no real difference in any of the" in shown.text
        # no results folder of its own: the console, the queries and the downloads are 404
        for route in ("sql", "queries", "queries/round_limit", "download/games.csv"):
            assert page.get(f"/runs/{job}/{route}").status_code == 404, route
        assert api.post(f"/api/runs/{job}/sql", json={"sql": "SELECT 1"}).status_code == 404
        assert page.get(f"/runs/{job}/pages/nothing").status_code == 404
        assert page.get(f"/runs/{job}/pages/report").status_code == 404

        # one run split by players, from the form: 2 players against 4 is a real difference
        ed = users["edit"].page(live.app)
        form = ed.get("/submit", params={"kind": "compare"})
        assert form.status_code == 200 and "name='by'" in form.text and "name='a'" in form.text
        csrf = csrf_of(form.text)
        data = {"csrf": csrf, "kind": "compare", "a": a, "by": "players", "adjust": "bh", "title": "by players"}
        cost = ed.post("/submit", data={**data, "action": "check"})
        assert cost.status_code == 200 and f"compare {a} by players" in cost.text
        started = ed.post("/submit", data={**data, "action": "start"}, follow_redirects=False)
        assert started.status_code == 303, started.text
        second = started.headers["location"].rsplit("/", 1)[1]
        got = wait_state(api, second, ("done", "failed", "cancelled"))
        assert got["state"] == "done", got
        assert live.app.state.catalog.job(second)["verdict"] == "real difference"
        split = page.get(f"/runs/{second}/pages/compare").text
        assert "players 2 vs 4" in split and "Benjamini-Hochberg" in split and "A = players=2; B = players=4" in split
        assert f"playtest compare runs/{a} --by players --adjust bh" in split
        listed = page.get("/runs", params={"verdict": "real difference"}).text
        assert f"/runs/{second}" in listed and f"/runs/{job}'" not in listed and XSS not in listed
        assert [r["id"] for r in api.get("/api/runs", params={"verdict": "no real difference"}).json()["runs"]] == [job]

        # a baseline no game has: the job fails with the library's one line, escaped on every page
        r = api.post("/api/runs", json={"kind": "compare", "a": a, "by": "players", "baseline": XSS})
        assert r.status_code == 201, r.text
        failed = wait_state(api, r.json()["id"], ("done", "failed", "cancelled"))
        assert failed["state"] == "failed" and failed["error"].startswith("--baseline '<script>"), failed
        assert str(live.app.state.root) not in failed["error"]
        shown = page.get(f"/runs/{r.json()['id']}").text
        assert XSS not in shown and "--baseline &#x27;&lt;script&gt;" in shown


@pytest.fixture
def runs(quiet_app, sweep_folder):  # noqa: F811
    users = make_users(quiet_app)
    done = fake_done_job(quiet_app, users["edit"], title="done")
    give_results(quiet_app, done, sweep_folder)
    other = fake_done_job(quiet_app, users["edit"], title="other")
    give_results(quiet_app, other, sweep_folder)
    queued = fake_done_job(quiet_app, users["edit"], title="queued")
    quiet_app.state.catalog.set_job(queued, state="queued")
    bare = fake_done_job(quiet_app, users["edit"], title="no results")
    return users, done, other, queued, bare


@pytest.mark.parametrize("body, needle", [
    ({"a": "0123456789ab", "b": "{done}"}, "run A: no run 0123456789ab on this service"),
    ({"a": "{queued}", "b": "{done}"}, "run A: run {queued} is queued; only a done run can be read"),
    ({"a": "{done}", "b": "{bare}"}, "run B: run {bare} has no results folder"),
    ({"a": "../../etc/passwd", "b": "{done}"}, "run A: '../../etc/passwd' is not a run id"),
    ({"a": "{done}", "b": "/etc"}, "run B: '/etc' is not a run id"),
    ({"a": XSS, "b": "{done}"}, "is not a run id"),
    ({"a": "{done}"}, "run B: give a second run"),
    ({"a": "{done}", "b": "{done}"}, "the same run as run A"),
    ({"a": "{done}", "b": "{other}", "by": "players"}, "by players: splits one run"),
    ({"a": "{done}", "by": "nothing_like_it"}, "by 'nothing_like_it' is not a setup column or rule parameter"),
    ({"a": "{done}", "b": "{other}", "adjust": "bonferroni"}, "adjust 'bonferroni' is not available; expected one of "
                                                             "holm, bh"),
    ({"a": "{done}", "b": "{other}", "where": "players = 4; DROP TABLE games"}, "--where"),
    ({"a": "{done}", "b": "{other}", "where": "read_text('/etc/passwd') <> ''"}, "--where"),
    ({"a": "{done}", "b": "{other}", "baseline": "2"}, "baseline: goes with by"),
])
def test_refusals_are_one_line_400_and_store_nothing(quiet_app, runs, body, needle):
    users, done, other, queued, bare = runs
    ids = {"done": done, "other": other, "queued": queued, "bare": bare}
    body = {k: v.format(**ids) for k, v in body.items()}
    before = len(quiet_app.state.catalog.jobs())
    r = users["edit"].api(quiet_app).post("/api/runs", json={"kind": "compare", **body})
    assert r.status_code == 400, r.text
    error = r.json()["error"]
    assert needle.format(**ids) in error and "\n" not in error and str(quiet_app.state.root) not in error
    assert len(quiet_app.state.catalog.jobs()) == before
    page = users["edit"].page(quiet_app)
    form = page.post("/submit", data={"csrf": users["edit"].csrf, "kind": "compare", "action": "start", **body})
    assert form.status_code == 400 and XSS not in form.text
    assert len(quiet_app.state.catalog.jobs()) == before


@pytest.mark.slow
def test_playtest_submit_takes_a_kind_and_its_fields(tmp_path, sweep_folder):  # noqa: F811
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from typer.testing import CliRunner
    from cli.main import app as cli_app
    with Live(tmp_path / "root") as live:
        users = make_users(live.app)
        a = fake_done_job(live.app, users["edit"], title="run A")
        b = fake_done_job(live.app, users["edit"], title="run B")
        for job in (a, b):
            give_results(live.app, job, sweep_folder)
        where = tmp_path / "where.txt"
        where.write_text("players = 2")
        base = ["submit", "--server", live.url, "--token", users["edit"].token, "--kind", "compare"]
        r = CliRunner().invoke(cli_app, [*base, "--field", f"a={a}", "--field", f"b={b}", "--field",
                                         f"where=@{where}", "--wait", "--timeout", "90"])
        assert r.exit_code == 0, r.output
        job = r.output.splitlines()[0].rsplit("/", 1)[1]
        row = live.app.state.catalog.job(job)
        assert row["state"] == "done" and row["verdict"] == "no real difference"
        assert row["spec_text"] == f"playtest compare runs/{a} runs/{b} --where 'players = 2' --adjust holm --html ."
        bad = CliRunner().invoke(cli_app, [*base, "--field", f"a={a}", "--field", "b=0123456789ab"])
        assert bad.exit_code == 2 and "run B: no run 0123456789ab on this service" in bad.output
        assert bad.output.strip().count("\n") == 0
        odd = CliRunner().invoke(cli_app, [*base, "--field", "a"])
        assert odd.exit_code == 2 and "--field 'a': expected NAME=VALUE" in odd.output
