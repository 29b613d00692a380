"""The catalog's schema versions (``PRAGMA user_version``): a root written by the code before versions opens and is
migrated in order, keeping its users, sessions and jobs; a catalog from newer code is refused."""

from __future__ import annotations

import sqlite3

import pytest

from service.catalog import VERSION, Catalog, CatalogError

pytestmark = pytest.mark.service

# The CREATE statements of the first catalogs, as that code wrote them (no user_version, none of the later columns).
FIRST = """
CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL, role TEXT NOT NULL,
    token_hash TEXT UNIQUE NOT NULL, created REAL NOT NULL);
CREATE TABLE sessions (id_hash TEXT PRIMARY KEY, user_id INTEGER NOT NULL, csrf TEXT NOT NULL, expires REAL NOT NULL);
CREATE TABLE jobs (id TEXT PRIMARY KEY, kind TEXT NOT NULL DEFAULT 'sweep', title TEXT NOT NULL,
    description TEXT NOT NULL, owner_id INTEGER NOT NULL, spec_name TEXT NOT NULL, game TEXT NOT NULL,
    spec_text TEXT NOT NULL, cells INTEGER NOT NULL, games INTEGER NOT NULL, state TEXT NOT NULL, created REAL NOT NULL,
    started REAL, ended REAL, pid INTEGER, pid_start INTEGER, resume INTEGER NOT NULL DEFAULT 0, exit_code INTEGER,
    error TEXT);
CREATE INDEX jobs_state ON jobs(state, created);
CREATE TABLE audit (id INTEGER PRIMARY KEY, at REAL NOT NULL, user TEXT NOT NULL, action TEXT NOT NULL, job TEXT,
    detail TEXT);
CREATE TABLE follows (user_id INTEGER NOT NULL, job TEXT NOT NULL, PRIMARY KEY (user_id, job));
CREATE TABLE notifications (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL, job TEXT NOT NULL, state TEXT NOT NULL,
    at REAL NOT NULL, seen INTEGER NOT NULL DEFAULT 0);
CREATE INDEX notifications_user ON notifications(user_id, seen);
CREATE TABLE nightly (name TEXT PRIMARY KEY, suite TEXT NOT NULL, baseline TEXT NOT NULL, at TEXT NOT NULL,
    enabled INTEGER NOT NULL DEFAULT 1, owner_id INTEGER NOT NULL, created REAL NOT NULL, updated REAL NOT NULL,
    queued_day TEXT NOT NULL DEFAULT '', last_error TEXT NOT NULL DEFAULT '');
"""
# The columns the code before versions added at open, in its order (the last catalog it wrote had them all).
ADDED = (("jobs", "params", "TEXT NOT NULL DEFAULT '{}'"), ("jobs", "results", "TEXT NOT NULL DEFAULT ''"),
         ("nightly", "cards", "TEXT NOT NULL DEFAULT '{}'"), ("jobs", "priority", "INTEGER NOT NULL DEFAULT 0"),
         ("jobs", "rule_set", "TEXT NOT NULL DEFAULT ''"), ("jobs", "verdict", "TEXT NOT NULL DEFAULT ''"),
         ("users", "removed", "REAL"), ("jobs", "project", "TEXT NOT NULL DEFAULT ''"), ("jobs", "pilot_s", "REAL"),
         ("jobs", "estimate", "TEXT NOT NULL DEFAULT ''"))
OLD_TOKEN = "pt_old"


def old_catalog(path, *, added: int) -> None:
    """A catalog as the code before schema versions left it: the first tables, one user with a live session and
    one done job; ``added``: how many of the later columns that code had added at open (a root it had opened)."""
    import hashlib
    con = sqlite3.connect(path)
    con.executescript(FIRST)
    for table, column, declaration in ADDED[:added]:
        con.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")
    con.execute("INSERT INTO users (id, name, role, token_hash, created) VALUES (1, 'olga', 'admin', ?, 1.0)",
                (hashlib.sha256(OLD_TOKEN.encode()).hexdigest(),))
    con.execute("INSERT INTO sessions VALUES (?, 1, 'the-csrf', 9e12)", (hashlib.sha256(b"sid").hexdigest(),))
    con.execute("INSERT INTO jobs (id, title, description, owner_id, spec_name, game, spec_text, cells, games, "
                "state, created, started, ended) VALUES ('0123456789ab', 'old run', '', 1, 'tiny', 'paws', 'x', 2, "
                "400, 'done', 5.0, 6.0, 7.0)")
    con.commit()
    con.close()


@pytest.mark.parametrize("added", [0, 3, len(ADDED)], ids=["first", "opened-since", "the-last-before-versions"])
def test_a_catalog_written_before_versions_opens_and_migrates(tmp_path, added):
    path = tmp_path / "service.sqlite"
    old_catalog(path, added=added)
    cat = Catalog(path)
    assert cat.q("PRAGMA user_version")[0][0] == VERSION
    user = cat.user_by_token(OLD_TOKEN)
    assert user is not None and (user.name, user.role) == ("olga", "admin")
    assert cat.session("sid") == (user, "the-csrf")              # a page session of the old code still works
    job = cat.job("0123456789ab")
    assert (job["title"], job["state"], job["owner"]) == ("old run", "done", "olga")
    assert (job["params"], job["results"], job["priority"], job["verdict"], job["estimate"]) == ("{}", "", 0, "", "")
    assert job["pilot_s"] is None
    key = cat.key("session")
    assert len(key) >= 48
    cat.close()
    again = Catalog(path)                                         # opened again: nothing to do, the key kept
    assert again.q("PRAGMA user_version")[0][0] == VERSION and again.key("session") == key
    again.close()


def test_a_fresh_catalog_is_at_the_latest_version_with_every_column(tmp_path):
    cat = Catalog(tmp_path / "service.sqlite")
    assert cat.q("PRAGMA user_version")[0][0] == VERSION
    columns = {r[1] for r in cat.q("PRAGMA table_info(jobs)")}
    assert {"params", "results", "priority", "rule_set", "verdict", "project", "pilot_s", "estimate"} <= columns
    assert "removed" in {r[1] for r in cat.q("PRAGMA table_info(users)")}
    assert "cards" in {r[1] for r in cat.q("PRAGMA table_info(nightly)")}
    cat.close()


def test_a_catalog_from_newer_code_is_refused_in_one_line(tmp_path):
    path = tmp_path / "service.sqlite"
    con = sqlite3.connect(path)
    con.execute(f"PRAGMA user_version = {VERSION + 1}")
    con.close()
    with pytest.raises(CatalogError, match=f"schema version {VERSION + 1}") as e:
        Catalog(path)
    assert "\n" not in str(e.value)
