"""A database made before turns and preferences opens, keeps every task, and gains the tables."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timezone

from skillopt_sleep.models import TaskRecord, TurnNote
from skillopt_sleep.store import Store
from skillopt_sleep.store.db import SCHEMA
from skillopt_sleep.store.preferences import PreferenceSighting
from skillopt_sleep.store.schema import VERSION

OLD_RECORD = {
    "schema_version": 1,
    "id": "t_0000000000000001",
    "source": "claude-code",
    "project": "/work/a",
    "session_id": "s1",
    "turn": 0,
    "created_at": "2026-11-20T10:00:00Z",
    "intent": "Run the test suite",
    "context": "",
    "attempt": "python -m unittest",
    "outcome": "failure",
    "feedback": "No, that's wrong: always use pytest -q",
    "checks": [{"kind": "contains", "value": "pytest -q", "case_sensitive": True, "weight": 1.0}],
    "skills_used": [],
    "tools_used": ["Bash"],
    "tags": ["corrected"],
    "occurrences": 1,
    "last_seen_at": None,
}


def _old_database(path) -> None:
    with sqlite3.connect(path) as conn:
        conn.executescript(SCHEMA)
        conn.execute(
            "INSERT INTO tasks(id, project, source, created_at, updated_at, record) VALUES (?,?,?,?,?,?)",
            (
                OLD_RECORD["id"],
                "/work/a",
                "claude-code",
                OLD_RECORD["created_at"],
                OLD_RECORD["created_at"],
                json.dumps(OLD_RECORD),
            ),
        )
        assert conn.execute("PRAGMA user_version").fetchone() == (0,)


def test_an_old_database_opens_with_its_tasks_and_gains_the_new_tables(tmp_path, cli):
    db = tmp_path / "old.db"
    _old_database(db)
    store = Store.open(db)
    [task] = store.list_tasks()
    assert task.schema_version == 1 and task.turns == [] and task.checks[0].value == "pytest -q"
    assert store.preferences() == []
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (VERSION,)
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"preferences", "preference_sightings", "task_keys"} <= tables
    Store.open(db).close()  # opening again is a no-op


def test_a_version_1_record_still_validates_and_a_new_one_carries_its_turns():
    old = TaskRecord.model_validate(OLD_RECORD)
    assert old.turns == []
    new = old.model_copy(
        update={
            "schema_version": 2,
            "turns": [
                TurnNote(
                    kind="praise", text="Danke!", at=datetime(2026, 11, 20, tzinfo=timezone.utc)
                )
            ],
        }
    )
    again = TaskRecord.model_validate_json(new.model_dump_json())
    assert again.turns[0].kind == "praise" and again.schema_version == 2


def test_a_sighting_counts_once_and_the_preference_keeps_first_and_last_seen():
    store = Store.memory()

    def seen(sighting: str, source: str, at: str) -> PreferenceSighting:
        return PreferenceSighting(
            "p_1",
            sighting,
            "/work/a",
            f"use pytest -q ({sighting})",
            ("contains 'pytest -q'",),
            source,
            f"t_{sighting}",
            at,
        )

    assert store.note_preferences([seen("a", "codex", "2026-11-21T10:00:00+00:00")]) == 1
    assert (
        store.note_preferences(
            [
                seen("a", "codex", "2026-11-21T10:00:00+00:00"),
                seen("b", "claude-code", "2026-11-20T09:00:00+00:00"),
            ]
        )
        == 1
    )
    [pref] = store.preferences("/work/a")
    assert (pref.count, pref.first_seen, pref.last_seen) == (
        2,
        "2026-11-20T09:00:00+00:00",
        "2026-11-21T10:00:00+00:00",
    )
    assert pref.sources == ("codex", "claude-code") and pref.statement == "use pytest -q (a)"
    assert store.preferences("/work/other") == []
