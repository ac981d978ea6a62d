"""The incremental harvest: new transcript data in, TaskRecords and cursors out.

Each file has a cursor (inode, size, mtime, byte offset, parser state). A file whose inode,
size and mtime are unchanged is not opened. An appended file (a resumed session) is read from
the start of its last task, so that task is re-mined with its new feedback; a truncated or
replaced file (other inode, smaller than the offset, or different first bytes) is read again
from the start. Re-reading is safe: the store folds a sighting it has seen into the same task.

Every file is isolated: a file that cannot be listed, opened or parsed is skipped with its path
and the reason (``SourceStats.errors``), a bad line is skipped and counted under its file
(``SourceStats.bad_lines``), and the cursor moves past what was read, so the next harvest does
not meet the same damage again. One read of a file is bounded in bytes and seconds.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ..clock import Clock
from ..models import TaskRecord
from ..store import Cursor, Store
from . import agents
from .control import drop_control_turns
from .git_commit import commit_at
from .jsonl import MAX_FILE_BYTES, MAX_FILE_SECONDS, MAX_LINE_BYTES, ReadLimits, read_chunk
from .mine import count_unattributed, group_turns, mine_chunk
from .preferences import preference_sightings
from .scan import Problem, Roots, mtime, printable
from .seen_again import intent_key, merge_records
from .session import ParseState, SessionChunk
from .stats import SourceStats as SourceStats  # where callers have always found it
from .store_read import read_store
from .turns import TurnClassifier

_HEAD_BYTES = 1024
_SCOPED_OUT = '"scoped_out": true'  # as json.dumps writes it in a cursor's state
_PARTLY_READ = '"partial": true'  # a read stopped at its limit: the file has more to give
_FLUSH_RECORDS = 500
_FLUSH_CURSORS = 500

Miner = Callable[[list[TaskRecord]], list[TaskRecord]]


@dataclass(frozen=True)
class HarvestPlan:
    """What to harvest: which sources, where, which projects (None: all), from when.

    ``sources`` None: every registered agent that has a root in ``roots``.
    """

    roots: Roots
    since: datetime
    projects: frozenset[str] | None
    sources: tuple[str, ...] | None = None

    def agents(self) -> tuple[str, ...]:
        """The sources to read, in order; an unknown name raises ``UsageError``."""
        if self.sources is None:
            return tuple(n for n in agents.names() if n in self.roots)
        return tuple(agents.get(n).name for n in self.sources)


@dataclass
class _FileCursor:
    """The cursor's ``state`` column: parser state, a fingerprint of the first bytes, scoping."""

    parse: ParseState
    head: str = ""
    scoped_out: bool = False
    partial: bool = False

    def dump(self) -> str:
        return json.dumps(
            {
                "parse": json.loads(self.parse.to_json()),
                "head": self.head,
                "scoped_out": self.scoped_out,
                "partial": self.partial,
            },
            sort_keys=True,
        )

    @classmethod
    def load(cls, raw: str) -> _FileCursor:
        try:
            data = json.loads(raw or "{}")
        except json.JSONDecodeError:
            data = {}
        data = data if isinstance(data, dict) else {}
        parse = ParseState.from_json(json.dumps(data.get("parse") or {}))
        return cls(
            parse,
            str(data.get("head") or ""),
            data.get("scoped_out") is True,
            data.get("partial") is True,
        )


