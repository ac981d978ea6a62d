"""GitHub Copilot CLI: ``~/.copilot/session-state/<uuid>/events.jsonl``; a sessionEnd hook."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ..copilot import (
    SOURCE,
    CopilotParser,
    copilot_files,
    default_root,
    peek_copilot_project,
    session_end_payload,
)
from ..scan import Problem
from .registry import Agent, register


def files(root: Path, projects: frozenset[str] | None, problems: list[Problem]) -> Iterator[str]:
    """Every session: a log's project is in its first line (``session.start``)."""
    return copilot_files(root, problems)


AGENT = register(
    Agent(
        name=SOURCE,
        label="Copilot CLI",
        root=default_root,
        files=files,
        parser=CopilotParser,
        peek_project=peek_copilot_project,
        root_env=("COPILOT_HOME",),
        instructions=(
            ".github/copilot-instructions.md",
            "AGENTS.md",
            "CLAUDE.md",
            "GEMINI.md",
        ),
        skills=(".github/skills", ".agents/skills", ".claude/skills"),
        follows=("CLAUDE.md",),  # not GEMINI.md's
        hook=session_end_payload,
        replay="skillopt_sleep.agent_replay.copilot",
    )
)
