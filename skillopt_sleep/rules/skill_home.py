"""Where a skill of a given name lives in a project, or lands when it is new.

A skill is known by its ``name`` (its frontmatter's; the folder's for a file without one): a
trained skill updates the project's skill of that name and no other, and a skill new to the
project gets a folder of its name in the skill folder the agents in use load
(:mod:`.skill_places`), so a skill the user has stays as it is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from ..errors import UsageError
from ..harvest import agents as registry
from .managed_block import skill_name
from .readers import READERS
from .skill_places import place_skill, skill_folders

_SAFE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def name_of(path: Path) -> str:
    """The name of the skill at ``path``: its frontmatter's, else its folder's."""
    text = _read(path)
    return (skill_name(text) if text is not None else None) or path.parent.name


def skill_home(project: Path, name: str, agents: Iterable[str]) -> Path:
    """The file the skill called ``name`` is written to in ``project``: the skill of that name the
    project has (in any agent's skill folder, those of the ``agents`` in use first), else
    ``<folder>/<name>/SKILL.md`` in the folder the agents in use load (``.claude/skills`` when
    only Claude Code is in use or none is known). A :class:`UsageError` for a name that is no
    folder name, or whose folder holds a skill of another name."""
    if not _SAFE.match(name):
        raise UsageError(
            f"the skill's name {name!r} cannot name a skill folder",
            hint="give the trained skill a frontmatter `name:` of letters, digits and hyphens",
        )
    in_use = [a for a in agents if a in READERS]
    mine = [f for a in in_use for f in skill_folders(a)]
    every = [f for a in registry.names() for f in registry.get(a).skills]
    roots = list(dict.fromkeys([*mine, ".claude/skills", ".agents/skills", *every]))
    for root in roots:
        for path in sorted((project / root).glob("*/SKILL.md")):
            if name_of(path) == name:
                return path
    folders = place_skill(in_use, most=1).folders if set(in_use) - {"claude-code"} else ()
    path = project / (folders[0] if folders else ".claude/skills") / name / "SKILL.md"
    if path.exists():
        raise UsageError(
            f"{path} holds the skill {name_of(path)!r}, not {name!r}: it is left as it is",
            hint="rename the trained skill (its frontmatter `name:`) or that skill's folder",
        )
    return path
