"""The store opened for reading only: reads what is there, creates and changes nothing."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timezone
from pathlib import Path

import pytest

from skillopt_sleep.errors import StoreNotWritable
from skillopt_sleep.models import TaskRecord
from skillopt_sleep.store import Store
from skillopt_sleep.store.schema import SCHEMA

NOW = datetime(2026, 11, 23, 12, 0, tzinfo=timezone.utc)


def _task() -> TaskRecord:
    return TaskRecord(
        id="t_1",
        source="manual",
        project="/p",
        session_id="s",
        created_at=NOW,
        intent="Run the tests",
    )


def _files(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(root.iterdir())}


def test_a_missing_store_reads_as_empty_and_is_not_created(tmp_path):
    store = Store.open_readonly(tmp_path / "data" / "skillopt-sleep.db")
    assert store.list_tasks() == [] and store.nights() == [] and store.notices() == []
    assert list(tmp_path.iterdir()) == []


def test_reads_what_a_writer_stored_and_changes_no_byte_of_it(tmp_path):
    db = tmp_path / "skillopt-sleep.db"
    writer = Store.open(db)
    writer.upsert_tasks([_task()], NOW)
    writer.close()
    before = db.read_bytes()
    reader = Store.open_readonly(db)
    assert [t.intent for t in reader.list_tasks()] == ["Run the tests"]
    reader.close()
    # (SQLite may add its WAL index files where the directory allows it; the database is as it was)
    assert db.read_bytes() == before


def test_a_write_through_a_reader_is_refused_with_the_fix(tmp_path):
    db = tmp_path / "skillopt-sleep.db"
    Store.open(db).close()
    with pytest.raises(StoreNotWritable) as refused:
        Store.open_readonly(db).add_notice("hook", "x", NOW)
    assert "aside" not in refused.value.one_line()
    assert (
        "reading commands (status, review, tasks list, doctor) work without it"
        in refused.value.one_line()
    )


def test_an_older_store_reads_its_missing_tables_as_empty_without_migrating(tmp_path):
    db = tmp_path / "old.db"
    conn = sqlite3.connect(db)
    conn.executescript(SCHEMA)  # made before the preferences tables existed: user_version 0
    conn.close()
    before = _files(tmp_path)
    reader = Store.open_readonly(db)
    assert reader.preferences(None) == [] and reader.list_tasks() == []
    reader.close()
    assert _files(tmp_path) == before
