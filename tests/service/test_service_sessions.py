"""The page session as the app builds it: a signed cookie (Starlette's SessionMiddleware, its key kept in the
catalog) naming a session row, which the catalog can end; and the pages come from the templates alone."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from service_helpers import csrf_of, make_users, session_cookie
from starlette.testclient import TestClient

from service.app import COOKIE, Settings, create_app

pytestmark = pytest.mark.service

SERVICE = Path(__file__).resolve().parents[2] / "service"
# the web layer's modules: every page they serve comes from service/templates
WEB = ["app.py", "deps.py", "middleware.py", "pages.py", "console.py", "manage.py", "live.py", "nightly.py",
       "replays.py", *(f"routes/{p.name}" for p in sorted((SERVICE / "routes").glob("*.py")))]
TAG = re.compile(r"<(p|div|table|tr|td|th|form|input|a|span|h[1-6]|ul|li|select|option|pre|code|textarea|label|button|"
                 r"svg|img|script|meta|html|body)[\s>/]", re.I)


def test_a_cookie_not_signed_by_this_service_is_no_session(quiet_app):
    users = make_users(quiet_app)
    raw = TestClient(quiet_app, cookies={COOKIE: users["read"].sid})         # the session id itself, unsigned
    assert raw.get("/runs", follow_redirects=False).headers["location"] == "/login"
    other = create_app(Settings(root=quiet_app.state.root.parent / "other"), start_runner=False)   # another key
    forged = TestClient(quiet_app, cookies={COOKIE: session_cookie(other, users["read"].sid)})
    assert forged.get("/runs", follow_redirects=False).status_code == 303
    other.state.catalog.close()
    assert users["read"].page(quiet_app).get("/runs").status_code == 200     # signed by this one: a session


def test_a_signed_cookie_lives_no_longer_than_its_session_row(quiet_app):
    users = make_users(quiet_app)
    page = users["edit"].page(quiet_app)
    assert page.get("/runs").status_code == 200
    quiet_app.state.catalog.rotate_token("ed")                                # a new token ends ed's sessions
    assert page.get("/runs", follow_redirects=False).status_code == 303
    admin = users["admin"].page(quiet_app)
    csrf = csrf_of(admin.get("/runs").text)
    assert admin.post("/logout", data={"csrf": csrf}, follow_redirects=False).status_code == 303
    assert quiet_app.state.catalog.session(users["admin"].sid) is None       # logout deleted the row
    replayed = TestClient(quiet_app, cookies={COOKIE: session_cookie(quiet_app, users["admin"].sid)})
    assert replayed.get("/runs", follow_redirects=False).status_code == 303  # the old cookie opens nothing


def test_the_session_key_is_the_roots_across_restarts(tmp_path):
    first = create_app(Settings(root=tmp_path / "root"), start_runner=False)
    users = make_users(first)
    cookie = session_cookie(first, users["read"].sid)
    first.state.catalog.close()
    again = create_app(Settings(root=tmp_path / "root"), start_runner=False)    # the service restarted
    assert TestClient(again, cookies={COOKIE: cookie}).get("/runs").status_code == 200
    again.state.catalog.close()


@pytest.mark.parametrize("name", WEB)
def test_no_page_is_built_from_python_strings(name):
    """Markup lives in the templates, where autoescape covers every value; a tag in a Python string of the web layer
    (an f-string's text included) would be a page built by hand."""
    tree = ast.parse((SERVICE / name).read_text())
    found = [f"{name}:{n.lineno}: {n.value[:60]!r}" for n in ast.walk(tree)
             if isinstance(n, ast.Constant) and isinstance(n.value, str) and TAG.search(n.value)]
    assert not found, found
