"""The service plays shipped learned models by name only: a bot spec that names a model by a path of the server
(``learned:model=/some/path.json``, in any place a spec, a ladder's field or a suite names bots, however it is
written) is refused in one line before any reader opens anything, so the answer is the same whether the file exists,
is a model, or holds a secret; shipped names still play."""

from __future__ import annotations

import json

import pytest
from service_helpers import make_users

from service.kinds import shipped_models

pytestmark = pytest.mark.service

SECRET = "TOP-SECRET = [\n 1, 2,\n"          # not JSON: a parser's error would quote a position in it


HEAD = 'name = "m"\ngame = "paws"\nseed = 1\ngames_per_cell = 20\n'


def sweep(bots_toml: str) -> str:
    return f"{HEAD}[setup]\n{bots_toml}\n[grid]\nplayers = [2]\n"


def places(ref: str) -> dict[str, tuple[str, dict]]:
    """Every place a job's inputs name a bot, with ``ref`` as its model: (kind, the API body's fields)."""
    bot = f"learned:model={ref}"
    return {
        "the setup's bots": ("sweep", {"spec": sweep(f"bots = {json.dumps(bot)}")}),
        "a line-up string": ("sweep", {"spec": sweep(f"bots = {json.dumps('heuristic,' + bot)}")}),
        "a grid axis": ("sweep", {"spec": f"{HEAD}[grid]\nplayers = [2]\nbots = ['heuristic', {json.dumps(bot)}]\n"}),
        "a cell": ("sweep", {"spec": f"{HEAD}[[cells]]\nplayers = 2\nbots = {json.dumps(bot)}\n"}),
        "a search bot": ("sweep", {"spec": sweep(f"bots = {json.dumps('mcts:iterations=4:model=' + ref)}")}),
        "TOML escapes": ("sweep", {"spec": sweep('bots = "learned:model\\u003d' + ref.replace("/", "\\u002f") + '"')}),
        "spaces around =": ("sweep", {"spec": sweep(f"bots = {json.dumps('learned: model = ' + ref)}")}),
        "a ladder's field": ("ladder", {"game": "paws", "bots": f"heuristic,{bot}", "games": "20", "players": "2"}),
        "a suite": ("regress", {"suite": f'name = "s"\n[sweep]\ngame = "paws"\nseed = 1\ngames_per_cell = 20\n'
                                         f'[sweep.setup]\nbots = {json.dumps(bot)}\n', "baseline": "{}"}),
    }


@pytest.fixture
def users(quiet_app):
    return make_users(quiet_app)


def submit(app, who, kind: str, fields: dict, check_only: bool = True):
    return who.api(app).post("/api/runs", json={"kind": kind, "check_only": check_only, **fields})


@pytest.mark.parametrize("place", list(places("x")))
def test_a_model_named_by_a_server_path_is_refused_alike_whether_it_exists_or_not(quiet_app, users, tmp_path, place):
    secret = tmp_path / "secret.json"
    secret.write_text(SECRET)
    model = tmp_path / "model.json"                   # a readable file where a model would be
    model.write_text(json.dumps({"name": "evil"}))
    answers = []
    for path in (secret, model, tmp_path / "missing.json", tmp_path):
        kind, fields = places(str(path))[place]
        for check_only in (True, False):
            r = submit(quiet_app, users["edit"], kind, fields, check_only)
            assert r.status_code == 400, (place, path, r.text)
            line = r.json()["error"]
            assert "\n" not in line and "TOP-SECRET" not in line and "line " not in line and "does not exist" \
                not in line and "no such file" not in line, line
            assert "this service plays shipped learned models by name only" in line, line
            answers.append(line.replace(str(path), "PATH").replace(path.name, "NAME"))
    assert len(set(answers)) == 1, answers                      # exists, a model, missing, a folder: one answer
    assert quiet_app.state.catalog.jobs() == []


@pytest.mark.parametrize("ref", ["x.json", "paws-2,/etc/passwd", "paws-2,x.json", "paws-2@abc,x.json",
                                 "x.json@paws-2", "..", "nosuchmodel", "paws-2/../paws-1", "paws-2\\x"])
def test_every_spelling_of_a_file_or_an_unknown_name_is_refused(quiet_app, users, ref):
    kind, fields = places(ref)["the setup's bots"]
    r = submit(quiet_app, users["edit"], kind, fields)
    assert r.status_code == 400 and "shipped learned models by name only" in r.json()["error"], (ref, r.text)


def test_the_page_form_refuses_it_in_one_line_too(quiet_app, users, tmp_path):
    ed = users["edit"]
    spec = places(str(tmp_path / "secret.json"))["the setup's bots"][1]["spec"]
    r = ed.page(quiet_app).post("/submit", data={"csrf": ed.csrf, "kind": "sweep", "spec": spec, "action": "check"})
    assert r.status_code == 400 and "shipped learned models by name only" in r.text


def test_shipped_models_by_name_still_play(quiet_app, users):
    names = shipped_models()["paws"]
    assert "paws-2" in names
    kind, fields = places("paws-2")["the setup's bots"]
    r = submit(quiet_app, users["edit"], kind, fields)
    assert r.status_code == 200, r.text
    assert r.json()["games"] == 20
