"""The instructions a replay runs under: the skill and the memory files the task's agent reads.

A placement (:mod:`..rules.placement`) may keep a project's learned rules in ``AGENTS.md`` and
give Claude Code and Gemini CLI a managed ``@path`` import of it; a replay of their tasks
follows those imports, as the agents do, so it sees each rule once.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping

from ..envs.base import Instructions
from ..envs.task_record import AGENT_PREAMBLE
from ..models import TaskRecord

REPLAY_SYSTEM = AGENT_PREAMBLE

# The memory files an agent reads, where the night has them (any other agent: all of them).
_READS = {
    "claude-code": ("CLAUDE.md", ".claude/rules/skillopt-sleep.md"),
    "codex": ("AGENTS.md",),
    "gemini": ("GEMINI.md",),
}
_IMPORT = re.compile(r"^@(\S+)[ \t]*\r?$", re.MULTILINE)


def _with_imports(names: list[str], files: Mapping[str, str]) -> list[str]:
    """``names`` and the files their ``@path`` lines import (the agents that read such a line
    load the file it names, relative to the importing file), each once."""
    out: list[str] = []
    todo = list(names)
    while todo:
        name = todo.pop(0)
        if name in out:
            continue
        out.append(name)
        for target in _IMPORT.findall(files[name]):
            found = posixpath.normpath(posixpath.join(posixpath.dirname(name), target))
            if found in files and found != "SKILL.md":
                todo.append(found)
    return out


def system_text(
    files: dict[str, str], task: TaskRecord, skill_at: tuple[str, ...] = ()
) -> Instructions:
    """The instructions a replay runs under: the skill, and the memory files the task's agent
    reads (the text a chat sends; the files themselves for an agent replay, with ``skill_at``,
    the skill's places in the project)."""
    wanted = _READS.get(task.source, ())
    names = [name for name in files if name != "SKILL.md"]
    if any(w in files for w in wanted):
        names = _with_imports([n for n in names if n in wanted], files)
    parts = [REPLAY_SYSTEM, "# Skill (SKILL.md)\n", files.get("SKILL.md", "")]
    for name in names:
        parts += [f"\n\n# Project memory ({name})\n", files[name]]
    return Instructions("".join(parts), files, skill_at)
