"""The service's catalog (ROOT/service.sqlite): users with roles and hashed tokens, page sessions with their CSRF
token, jobs and their states, and the audit log of who started, cancelled or deleted what. Every value is bound
(``?``), never formatted into SQL."""

from __future__ import annotations

import hashlib
import json
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
ENDED = ("done", "failed", "cancelled")
PRIORITIES = (-10, 10)                             # a queued job's priority, lowest and highest (0 by default)
JOB_ID = re.compile(r"[0-9a-f]{12}")               # ids are generated (secrets.token_hex(6)), never a user's path
USER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
SESSION_S = 12 * 3600                              # a page session lasts 12 hours

# The schema as the first catalogs made it: version 0 (a catalog with no ``user_version``) holds these tables,
# perhaps with some of the later columns that older code added one at a time.
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
CREATE TABLE IF NOT EXISTS follows (
    user_id INTEGER NOT NULL, job TEXT NOT NULL, PRIMARY KEY (user_id, job));
CREATE TABLE IF NOT EXISTS notifications (
    id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL, job TEXT NOT NULL, state TEXT NOT NULL, at REAL NOT NULL,
    seen INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS notifications_user ON notifications(user_id, seen);
CREATE TABLE IF NOT EXISTS nightly (
    name TEXT PRIMARY KEY, suite TEXT NOT NULL, baseline TEXT NOT NULL, at TEXT NOT NULL,
    enabled INTEGER NOT NULL DEFAULT 1, owner_id INTEGER NOT NULL, created REAL NOT NULL, updated REAL NOT NULL,
    queued_day TEXT NOT NULL DEFAULT '', last_error TEXT NOT NULL DEFAULT '');
"""

# Columns the catalogs before ``user_version`` added one at a time at open: (table, column, declaration). Migration 1
# adds those an old catalog lacks (it may hold any of them already), so it is written as "add if missing".
COLUMNS = (
    ("jobs", "params", "TEXT NOT NULL DEFAULT '{}'"),          # a job kind's own inputs as JSON (service/kinds.py)
    ("jobs", "results", "TEXT NOT NULL DEFAULT ''"),           # its results root on object storage ('': ROOT/runs)
    ("nightly", "cards", "TEXT NOT NULL DEFAULT '{}'"),        # a nightly suite's card files, {name: TOML text}
    ("jobs", "priority", "INTEGER NOT NULL DEFAULT 0"),        # higher starts first (after the resumed ones)
    ("jobs", "rule_set", "TEXT NOT NULL DEFAULT ''"),          # service.specs.rule_set_of: "paws v4", "tales"
    ("jobs", "verdict", "TEXT NOT NULL DEFAULT ''"),           # the run's verdict in a word, once it has one
    ("users", "removed", "REAL"),                              # when an admin removed the user (its runs stay)
    ("jobs", "project", "TEXT NOT NULL DEFAULT ''"),           # the nightly project that queued it (service/nightly.py)
    ("jobs", "pilot_s", "REAL"),                               # the pilot's time to play, uncalibrated (service/kinds.py)
    ("jobs", "estimate", "TEXT NOT NULL DEFAULT ''"),          # the time shown before Start: "20 s to 1 min"
)


def _columns_of_old(con: sqlite3.Connection) -> None:
    """Migration 1: the columns the first catalogs lacked (``COLUMNS``), each added where missing."""
    for table, column, declaration in COLUMNS:
        have = {r[1] for r in con.execute(f"PRAGMA table_info({table})")}
        if column not in have:
            con.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")


def _keys(con: sqlite3.Connection) -> None:
    """Migration 2: the service's own secrets (the key that signs the page session cookie), made once per root."""
    con.execute("CREATE TABLE keys (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
    con.execute("INSERT INTO keys (name, value) VALUES ('session', ?)", (secrets.token_urlsafe(48),))


# The schema's versions: MIGRATIONS[i] takes a catalog from ``PRAGMA user_version`` i to i + 1. Append only; a step
# once released is never edited (catalogs in the field went through it as written).
MIGRATIONS = (_columns_of_old, _keys)
VERSION = len(MIGRATIONS)


def migrate(con: sqlite3.Connection) -> int:
    """The catalog behind ``con`` brought to ``VERSION``, each step with its version in one transaction; returns the
    version it had. A catalog from newer code (a higher version) is refused rather than misread."""
    con.executescript(SCHEMA)
    had = con.execute("PRAGMA user_version").fetchone()[0]
    if had > VERSION:
        raise CatalogError(f"the catalog is at schema version {had}; this code knows versions up to {VERSION} "
                           "(a newer playtest made it)")
    while True:           # each step re-reads the version under the write lock: another process may have moved it
        con.execute("BEGIN IMMEDIATE")
        try:
            version = con.execute("PRAGMA user_version").fetchone()[0]
            if version < VERSION:
                MIGRATIONS[version](con)
                con.execute(f"PRAGMA user_version = {version + 1}")
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
        if version >= VERSION - 1:
            break
    return had


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


def _like(text: str) -> str:
    """``text`` as a literal inside a LIKE pattern (ESCAPE '\\')."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


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
            try:
                self._con.execute("PRAGMA journal_mode=WAL")
                migrate(self._con)
            except BaseException:
                self._con.close()
                raise

    def key(self, name: str) -> str:
        """One of the service's own secrets (migration 2 made them)."""
        return self.q("SELECT value FROM keys WHERE name = ?", (name,))[0][0]

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
            if self.q("SELECT 1 FROM users WHERE name = ? AND removed IS NOT NULL", (name,)):
                raise CatalogError(f"user {name!r} was removed; the name stays with its runs, pick another") from None
            raise CatalogError(f"user {name!r} exists already") from None
        return token

    def users(self) -> list[User]:
        return [User(r["id"], r["name"], r["role"])
                for r in self.q("SELECT id, name, role FROM users WHERE removed IS NULL ORDER BY name")]

    def user(self, name: str) -> User | None:
        """A user who has not been removed, by name."""
        if not USER_NAME.fullmatch(name or ""):
            return None
        rows = self.q("SELECT id, name, role FROM users WHERE name = ? AND removed IS NULL", (name,))
        return User(rows[0]["id"], rows[0]["name"], rows[0]["role"]) if rows else None

    def _no_user(self, name: str) -> CatalogError:
        return CatalogError(f"no user {name!r}" if len(name or "") <= 64 else "no such user")

    def rotate_token(self, name: str) -> str:
        """A new API token for ``name`` (returned once, stored hashed): the old one stops working and the user's
        page sessions end."""
        user = self.user(name)
        if user is None:
            raise self._no_user(name)
        token = "pt_" + secrets.token_urlsafe(32)
        with self._lock:
            self.x("UPDATE users SET token_hash = ? WHERE id = ?", (digest(token), user.id))
            self.x("DELETE FROM sessions WHERE user_id = ?", (user.id,))
        return token

    def set_role(self, name: str, role: str) -> User:
        user = self.user(name)
        if user is None:
            raise self._no_user(name)
        if role not in ROLES:
            raise CatalogError(f"role {role[:20]!r}: expected one of {', '.join(ROLES)}")
        self.x("UPDATE users SET role = ? WHERE id = ?", (role, user.id))
        return User(user.id, user.name, role)

    def remove_user(self, name: str) -> None:
        """The user can no longer log in (a random token hash, no sessions, follows or notifications); the row
        stays, marked removed, so its runs keep their owner's name (and nobody else takes that name)."""
        user = self.user(name)
        if user is None:
            raise self._no_user(name)
        with self._lock:
            self.x("UPDATE users SET removed = ?, token_hash = ? WHERE id = ?",
                   (time.time(), "removed:" + secrets.token_hex(32), user.id))
            for table in ("sessions", "follows", "notifications"):
                self.x(f"DELETE FROM {table} WHERE user_id = ?", (user.id,))

    def user_by_token(self, token: str | None) -> User | None:
        if not token or len(token) > 200:
            return None
        rows = self.q("SELECT id, name, role FROM users WHERE token_hash = ? AND removed IS NULL", (digest(token),))
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
                      "WHERE s.id_hash = ? AND s.expires >= ? AND u.removed IS NULL", (digest(sid), time.time()))
        return (User(rows[0]["id"], rows[0]["name"], rows[0]["role"]), rows[0]["csrf"]) if rows else None

    def end_session(self, sid: str | None) -> None:
        if isinstance(sid, str) and sid and len(sid) <= 200:
            self.x("DELETE FROM sessions WHERE id_hash = ?", (digest(sid),))

    # jobs -----------------------------------------------------------------------------------------------

    def add_job(self, *, owner: User, title: str, description: str, spec_name: str, game: str, spec_text: str,
                cells: int, games: int, kind: str = "sweep", params: dict | None = None, rule_set: str = "",
                results: str = "", pilot_s: float | None = None, estimate: str = "") -> str:
        job = secrets.token_hex(6)
        self.x("INSERT INTO jobs (id, kind, title, description, owner_id, spec_name, game, spec_text, cells, games, "
               "state, created, params, rule_set, results, pilot_s, estimate) "
               "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?, ?, ?, ?)",
               (job, kind, title, description, owner.id, spec_name, game, spec_text, cells, games, time.time(),
                json.dumps(params or {}), rule_set, results, pilot_s, estimate))
        self.follow(owner, job, True)                  # the owner follows their own runs (a notice when it ends)
        self.audit(owner.name, "submit", job, title)
        return job

    def timings(self, kind: str, limit: int = 20) -> list[tuple[float, float]]:
        """(the pilot's seconds, the seconds it took from start to end) of this kind's latest done runs that were
        piloted: what the cost estimate is calibrated on (service.kinds.calibrated)."""
        rows = self.q("SELECT pilot_s, ended - started FROM jobs WHERE kind = ? AND state = 'done' AND pilot_s > 0 "
                      "AND started > 0 AND ended >= started ORDER BY ended DESC LIMIT ?", (kind, limit))
        return [(float(a), float(b)) for a, b in rows]

    def job(self, job: str) -> dict[str, Any] | None:
        if not JOB_ID.fullmatch(job or ""):
            return None
        rows = self.q("SELECT j.*, u.name AS owner FROM jobs j JOIN users u ON u.id = j.owner_id WHERE j.id = ?",
                      (job,))
        return dict(rows[0]) if rows else None

    def jobs(self, *, game: str = "", state: str = "", owner: str = "", text: str = "", rule_set: str = "",
             verdict: str = "", since: float | None = None, before: float | None = None, limit: int = 200) -> list[dict]:
        """Jobs, newest first, filtered by game, state, owner's name, text in the title, a rule set (one of a
        job's, which may list several), its verdict and when it was submitted (``since`` <= created < ``before``);
        all bound values."""
        where, params = [], []
        for column, value in (("j.game", game), ("j.state", state), ("u.name", owner), ("j.verdict", verdict)):
            if value:
                where.append(f"{column} = ?")
                params.append(value)
        if text:
            where.append("j.title LIKE ? ESCAPE '\\'")
            params.append("%" + _like(text) + "%")
        if rule_set:
            where.append("(', ' || j.rule_set || ', ') LIKE ? ESCAPE '\\'")
            params.append("%, " + _like(rule_set) + ", %")
        for op, value in ((">=", since), ("<", before)):
            if value is not None:
                where.append(f"j.created {op} ?")
                params.append(value)
        sql = ("SELECT j.*, u.name AS owner FROM jobs j JOIN users u ON u.id = j.owner_id"
               + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY j.created DESC LIMIT ?")
        return [dict(r) for r in self.q(sql, (*params, limit))]

    def queued_by(self, user: User) -> int:
        return self.q("SELECT count(*) FROM jobs WHERE owner_id = ? AND state = 'queued'", (user.id,))[0][0]

    def submissions_since(self, user: User, since: float) -> int:
        return self.q("SELECT count(*) FROM audit WHERE user = ? AND action = 'submit' AND at >= ?",
                      (user.name, since))[0][0]

    def rule_sets(self) -> list[str]:
        """The rule sets the jobs name (each of a job's several), sorted: the run list's choices."""
        got = {part for (value,) in self.q("SELECT DISTINCT rule_set FROM jobs WHERE rule_set != ''")
               for part in value.split(", ") if part}
        return sorted(got)

    def verdicts(self) -> list[str]:
        return [r[0] for r in self.q("SELECT DISTINCT verdict FROM jobs WHERE verdict != '' ORDER BY verdict")]

    def set_job(self, job: str, **values: Any) -> None:
        """Update a job's columns; when its state becomes an ended one (done, failed, cancelled) its followers
        are notified (``ended``)."""
        cols = [c for c in values if c in ("state", "started", "ended", "pid", "pid_start", "resume", "exit_code",
                                          "error", "verdict")]
        if not cols:
            return
        with self._lock:
            before = self.q("SELECT state FROM jobs WHERE id = ?", (job,)) if "state" in cols else []
            self.x(f"UPDATE jobs SET {', '.join(f'{c} = ?' for c in cols)} WHERE id = ?",
                   (*[values[c] for c in cols], job))
            if before and values["state"] in ENDED and before[0][0] != values["state"]:
                self.ended(job, values["state"])

    def ended(self, job: str, state: str) -> int:
        """A notification for each follower of ``job``, which ended in ``state`` (once per follower and state);
        returns how many were made."""
        with self._lock:
            return self.x("INSERT INTO notifications (user_id, job, state, at) SELECT f.user_id, f.job, ?, ? "
                          "FROM follows f JOIN users u ON u.id = f.user_id WHERE f.job = ? AND u.removed IS NULL "
                          "AND NOT EXISTS (SELECT 1 FROM notifications n WHERE n.user_id = f.user_id "
                          "AND n.job = f.job AND n.state = ?)", (state, time.time(), job, state))

    def set_priority(self, job: str, priority: int) -> bool:
        """A queued job's priority; False when the job is not queued (any more)."""
        return self.x("UPDATE jobs SET priority = ? WHERE id = ? AND state = 'queued'", (int(priority), job)) == 1

    def delete_job(self, job: str) -> None:
        """The job's row, its follows and notifications (its folders are the caller's to remove)."""
        with self._lock:
            for table, column in (("jobs", "id"), ("follows", "job"), ("notifications", "job")):
                self.x(f"DELETE FROM {table} WHERE {column} = ?", (job,))

    # follows and notifications --------------------------------------------------------------------------

    def follow(self, user: User, job: str, on: bool | None = None) -> bool:
        """Follow (``on`` True), stop following (False) or toggle (None) a job; returns whether ``user``
        follows it now."""
        with self._lock:
            now = self.following(user, job)
            want = (not now) if on is None else on
            if want and not now:
                self.x("INSERT OR IGNORE INTO follows (user_id, job) VALUES (?, ?)", (user.id, job))
            elif now and not want:
                self.x("DELETE FROM follows WHERE user_id = ? AND job = ?", (user.id, job))
            return want

    def following(self, user: User, job: str) -> bool:
        return bool(self.q("SELECT 1 FROM follows WHERE user_id = ? AND job = ?", (user.id, job)))

    def notifications(self, user: User, *, unseen: bool = True, limit: int = 50) -> list[dict]:
        """The user's notifications, newest first (only the unseen ones unless ``unseen`` is False), with the
        run's title."""
        sql = ("SELECT n.id, n.job, n.state, n.at, n.seen, j.title FROM notifications n JOIN jobs j ON j.id = n.job "
               "WHERE n.user_id = ?" + (" AND n.seen = 0" if unseen else "") + " ORDER BY n.id DESC LIMIT ?")
        return [dict(r) for r in self.q(sql, (user.id, limit))]

    def mark_seen(self, user: User) -> int:
        return self.x("UPDATE notifications SET seen = 1 WHERE user_id = ? AND seen = 0", (user.id,))

    def audit(self, user: str, action: str, job: str | None = None, detail: str | None = None) -> None:
        self.x("INSERT INTO audit (at, user, action, job, detail) VALUES (?, ?, ?, ?, ?)",
               (time.time(), user, action, job, detail))

    def audit_log(self, limit: int = 200) -> list[dict]:
        return [dict(r) for r in self.q("SELECT * FROM audit ORDER BY id DESC LIMIT ?", (limit,))]
