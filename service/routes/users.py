"""Users (admins): the list with the audit log, adding a user (its token shown once), a new token (the old one
and the user's page sessions end), another role, removal. An admin may change neither their own role nor remove
themself."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import RedirectResponse

from service import pages
from service.catalog import ROLES, CatalogError
from service.deps import Admin, AdminForm, Page, Services, Svc

router = APIRouter()


def users_page(page: Page, svc: Services, *, status: int = 200, error: str = "", new_token: str = "",
               token_for: str = ""):
    return page.render("users.html", "Users", status=status, users=svc.catalog.users(), audit=svc.catalog.audit_log(),
                       roles=ROLES, error=error, new_token=new_token, token_for=token_for)


@router.get("/users")
def users_list(page: Admin, svc: Svc):
    return users_page(page, svc)


@router.post("/users")
def users_add(page: AdminForm, svc: Svc):
    name, role = str(page.form.get("name") or ""), str(page.form.get("role") or "")
    try:
        token = svc.catalog.add_user(name, role)
    except CatalogError as e:
        return users_page(page, svc, status=400, error=str(e))
    svc.catalog.audit(page.user.name, "add-user", None, f"{name} ({role})")
    return users_page(page, svc, new_token=token)


@router.post("/users/{username}/token")
def rotate(username: str, page: AdminForm, svc: Svc):
    try:
        token = svc.catalog.rotate_token(username)
    except CatalogError as e:
        return users_page(page, svc, status=404, error=str(e))
    svc.catalog.audit(page.user.name, "rotate-token", None, username)
    if username == page.user.name:                  # the admin's own session ended with the old token
        return pages.render("own_token.html", "Users", None, None, token=token)
    return users_page(page, svc, new_token=token, token_for=username)


@router.post("/users/{username}/role")
def set_role(username: str, page: AdminForm, svc: Svc):
    role = str(page.form.get("role") or "")
    if username == page.user.name:
        return users_page(page, svc, status=409, error="you may not change your own role (ask another admin)")
    if svc.catalog.user(username) is None:
        return users_page(page, svc, status=404, error=f"no user {username[:64]!r}")
    if role not in ROLES:
        return users_page(page, svc, status=400, error=f"role {role[:20]!r}: expected one of {', '.join(ROLES)}")
    svc.catalog.set_role(username, role)
    svc.catalog.audit(page.user.name, "set-role", None, f"{username} ({role})")
    return RedirectResponse("/users", status_code=303)


@router.post("/users/{username}/remove")
def remove(username: str, page: AdminForm, svc: Svc):
    if username == page.user.name:
        return users_page(page, svc, status=409, error="you may not remove your own user (ask another admin)")
    try:
        svc.catalog.remove_user(username)
    except CatalogError as e:
        return users_page(page, svc, status=404, error=str(e))
    svc.catalog.audit(page.user.name, "remove-user", None, username)
    return RedirectResponse("/users", status_code=303)
