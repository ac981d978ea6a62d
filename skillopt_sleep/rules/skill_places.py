"""Where a project's skill lands so that every agent in use loads it, and none loads it twice.

Agents load skills from folders of their own (the agent registry's ``skills``; checked with the
real CLIs): Claude Code from ``.claude/skills``, Codex from ``.agents/skills``, Copilot CLI from
``.github/skills``, ``.agents/skills`` and ``.claude/skills``, Gemini CLI from ``.gemini/skills``
and ``.agents/skills``, Qwen Code from ``.qwen/skills`` and ``.agents/skills``, Pi from
``.pi/skills`` and ``.agents/skills``, OpenCode from ``.opencode/skills`` and ``.claude/skills``.
So the shared ``.agents/skills/<name>/SKILL.md`` serves most of them at once, and a skill in two
folders one agent reads is listed to that agent twice.

A place is the set of skill folders the skill is written into (the same text in each): the one it
already lives in, if any, then as few more as reach every agent in use, none of them read twice
by one agent. Where no such set reaches every agent, the one reaching the most (Claude Code
first, then as listed) is taken and the others are named (:attr:`SkillPlace.unreached`).

A project that only Claude Code uses (or whose agents are unknown) keeps the plain layout: its
skill where it is, a new one in ``.claude/skills``.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import combinations

from ..harvest import agents as registry
from .readers import READERS

SHARED = ".agents/skills"


@dataclass(frozen=True)
class SkillPlace:
    """The skill folders the skill lives in (its home first), the agents in use that load it
    from there, and those that load it from none of them."""

    folders: tuple[str, ...]
    reached: tuple[str, ...] = ()
    unreached: tuple[str, ...] = ()

    def paths(self, name: str) -> list[str]:
        """The skill's file in each folder, relative to the project, the home first."""
        return [posixpath.join(folder, name, "SKILL.md") for folder in self.folders]

    def loaders(self, folder: str) -> list[str]:
        """The agents in use that load the skill from ``folder``."""
        return [a for a in self.reached if folder in skill_folders(a)]


def skill_folders(agent: str) -> tuple[str, ...]:
    """The project folders ``agent`` loads skills from (none for an agent that loads none)."""
    return registry.get(agent).skills


def folder_of(relative: str) -> str | None:
    """The skill folder of a skill file ``<folder>/<name>/SKILL.md`` (relative to the project),
    or None for a file laid out otherwise."""
    parts = relative.split("/")
    return "/".join(parts[:-2]) if len(parts) >= 3 and parts[-1] == "SKILL.md" else None


def loaded_by(agents: Iterable[str], folders: Iterable[str]) -> dict[str, int]:
    """How many of ``folders`` each of ``agents`` loads the skill from (1 is the aim)."""
    held = set(folders)
    return {agent: len(held & set(skill_folders(agent))) for agent in agents}


def place_skill(
    agents: Iterable[str], home: str | None = None, most: int = 0, avoid: Iterable[str] = ()
) -> SkillPlace:
    """The place of the skill for ``agents`` (registered names; others are ignored): ``home`` is
    the folder it already lives in (None for a new skill), ``most`` caps how many folders it
    may be written into (0: no cap), ``avoid`` names folders it may not be written into (another
    skill of its name lives there)."""
    wanted = set(agents)
    in_use = [a for a in READERS if a in wanted]
    if not in_use:
        return SkillPlace((home,) if home else ())
    candidates = list(dict.fromkeys(f for a in in_use for f in skill_folders(a)))
    if SHARED in candidates:  # the shared folder first: it serves most agents at once
        candidates.remove(SHARED)
        candidates.insert(0, SHARED)
    fixed = (home,) if home else ()
    free = [f for f in candidates if f not in fixed and f not in set(avoid)]
    cap = most or len(fixed) + len(free)
    best: tuple[tuple[int, ...], tuple[str, ...]] | None = None
    for size in range(max(cap - len(fixed), 0) + 1):
        for extra in combinations(free, size):
            folders = (*fixed, *extra)
            if not folders:
                continue
            counts = loaded_by(in_use, folders)
            if max(counts.values()) > 1:
                continue
            # most agents reached, the earlier listed first (Claude Code's before the others'),
            # then the fewest folders, then the shared folder, then the folders listed first
            reached = tuple(int(counts[a] == 1) for a in in_use)
            key = (sum(reached), *reached, -len(folders), int(SHARED in folders))
            key += tuple(-candidates.index(f) if f in candidates else 0 for f in folders)
            if best is None or key > best[0]:
                best = (key, folders)
    if best is None:  # the home alone is read twice by some agent: it stays the only folder
        folders = fixed
    else:
        folders = best[1]
        if not fixed and SHARED in folders:
            folders = (SHARED, *(f for f in folders if f != SHARED))
    counts = loaded_by(in_use, folders)
    return SkillPlace(
        folders,
        tuple(a for a in in_use if counts[a] >= 1),
        tuple(a for a in in_use if counts[a] == 0),
    )
