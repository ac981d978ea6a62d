"""Every sighting of a request, kept apart from the task it was folded into.

The task log folds a request the user makes again into one task (its ``occurrences`` grow, a
repeated correction is kept once). To tell whether a rule helped, what happened at each sighting
matters: when the request was made and whether the user corrected it that time. So each harvested
sighting is also kept here, slim (request, tags, the user's later turns; no excerpt of the
agent's attempt), under the id of the task it went into.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime

from ..models import TaskRecord


def note(conn: sqlite3.Connection, record: TaskRecord, task_id: str) -> None:
    """Keep (or update, when read again with more turns) one sighting, inside the caller's transaction."""
    slim = record.model_copy(update={"id": task_id, "attempt": "", "context": "", "checks": []})
    conn.execute(
        "INSERT OR REPLACE INTO request_sightings(sighting, task_id, project, seen_at, record)"
        " VALUES (?, ?, ?, ?, ?)",
        (record.id, task_id, record.project, record.created_at.isoformat(), slim.model_dump_json()),
    )


def listed(conn: sqlite3.Connection, project: str, since: datetime | None) -> list[str]:
    """The sightings of ``project`` (their JSON records, under their task's id), oldest first."""
    sql, args = "SELECT record FROM request_sightings WHERE project = ?", [project]
    if since is not None:
        sql += " AND seen_at >= ?"
        args.append(since.isoformat())
    return [r[0] for r in conn.execute(sql + " ORDER BY seen_at, sighting", args).fetchall()]
