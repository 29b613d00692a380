"""Logging in and out: the login form (its own CSRF token in a cookie: there is no session yet), a known API token
starts a page session (a catalog row named in the signed session cookie), logout ends it. Failed logins count per
client address (service/manage.py)."""

from __future__ import annotations

import secrets

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse

from service import manage, pages
from service.deps import LOGIN_COOKIE, ReadForm, Svc, session_user

router = APIRouter()


def _login_page(error: str = "", status: int = 200):
    """The login form with a fresh CSRF token, set beside it in its own cookie."""
    token = secrets.token_urlsafe(24)
    r = pages.render("login.html", "Log in", None, None, status=status, login_csrf=token, error=error)
    r.set_cookie(LOGIN_COOKIE, token, httponly=True, samesite="strict", max_age=3600)
    return r


def _refused(line: str, status: int):
    return pages.render("login.html", "Log in", None, None, status=status, login_csrf="", error=line)


@router.get("/health")
def health() -> dict:
    return {"ok": True}


@router.get("/")
def home(request: Request, svc: Svc):
    return RedirectResponse("/runs" if session_user(request, svc) else "/login", status_code=303)


@router.get("/login")
def login_page():
    return _login_page()


@router.post("/login")
async def login(request: Request, svc: Svc):
    try:
        form = await request.form(max_files=0, max_fields=5, max_part_size=4096)
    except Exception:  # noqa: BLE001 - a malformed form: one line
        return _refused("the form could not be read", 400)
    given, want = form.get("csrf"), request.cookies.get(LOGIN_COOKIE)
    if not isinstance(given, str) or not want or not secrets.compare_digest(given.encode(), want.encode()):
        return _refused("the login form's CSRF token is missing or wrong; reload the page", 403)
    where = manage.address(request)
    if (wait := svc.failures.wait(where)) is not None:
        r = _refused(svc.failures.message(wait), 429)
        r.headers["Retry-After"] = str(wait)
        return r
    token = form.get("token")
    user = svc.catalog.user_by_token(token if isinstance(token, str) else None)
    if user is None:
        svc.failures.add(where)
        return _login_page("unknown token", 401)
    sid, _ = svc.catalog.new_session(user)
    svc.catalog.audit(user.name, "login")
    svc.catalog.end_session(request.session.get("sid"))      # a session this browser held before ends here
    request.session.clear()
    request.session["sid"] = sid
    r = RedirectResponse("/runs", status_code=303)
    r.delete_cookie(LOGIN_COOKIE)
    return r


@router.post("/logout")
def logout(request: Request, page: ReadForm, svc: Svc):
    svc.catalog.end_session(request.session.get("sid"))
    request.session.clear()
    return RedirectResponse("/login", status_code=303)
