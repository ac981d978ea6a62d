"""Opening an existing store for reading only: a reading command works where a sandbox forbids
writes, and never changes the database, not even to migrate it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ..errors import StoreError
from .connect import corrupt, is_corrupt
from .schema import SCHEMA, VERSION, migrate


def connect_readonly(path: Path) -> sqlite3.Connection:
    """A read-only connection to the database at ``path`` (which exists).

    SQLite's ``mode=ro`` still needs the WAL index files when they are gone and the directory
    is not writable (a sandbox); ``immutable=1`` then reads the file as it is, which is safe
    because this connection never writes.
    """
    uri = path.resolve().as_uri()
    last: sqlite3.DatabaseError | None = None
    for flags in ("mode=ro", "mode=ro&immutable=1"):
        try:
            conn = sqlite3.connect(
                f"{uri}?{flags}",
                uri=True,
                timeout=60,
                isolation_level=None,
                check_same_thread=False,
            )
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            _stand_in_tables(conn)
        except sqlite3.DatabaseError as exc:
            if is_corrupt(exc):
                raise corrupt(path, exc) from exc
            last = exc
            continue
        return conn
    raise StoreError(
        f"cannot read the store {path}: {last}", hint=f"check that your user can read {path.parent}"
    )


def _stand_in_tables(conn: sqlite3.Connection) -> None:
    """Empty temporary tables for those an older store lacks: a reader cannot migrate it, and
    reads them as empty until the next command that writes brings it up to date."""
    if int(conn.execute("PRAGMA user_version").fetchone()[0]) >= VERSION:
        return
    have = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    model = sqlite3.connect(":memory:")
    model.executescript(SCHEMA)
    migrate(model)
    for name, sql in model.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'"):
        if name not in have and not name.startswith("sqlite_"):
            conn.execute(sql.replace("CREATE TABLE", "CREATE TEMP TABLE", 1))
    model.close()
