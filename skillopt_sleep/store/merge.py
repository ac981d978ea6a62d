"""Folding harvested sightings into tasks: a request seen again is one more occurrence of its task,
never a second task (see :meth:`~.db.Store.merge_tasks`)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable

from ..models import TaskRecord
from . import sightings

_UPSERT = (
    "INSERT OR REPLACE INTO tasks(id, project, source, created_at, updated_at, record)"
    " VALUES (?, ?, ?, ?, ?, ?)"
)


def fold_sightings(
    conn: sqlite3.Connection,
    records: Iterable[TaskRecord],
    stamp: str,
    key: Callable[[TaskRecord], str],
    merge: Callable[..., TaskRecord],
    read: Callable[[str], TaskRecord],
) -> tuple[int, int]:
    """Store ``records`` inside the caller's transaction; returns (new, updated). ``read`` turns
    a stored record's JSON back into a TaskRecord."""
    new = updated = 0
    for rec in records:
        sighting, request = f"s:{rec.id}", f"i:{key(rec)}"
        seen = conn.execute("SELECT task_id FROM task_keys WHERE key = ?", (sighting,)).fetchone()
        same = (
            seen
            or conn.execute("SELECT task_id FROM task_keys WHERE key = ?", (request,)).fetchone()
        )
        row = same and conn.execute("SELECT record FROM tasks WHERE id = ?", (same[0],)).fetchone()
        if row:
            result = merge(read(row[0]), rec, seen_before=seen is not None)
            changed = result.model_dump_json() != row[0]
        else:
            result, changed = rec, True
        if changed:
            conn.execute(
                _UPSERT,
                (
                    result.id,
                    result.project,
                    result.source,
                    result.created_at.isoformat(),
                    stamp,
                    result.model_dump_json(),
                ),
            )
            new, updated = (new + 1, updated) if not row else (new, updated + 1)
        conn.executemany(
            "INSERT OR IGNORE INTO task_keys(key, task_id) VALUES (?, ?)",
            [(sighting, result.id), (request, result.id)],
        )
        sightings.note(conn, rec, result.id)
    return new, updated
