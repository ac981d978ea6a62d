"""Gemini CLI: ``~/.gemini/tmp/<project>/chats/*.jsonl``, GEMINI.md; a SessionEnd hook."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ..gemini import SOURCE, GeminiParser, default_root, gemini_files, peek_gemini_project
from ..scan import Problem
from .registry import Agent, register


def files(root: Path, projects: frozenset[str] | None, problems: list[Problem]) -> Iterator[str]:
    """Every project folder (named by a hash, not the path): the project is read from the file."""
    return gemini_files(root, problems)


AGENT = register(
    Agent(
        name=SOURCE,
        label="Gemini CLI",
        root=default_root,
        files=files,
        parser=GeminiParser,
        peek_project=peek_gemini_project,
        root_env=("GEMINI_CLI_HOME",),
        # AGENTS.md only when settings.json's context.fileName lists it
        instructions=("GEMINI.md",),
        skills=(".gemini/skills", ".agents/skills"),
        follows=("*",),
    )
)
