"""Every input is untrusted: run ids and file routes never reach outside the results root, user text reaches pages
escaped, and a malformed or oversized upload is refused in one clear line with nothing stored."""

from __future__ import annotations

import json

import pytest
from service_helpers import TINY, fake_done_job, make_users

from service.specs import MAX_UPLOAD

pytestmark = pytest.mark.service

SCRIPT = "<script>window.__pwned=1</script>"


def nothing_stored(app) -> None:
    root = app.state.root
    assert app.state.catalog.jobs() == []
    assert not any((root / "runs").iterdir()) and not any((root / "jobs").iterdir())
    assert not any((root / "tmp").iterdir()), list((root / "tmp").iterdir())


# path traversal -------------------------------------------------------------------------------------------

TRAVERSALS = ["..", "..%2f..%2fservice.sqlite", "%2e%2e", "..%2F..%2F..%2Fsecret.txt", "....//....//secret.txt",
              "%252e%252e%252fsecret.txt", "/etc/passwd", "ABCDEF012345", "0123456789ab/../0123456789ab",
              "0123456789abc", "0123456789a", "0123456789ab%00", "0123456789ab%0a", "~", "*", "%2fetc%2fpasswd"]


@pytest.mark.parametrize("route", ["/runs/{}", "/runs/{}/report", "/runs/{}/verdict.md", "/api/runs/{}",
                                   "/api/runs/{}/cancel"])
def test_run_ids_and_file_routes_never_reach_outside_the_root(quiet_app, tmp_path, route):
    users = make_users(quiet_app)
    admin = users["admin"]
    (tmp_path / "secret.txt").write_text("TOP-SECRET-OUTSIDE")
    (quiet_app.state.root / "secret.txt").write_text("TOP-SECRET-INSIDE")
    fake_done_job(quiet_app, admin)
    client = admin.api(quiet_app) if route.startswith("/api") else admin.page(quiet_app)
    for bad in TRAVERSALS:
        url = route.format(bad)
        r = client.post(url) if url.endswith("/cancel") else client.get(url, follow_redirects=False)
        home = r.status_code == 303 and r.headers["location"] == "/runs"      # the client made "/runs/.." "/"
        assert r.status_code in (404, 405) or home, (url, r.status_code, r.text[:200])
        assert "TOP-SECRET" not in r.text and "SQLite format" not in r.text, url


def test_a_report_is_served_only_from_the_runs_own_folder(quiet_app):
    users = make_users(quiet_app)
    job = fake_done_job(quiet_app, users["admin"])
    client = users["read"].page(quiet_app)
    assert client.get(f"/runs/{job}/report").text.endswith("<p>the report</p>")
    (quiet_app.state.root / "jobs" / job / "report.html").unlink()
    assert client.get(f"/runs/{job}/report").status_code == 404


# script injection -----------------------------------------------------------------------------------------

def test_user_text_reaches_every_page_escaped(quiet_app):
    users = make_users(quiet_app)
    ed = users["edit"]
    spec = TINY.replace('name = "tiny"', f'name = "{SCRIPT}\\" onmouseover=\\"x"')
    c = ed.page(quiet_app)
    r = c.post("/submit", data={"csrf": ed.csrf, "title": f"{SCRIPT}'\"><img src=x onerror=alert(1)>",
                                "description": SCRIPT, "spec": spec, "action": "start"}, follow_redirects=False)
    assert r.status_code == 303, r.text
    job = r.headers["location"].rsplit("/", 1)[1]
    done = fake_done_job(quiet_app, ed, title=SCRIPT, spec_name=SCRIPT)
    facts = json.loads((quiet_app.state.root / "jobs" / done / "verdict.json").read_text())
    facts["cells"][0]["label"] = SCRIPT
    (quiet_app.state.root / "jobs" / done / "verdict.json").write_text(json.dumps(facts))
    (quiet_app.state.root / "jobs" / done / "report.txt").write_text(SCRIPT)
    admin = users["admin"].page(quiet_app)
    pages = {"list": admin.get("/runs"), "filtered": admin.get("/runs", params={"q": SCRIPT, "owner": SCRIPT}),
             "run": admin.get(f"/runs/{job}"), "done run": admin.get(f"/runs/{done}"),
             "users": admin.get("/users"),
             "bad user": admin.post("/users", data={"csrf": users["admin"].csrf, "name": SCRIPT, "role": "read"}),
             "bad role": admin.post("/users", data={"csrf": users["admin"].csrf, "name": "x", "role": SCRIPT}),
             "form": c.post("/submit", data={"csrf": ed.csrf, "title": SCRIPT, "description": SCRIPT,
                                             "spec": TINY + f"\nbogus = '{SCRIPT}'", "action": "check"})}
    for name, r in pages.items():
        assert "<script>window" not in r.text and "<img src=x" not in r.text, name
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in pages["run"].text
    assert pages["run"].text.count("&lt;script&gt;") >= 3                   # title, description, spec name, spec
    assert "&lt;script&gt;" in pages["done run"].text and "&lt;script&gt;" in pages["list"].text
    assert "&lt;script&gt;" in pages["form"].text and pages["form"].status_code == 400
    assert pages["bad user"].status_code == 400 and "&lt;script&gt;" in pages["bad user"].text
    assert pages["bad role"].status_code == 400
    assert "&lt;script&gt;" in pages["filtered"].text
    card = admin.get(f"/runs/{done}/verdict.md")
    assert card.headers["content-type"].startswith("text/markdown")          # never rendered as HTML


