"""Which instruction files each coding agent reads, and which ``@path`` imports it follows.

A placement (:mod:`.placement`) decides from this table where a learned rule lands so that every
agent in use reads it once. The table is data, one row per agent (a task's ``source``), so an
agent registry can supply the rows later. What each row says was checked with the real CLIs
against a loopback model server, counting the rule's text in the request the model received
(claude 2.1.197, codex 0.169.0, copilot 1.0.102, gemini 0.61.0; OpenCode, Pi and Qwen Code from
their documented behaviour):

- Claude Code reads ``CLAUDE.md`` and ``.claude/rules/*.md`` and follows ``@path`` lines in both
  (a path relative to the file holding it);
- Copilot CLI reads ``CLAUDE.md``, ``AGENTS.md``, ``GEMINI.md`` and
  ``.github/copilot-instructions.md`` together, and follows ``@path`` lines in ``CLAUDE.md`` (not
  in ``GEMINI.md``); it does not read ``.claude/rules``;
- Gemini CLI reads the files named by its ``context.fileName`` setting (``GEMINI.md`` by
  default) and follows their ``@path`` lines.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .managed_block import BlockError, find_block, same_rule

CLAUDE_RULES = ".claude/rules/skillopt-sleep.md"  # a file of ours that only Claude Code reads
GEMINI_DEFAULT = ("GEMINI.md",)
_IMPORT = re.compile(r"^@(\S+)\s*$")


@dataclass(frozen=True)
class Reader:
    """One agent: its name as shown, the files it reads together, the files it reads only when
    none of those exists, and the files whose ``@path`` lines it follows."""

    title: str
    files: tuple[str, ...]
    fallback: tuple[str, ...] = ()
    follows: tuple[str, ...] = ()


READERS: dict[str, Reader] = {
    "claude-code": Reader("Claude Code", ("CLAUDE.md", CLAUDE_RULES), follows=("*",)),
    "codex": Reader("Codex", ("AGENTS.md",)),
    "copilot": Reader(
        "Copilot CLI",
        ("CLAUDE.md", "AGENTS.md", "GEMINI.md", ".github/copilot-instructions.md"),
        follows=("CLAUDE.md",),
    ),
    "opencode": Reader("OpenCode", ("AGENTS.md",), fallback=("CLAUDE.md",)),
    "pi": Reader("Pi", ("AGENTS.md",), fallback=("CLAUDE.md",)),
    "gemini": Reader("Gemini CLI", GEMINI_DEFAULT, follows=("*",)),
    "qwen": Reader("Qwen Code", ("QWEN.md", "AGENTS.md")),
}


def reader(agent: str, gemini_files: tuple[str, ...] = GEMINI_DEFAULT) -> Reader:
    """The row of ``agent``; Gemini's files follow the user's ``context.fileName``."""
    row = READERS[agent]
    if agent == "gemini":
        return Reader(row.title, gemini_files, follows=row.follows)
    return row


def title(agent: str) -> str:
    return READERS[agent].title if agent in READERS else agent


def files_read(row: Reader, existing: Iterable[str]) -> list[str]:
    """The files ``row``'s agent loads when ``existing`` are the project's files."""
    have = set(existing)
    found = [name for name in row.files if name in have]
    return found or [name for name in row.fallback if name in have]


def imports_of(name: str, text: str) -> list[str]:
    """The files that the ``@path`` lines of ``text``'s managed block import, relative to the
    project (``name`` is the importing file's path in the project)."""
    try:
        block = find_block(text)
    except BlockError:
        return []
    if block is None:
        return []
    out = []
    for line in block.inner.splitlines():
        match = _IMPORT.match(line.strip())
        if match:
            out.append(posixpath.normpath(posixpath.join(posixpath.dirname(name), match[1])))
    return out


def import_line(name: str, target: str) -> str:
    """The ``@path`` line that makes ``name`` import ``target`` (both relative to the project)."""
    return "@" + posixpath.relpath(target, posixpath.dirname(name) or ".")


def loads(row: Reader, texts: Mapping[str, str]) -> list[str]:
    """Every file ``row``'s agent loads from ``texts`` (the project's files), imports followed,
    in order and with repeats: a file imported by two files it reads is loaded twice."""
    out: list[str] = []

    def visit(name: str, depth: int) -> None:
        out.append(name)
        if depth > 4 or not ("*" in row.follows or name in row.follows):
            return
        for target in imports_of(name, texts[name]):
            if target in texts:
                visit(target, depth + 1)

    for name in files_read(row, texts):
        visit(name, 0)
    return out


def times_read(row: Reader, texts: Mapping[str, str], rule: str) -> int:
    """How many times ``row``'s agent is given ``rule``'s managed line."""
    count = 0
    for name in loads(row, texts):
        try:
            block = find_block(texts[name])
        except BlockError:
            continue
        if block is not None:
            count += sum(
                1
                for ln in block.inner.splitlines()
                if ln.strip().startswith("- ") and same_rule(ln.strip()[2:], rule)
            )
    return count
