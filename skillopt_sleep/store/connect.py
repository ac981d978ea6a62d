"""Opening the store for writing: WAL mode, a generous busy timeout, the schema made and migrated;
a permission problem is told apart from a broken database."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ..errors import StoreError
from ..paths import not_writable
from .migrate import migrate
from .schema import SCHEMA

__all__ = ["SCHEMA", "connect_memory", "connect_writable", "is_permission"]


def connect_writable(path: Path) -> sqlite3.Connection:
    """A connection to the database at ``path`` (made, with its directory, when missing)."""
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(path), timeout=60, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA busy_timeout = 60000")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.executescript(SCHEMA)
        migrate(conn)
    except sqlite3.DatabaseError as exc:
        if is_permission(exc):
            raise not_writable(path, str(exc)) from exc
        raise StoreError(
            f"cannot open the store {path}: {exc}",
            hint="check the disk; `skillopt-sleep doctor` shows what else it finds",
        ) from exc
    except OSError as exc:
        raise not_writable(path, exc.strerror or str(exc)) from exc
    return conn


def connect_memory() -> sqlite3.Connection:
    """An in-memory database with the schema (for tests and an absent store read-only)."""
    conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    conn.executescript(SCHEMA)
    migrate(conn)
    return conn


def is_permission(exc: sqlite3.DatabaseError) -> bool:
    """Whether SQLite refused for want of permission (a read-only file, directory or sandbox)."""
    text = str(exc).lower()
    return "readonly" in text or "read-only" in text or "unable to open" in text
