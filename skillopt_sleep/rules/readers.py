"""Which instruction files each coding agent reads, and which ``@path`` imports it follows.

A placement (:mod:`.placement`) decides from these rows where a learned rule lands so that every
agent in use reads it once. Each row is derived from the agent registry
(:mod:`skillopt_sleep.harvest.agents`: ``instructions``, ``fallback``, ``rule_dirs``,
``follows``), the one home of these facts, so an agent registered from outside the package is
placed like the built-ins. What the built-ins' rows say was checked with the real CLIs against a
loopback model server, counting the rule's text in the request the model received (claude
2.1.197, codex 0.169.0, copilot 1.0.102, gemini 0.61.0; OpenCode, Pi and Qwen Code from their
documented behaviour):

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
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from ..harvest import agents as registry
from .managed_block import BlockError, find_block, same_rule

OURS = "skillopt-sleep.md"  # the file a placement may add to an agent's rule folder
CLAUDE_RULES = ".claude/rules/" + OURS  # a file of ours that only Claude Code reads
GEMINI_DEFAULT = ("GEMINI.md",)
_IMPORT = re.compile(r"^@(\S+)\s*$")


@dataclass(frozen=True)
class Reader:
    """One agent: its name as shown, the files it reads together, the files it reads only when
    none of those exists, the files whose ``@path`` lines it follows, and the files of ours it
    reads (in a rule folder: a placement may write them without touching the user's text)."""

    title: str
    files: tuple[str, ...]
    fallback: tuple[str, ...] = ()
    follows: tuple[str, ...] = ()
    ours: tuple[str, ...] = ()

    def follows_in(self, name: str) -> bool:
        return "*" in self.follows or name in self.follows


def _row(agent: registry.Agent, gemini_files: tuple[str, ...] = GEMINI_DEFAULT) -> Reader:
    ours = tuple(posixpath.join(folder, OURS) for folder in agent.rule_dirs)
    together = tuple(n for n in agent.instructions if n not in agent.fallback)
    if agent.name == "gemini":  # its files are the user's context.fileName
        together = gemini_files
    fallback = tuple(n for n in agent.instructions if n in agent.fallback)
    return Reader(agent.label, (*together, *ours), fallback, agent.follows, ours)


# The order agents are listed in (review, errors): the built-ins as placement has always shown
# them, then every other registered agent in registration order. Only an order, no fact.
_SHOWN = ("claude-code", "codex", "copilot", "opencode", "pi", "gemini", "qwen")


def _in_order() -> list[str]:
    names = registry.names()
    return [n for n in _SHOWN if n in names] + [n for n in names if n not in _SHOWN]


class _Readers(Mapping[str, Reader]):
    """Every registered agent's row (read live: an agent registered later is in it)."""

    def __getitem__(self, name: str) -> Reader:
        if name not in registry.names():
            raise KeyError(name)
        return _row(registry.get(name))

    def __iter__(self) -> Iterator[str]:
        return iter(_in_order())

    def __len__(self) -> int:
        return len(registry.names())


READERS: Mapping[str, Reader] = _Readers()


def reader(agent: str, gemini_files: tuple[str, ...] = GEMINI_DEFAULT) -> Reader:
    """The row of ``agent``; Gemini's files follow the user's ``context.fileName``."""
    return _row(registry.get(agent), gemini_files)


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
        if depth > 4 or not row.follows_in(name):
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
