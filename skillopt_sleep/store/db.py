"""The SQLite store: task log, night history, rollout cache, harvest cursors, notices.

One database file in WAL mode, safe for many processes at once (hook calls from sessions that
end together); every write is a short transaction with a generous busy timeout.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..errors import StoreError
from ..models import Edit, NightSummary, TaskRecord
from ..paths import not_writable
from . import night_ids
from . import preferences as prefs
from .connect import connect_memory, connect_readonly, connect_writable, read_failure, write_failure
from .merge import fold_sightings, sightings_of, sources_of
from .rows import Cursor, NightRow, Notice
from .schema import SCHEMA

__all__ = ["SCHEMA", "Cursor", "NightRow", "Notice", "Store"]


class Store:
    """The one database. ``Store.open(paths.db)`` to write, ``Store.open_readonly(paths.db)`` for a
    command that only reads (it works where a sandbox forbids writes), ``Store.memory()`` for tests."""

    def __init__(self, conn: sqlite3.Connection, path: str, *, readonly: bool = False) -> None:
        self._conn = conn
        self.path = path
        self.readonly = readonly

    @classmethod
    def open(cls, path: Path) -> Store:
        return cls(connect_writable(path), str(path))

    @classmethod
    def open_readonly(cls, path: Path) -> Store:
        """The store for reading only: creates nothing and writes nothing, not even a WAL index.

        A missing store reads as an empty one. SQLite's ``mode=ro`` still needs the WAL index
        files when they are gone and the directory is not writable (a sandbox); ``immutable=1``
        then reads the file as it is, which is safe because a reader here never writes.
        """
        if not Path(path).exists():
            empty = cls.memory()
            return cls(empty._conn, str(path), readonly=True)
        return cls(connect_readonly(Path(path)), str(path), readonly=True)

    @classmethod
    def memory(cls) -> Store:
        return cls(connect_memory(), ":memory:")

    def close(self) -> None:
        self._conn.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        if self.readonly:
            raise not_writable(Path(self.path), "it was opened read-only")
        try:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            failure = write_failure(Path(self.path), exc)
            if failure is None:
                raise
            raise failure from exc

    def _rows(self, sql: str, args: Iterable[Any] = ()) -> list[sqlite3.Row]:
        try:
            cur = self._conn.execute(sql, tuple(args))
            return cur.fetchall()
        except sqlite3.DatabaseError as exc:
            raise read_failure(self.path, exc) from exc

    # -- tasks ---------------------------------------------------------------------------------

    def upsert_tasks(self, records: Iterable[TaskRecord], now: datetime) -> tuple[int, int]:
        """Insert or replace records by id. Returns (new, updated)."""
        new = updated = 0
        stamp = now.isoformat()
        with self._tx() as conn:
            for rec in records:
                exists = conn.execute("SELECT 1 FROM tasks WHERE id = ?", (rec.id,)).fetchone()
                conn.execute(
                    "INSERT OR REPLACE INTO tasks(id, project, source, created_at, updated_at, record)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    (
                        rec.id,
                        rec.project,
                        rec.source,
                        rec.created_at.isoformat(),
                        stamp,
                        rec.model_dump_json(),
                    ),
                )
                if exists:
                    updated += 1
                else:
                    new += 1
        return new, updated

    def get_task(self, task_id: str) -> TaskRecord | None:
        rows = self._rows("SELECT record FROM tasks WHERE id = ?", (task_id,))
        return self._task(rows[0][0]) if rows else None

    def list_tasks(
        self,
        project: str | None = None,
        since: datetime | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[TaskRecord]:
        """Tasks, oldest first, optionally for one project and created since a time; a page of
        them with ``limit`` and ``offset`` (only that page is read)."""
        sql, args = "SELECT record FROM tasks WHERE 1=1", []
        if project is not None:
            sql += " AND project = ?"
            args.append(project)
        if since is not None:
            sql += " AND created_at >= ?"
            args.append(since.isoformat())
        sql += " ORDER BY created_at, id"
        if limit is not None or offset:
            sql += f" LIMIT {-1 if limit is None else int(limit)} OFFSET {int(offset)}"
        return [self._task(r[0]) for r in self._rows(sql, args)]

    def count_tasks(self, project: str | None = None) -> int:
        """How many tasks (of one project), counted by SQLite: no record is read."""
        if project is None:
            return int(self._rows("SELECT COUNT(*) FROM tasks")[0][0])
        return int(self._rows("SELECT COUNT(*) FROM tasks WHERE project = ?", (project,))[0][0])

    def tasks_with_prefix(self, prefix: str, limit: int = 2) -> list[TaskRecord]:
        """Up to ``limit`` tasks whose id starts with ``prefix`` (ids are hex: no LIKE escapes)."""
        rows = self._rows(
            "SELECT record FROM tasks WHERE substr(id, 1, ?) = ? ORDER BY id LIMIT ?",
            (len(prefix), prefix, int(limit)),
        )
        return [self._task(r[0]) for r in rows]

    def delete_task(self, task_id: str) -> bool:
        with self._tx() as conn:
            return conn.execute("DELETE FROM tasks WHERE id = ?", (task_id,)).rowcount > 0

    def sources(self, project: str) -> list[str]:
        """The agents ``project``'s tasks came from, each once, the first seen first (each task's
        source and the source of every sighting folded into it: see :func:`.merge.sources_of`)."""
        try:
            return sources_of(self._conn, project)
        except sqlite3.DatabaseError as exc:
            raise read_failure(self.path, exc) from exc

    def projects(self) -> list[str]:
        return [r[0] for r in self._rows("SELECT DISTINCT project FROM tasks ORDER BY project")]

    @staticmethod
    def _task(raw: str) -> TaskRecord:
        try:
            return TaskRecord.model_validate_json(raw)
        except ValidationError as exc:
            raise StoreError(f"a stored task record is invalid: {exc.errors()[0]['msg']}") from exc

    # -- nights --------------------------------------------------------------------------------

    def reserve_night_id(
        self, base: str, project: str, at: datetime, in_use: Callable[[str], bool]
    ) -> str:
        """A night id no other night holds or will be handed: ``base``, else ``base-2``, ...

        See :mod:`.night_ids`; ``in_use`` says whether an id is held outside the store.
        """
        with self._tx() as conn:
            return night_ids.reserve(conn, base, project, at, in_use)

    def save_night(self, summary: NightSummary, state: str) -> None:
        """Record a finished night, once: an id already recorded is an error, never a silent
        replacement of another night's record (see :mod:`.night_ids`)."""
        with self._tx() as conn:
            night_ids.record(conn, summary, state)

    def set_night_state(self, night_id: str, state: str) -> None:
        with self._tx() as conn:
            conn.execute("UPDATE nights SET state = ? WHERE id = ?", (state, night_id))

    def nights(
        self, project: str | None = None, limit: int = 50, state: str | None = None
    ) -> list[NightRow]:
        """Nights, newest first (only those in ``state`` when given)."""
        sql, args = (
            "SELECT id, project, started_at, decision, state, proposal_dir, summary FROM nights WHERE 1=1",
            [],
        )
        if project is not None:
            sql += " AND project = ?"
            args.append(project)
        if state is not None:
            sql += " AND state = ?"
            args.append(state)
        sql += f" ORDER BY started_at DESC, id DESC LIMIT {int(limit)}"
        return [self._night_row(r) for r in self._rows(sql, args)]

    def night(self, night_id: str) -> NightRow | None:
        rows = self._rows(
            "SELECT id, project, started_at, decision, state, proposal_dir, summary FROM nights WHERE id = ?",
            (night_id,),
        )
        return self._night_row(rows[0]) if rows else None

    @staticmethod
    def _night_row(r: sqlite3.Row) -> NightRow:
        return NightRow(r[0], r[1], r[2], r[3], r[4], r[5], NightSummary.model_validate_json(r[6]))

    # -- rollout cache -------------------------------------------------------------------------

    def cache_get(self, key: str) -> dict[str, Any] | None:
        rows = self._rows("SELECT result FROM rollouts WHERE key = ?", (key,))
        return json.loads(rows[0][0]) if rows else None

    def cache_put(self, key: str, task_id: str, result: dict[str, Any], now: datetime) -> None:
        with self._tx() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO rollouts(key, task_id, result, created_at) VALUES (?, ?, ?, ?)",
                (key, task_id, json.dumps(result, sort_keys=True), now.isoformat()),
            )

    # -- harvest cursors -----------------------------------------------------------------------

    def cursor(self, path: str) -> Cursor | None:
        rows = self._rows(
            "SELECT path, source, inode, size, mtime_ns, offset, state FROM cursors WHERE path = ?",
            (path,),
        )
        return Cursor(*rows[0]) if rows else None

    def cursors(self, source: str | None = None) -> dict[str, Cursor]:
        sql, args = "SELECT path, source, inode, size, mtime_ns, offset, state FROM cursors", []
        if source is not None:
            sql += " WHERE source = ?"
            args.append(source)
        return {r[0]: Cursor(*r) for r in self._rows(sql, args)}

    def save_cursors(self, cursors: Iterable[Cursor]) -> None:
        with self._tx() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO cursors(path, source, inode, size, mtime_ns, offset, state)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (c.path, c.source, c.inode, c.size, c.mtime_ns, c.offset, c.state)
                    for c in cursors
                ],
            )

    # -- notices -------------------------------------------------------------------------------

    def add_notice(self, kind: str, message: str, now: datetime) -> None:
        with self._tx() as conn:
            conn.execute(
                "INSERT INTO notices(created_at, kind, message) VALUES (?, ?, ?)",
                (now.isoformat(), kind, " ".join(message.split())),
            )

    def notices(self, unseen_only: bool = True) -> list[Notice]:
        sql = "SELECT id, created_at, kind, message, seen FROM notices"
        if unseen_only:
            sql += " WHERE seen = 0"
        return [
            Notice(r[0], r[1], r[2], r[3], bool(r[4])) for r in self._rows(sql + " ORDER BY id")
        ]

    def mark_notices_seen(self, ids: Iterable[int]) -> None:
        with self._tx() as conn:
            conn.executemany("UPDATE notices SET seen = 1 WHERE id = ?", [(i,) for i in ids])

    # -- rejected edits (shown to the optimizer as "already tried") ------------------------------

    def add_rejected_edits(self, project: str, night_id: str, edits: Iterable[Edit]) -> None:
        with self._tx() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO rejected_edits(key, project, night_id, edit) VALUES (?, ?, ?, ?)",
                [(e.key(), project, night_id, e.model_dump_json()) for e in edits],
            )

    def rejected_edits(self, project: str) -> list[Edit]:
        rows = self._rows(
            "SELECT edit FROM rejected_edits WHERE project = ? ORDER BY night_id", (project,)
        )
        return [Edit.model_validate_json(r[0]) for r in rows]

    # -- evidence for edits not yet proven, carried across nights (log e-values) -------------------

    def edit_evidence(self, project: str) -> dict[str, float]:
        """Log e-value by edit key of the edits whose evidence is still accumulating."""
        rows = self._rows("SELECT key, log_e FROM edit_evidence WHERE project = ?", (project,))
        return {r[0]: float(r[1]) for r in rows}

    def update_edit_evidence(
        self, project: str, night_id: str, ledger: dict[str, float | None]
    ) -> None:
        """Set each key's accumulated log e-value; ``None`` forgets a key (proven or refused)."""
        with self._tx() as conn:
            for key, log_e in ledger.items():
                if log_e is None:
                    conn.execute(
                        "DELETE FROM edit_evidence WHERE key = ? AND project = ?", (key, project)
                    )
                    continue
                conn.execute(
                    "INSERT INTO edit_evidence(key, project, log_e, nights, night_id) VALUES (?, ?, ?, 1, ?)"
                    " ON CONFLICT(key, project) DO UPDATE SET log_e = excluded.log_e,"
                    " nights = nights + 1, night_id = excluded.night_id",
                    (key, project, log_e, night_id),
                )

    # -- small key/value state ---------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        rows = self._rows("SELECT value FROM meta WHERE key = ?", (key,))
        return rows[0][0] if rows else None

    def set_meta(self, key: str, value: str) -> None:
        with self._tx() as conn:
            conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    def meta_items(self, prefix: str) -> dict[str, str]:
        """Every key/value whose key starts with ``prefix``."""
        rows = self._rows(
            "SELECT key, value FROM meta WHERE substr(key, 1, ?) = ?", (len(prefix), prefix)
        )
        return {r[0]: r[1] for r in rows}

    # -- harvested tasks: one task per request, however often it is seen ------------------------

    def merge_tasks(
        self,
        records: Iterable[TaskRecord],
        now: datetime,
        *,
        key: Callable[[TaskRecord], str],
        merge: Callable[..., TaskRecord],
    ) -> tuple[int, int]:
        """Store harvested records, folding repeats into one task. Returns (new, updated).

        A record is a *sighting* (its id: source, session, turn). A sighting read again updates
        the task it went into; a new sighting whose ``key`` (the normalised request) is known
        becomes one more occurrence of that task, via ``merge(existing, new, seen_before=...)``.
        One transaction for the batch, so concurrent harvests never double-count.
        """
        with self._tx() as conn:
            return fold_sightings(conn, records, now.isoformat(), key, merge, self._task)

    def note_preferences(self, sightings: Iterable[prefs.PreferenceSighting]) -> int:
        """Count each new sighting of a correction once into its preference; returns how many."""
        batch = list(sightings)
        if not batch:
            return 0
        with self._tx() as conn:
            return prefs.note(conn, batch)

    def preferences(self, project: str | None = None) -> list[prefs.Preference]:
        """The preferences of a project (all with None), the most often seen first."""
        try:
            return prefs.listed(self._conn, project)
        except sqlite3.DatabaseError as exc:
            raise read_failure(self.path, exc) from exc

    def request_sightings(self, project: str, since: datetime | None = None) -> list[TaskRecord]:
        """Each harvested sighting of a request of ``project`` (see :mod:`.sightings`), oldest first."""
        try:
            raws = sightings_of(self._conn, project, since)
        except sqlite3.OperationalError:
            return []  # an older store opened read-only: it has no sightings yet
        except sqlite3.DatabaseError as exc:
            raise read_failure(self.path, exc) from exc
        return [self._task(raw) for raw in raws]

    def has_cursors(self) -> bool:
        """Whether any transcript was ever harvested (a first harvest says how far it looks back)."""
        return bool(self._rows("SELECT 1 FROM cursors LIMIT 1"))
