"""The service's catalog (ROOT/service.sqlite): users with roles and hashed tokens, page sessions with their CSRF
token, jobs and their states, and the audit log of who started, cancelled or deleted what. Every value is bound
(``?``), never formatted into SQL."""

from __future__ import annotations

import hashlib
import re
import secrets
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROLES = ("read", "edit", "admin")                 # each role may do what the ones before it may
STATES = ("queued", "running", "done", "failed", "cancelled")
ACTIVE = ("queued", "running")
JOB_ID = re.compile(r"[0-9a-f]{12}")               # ids are generated (secrets.token_hex(6)), never a user's path
USER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
SESSION_S = 12 * 3600                              # a page session lasts 12 hours

SCHEMA = """
CREATE TABLE IF NOT EXISTS users (
    id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL, role TEXT NOT NULL, token_hash TEXT UNIQUE NOT NULL,
    created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
    id_hash TEXT PRIMARY KEY, user_id INTEGER NOT NULL, csrf TEXT NOT NULL, expires REAL NOT NULL);
CREATE TABLE IF NOT EXISTS jobs (
    id TEXT PRIMARY KEY, kind TEXT NOT NULL DEFAULT 'sweep', title TEXT NOT NULL, description TEXT NOT NULL,
    owner_id INTEGER NOT NULL, spec_name TEXT NOT NULL, game TEXT NOT NULL, spec_text TEXT NOT NULL,
    cells INTEGER NOT NULL, games INTEGER NOT NULL, state TEXT NOT NULL, created REAL NOT NULL, started REAL,
    ended REAL, pid INTEGER, pid_start INTEGER, resume INTEGER NOT NULL DEFAULT 0, exit_code INTEGER,
    error TEXT);
CREATE INDEX IF NOT EXISTS jobs_state ON jobs(state, created);
CREATE TABLE IF NOT EXISTS audit (
    id INTEGER PRIMARY KEY, at REAL NOT NULL, user TEXT NOT NULL, action TEXT NOT NULL, job TEXT, detail TEXT);
"""

# Columns added since the first catalogs: (table, column, declaration); each is added to an older catalog at open.
COLUMNS = (
    ("jobs", "params", "TEXT NOT NULL DEFAULT '{}'"),          # a job kind's own inputs as JSON (service/kinds.py)
)


class CatalogError(ValueError):
    """A refused catalog action (a bad user name or role); the message is one line."""


@dataclass(frozen=True)
class User:
    id: int
    name: str
    role: str

    def may(self, role: str) -> bool:
        """Whether this user holds ``role`` or one above it."""
        return ROLES.index(self.role) >= ROLES.index(role)


