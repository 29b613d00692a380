"""Deep or malformed JSON is a 400 in one line on every JSON route, never a 500 with a traceback in the log: a body of
100,000 nested brackets, invalid UTF-8, a truncated object; and the same nesting inside a kind's own text fields (a
suite's baseline, a spec)."""

from __future__ import annotations

import logging

import pytest
from service_helpers import fake_done_job, make_users

pytestmark = pytest.mark.service

DEEP = b"[" * 100_000 + b"]" * 100_000
DEEP_OBJECT = b'{"a":' * 100_000 + b"1" + b"}" * 100_000
BODIES = {"deep brackets": DEEP, "deep objects": DEEP_OBJECT, "unclosed": b"[" * 100_000, "invalid UTF-8": b'{"\xff"}',
          "truncated": b'{"spec": "x', "empty": b""}


def routes(job: str) -> list[str]:
    return ["/api/runs", f"/api/runs/{job}/sql", f"/api/runs/{job}/priority", "/api/nightly"]


@pytest.mark.parametrize("body", list(BODIES))
def test_every_json_route_answers_a_bad_body_with_400_in_one_line(quiet_app, caplog, body):
    users = make_users(quiet_app)
    job = fake_done_job(quiet_app, users["admin"])
    quiet_app.state.catalog.set_job(job, state="queued")
    api = users["admin"].api(quiet_app)
    with caplog.at_level(logging.ERROR):
        for route in routes(job):
            r = api.post(route, content=BODIES[body], headers={"Content-Type": "application/json"})
            assert r.status_code in (400, 404), (route, r.status_code, r.text[:300])
            line = r.json()["error"]
            assert isinstance(line, str) and "\n" not in line and len(line) < 500, (route, line)
    assert not [rec for rec in caplog.records if rec.exc_info], [rec.getMessage() for rec in caplog.records]


def test_deep_json_inside_a_kinds_text_field_is_one_line(quiet_app):
    users = make_users(quiet_app)
    api = users["edit"].api(quiet_app)
    suite = 'name = "s"\n[sweep]\ngame = "paws"\nseed = 1\ngames_per_cell = 20\n'
    for fields in ({"kind": "regress", "suite": suite, "baseline": DEEP.decode()},
                   {"kind": "sweep", "spec": "x = " + "[" * 50_000 + "]" * 50_000},
                   {"kind": "sweep", "spec": 'name = "a"\ngame = "paws"\n' + "a." * 50_000 + "b = 1"}):
        r = api.post("/api/runs", json={**fields, "check_only": True})
        assert r.status_code == 400, (fields["kind"], r.status_code, r.text[:300])
        assert "\n" not in r.json()["error"]
    assert quiet_app.state.catalog.jobs() == []


@pytest.mark.parametrize("kind, field", [("sweep", "spec"), ("tune", "spec"), ("regress", "suite"),
                                         ("sweep", "cards")])
def test_a_dotted_key_too_long_to_read_is_refused_before_it_is_read(quiet_app, kind, field):
    # Python's TOML reader takes time quadratic in a dotted key's parts: 50,000 of them held the service 47 s
    users = make_users(quiet_app)
    text = 'name = "a"\ngame = "paws"\n' + "a." * 50_000 + "b = 1\n"
    value = {"c.toml": text} if field == "cards" else text
    r = users["edit"].api(quiet_app).post("/api/runs", json={"kind": kind, field: value, "check_only": True,
                                                             **({"spec": 'name = "s"'} if field == "cards" else {})})
    assert r.status_code == 400, r.text[:300]
    assert "line 3: a key of more than 64 dotted parts; tables nest at most 32 deep" in r.json()["error"]
