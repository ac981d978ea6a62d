"""Opening the store. For writing: WAL mode, a generous busy timeout, the schema made and migrated;
a permission problem is told apart from a corrupt database, and each names its own fix. For
reading only (:func:`connect_readonly`): a reading command works where a sandbox forbids writes,
and never changes the database, not even to migrate it."""

from __future__ import annotations

import shlex
import sqlite3
from collections.abc import Callable
from pathlib import Path

from ..errors import StoreError
from ..paths import not_writable
from . import record_format
from .schema import SCHEMA, VERSION, migrate

__all__ = [
    "SCHEMA",
    "connect_memory",
    "connect_readonly",
    "connect_writable",
    "corrupt",
    "is_corrupt",
    "is_permission",
    "read_failure",
    "write_failure",
]


def connect_writable(path: Path) -> sqlite3.Connection:
    """A connection to the database at ``path`` (made, with its directory, when missing)."""
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(path), timeout=60, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA busy_timeout = 60000")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.executescript(SCHEMA)
        migrate(conn)
        _held(conn, path, record_format.hold)
    except sqlite3.DatabaseError as exc:
        if is_corrupt(exc):
            raise corrupt(path, exc) from exc
        if is_permission(exc):
            raise not_writable(path, str(exc)) from exc
        raise StoreError(
            f"cannot open the store {path}: {exc}",
            hint="check the disk; `skillopt-sleep doctor` shows what else it finds",
        ) from exc
    except OSError as exc:
        raise not_writable(path, exc.strerror or str(exc)) from exc
    return conn


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
            _held(conn, path, record_format.check)
        except sqlite3.DatabaseError as exc:
            if is_corrupt(exc):
                raise corrupt(path, exc) from exc
            last = exc
            continue
        return conn
    raise StoreError(
        f"cannot read the store {path}: {last}", hint=f"check that your user can read {path.parent}"
    )


def _held(conn: sqlite3.Connection, path: Path, how: Callable[..., object]) -> None:
    """``how`` (record_format's check or hold) on the store; a refused store's connection is
    closed before its error goes up."""
    try:
        how(conn, path)
    except StoreError:
        conn.close()
        raise


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


def connect_memory() -> sqlite3.Connection:
    """An in-memory database with the schema (for tests and an absent store read-only)."""
    conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    conn.executescript(SCHEMA)
    migrate(conn)
    return conn


def is_permission(exc: sqlite3.DatabaseError) -> bool:
    """Whether SQLite refused for want of permission (a read-only file, directory or sandbox)."""
    text = str(exc).lower()
    return "readonly" in text or "read-only" in text or "unable to open" in text


# SQLite's primary result codes for a damaged file: SQLITE_CORRUPT, SQLITE_NOTADB.
_CORRUPT_CODES = {11, 26}


def is_corrupt(exc: sqlite3.DatabaseError) -> bool:
    """Whether SQLite found the file damaged or not a database at all (no permission or disk
    problem: moving the file aside is the fix, and retrying or chmod never is)."""
    code = getattr(exc, "sqlite_errorcode", None)  # Python 3.11+
    if isinstance(code, int) and code & 0xFF in _CORRUPT_CODES:
        return True
    text = str(exc).lower()
    return "not a database" in text or "malformed" in text


def corrupt(path: Path | str, exc: sqlite3.DatabaseError) -> StoreError:
    """The error of a store SQLite cannot use: where it is, and how to start a new one."""
    db = Path(path)
    moved = shlex.quote(str(db.parent / "corrupt"))
    return StoreError(
        f"the store {db} is corrupt ({exc})",
        hint=f"move it and its -wal/-shm files aside (`mkdir -p {moved} && mv "
        f"{shlex.quote(str(db))}* {moved}/`) and run again: a new store is made, and "
        "`skillopt-sleep harvest` reads your agents' sessions back into it",
    )


def read_failure(path: Path | str, exc: sqlite3.DatabaseError) -> StoreError:
    """The error of a read the store refused: a corrupt store named as such."""
    if is_corrupt(exc):
        return corrupt(path, exc)
    return StoreError(f"the store {path} could not be read: {exc}")


def write_failure(path: Path, exc: sqlite3.DatabaseError) -> StoreError | None:
    """The error of a write the store refused, naming its fix; None for a failure that is no
    problem of the store (a constraint the code broke), which is raised as it is."""
    if is_corrupt(exc):
        return corrupt(path, exc)
    if not isinstance(exc, sqlite3.OperationalError):
        return None
    if is_permission(exc):
        return not_writable(path, str(exc))
    hint = (
        "free some space and run again"
        if "full" in str(exc)
        else "retry; is another process stuck?"
    )
    return StoreError(f"the store {path} could not be written: {exc}", hint=hint)