class Harvester:
    """Reads transcripts into the store. One per process; not thread-safe (hold the lock)."""

    def __init__(
        self,
        store: Store,
        clock: Clock,
        *,
        miner: Miner | None = None,
        max_line: int = MAX_LINE_BYTES,
        max_file_bytes: int = MAX_FILE_BYTES,
        max_file_seconds: float = MAX_FILE_SECONDS,
        classifier: TurnClassifier | None = None,
    ) -> None:
        self.store = store
        self.classifier = classifier  # None: the rules alone
        self.clock = clock
        self.miner = miner
        self.limits = ReadLimits(max_line, max_file_bytes, max_file_seconds)
        self._records: list[tuple[TaskRecord, SourceStats]] = []
        self._cursors: list[Cursor] = []
        self._known: dict[str, Cursor] | None = None  # cursors loaded in one query by ``run``

    def run(self, plan: HarvestPlan) -> dict[str, SourceStats]:
        """Harvest every source of ``plan``; returns the stats per source."""
        report: dict[str, SourceStats] = {}
        for source in plan.agents():
            stats = report.setdefault(source, SourceStats())
            self._known = self.store.cursors(source)
            problems: list[Problem] = []
            try:
                for path in self._files(source, plan, problems):
                    stats.note_problems(problems)
                    self.harvest_file(source, path, stats, projects=plan.projects, since=plan.since)
                stats.note_problems(problems)
            finally:
                self._known = None
        self.flush()
        return report

    def _files(self, source: str, plan: HarvestPlan, problems: list[Problem]) -> Iterator[str]:
        root = plan.roots.get(source)
        if root is None:  # no root given for it: nothing to list
            return iter(())
        return agents.get(source).files(root, plan.projects, problems)

    def harvest_file(
        self,
        source: str,
        path: str | Path,
        stats: SourceStats,
        *,
        projects: frozenset[str] | None = None,
        since: datetime | None = None,
    ) -> None:
        """Read what is new in one transcript (or session database). Never raises for a bad
        file: counts it. (The store failing raises, and an unknown source, as ``UsageError``.)
        """
        agent = agents.get(source)
        if agent.sessions is not None:
            self._read_store(agent, path, stats, projects)
            return
        try:
            st = os.stat(path)
        except OSError as exc:
            stats.skip_file(path, exc.strerror or type(exc).__name__)
            return
        except ValueError:  # a NUL or a lone surrogate in a path a hook payload gave
            stats.skip_file(path, "not a valid file name")
            return
        if not stat.S_ISREG(st.st_mode):
            stats.skip_file(path, "not a regular file")
            return
        stats.files_scanned += 1
        key = str(path)
        old = self._known.get(key) if self._known is not None else self.store.cursor(key)
        same_stat = old is not None and (old.inode, old.size, old.mtime_ns) == (
            st.st_ino,
            st.st_size,
            st.st_mtime_ns,
        )
        if (
            old is not None
            and same_stat
            and _SCOPED_OUT not in old.state  # (substring tests: no JSON to parse)
            and _PARTLY_READ not in old.state
        ):
            stats.files_unchanged += 1
            return
        fc = _FileCursor.load(old.state) if old else _FileCursor(ParseState())
        in_scope = projects is None or not fc.parse.project or fc.parse.project in projects
        if same_stat and not in_scope:
            stats.files_other_projects += 1
            return
        if old is None and since is not None and mtime(st) < since:
            stats.files_too_old += 1
            return
        try:
            self._read(source, Path(path), st, old, fc, stats, projects)
        except OSError as exc:
            stats.skip_file(path, exc.strerror or type(exc).__name__)
        except Exception as exc:
            # it is reported with its path, and its cursor moves past it until it changes.
            stats.skip_file(path, f"unreadable transcript ({type(exc).__name__}: {exc})"[:300])
            self._cursor(Path(path), source, st, st.st_size, _FileCursor(ParseState()))
        self._flush_if_full()

    def _flush_if_full(self) -> None:
        if len(self._records) >= _FLUSH_RECORDS or len(self._cursors) >= _FLUSH_CURSORS:
            self.flush()

    def _read_store(
        self,
        agent: agents.Agent,
        path: str | Path,
        stats: SourceStats,
        projects: frozenset[str] | None,
    ) -> None:
        """Read what is new in a session database: its sessions' cursors are ``<db>#<id>``."""
        known = self._known if self._known is not None else self.store.cursors(agent.name)
        records, cursors = read_store(agent, path, known, stats, projects, self.classifier)
        self._records.extend((r, stats) for r in records)
        self._cursors.extend(cursors)
        self._flush_if_full()

    def _read(
        self,
        source: str,
        path: Path,
        st: os.stat_result,
        old: Cursor | None,
        fc: _FileCursor,
        stats: SourceStats,
        projects: frozenset[str] | None,
    ) -> None:
        head = _fingerprint(path, st.st_size, fc.head)
        start = old.offset if old else 0
        if old is None or old.inode != st.st_ino or st.st_size < old.offset or head != fc.head:
            start, fc = 0, _FileCursor(ParseState())  # new, replaced or truncated: from the top
            head = _fingerprint(path, st.st_size, "")
        agent = agents.get(source)
        if projects is not None and not fc.parse.project and agent.peek_project is not None:
            fc.parse.project = agent.peek_project(path)
        if projects is not None and fc.parse.project and fc.parse.project not in projects:
            stats.files_other_projects += 1
            self._cursor(path, source, st, start, _FileCursor(fc.parse, head, scoped_out=True))
            return
        if fc.parse.replay:
            stats.replay_sessions += 1
            self._cursor(path, source, st, st.st_size, _FileCursor(fc.parse, head))
            return
        chunk, end = read_chunk(agent.parser(fc.parse), path, start, limits=self.limits)
        chunk = drop_control_turns(chunk)
        count_unattributed(chunk, self.classifier)
        stats.files_read += 1
        stats.files_partly_read += chunk.partial
        stats.bytes_read += end - start
        stats.lines_read += chunk.lines
        stats.lines_skipped.update(chunk.skipped)
        if chunk.skipped:
            stats.bad_lines[printable(path)] = dict(sorted(chunk.skipped.items()))
        if projects is not None and chunk.state.project not in projects:
            stats.files_other_projects += 1  # learnt only by parsing (an unusual directory name)
            self._cursor(
                path, source, st, start, _FileCursor(_rewound(chunk, fc.parse), head, True)
            )
            return
        if chunk.state.replay:
            stats.replay_sessions += 1
        elif chunk.turns:
            stats.sessions += 1
        cut = chunk.turns.pop() if chunk.cut_turn else None  # only its prompt was read
        records = mine_chunk(chunk, mtime(st), self.classifier)
        if agent.git_commit:
            records = [_with_commit(r, chunk.state.branch) for r in records]
        offset, state = _resume_point(chunk, end, self.classifier)
        if cut is not None and (offset <= start or offset > cut.offset):
            offset, state.turns_before, state.gap = cut.offset, cut.index, cut.after_gap
        elif chunk.partial and offset <= start:
            offset, state = end, _past(chunk)  # one turn longer than a read: go on past it
        self._records.extend((r, stats) for r in records)
        self._cursor(path, source, st, offset, _FileCursor(state, head, partial=chunk.partial))

    def _cursor(
        self, path: Path, source: str, st: os.stat_result, offset: int, fc: _FileCursor
    ) -> None:
        self._cursors.append(
            Cursor(str(path), source, st.st_ino, st.st_size, st.st_mtime_ns, offset, fc.dump())
        )

    def flush(self) -> None:
        """Store pending records, then cursors (a crash between the two only means a re-read)."""
        pending, self._records = self._records, []
        records = [r for r, _ in pending]
        if records and self.miner is not None:
            records = self.miner(records)  # one record out for each record in, same order
        by_stats: dict[int, tuple[SourceStats, list[TaskRecord]]] = {}
        for (_, stats), rec in zip(pending, records, strict=True):
            by_stats.setdefault(id(stats), (stats, []))[1].append(rec)
        for stats, batch in by_stats.values():
            new, updated = self.store.merge_tasks(
                batch, self.clock.now(), key=intent_key, merge=merge_records
            )
            stats.tasks_new += new
            stats.tasks_updated += updated
            self.store.note_preferences(preference_sightings(batch))
        if self._cursors:
            self.store.save_cursors(self._cursors)
            self._cursors = []


