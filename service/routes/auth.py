"""Logging in and out: the login form (its own CSRF token in a cookie: there is no session yet), a known API token
starts a page session (a catalog row named in the signed session cookie), logout ends it. Failed logins count per
client address (service/manage.py)."""

from __future__ import annotations

import secrets

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse
from itsdangerous import BadSignature, TimestampSigner

from service import manage, pages
from service.deps import LOGIN_COOKIE, ReadForm, Services, Svc, session_user

router = APIRouter()


LOGIN_S = 3600                       # a login form's CSRF token is good this long


def _signer(svc: Services) -> TimestampSigner:
    return TimestampSigner(svc.catalog.key("session"), salt="playtest-login-csrf")


def _login_page(svc: Services, error: str = "", status: int = 200):
    """The login form with a fresh CSRF token; its cookie holds the token signed with the service's key (a double
    submit whose cookie a client cannot make up: it must be one this service gave, within the hour)."""
    token = secrets.token_urlsafe(24)
    r = pages.render("login.html", "Log in", None, None, status=status, login_csrf=token, error=error)
    r.set_cookie(LOGIN_COOKIE, _signer(svc).sign(token).decode(), httponly=True, samesite="strict", max_age=LOGIN_S,
                 secure=svc.settings.secure_cookies)
    return r


def _login_csrf_ok(svc: Services, given, cookie: str | None) -> bool:
    """Whether the form's token is the one this service signed into the form's cookie, under an hour ago."""
    if not isinstance(given, str) or not cookie:
        return False
    try:
        want = _signer(svc).unsign(cookie, max_age=LOGIN_S)
    except BadSignature:                 # SignatureExpired is one
        return False
    return secrets.compare_digest(given.encode(), want)


def _refused(line: str, status: int):
    return pages.render("login.html", "Log in", None, None, status=status, login_csrf="", error=line)


@router.get("/health")
def health() -> dict:
    return {"ok": True}


@router.get("/")
def home(request: Request, svc: Svc):
    return RedirectResponse("/runs" if session_user(request, svc) else "/login", status_code=303)


@router.get("/login")
def login_page(svc: Svc):
    return _login_page(svc)


@router.post("/login")
async def login(request: Request, svc: Svc):
    try:
        form = await request.form(max_files=0, max_fields=5, max_part_size=4096)
    except Exception:  # noqa: BLE001 - a malformed form: one line
        return _refused("the form could not be read", 400)
    if not _login_csrf_ok(svc, form.get("csrf"), request.cookies.get(LOGIN_COOKIE)):
        return _refused("the login form's CSRF token is missing, wrong or over an hour old; reload the page", 403)
    where = manage.address(request)
    if (wait := svc.failures.wait(where)) is not None:
        r = _refused(svc.failures.message(wait), 429)
        r.headers["Retry-After"] = str(wait)
        return r
    token = form.get("token")
    user = svc.catalog.user_by_token(token if isinstance(token, str) else None)
    if user is None:
        svc.failures.add(where)
        return _login_page(svc, "unknown token", 401)
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
