"""Reading OpenCode's session store (``opencode.db``) incrementally, strictly read-only.

OpenCode writes the store (SQLite, WAL) while it runs. It is opened ``mode=ro`` (the file is
never written; only the WAL index all readers share) and never ``immutable`` (that would miss
what the WAL holds). Each session is read in one short read transaction, so its messages and
parts agree, a writer is never blocked (WAL readers do not lock it out) and a checkpoint waits
at most a moment. A read's *offset* is a message ordinal (a message's position in its session,
oldest first); the cursor of a session is a :class:`SessionCursor`: the session's
:class:`SessionMark` (update time, message count) and the ordinal of the last task's prompt, so
a resumed session is re-read from that task with its new feedback.

Use: ``for chunk, cursor in new_chunks(db, cursors, problems): ...`` mine ``chunk`` (after
:func:`.control.drop_control_turns`), store its tasks, then keep ``cursor.dump()`` under the
session's id. Nothing raises for a damaged store or session: it is added to ``problems``.
"""

from __future__ import annotations

import json
import sqlite3
import urllib.parse
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .opencode import OpenCodeParser
from .scan import Problem, printable
from .session import ParseState, SessionChunk

if TYPE_CHECKING:  # a type only: the turn rules are imported by the miner when a store is read
    from .turns import TurnClassifier

MAX_MESSAGES = 20_000  # read per session per harvest; the cursor continues next time
_BUSY_MS = 2000  # a read waits this long for a checkpoint, never for a writer (WAL)


@dataclass(frozen=True)
class SessionMark:
    """A session's cursor: what it looked like when last read (unchanged: not read again)."""

    session_id: str
    project: str
    updated_ms: int
    messages: int


def connect(db: Path) -> sqlite3.Connection:
    """``db`` opened read-only (``mode=ro``: OpenCode's file is never written, only the WAL
    index a reader shares). Reading needs the ``-wal`` and ``-shm`` files beside it, so the
    database is never opened ``immutable`` (that would miss what the WAL holds)."""
    uri = "file:" + urllib.parse.quote(str(db.resolve())) + "?mode=ro"
    con = sqlite3.connect(uri, uri=True, timeout=_BUSY_MS / 1000, isolation_level=None)
    con.execute("PRAGMA query_only = 1")
    return con


def changed_sessions(
    db: Path, marks: Mapping[str, SessionMark], problems: list[Problem]
) -> list[SessionMark]:
    """The user's sessions in ``db`` (subagents' left out) whose update time or message count
    differ from ``marks``, oldest first. An unreadable store is a problem, never raised."""
    sql = (
        "SELECT s.id, s.directory, s.time_updated,"
        " (SELECT count(*) FROM message m WHERE m.session_id = s.id)"
        " FROM session s WHERE s.parent_id IS NULL ORDER BY s.time_updated, s.id"
    )
    try:
        con = connect(db)
        try:
            rows = con.execute(sql).fetchall()
        finally:
            con.close()
    except sqlite3.Error as exc:
        problems.append((printable(db), f"cannot read the OpenCode store ({exc})"))
        return []
    out = []
    for sid, directory, updated, count in rows:
        mark = SessionMark(str(sid), str(directory or ""), int(updated or 0), int(count))
        if marks.get(mark.session_id) != mark:
            out.append(mark)
    return out


def read_session(
    db: Path,
    session_id: str,
    start: int = 0,
    state: ParseState | None = None,
    *,
    max_messages: int = MAX_MESSAGES,
) -> tuple[SessionChunk, int]:
    """The turns of one session from message ordinal ``start``; returns the chunk and the
    ordinal after the last message read. Every row comes from one read transaction, so the
    messages and parts agree even while OpenCode writes. At most ``max_messages`` are read
    (``chunk.partial``: the rest comes next time). Raises ``sqlite3.Error``."""
    parser = OpenCodeParser(state)
    con = connect(db)
    try:
        con.execute("BEGIN")
        session = con.execute(
            "SELECT id, directory, parent_id FROM session WHERE id = ?", (session_id,)
        ).fetchone()
        if session is None:
            return parser.finish(), start
        parser.feed(start, _line("session", id=session[0], directory=session[1]))
        messages = con.execute(
            "SELECT id, time_created, data FROM message WHERE session_id = ?"
            " ORDER BY time_created, id LIMIT ? OFFSET ?",
            (session_id, max_messages + 1, start),
        ).fetchall()
        parser.chunk.partial = len(messages) > max_messages
        messages = messages[:max_messages]
        end = start
        for end, (mid, created, data) in enumerate(messages, start + 1):
            parser.feed(end - 1, _line("message", data, id=mid, time=created))
            for (part,) in con.execute(
                "SELECT data FROM part WHERE message_id = ? ORDER BY id", (mid,)
            ):
                parser.feed(end - 1, _line("part", part, message=mid))
        con.execute("COMMIT")
    finally:
        con.close()
    return parser.finish(), end


