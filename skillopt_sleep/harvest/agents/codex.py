"""Codex: ``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`` (and ``archived_sessions/``), AGENTS.md."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path

from ..codex import SOURCE, CodexParser
from ..jsonl import MAX_LINE_BYTES
from ..scan import Problem, codex_files
from .registry import Agent, home, register


def default_root(env: Mapping[str, str]) -> Path:
    """``CODEX_HOME``, else ``~/.codex``."""
    return Path(env.get("CODEX_HOME") or str(home(env) / ".codex")).expanduser()


def files(root: Path, projects: frozenset[str] | None, problems: list[Problem]) -> Iterator[str]:
    """Every day directory: a file's project is in its first line (see :func:`peek_project`)."""
    return codex_files(root, problems)


def peek_project(path: Path) -> str:
    """The cwd in a rollout's first line (``session_meta``), or "" if it has none."""
    try:
        with open(path, "rb") as fh:
            line = fh.readline(MAX_LINE_BYTES)
        data = json.loads(line)
    except (OSError, ValueError, RecursionError):
        return ""
    payload = data.get("payload") if isinstance(data, dict) else None
    if isinstance(data, dict) and data.get("type") == "session_meta" and isinstance(payload, dict):
        cwd = payload.get("cwd")
        return cwd if isinstance(cwd, str) else ""
    return ""


AGENT = register(
    Agent(
        name=SOURCE,
        label="Codex",
        root=default_root,
        files=files,
        parser=CodexParser,
        peek_project=peek_project,
        root_env=("CODEX_HOME",),
        instructions=("AGENTS.md",),
        skills=(".agents/skills",),
        replay="skillopt_sleep.agent_replay.codex",
    )
)
