"""Folding harvested sightings into tasks: a request seen again is one more occurrence of its task,
never a second task (see :meth:`~.db.Store.merge_tasks`).

Every sighting is also kept apart from the task it was folded into: to tell whether a rule helped,
what happened at each sighting matters (when the request was made, whether the user corrected it
that time). So each is kept slim (request, tags, the user's later turns; no excerpt of the
agent's attempt), under the id of the task it went into."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from datetime import datetime

from ..models import TaskRecord

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
        note_sighting(conn, rec, result.id)
    return new, updated


def note_sighting(conn: sqlite3.Connection, record: TaskRecord, task_id: str) -> None:
    """Keep (or update, when read again with more turns) one sighting, inside the caller's transaction."""
    slim = record.model_copy(update={"id": task_id, "attempt": "", "context": "", "checks": []})
    conn.execute(
        "INSERT OR REPLACE INTO request_sightings(sighting, task_id, project, seen_at, record)"
        " VALUES (?, ?, ?, ?, ?)",
        (record.id, task_id, record.project, record.created_at.isoformat(), slim.model_dump_json()),
    )


def sightings_of(conn: sqlite3.Connection, project: str, since: datetime | None) -> list[str]:
    """The sightings of ``project`` (their JSON records, under their task's id), oldest first."""
    sql, args = "SELECT record FROM request_sightings WHERE project = ?", [project]
    if since is not None:
        sql += " AND seen_at >= ?"
        args.append(since.isoformat())
    return [r[0] for r in conn.execute(sql + " ORDER BY seen_at, sighting", args).fetchall()]


def sources_of(conn: sqlite3.Connection, project: str) -> list[str]:
    """The agents ``project``'s tasks came from, each once, the first seen first: a task's own
    source and the source of every sighting folded into it (a request Gemini CLI was also
    corrected on, merged into the task Copilot CLI logged first, counts Gemini too)."""
    tasks = "SELECT source, created_at AS at FROM tasks WHERE project = ?"
    seen = (
        "SELECT json_extract(s.record, '$.source') AS source, s.seen_at AS at"
        " FROM request_sightings s JOIN tasks t ON t.id = s.task_id WHERE s.project = ?"
    )
    order = " GROUP BY source ORDER BY MIN(at), source"
    try:
        rows = conn.execute(
            f"SELECT source FROM ({tasks} UNION ALL {seen}){order}", (project, project)
        ).fetchall()
    except sqlite3.OperationalError:  # an older store opened read-only: no sightings yet
        rows = conn.execute(f"SELECT source FROM ({tasks}){order}", (project,)).fetchall()
    return [r[0] for r in rows if r[0]]
