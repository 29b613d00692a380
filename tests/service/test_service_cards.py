"""Card files with a spec (service/kinds.py): sent by bare file name beside the spec, checked by the game's own card
reader before anything is stored, written into the job's folder, and played to the same bytes as ``playtest sweep``
of the same spec and card files on a local disk. Also: the cost before a job (cells, games and the estimated time
from a pilot of the spec's first cell), unknown kinds, and a service joining a Ray cluster (``--address``)."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from part_bytes import parts
from service_helpers import TINY, Live, make_users, wait_state
from typer.testing import CliRunner

from cli.main import app as cli_app
from service.runner import layout

pytestmark = pytest.mark.service

ITEMS = (Path(__file__).resolve().parents[2] / "sim" / "paws" / "data" / "items.toml").read_text()
STRONG = ITEMS.replace('name = "Bandage Kit"\ntiming = "anytime"\neffect = "heal"\namount = 3',
                       'name = "Bandage Kit"\ntiming = "anytime"\neffect = "heal"\namount = 9', 1)
WITH_CARDS = TINY + '\n[data]\nitems = "strong-items.toml"\n'


def test_the_edited_deck_differs_from_the_packaged_one():
    assert STRONG != ITEMS and "amount = 9" in STRONG


def _nothing_stored(app) -> None:
    assert app.state.catalog.jobs() == []
    assert not any((app.state.root / "jobs").iterdir())


@pytest.mark.slow            # a real job played end to end
def test_a_spec_with_its_card_file_plays_the_same_bytes_as_the_command_line(tmp_path):
    local = tmp_path / "local"
    local.mkdir()
    (local / "spec.toml").write_text(WITH_CARDS)
    (local / "strong-items.toml").write_text(STRONG)
    res = CliRunner().invoke(cli_app, ["sweep", str(local / "spec.toml"), "--out", str(local / "out"), "--workers",
                                       "2", "--no-progress"])
    assert res.exit_code == 0, res.output
    with Live(tmp_path / "root") as live:
        users = make_users(live.app)
        with httpx.Client(base_url=live.url, headers={"Authorization": f"Bearer {users['edit'].token}"},
                          timeout=60) as api:
            r = api.post("/api/runs", json={"spec": WITH_CARDS, "cards": {"strong-items.toml": STRONG},
                                            "title": "stronger bandages"})
            assert r.status_code == 201, r.text
            job = r.json()["id"]
            assert wait_state(api, job, ("done", "failed"))["state"] == "done"
    paths = layout(live.app.state.root, job)
    assert (paths["own"] / "strong-items.toml").read_text() == STRONG
    page = paths["report"].read_text()
    assert f"runs/{job}" in page and str(live.app.state.root) not in page      # no server path in the report
    ours, theirs = parts(paths["out"]), parts(local / "out")
    assert ours and ours == theirs


@pytest.mark.parametrize("cards, said", [
    ({}, "[data] items = 'strong-items.toml': send that card file with the spec (by its file name, no folder); "
         "card files sent: none"),
    ({"other.toml": STRONG}, "card files sent: other.toml"),
    ({"../strong-items.toml": STRONG}, "card file '../strong-items.toml': a file name of letters"),
    ({"strong-items.toml": "[[card]]\nname = 'x'\n"}, "strong-items.toml"),
    ({"strong-items.toml": STRONG.replace("amount = 9", "amount = 'lots'", 1)}, "amount"),
    ({f"c{i}.toml": STRONG for i in range(9)}, "at most 8 card files"),
    ({"strong-items.toml": "x" * (256 * 1024 + 1)}, "at most 262,144"),
])
def test_a_bad_card_file_is_one_line_and_nothing_is_stored(quiet_app, cards, said):
    users = make_users(quiet_app)
    r = users["edit"].api(quiet_app).post("/api/runs", json={"spec": WITH_CARDS, "cards": cards})
    assert r.status_code == 400, r.text
    error = r.json()["error"]
    assert said in error, error
    assert "\n" not in error and str(quiet_app.state.root) not in error and "Traceback" not in error
    _nothing_stored(quiet_app)


def test_card_files_from_the_page_form_and_the_cost_with_its_estimated_time(quiet_app):
    users = make_users(quiet_app)
    page = users["edit"].page(quiet_app)
    form = {"csrf": users["edit"].csrf, "kind": "sweep", "spec": WITH_CARDS, "action": "check"}
    r = page.post("/submit", data=form, files=[("cards", ("strong-items.toml", STRONG.encode(), "text/plain"))])
    assert r.status_code == 200, r.text
    cost = re.search(r"id='cost'>([^<]*)<", r.text)[1]
    assert cost.startswith("Cost: 2 cells, 400 games, about ") and "from a pilot on this machine" in cost, cost
    _nothing_stored(quiet_app)
    said = users["edit"].api(quiet_app).post("/api/runs", json={"spec": TINY, "check_only": True}).json()
    assert said["cells"] == 2 and said["games"] == 400 and said["kind"] == "sweep" and said["seconds"] > 0
    assert said["rule_set"]


@pytest.mark.parametrize("kind", ["chess", "", 7, None, "<script>"])
def test_an_unknown_kind_is_refused_in_one_line(quiet_app, kind):
    users = make_users(quiet_app)
    r = users["edit"].api(quiet_app).post("/api/runs", json={"kind": kind, "spec": TINY})
    if kind in ("", None):                       # no kind: a sweep
        assert r.status_code == 201, r.text
        return
    assert r.status_code == 400 and "kind" in r.json()["error"] and "sweep" in r.json()["error"]
    page = users["edit"].page(quiet_app).get("/submit", params={"kind": str(kind)})
    assert page.status_code == 404 and "<script>" not in page.text


@pytest.mark.slow
def test_a_service_with_address_plays_its_jobs_on_the_ray_cluster(tmp_path, head_node, monkeypatch):
    monkeypatch.setenv("RAY_AUTH_MODE", "token")
    with Live(tmp_path / "root", address=head_node.gcs) as live:
        users = make_users(live.app)
        with httpx.Client(base_url=live.url, headers={"Authorization": f"Bearer {users['edit'].token}"},
                          timeout=60) as api:
            job = api.post("/api/runs", json={"spec": TINY}).json()["id"]
            assert wait_state(api, job, ("done", "failed"), timeout=240)["state"] == "done"
    log = layout(live.app.state.root, job)["log"].read_text()
    assert f"--address {head_node.gcs}" in log


def test_serve_refuses_a_bad_address_before_it_starts(tmp_path):
    for address, said in (("nohost", "expected HOST:PORT"), ("127.0.0.1:99999", "expected HOST:PORT"),
                          ("127.0.0.1:1", "nothing answers there")):
        res = CliRunner().invoke(cli_app, ["serve", "--root", str(tmp_path / "r"), "--address", address])
        assert res.exit_code == 2, res.output
        assert said in res.output and res.output.count("\n") == 1, res.output


@pytest.mark.slow            # a real job played end to end
def test_playtest_submit_sends_the_card_files_a_spec_names(tmp_path):
    (tmp_path / "spec.toml").write_text(WITH_CARDS)
    (tmp_path / "strong-items.toml").write_text(STRONG)
    with Live(tmp_path / "root") as live:
        users = make_users(live.app)
        base = ["submit", str(tmp_path / "spec.toml"), "--server", live.url, "--token", users["edit"].token]
        res = CliRunner().invoke(cli_app, base)                       # without it: the service's one line, exit 2
        assert res.exit_code == 2 and "send that card file with the spec" in res.output, res.output
        res = CliRunner().invoke(cli_app, [*base, "--card", str(tmp_path / "strong-items.toml"), "--wait"])
        assert res.exit_code == 0, res.output
        (row,) = live.app.state.catalog.jobs()
        assert row["state"] == "done" and "strong-items.toml" in row["params"]
        twice = CliRunner().invoke(cli_app, [*base, "--card", str(tmp_path / "strong-items.toml"), "--card",
                                             str(tmp_path / "strong-items.toml")])
        assert twice.exit_code == 2 and "a second card file named strong-items.toml" in twice.output
