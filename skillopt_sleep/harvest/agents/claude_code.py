"""Claude Code: ``~/.claude/projects/<sanitised cwd>/<session>.jsonl``, CLAUDE.md, SessionEnd hook."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ..claude_code import SOURCE, ClaudeCodeParser
from ..scan import claude_files
from .registry import Agent, home, register


def default_root(env: Mapping[str, str]) -> Path:
    """``CLAUDE_CONFIG_DIR``, else ``~/.claude``."""
    return Path(env.get("CLAUDE_CONFIG_DIR") or str(home(env) / ".claude")).expanduser()


AGENT = register(
    Agent(
        name=SOURCE,
        label="Claude Code",
        root=default_root,
        files=claude_files,  # the project's directory is named after its cwd: scoped by path
        parser=ClaudeCodeParser,
        root_env=("CLAUDE_CONFIG_DIR",),
        instructions=("CLAUDE.md",),
        skills=(".claude/skills",),
        rule_dirs=(".claude/rules",),
        follows=("*",),
        git_commit=True,
        replay="skillopt_sleep.agent_replay.claude_code",
    )
)
