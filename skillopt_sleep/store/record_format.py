"""The newest record format that wrote a store, kept in its meta table (``record_format``).

A stored model (a task record, a night's summary, an edit, ...) refuses fields it does not know,
so an engine older than the one that wrote a record cannot read it: it failed with an internal
error. The number is raised whenever a stored model gains a field (tests/structure holds the
field lists per format), every engine that opens a store to write raises the store's number to
its own, and an engine that finds a newer number than its own refuses the store with the fix:
install the newer engine.

Formats: 1, every store before the number was kept; 2, a night's spend with no price
(NightSummary.unpriced_models, a role's unpriced_calls); 3, the models agent replays ran on
(NightSummary.agent_models).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ..errors import StoreError

RECORD_FORMAT = 3
KEY = "record_format"


def stored_format(conn: sqlite3.Connection) -> int:
    """The store's format: 1 when none is recorded (written before the number was kept)."""
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (KEY,)).fetchone()
    except sqlite3.OperationalError:  # no meta table: a store older than any format
        return 1
    try:
        return int(row[0]) if row else 1
    except ValueError:
        return RECORD_FORMAT + 1  # not a number this engine wrote: a newer one's


def check(conn: sqlite3.Connection, path: Path | str) -> int:
    """The store's format; a :class:`StoreError` when this engine cannot read it."""
    found = stored_format(conn)
    if found > RECORD_FORMAT:
        raise newer_store(path, found)
    return found


def hold(conn: sqlite3.Connection, path: Path | str) -> None:
    """Check the store, and raise its format to this engine's (a writer's records are of it)."""
    if check(conn, path) < RECORD_FORMAT:
        conn.execute(
            "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (KEY, str(RECORD_FORMAT))
        )


def newer_store(path: Path | str, found: int) -> StoreError:
    return StoreError(
        f"this store was written by a newer skillopt-sleep (format {found}, this engine reads "
        f"up to {RECORD_FORMAT})",
        hint="install the newer engine (sh install/install.sh from its checkout); the store "
        f"{path} is left as it is",
    )
