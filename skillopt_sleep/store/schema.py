"""The store's tables as first made; later changes are steps in :mod:`.migrate`."""

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
