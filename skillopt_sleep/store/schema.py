"""The store's tables: as first made (:data:`SCHEMA`), and the migrations since, numbered by
SQLite's ``PRAGMA user_version``.

A database made by an older skillopt-sleep opens as it is and is brought up to date once, in
one transaction; nothing in it is rewritten or lost. Stored task records keep their
``schema_version``: a version-1 record reads as one without ``turns``.
"""

from __future__ import annotations

import sqlite3

SCHEMA = """
CREATE TABLE IF NOT EXISTS tasks (
  id TEXT PRIMARY KEY,
  project TEXT NOT NULL,
  source TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS tasks_project ON tasks(project, created_at);
CREATE TABLE IF NOT EXISTS nights (
  id TEXT PRIMARY KEY,
  project TEXT NOT NULL,
  started_at TEXT NOT NULL,
  decision TEXT NOT NULL,
  state TEXT NOT NULL,
  proposal_dir TEXT,
  summary TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS nights_project ON nights(project, started_at);
CREATE TABLE IF NOT EXISTS rollouts (
  key TEXT PRIMARY KEY,
  task_id TEXT NOT NULL,
  result TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS cursors (
  path TEXT PRIMARY KEY,
  source TEXT NOT NULL,
  inode INTEGER NOT NULL,
  size INTEGER NOT NULL,
  mtime_ns INTEGER NOT NULL,
  offset INTEGER NOT NULL,
  state TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS notices (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  created_at TEXT NOT NULL,
  kind TEXT NOT NULL,
  message TEXT NOT NULL,
  seen INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS rejected_edits (
  key TEXT NOT NULL,
  project TEXT NOT NULL,
  night_id TEXT NOT NULL,
  edit TEXT NOT NULL,
  PRIMARY KEY (key, project)
);
CREATE TABLE IF NOT EXISTS edit_evidence (
  key TEXT NOT NULL,
  project TEXT NOT NULL,
  log_e REAL NOT NULL,
  nights INTEGER NOT NULL,
  night_id TEXT NOT NULL,
  PRIMARY KEY (key, project)
);
CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
"""

# Each step takes the database from version i to i + 1.
_STEPS: tuple[str, ...] = (
    # 1: the request keys of harvested tasks (made lazily before), and the preferences the user
    # stated by correcting the agent, with every sighting that strengthened one.
    """
    CREATE TABLE IF NOT EXISTS task_keys (key TEXT PRIMARY KEY, task_id TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS preferences (
      key TEXT PRIMARY KEY,
      project TEXT NOT NULL,
      statement TEXT NOT NULL,
      checks TEXT NOT NULL DEFAULT '[]',
      count INTEGER NOT NULL DEFAULT 0,
      first_seen TEXT NOT NULL,
      last_seen TEXT NOT NULL,
      sources TEXT NOT NULL DEFAULT '[]',
      task_ids TEXT NOT NULL DEFAULT '[]'
    );
    CREATE INDEX IF NOT EXISTS preferences_project ON preferences(project, count);
    CREATE TABLE IF NOT EXISTS preference_sightings (
      sighting TEXT PRIMARY KEY,
      pref_key TEXT NOT NULL
    );
    """,
    # 2: every sighting of a harvested request, under the task it was folded into (what a rule's
    # outcome after adoption is counted from).
    """
    CREATE TABLE IF NOT EXISTS request_sightings (
      sighting TEXT PRIMARY KEY,
      task_id TEXT NOT NULL,
      project TEXT NOT NULL,
      seen_at TEXT NOT NULL,
      record TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS request_sightings_project ON request_sightings(project, seen_at);
    """,
    # 3: every night id ever handed out, reserved before the night writes anything, so two nights
    # started in the same second never share one.
    """
    CREATE TABLE IF NOT EXISTS night_ids (
      id TEXT PRIMARY KEY,
      project TEXT NOT NULL,
      reserved_at TEXT NOT NULL
    );
    INSERT OR IGNORE INTO night_ids(id, project, reserved_at) SELECT id, project, started_at FROM nights;
    """,
)
VERSION = len(_STEPS)


def migrate(conn: sqlite3.Connection) -> int:
    """Bring the database up to :data:`VERSION`; returns the version it had before."""
    before = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if before >= VERSION:
        return before
    conn.execute("BEGIN IMMEDIATE")
    try:
        current = int(conn.execute("PRAGMA user_version").fetchone()[0])  # another process?
        for step in _STEPS[current:]:
            for statement in step.split(";"):
                if statement.strip():
                    conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {VERSION}")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return before