def digest(token: str) -> str:
    """A token as stored: its SHA-256 (tokens are 256-bit random, so no salt or slow hash is needed)."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


class Catalog:
    """One SQLite file, one connection, one lock: the service's threads take turns."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._lock = threading.RLock()
        self._con = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None, timeout=30)
        self._con.row_factory = sqlite3.Row
        with self._lock:
            self._con.execute("PRAGMA journal_mode=WAL")
            self._con.executescript(SCHEMA)
            for table, column, declaration in COLUMNS:
                have = {r[1] for r in self._con.execute(f"PRAGMA table_info({table})")}
                if column not in have:
                    self._con.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")

    def close(self) -> None:
        with self._lock:
            self._con.close()

    def q(self, sql: str, params: tuple = ()) -> list[sqlite3.Row]:
        with self._lock:
            return self._con.execute(sql, params).fetchall()

    def x(self, sql: str, params: tuple = ()) -> int:
        with self._lock:
            return self._con.execute(sql, params).rowcount

    # users and sessions ---------------------------------------------------------------------------------

    def add_user(self, name: str, role: str) -> str:
        """A new user; returns its API token (shown once, stored hashed)."""
        if not USER_NAME.fullmatch(name or ""):
            raise CatalogError(f"user name {name!r}: 1 to 64 letters, digits, '_', '.' or '-', starting with a "
                               "letter or digit")
        if role not in ROLES:
            raise CatalogError(f"role {role!r}: expected one of {', '.join(ROLES)}")
        token = "pt_" + secrets.token_urlsafe(32)
        try:
            self.x("INSERT INTO users (name, role, token_hash, created) VALUES (?, ?, ?, ?)",
                   (name, role, digest(token), time.time()))
        except sqlite3.IntegrityError:
            raise CatalogError(f"user {name!r} exists already") from None
        return token

    def users(self) -> list[User]:
        return [User(r["id"], r["name"], r["role"]) for r in self.q("SELECT id, name, role FROM users ORDER BY name")]

    def user_by_token(self, token: str | None) -> User | None:
        if not token or len(token) > 200:
            return None
        rows = self.q("SELECT id, name, role FROM users WHERE token_hash = ?", (digest(token),))
        return User(rows[0]["id"], rows[0]["name"], rows[0]["role"]) if rows else None

    def new_session(self, user: User) -> tuple[str, str]:
        """(the session cookie's value, its CSRF token) for a user who logged in."""
        sid, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        now = time.time()
        self.x("DELETE FROM sessions WHERE expires < ?", (now,))
        self.x("INSERT INTO sessions (id_hash, user_id, csrf, expires) VALUES (?, ?, ?, ?)",
               (digest(sid), user.id, csrf, now + SESSION_S))
        return sid, csrf

    def session(self, sid: str | None) -> tuple[User, str] | None:
        """(user, CSRF token) of a live session cookie, or None."""
        if not sid or len(sid) > 200:
            return None
        rows = self.q("SELECT u.id, u.name, u.role, s.csrf FROM sessions s JOIN users u ON u.id = s.user_id "
                      "WHERE s.id_hash = ? AND s.expires >= ?", (digest(sid), time.time()))
        return (User(rows[0]["id"], rows[0]["name"], rows[0]["role"]), rows[0]["csrf"]) if rows else None

    def end_session(self, sid: str | None) -> None:
        if sid and len(sid) <= 200:
            self.x("DELETE FROM sessions WHERE id_hash = ?", (digest(sid),))

    # jobs -----------------------------------------------------------------------------------------------

    def add_job(self, *, owner: User, title: str, description: str, spec_name: str, game: str, spec_text: str,
                cells: int, games: int) -> str:
        job = secrets.token_hex(6)
        self.x("INSERT INTO jobs (id, title, description, owner_id, spec_name, game, spec_text, cells, games, state, "
               "created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued', ?)",
               (job, title, description, owner.id, spec_name, game, spec_text, cells, games, time.time()))
        self.audit(owner.name, "submit", job, title)
        return job

    def job(self, job: str) -> dict[str, Any] | None:
        if not JOB_ID.fullmatch(job or ""):
            return None
        rows = self.q("SELECT j.*, u.name AS owner FROM jobs j JOIN users u ON u.id = j.owner_id WHERE j.id = ?",
                      (job,))
        return dict(rows[0]) if rows else None

    def jobs(self, *, game: str = "", state: str = "", owner: str = "", text: str = "", limit: int = 200) -> list[dict]:
        """Jobs, newest first, filtered by game, state, owner's name and text in the title (all bound values)."""
        where, params = [], []
        for column, value in (("j.game", game), ("j.state", state), ("u.name", owner)):
            if value:
                where.append(f"{column} = ?")
                params.append(value)
        if text:
            where.append("j.title LIKE ? ESCAPE '\\'")
            params.append("%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%")
        sql = ("SELECT j.*, u.name AS owner FROM jobs j JOIN users u ON u.id = j.owner_id"
               + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY j.created DESC LIMIT ?")
        return [dict(r) for r in self.q(sql, (*params, limit))]

    def queued_by(self, user: User) -> int:
        return self.q("SELECT count(*) FROM jobs WHERE owner_id = ? AND state = 'queued'", (user.id,))[0][0]

    def submissions_since(self, user: User, since: float) -> int:
        return self.q("SELECT count(*) FROM audit WHERE user = ? AND action = 'submit' AND at >= ?",
                      (user.name, since))[0][0]

    def set_job(self, job: str, **values: Any) -> None:
        cols = [c for c in values if c in ("state", "started", "ended", "pid", "pid_start", "resume", "exit_code",
                                          "error")]
        self.x(f"UPDATE jobs SET {', '.join(f'{c} = ?' for c in cols)} WHERE id = ?",
               (*[values[c] for c in cols], job))

    def audit(self, user: str, action: str, job: str | None = None, detail: str | None = None) -> None:
        self.x("INSERT INTO audit (at, user, action, job, detail) VALUES (?, ?, ?, ?, ?)",
               (time.time(), user, action, job, detail))

    def audit_log(self, limit: int = 200) -> list[dict]:
        return [dict(r) for r in self.q("SELECT * FROM audit ORDER BY id DESC LIMIT ?", (limit,))]