@dataclass
class SessionCursor:
    """Where the next read of a session starts: its mark when read, a message ordinal (the
    last task's prompt, whose feedback may still come) and the parser state there."""

    mark: SessionMark
    offset: int = 0
    state: ParseState = field(default_factory=ParseState)

    def dump(self) -> str:
        return json.dumps(
            {"mark": asdict(self.mark), "offset": self.offset, "state": self.state.to_json()}
        )

    @classmethod
    def load(cls, raw: str) -> SessionCursor | None:
        """A dumped cursor, or None when it is damaged (the session is then read again)."""
        try:
            data = json.loads(raw)
            return cls(SessionMark(**data["mark"]), int(data["offset"]), _state(data["state"]))
        except (ValueError, TypeError, KeyError):
            return None


def new_chunks(
    db: Path,
    cursors: Mapping[str, SessionCursor],
    problems: list[Problem],
    *,
    projects: frozenset[str] | None = None,
    classifier: TurnClassifier | None = None,
    max_messages: int = MAX_MESSAGES,
) -> Iterator[tuple[SessionChunk, SessionCursor]]:
    """What is new in ``db`` since ``cursors`` (session id -> cursor): one chunk per changed
    session of the ``projects`` asked for (None: all), with the cursor to keep once its tasks
    are stored. A session that cannot be read is a problem; the others are still read."""
    marks = {sid: c.mark for sid, c in cursors.items()}
    for mark in changed_sessions(db, marks, problems):
        if projects is not None and mark.project not in projects:
            continue
        old = cursors.get(mark.session_id)
        start, state = (old.offset, _copy(old.state)) if old else (0, ParseState())
        try:
            chunk, end = read_session(db, mark.session_id, start, state, max_messages=max_messages)
        except sqlite3.Error as exc:
            problems.append((f"{printable(db)}#{mark.session_id}", f"unreadable ({exc})"))
            continue
        yield chunk, _next_cursor(mark, chunk, start, end, classifier)


def _next_cursor(
    mark: SessionMark,
    chunk: SessionChunk,
    start: int,
    end: int,
    classifier: TurnClassifier | None,
) -> SessionCursor:
    # the task miner, here only to find where the last task starts: imported when a harvest
    # reads a store, not with the agent registry, which `log` loads at every session end
    from .mine import group_turns

    state = _copy(chunk.state)
    groups = group_turns(chunk.turns, classifier)
    offset = groups[-1].task.offset if groups else end
    state.turns_before = groups[-1].task.index if groups else state.turns_before + len(chunk.turns)
    # read again from a task's prompt, a damaged message after it is read again too; read on
    # past every turn, a damaged message not yet followed by a turn, or turns after one and no
    # task, leave the next turn in doubt
    past = chunk.state.gap or (not groups and any(t.after_gap for t in chunk.turns))
    state.gap = False if groups else past
    if chunk.partial and offset <= start:  # one task longer than a read: go on past it
        offset, state.turns_before = end, chunk.state.turns_before + len(chunk.turns)
        state.gap = past
    if chunk.partial:  # more to read: a mark that never matches, so the next harvest goes on
        mark = SessionMark(mark.session_id, mark.project, -1, -1)
    return SessionCursor(mark, offset, state)


def _copy(state: ParseState) -> ParseState:
    return ParseState(**state.__dict__)


def _state(raw: object) -> ParseState:
    if not isinstance(raw, str):
        raise TypeError("state")
    return ParseState.from_json(raw)


def _line(kind: str, data: object = None, **fields: object) -> bytes:
    """One row as a JSON line; ``data`` (a row's JSON text) is spliced in as it is, so damaged
    JSON makes the line invalid and the parser skips and counts it."""
    head = json.dumps({"type": kind, **fields})
    if data is None:
        return head.encode() + b"\n"
    body = data if isinstance(data, str) else json.dumps(data)
    return f'{head[:-1]}, "data": {body}}}\n'.encode("utf-8", "surrogatepass")
