"""Qwen Code: ``~/.qwen/projects/<sanitised cwd>/chats/<session>.jsonl``, QWEN.md and AGENTS.md."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

from ..qwen import SOURCE, QwenParser, qwen_files
from ..scan import Problem
from .registry import Agent, home, register


def default_root(env: Mapping[str, str]) -> Path:
    """``QWEN_RUNTIME_DIR``, else ``QWEN_HOME``, else ``~/.qwen``."""
    chosen = env.get("QWEN_RUNTIME_DIR") or env.get("QWEN_HOME")
    return Path(chosen).expanduser() if chosen else home(env) / ".qwen"


def files(root: Path, projects: frozenset[str] | None, problems: list[Problem]) -> Iterator[str]:
    return qwen_files(root, problems, projects)


AGENT = register(
    Agent(
        name=SOURCE,
        label="Qwen Code",
        root=default_root,
        files=files,
        parser=QwenParser,
        root_env=("QWEN_RUNTIME_DIR", "QWEN_HOME"),
        instructions=("QWEN.md", "AGENTS.md"),
        skills=(".qwen/skills", ".agents/skills"),
    )
)
