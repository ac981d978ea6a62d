"""Pi: ``~/.pi/agent/sessions/--<cwd>--/<time>_<id>.jsonl``, AGENTS.md (CLAUDE.md as a fallback)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

from ..pi import AGENT_DIR_ENV, SESSIONS_ENV, SOURCE, PiParser, pi_files, sessions_root
from ..scan import Problem
from .registry import Agent, register


def default_root(env: Mapping[str, str]) -> Path:
    return sessions_root(env)


def files(root: Path, projects: frozenset[str] | None, problems: list[Problem]) -> Iterator[str]:
    return pi_files(root, problems, projects)


AGENT = register(
    Agent(
        name=SOURCE,
        label="Pi",
        root=default_root,
        files=files,
        parser=PiParser,
        root_env=(SESSIONS_ENV, AGENT_DIR_ENV),
        instructions=("AGENTS.md", "CLAUDE.md"),
        fallback=("CLAUDE.md",),  # only where there is no AGENTS.md
        skills=(".pi/skills", ".agents/skills"),  # its docs/skills.md (and ~/.pi/agent/skills)
    )
)