# malformed and oversized uploads --------------------------------------------------------------------------

BAD_SPECS = {
    "empty": (b"", "the spec is empty"),
    "not toml": (b"game = = paws", "spec.toml"),
    "not utf-8": (b"name = \"\xff\xfe\"\ngame = \"paws\"", "not UTF-8"),
    "nul": (b"game = \"paws\"\x00", "NUL"),
    "unknown key": (TINY.encode() + b"\nbogus = 1", "unknown key 'bogus'"),
    "unknown game": (b"game = 'chess'\nseed = 1\ngames_per_cell = 10", "game = 'chess' is not allowed"),
    "too deep": (b"game = 'paws'\nseed = 1\ngames_per_cell = 1\nx = " + b"[" * 100 + b"]" * 100, "deep"),
    "card file": (TINY.encode() + b"\n[data]\nitems = '/etc/passwd'",
                  "[data] items = '/etc/passwd': send that card file with the spec"),
    "card grid": (b"game = 'paws'\nseed = 1\ngames_per_cell = 10\n[grid]\nitems = ['../../service.sqlite']",
                  "[grid] items = '../../service.sqlite': send that card file"),
    "too many games": (b"game = 'paws'\nseed = 1\ngames_per_cell = 10000000000", "at most 100,000,000 games"),
    "too large": (b"# " + b"x" * (MAX_UPLOAD + 10) + b"\n" + TINY.encode(), "at most 262,144"),
}


def _text(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


# a form field and JSON carry text only: bytes that are not UTF-8 can only be uploaded as a file
WAYS = [(case, how) for case in sorted(BAD_SPECS) for how in ("form", "upload", "api")
        if how == "upload" or _text(BAD_SPECS[case][0])]


@pytest.mark.parametrize("case, how", WAYS)
def test_a_bad_spec_is_one_clear_line_and_nothing_is_stored(quiet_app, case, how):
    data, said = BAD_SPECS[case]
    users = make_users(quiet_app)
    ed = users["edit"]
    if how == "api":
        r = ed.api(quiet_app).post("/api/runs", json={"spec": data.decode("utf-8")})
        error = r.json()["error"]
    else:
        form = {"csrf": ed.csrf, "title": "t", "action": "start"}
        if how == "form":
            form["spec"] = data.decode("utf-8")
            r = ed.page(quiet_app).post("/submit", data=form)
        else:
            r = ed.page(quiet_app).post("/submit", data=form, files={"spec_file": ("spec.toml", data, "text/plain")})
        assert "id='error'" in r.text, r.text[:500]
        error = r.text.split("id='error'>", 1)[1].split("</p>", 1)[0]
    assert r.status_code == 400, (r.status_code, error)
    assert "\n" not in error and "Traceback" not in error and len(error) < 4000
    assert said.replace("'", "&#x27;") in error or said in error, error
    assert "/etc/passwd" not in error or case == "card file"
    assert str(quiet_app.state.root) not in error                    # no server path in the line
    nothing_stored(quiet_app)


def test_malformed_requests_are_refused_in_one_line(quiet_app):
    users = make_users(quiet_app)
    api = users["edit"].api(quiet_app)
    for body, status in ((b"not json", 400), (b"[1, 2]", 400), (b'{"spec": 5}', 400), (b'{"spec": "x", "title": []}', 400),
                         (b'{"spec": "x", "check_only": "no"}', 400), (b"{" * 100_000, 400)):
        r = api.post("/api/runs", content=body, headers={"content-type": "application/json"})
        assert r.status_code == status and "\n" not in r.json()["error"], (body[:20], r.text[:200])
    big = api.post("/api/runs", content=b"x" * (2 * 2**20), headers={"content-type": "application/json"})
    assert big.status_code == 413 and "larger than" in big.text

    def chunks():                          # no content-length: counted as it arrives
        for _ in range(40):
            yield b"x" * 65536
    chunked = api.post("/api/runs", content=chunks(), headers={"content-type": "application/json"})
    assert chunked.status_code == 413, chunked.text[:200]
    page = users["edit"].page(quiet_app)
    bad_multipart = page.post("/submit", content=b"--zz\r\nnonsense", headers={
        "content-type": "multipart/form-data; boundary=zz"})
    assert bad_multipart.status_code in (400, 403) and "Traceback" not in bad_multipart.text
    huge_form = page.post("/submit", data={"csrf": users["edit"].csrf, "spec": "x" * (2 * 2**20)})
    assert huge_form.status_code == 413
    nothing_stored(quiet_app)
