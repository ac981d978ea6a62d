"""A store SQLite cannot use (garbage, or damaged pages) is named corrupt by every command, with
where it is and how to start a new one: never a permissions hint, never an internal error."""

from __future__ import annotations

import gc
import shlex
import sqlite3
import subprocess
from pathlib import Path

import pytest

COMMANDS = (
    ("status",),
    ("tasks", "list"),
    ("tasks", "add", "--intent", "Write the README"),
    ("harvest",),
    ("review",),
    ("run", "--backend", "simulated"),
)


def _db(sandbox_home: Path) -> Path:
    """The store's file, with no connection of an earlier in-process command left open on it
    (SQLite shares one process's view of a file across its connections)."""
    gc.collect()
    return sandbox_home / "sleep-home" / "data" / "skillopt-sleep.db"


def _assert_named_corrupt(err: str, db: Path, why: str) -> None:
    assert err.startswith(f"skillopt-sleep: error: the store {db} is corrupt ({why}) (move it ")
    assert err.count("\n") == 1 and "permission" not in err and "can read" not in err
    assert f"mv {shlex.quote(str(db))}* " in err and "`skillopt-sleep harvest`" in err


@pytest.mark.parametrize("argv", COMMANDS, ids=" ".join)
def test_a_store_that_is_not_a_database_is_named_corrupt(cli, sandbox_home, tmp_path, argv):
    assert cli("tasks", "add", "--intent", "first", cwd=tmp_path).code == 0
    db = _db(sandbox_home)
    for side in db.parent.glob("skillopt-sleep.db-*"):
        side.unlink()
    db.write_bytes(b"this is not a database\n" * 400)
    r = cli(*argv, cwd=tmp_path)
    assert (r.code, r.out) == (5, "")
    _assert_named_corrupt(r.err, db, "file is not a database")


def test_damaged_pages_are_named_corrupt_where_a_command_reads_them(cli, sandbox_home, tmp_path):
    for i in range(20):
        assert cli("tasks", "add", "--intent", f"task {i} " + "x" * 3000, cwd=tmp_path).code == 0
    db = _db(sandbox_home)
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page = int(conn.execute("PRAGMA page_size").fetchone()[0])
    data = bytearray(db.read_bytes())
    data[page:] = b"\x13" * (len(data) - page)  # every page past the schema's first
    db.write_bytes(bytes(data))
    for argv in (("tasks", "list"), ("tasks", "add", "--intent", "again")):
        r = cli(*argv, cwd=tmp_path)
        assert (r.code, r.out) == (5, ""), argv
        _assert_named_corrupt(r.err, db, "database disk image is malformed")


def test_the_hint_as_printed_makes_the_store_usable_again(cli, sandbox_home, tmp_path):
    assert cli("tasks", "add", "--intent", "first", cwd=tmp_path).code == 0
    db = _db(sandbox_home)
    db.write_bytes(b"\0garbage" * 512)
    err = cli("status", cwd=tmp_path).err
    command = err.split("(`", 1)[1].split("`)", 1)[0]
    subprocess.run(["sh", "-c", command], check=True)
    assert (db.parent / "corrupt" / db.name).is_file()
    again = cli("tasks", "add", "--intent", "second", cwd=tmp_path)
    assert again.code == 0 and again.out.startswith("added: 1 new")
    assert cli("status", cwd=tmp_path).code == 0
