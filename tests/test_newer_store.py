"""A store a newer engine wrote (its records have fields this engine does not know) is refused by
every command that reads it, in one line naming the fix, exit 5 (a store problem), where an older
engine failed with an internal error; doctor fails its store check with the same fix. The store's
meta keeps the newest record format that wrote it."""

from __future__ import annotations

import gc
import json
import sqlite3
from pathlib import Path

import pytest

from skillopt_sleep.store.record_format import RECORD_FORMAT

COMMANDS = (
    ("status",),
    ("status", "--json"),
    ("review",),
    ("tasks", "list"),
    ("run", "--backend", "simulated"),
    ("harvest",),
)
LINE = (
    f"skillopt-sleep: error: this store was written by a newer skillopt-sleep (format "
    f"{RECORD_FORMAT + 1}, this engine reads up to {RECORD_FORMAT}) (install the newer engine "
    "(sh install/install.sh from its checkout); the store {db} is left as it is)\n"
)


def _db(sandbox_home: Path) -> Path:
    gc.collect()  # no connection of an earlier in-process command left open on it
    return sandbox_home / "sleep-home" / "data" / "skillopt-sleep.db"


def _meta(db: Path) -> str | None:
    with sqlite3.connect(db) as conn:
        row = conn.execute("SELECT value FROM meta WHERE key = 'record_format'").fetchone()
    return row[0] if row else None


def _rows(db: Path) -> list[tuple[object, ...]]:
    gc.collect()
    with sqlite3.connect(db) as conn:
        return [
            *conn.execute("SELECT * FROM nights ORDER BY id"),
            *conn.execute("SELECT * FROM tasks ORDER BY id"),
            *conn.execute("SELECT * FROM meta ORDER BY key"),
        ]


@pytest.fixture
def newer_store(cli, sandbox_home, tmp_path) -> Path:
    """A night run by this engine, then the store as a newer engine leaves it: a field this
    engine does not know in the night's summary, and the newer format in the meta."""
    assert cli("tasks", "add", "--intent", "Write the README", cwd=tmp_path).code == 0
    night = cli("run", "--backend", "simulated", cwd=tmp_path)
    assert night.code == 0, night.err
    db = _db(sandbox_home)
    assert _meta(db) == str(RECORD_FORMAT)
    with sqlite3.connect(db) as conn:
        [(night_id, raw)] = conn.execute("SELECT id, summary FROM nights").fetchall()
        summary = json.loads(raw)
        summary["spend_in_a_later_currency"] = 1.5
        conn.execute("UPDATE nights SET summary = ? WHERE id = ?", (json.dumps(summary), night_id))
        conn.execute(
            "UPDATE meta SET value = ? WHERE key = 'record_format'", (str(RECORD_FORMAT + 1),)
        )
    return db


@pytest.mark.parametrize("argv", COMMANDS, ids=" ".join)
def test_a_store_a_newer_engine_wrote_is_refused_with_the_fix(cli, newer_store, tmp_path, argv):
    before = _rows(newer_store)
    r = cli(*argv, cwd=tmp_path)
    assert (r.code, r.out, r.err) == (5, "", LINE.format(db=newer_store))
    assert _meta(newer_store) == str(RECORD_FORMAT + 1)  # not lowered by this engine
    assert _rows(newer_store) == before  # nothing of the newer engine's rewritten


def test_doctor_fails_the_store_check_with_the_same_fix(cli, newer_store, tmp_path):
    r = cli("doctor", cwd=tmp_path)
    assert r.code == 1 and "all good" not in r.out
    lines = r.out.splitlines()
    at = lines.index(
        "FAIL  store: this store was written by a newer skillopt-sleep "
        f"(format {RECORD_FORMAT + 1}, this engine reads up to {RECORD_FORMAT})"
    )
    assert lines[at + 1].startswith(
        "      fix: install the newer engine (sh install/install.sh from its checkout)"
    )


def test_a_store_from_before_the_format_was_kept_is_raised_to_this_engines(
    cli, sandbox_home, tmp_path
):
    assert cli("tasks", "add", "--intent", "first", cwd=tmp_path).code == 0
    db = _db(sandbox_home)
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM meta WHERE key = 'record_format'")
    assert cli("status", cwd=tmp_path).code == 0  # a reader changes nothing
    assert _meta(db) is None
    assert cli("tasks", "add", "--intent", "second", cwd=tmp_path).code == 0
    assert _meta(db) == str(RECORD_FORMAT)