def _with_commit(record: TaskRecord, branch: str) -> TaskRecord:
    """A task with the commit it started from, found in its project's history."""
    if record.commit:
        return record
    commit = commit_at(record.project, branch, record.created_at)
    return record.model_copy(update={"commit": commit}) if commit else record


def _resume_point(
    chunk: SessionChunk, end: int, classifier: TurnClassifier | None = None
) -> tuple[int, ParseState]:
    """Where the next read starts: at the last task's prompt (its feedback may still come)."""
    groups = group_turns(chunk.turns, classifier)
    if not groups:  # turns after a damaged record, no request among them: the next may be too
        state = _past(chunk)
        state.gap = state.gap or any(t.after_gap for t in chunk.turns)
        return end, state
    state = ParseState(**chunk.state.__dict__)
    last = groups[-1].task
    state.turns_before, state.gap = last.index, False  # the read from there sees the damage again
    return last.offset, state


def _past(chunk: SessionChunk) -> ParseState:
    """The parser state after every turn of ``chunk``."""
    state = ParseState(**chunk.state.__dict__)
    state.turns_before += len(chunk.turns)
    return state


def _rewound(chunk: SessionChunk, before: ParseState) -> ParseState:
    """The parser state at the start of a read, keeping what the read learnt about the session."""
    state = ParseState(**before.__dict__)
    state.session_id, state.project = chunk.state.session_id, chunk.state.project
    return state


def _fingerprint(path: Path, size: int, previous: str) -> str:
    """``n:sha1`` of the first bytes; the same ``n`` as last time, so a grown file still matches."""
    n = int(previous.split(":", 1)[0]) if previous and previous.split(":", 1)[0].isdigit() else 0
    n = n or min(size, _HEAD_BYTES)
    if size < n:
        return ""
    with open(path, "rb") as fh:
        data = fh.read(n)
    return f"{n}:{hashlib.sha1(data).hexdigest()}"
