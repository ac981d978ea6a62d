"""OpenCode: sessions in the SQLite store ``~/.local/share/opencode/opencode.db``, AGENTS.md
(CLAUDE.md only as a fallback); its plugin's ``session.idle`` hook names the store."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from ..opencode import SOURCE, OpenCodeParser, default_root, opencode_files
from ..opencode_store import SessionCursor, new_chunks
from ..scan import Problem
from ..session import SessionChunk
from .registry import Agent, register

if TYPE_CHECKING:
    from ..turns import TurnClassifier


def files(root: Path, projects: frozenset[str] | None, problems: list[Problem]) -> Iterator[str]:
    return opencode_files(root, problems)


def sessions(
    db: Path,
    cursors: Mapping[str, str],
    problems: list[Problem],
    projects: frozenset[str] | None,
    classifier: TurnClassifier | None,
) -> Iterator[tuple[SessionChunk, str, str]]:
    """What is new per session; a damaged cursor reads its session again from the start."""
    loaded = {sid: c for sid, raw in cursors.items() if (c := SessionCursor.load(raw))}
    for chunk, cursor in new_chunks(db, loaded, problems, projects=projects, classifier=classifier):
        yield chunk, cursor.mark.session_id, cursor.dump()


AGENT = register(
    Agent(
        name=SOURCE,
        label="OpenCode",
        root=default_root,
        files=files,
        parser=OpenCodeParser,
        root_env=("OPENCODE_DB", "XDG_DATA_HOME"),
        instructions=("AGENTS.md", "CLAUDE.md"),
        fallback=("CLAUDE.md",),  # only where there is no AGENTS.md
        skills=(".opencode/skills", ".claude/skills"),
        sessions=sessions,
        replay="skillopt_sleep.agent_replay.opencode",
    )
)
