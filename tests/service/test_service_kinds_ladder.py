"""The ladder job kind (service/kind_ladder.py): a two-bot ladder submitted through the API and the form, played by
``playtest ladder`` in the runner's child, its page (ratings with intervals and the win matrix, names escaped), the
top bot as the catalog's verdict, its results readable in the SQL console; refusals in one line, nothing stored."""

from __future__ import annotations

import httpx
import pytest
from service_helpers import Live, csrf_of, make_users, wait_state

from service.runner import layout

pytestmark = pytest.mark.service

XSS = "<script>alert(1)</script>"


@pytest.mark.slow
def test_a_ladder_from_the_api_and_the_form_is_played_rated_and_drawn(tmp_path):
    with Live(tmp_path / "root") as live:
        users = make_users(live.app)
        api = httpx.Client(base_url=live.url, headers={"Authorization": f"Bearer {users['edit'].token}"}, timeout=30)
        body = {"kind": "ladder", "game": "paws", "bots": "random, heuristic", "games": "60", "seed": "7"}
        cost = api.post("/api/runs", json={**body, "check_only": True})
        assert cost.status_code == 200, cost.text
        assert cost.json()["cells"] == 2 and cost.json()["games"] == 120            # 2 line-ups x 60 games
        assert cost.json()["seconds"] > 0 and ", about " in cost.json()["cost"]      # each bot timed, as the CLI does
        r = api.post("/api/runs", json={**body, "title": XSS})
        assert r.status_code == 201, r.text
        job = r.json()["id"]
        got = wait_state(api, job, ("done", "failed", "cancelled"), timeout=180)
        assert got["state"] == "done" and got["error"] is None, got
        row = live.app.state.catalog.job(job)
        assert row["kind"] == "ladder" and row["verdict"] == "heuristic" and row["games"] == 120
        assert row["spec_text"] == "playtest ladder paws --bots random,heuristic --games 60 --seed 7"
        out = layout(live.app.state.root, job)["out"]
        assert (out / "ladder.json").is_file() and (out / "manifest.json").is_file()
        page = users["read"].page(live.app)
        run = page.get(f"/runs/{job}")
        assert "Open the ladder" in run.text and XSS not in run.text
        drawn = page.get(f"/runs/{job}/pages/ladder")
        assert drawn.status_code == 200 and drawn.headers["content-security-policy"].startswith("sandbox")
        assert "<script" not in drawn.text and "http" not in drawn.text.split("</style>", 1)[1]
        assert "<td>heuristic</td>" in drawn.text and "<td>random</td>" in drawn.text
        assert "id='ratings'" in drawn.text and "id='matrix'" in drawn.text and "95% low" in drawn.text
        assert page.get(f"/runs/{job}/sql").status_code == 200                  # a sweep's results: the console
        games = api.post(f"/api/runs/{job}/sql", json={"sql": "SELECT count(*) AS n FROM games"}).json()
        assert games["rows"] == [[120]]

        ed = users["edit"].page(live.app)
        form = ed.get("/submit", params={"kind": "ladder"})
        assert form.status_code == 200 and "name='bots'" in form.text and "<option selected>paws</option>" in form.text
        data = {"csrf": csrf_of(form.text), "kind": "ladder", "game": "paws", "bots": f"random,{XSS}",
                "games": "10", "action": "check"}
        refused = ed.post("/submit", data=data)
        assert refused.status_code == 400 and XSS not in refused.text and "&lt;script&gt;" in refused.text
        ok = ed.post("/submit", data={**data, "bots": "random,heuristic:aggression=5"})
        assert ok.status_code == 200 and "2 cells, 20 games" in ok.text
        assert len(live.app.state.catalog.jobs()) == 1


@pytest.mark.parametrize("body, needle", [
    ({"game": "chess"}, "game 'chess': expected one of paws, tales"),
    ({"game": "../../etc/passwd"}, "game '../../etc/passwd': expected one of"),
    ({"bots": "random,genius"}, "--bots: bot 'genius': unknown bot 'genius'"),
    ({"bots": "random"}, "a ladder needs at least 2 bots"),
    ({"bots": "random,heuristic,random"}, "'random' is listed twice"),
    ({"bots": "random,,heuristic"}, "an empty bot spec"),
    ({"bots": ""}, "--bots: give the field"),
    ({"bots": XSS + ",random"}, "--bots"),
    ({"games": "0"}, "--games 0 is out of range; expected an integer from 1 to"),
    ({"games": "ten"}, "--games 'ten': expected an integer from 1 to"),
    ({"seed": "-1"}, "--seed -1 is out of range"),
    ({"players": "3"}, "a ladder of 3 seats needs at least 3"),
    ({"set": "lives=0"}, "lives = '0' is not allowed"),
    ({"set": "lives"}, "--set: 'lives' is not of the form name=value"),
    ({"setup": "board=moon"}, "board 'moon' is not allowed"),
    ({"setup": "board=/etc/passwd"}, "board '/etc/passwd' is not allowed"),
    ({"setup": "bots=random"}, "a ladder seats its --bots itself"),
    ({"games": "10000000"}, "line-ups x 10,000,000 games = 20,000,000 games; this service plays at most 1,000,000"),
])
def test_ladder_refusals_are_one_line_400_and_store_nothing(tmp_path, body, needle):
    from service.app import Settings, create_app
    app = create_app(Settings(root=tmp_path / "root", max_games=1_000_000), start_runner=False)
    users = make_users(app)
    sent = {"kind": "ladder", "game": "paws", "bots": "random,heuristic", "games": "10", **body}
    r = users["edit"].api(app).post("/api/runs", json=sent)
    assert r.status_code == 400, r.text
    error = r.json()["error"]
    assert needle in error and "\n" not in error
    form = users["edit"].page(app).post("/submit", data={"csrf": users["edit"].csrf, "action": "start", **sent})
    assert form.status_code == 400 and XSS not in form.text
    assert app.state.catalog.jobs() == []
    app.state.catalog.close()
