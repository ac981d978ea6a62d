"""Preferences: one correction the user keeps making, however often and wherever it is seen.

Each sighting (a correction on one task of one session) is stored once by its id, so reading a
transcript again never counts it twice; the preference keeps the count, when it was first and
last seen, the agents it was seen with, the tasks it was on and the checks it states.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class PreferenceSighting:
    """One correction on one task: ``key`` names what it asks (the same key, one preference)."""

    key: str
    sighting: str
    project: str
    statement: str
    checks: tuple[str, ...]
    source: str
    task_id: str
    seen_at: str


@dataclass(frozen=True)
class Preference:
    """A correction seen ``count`` times: a preference of the user's."""

    key: str
    project: str
    statement: str
    checks: tuple[str, ...]
    count: int
    first_seen: str
    last_seen: str
    sources: tuple[str, ...]
    task_ids: tuple[str, ...]


def _union(raw: str, more: Iterable[str]) -> str:
    items = list(json.loads(raw or "[]"))
    items += [x for x in more if x not in items]
    return json.dumps(items)


def note(conn: sqlite3.Connection, sightings: Iterable[PreferenceSighting]) -> int:
    """Store new sightings (inside the caller's transaction); returns how many were new."""
    added = 0
    for s in sightings:
        cur = conn.execute(
            "INSERT OR IGNORE INTO preference_sightings(sighting, pref_key) VALUES (?, ?)",
            (s.sighting, s.key),
        )
        if cur.rowcount == 0:
            continue
        added += 1
        row = conn.execute(
            "SELECT count, first_seen, last_seen, checks, sources, task_ids FROM preferences"
            " WHERE key = ?",
            (s.key,),
        ).fetchone()
        if row is None:
            conn.execute(
                "INSERT INTO preferences(key, project, statement, checks, count, first_seen,"
                " last_seen, sources, task_ids) VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?)",
                (
                    s.key,
                    s.project,
                    s.statement,
                    json.dumps(list(s.checks)),
                    s.seen_at,
                    s.seen_at,
                    json.dumps([s.source]),
                    json.dumps([s.task_id]),
                ),
            )
            continue
        count, first, last, checks, sources, tasks = row
        latest = s.seen_at >= last
        conn.execute(
            "UPDATE preferences SET count = ?, first_seen = ?, last_seen = ?, checks = ?,"
            " sources = ?, task_ids = ?, statement = CASE WHEN ? THEN ? ELSE statement END"
            " WHERE key = ?",
            (
                count + 1,
                min(first, s.seen_at),
                max(last, s.seen_at),
                _union(checks, s.checks),
                _union(sources, [s.source]),
                _union(tasks, [s.task_id]),
                latest,
                s.statement,
                s.key,
            ),
        )
    return added


def listed(conn: sqlite3.Connection, project: str | None) -> list[Preference]:
    """Preferences, the most often seen first."""
    sql = (
        "SELECT key, project, statement, checks, count, first_seen, last_seen, sources, task_ids"
        " FROM preferences"
    )
    args: tuple[str, ...] = ()
    if project is not None:
        sql += " WHERE project = ?"
        args = (project,)
    rows = conn.execute(sql + " ORDER BY count DESC, last_seen DESC, key", args).fetchall()
    return [
        Preference(
            r[0],
            r[1],
            r[2],
            tuple(json.loads(r[3])),
            r[4],
            r[5],
            r[6],
            tuple(json.loads(r[7])),
            tuple(json.loads(r[8])),
        )
        for r in rows
    ]
