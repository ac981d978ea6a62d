"""Harvesting an agent that keeps its sessions in a database (OpenCode's SQLite store), not
in one append-only file per session.

The agent's ``sessions`` reader yields what is new per session with the cursor to keep; each
session's cursor is stored under ``<database>#<session id>``, so the file cursors' table holds
them and ``harvest`` stays incremental. A store with nothing new is counted unchanged.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from ..models import TaskRecord
from ..store import Cursor
from .agents.registry import Agent
from .control import drop_control_turns
from .mine import count_unattributed, mine_chunk
from .scan import Problem, mtime, printable
from .stats import SourceStats
from .turns import TurnClassifier


def read_store(
    agent: Agent,
    path: str | Path,
    known: Mapping[str, Cursor],
    stats: SourceStats,
    projects: frozenset[str] | None,
    classifier: TurnClassifier | None,
) -> tuple[list[TaskRecord], list[Cursor]]:
    """The records and cursors of what is new in one session database (``known``: the
    agent's cursors). Never raises for a damaged store: it is counted in ``stats``."""
    assert agent.sessions is not None
    try:
        st = os.stat(path)
    except (OSError, ValueError) as exc:
        stats.skip_file(path, getattr(exc, "strerror", None) or type(exc).__name__)
        return [], []
    prefix = f"{path}#"
    cursors = {k[len(prefix) :]: c.state for k, c in known.items() if k.startswith(prefix)}
    problems: list[Problem] = []
    records: list[TaskRecord] = []
    new_cursors: list[Cursor] = []
    stats.files_scanned += 1
    for chunk, session, state in agent.sessions(
        Path(path), cursors, problems, projects, classifier
    ):
        chunk = drop_control_turns(chunk)
        count_unattributed(chunk, classifier)
        stats.lines_read += chunk.lines
        stats.lines_skipped.update(chunk.skipped)
        if chunk.skipped:
            stats.bad_lines[printable(f"{prefix}{session}")] = dict(sorted(chunk.skipped.items()))
        if chunk.state.replay:
            stats.replay_sessions += 1
        elif chunk.turns:
            stats.sessions += 1
        records.extend(mine_chunk(chunk, mtime(st), classifier))
        new_cursors.append(Cursor(f"{prefix}{session}", agent.name, 0, 0, 0, 0, state))
    if new_cursors:
        stats.files_read += 1
    else:
        stats.files_unchanged += 1
    stats.note_problems(problems)
    return records, new_cursors
