"""The throwaway copy of the project an agent replay works in, and the temporary home it runs
under.

The copy holds the project's files as git sees them (tracked and untracked, not ignored) or, in a
directory that is no git repository, every file except well-known build, cache and dependency
directories and files over :data:`MAX_FILE`. No ``.git`` is copied: the agent cannot reach the
live repository's refs or stash. The candidate ``SKILL.md``, ``CLAUDE.md`` and ``AGENTS.md``
are written where the agents read them (the skill where the night lays it out in the project, so
each agent loads it once, as from the live files); hooks in the project's own Claude settings are dropped.
Everything lives under one temporary directory, removed after scoring.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..harvest import agents as registry

MAX_FILE = 5 * 1024 * 1024
MAX_TOTAL = 200 * 1024 * 1024
SKIP_DIRS = frozenset(
    {
        ".git",
        "node_modules",
        ".venv",
        "venv",
        "__pycache__",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        "dist",
        "build",
        "target",
        ".next",
        ".cache",
        ".gradle",
        ".idea",
        ".terraform",
    }
)
_SKILL_NAME = re.compile(r"^name:\s*['\"]?([A-Za-z0-9_.-]+)", re.MULTILINE)


class CopyTooLarge(ValueError):
    """The project is too large to copy for a replay."""


def _git_files(project: Path) -> list[str] | None:
    if not (project / ".git").exists():
        return None
    try:
        done = subprocess.run(
            [
                "git",
                "-C",
                str(project),
                "ls-files",
                "-z",
                "--cached",
                "--others",
                "--exclude-standard",
            ],
            capture_output=True,
            timeout=60,
            check=False,
            env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"},
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    return [p for p in done.stdout.decode("utf-8", "surrogateescape").split("\0") if p]


def _walk_files(project: Path) -> list[str]:
    out: list[str] = []
    for root, dirs, files in os.walk(project):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
        for name in files:
            out.append(os.path.relpath(os.path.join(root, name), project))
    return out


def copy_project(project: Path, dest: Path) -> int:
    """Copy the project's files into ``dest``; returns how many. Symlinks are copied as links
    (the sandbox, not the copy, keeps them from reaching outside)."""
    files = _git_files(project)
    files = _walk_files(project) if files is None else files
    total = count = 0
    for rel in files:
        if any(part in SKIP_DIRS for part in Path(rel).parts[:-1]) or Path(rel).parts[0] == ".git":
            continue
        src = project / rel
        if src.is_symlink():
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(os.readlink(src), target)
            continue
        if not src.is_file() or src.stat().st_size > MAX_FILE:
            continue
        total += src.stat().st_size
        if total > MAX_TOTAL:
            raise CopyTooLarge(
                f"{project} holds more than {MAX_TOTAL // 2**20} MiB of files to copy"
            )
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, target)
        count += 1
    return count


def skill_name(text: str) -> str:
    """The skill's frontmatter name (a safe directory name), or ``project-skill``."""
    match = _SKILL_NAME.search(text)
    return match.group(1) if match and match.group(1) not in (".", "..") else "project-skill"


def skill_places(agent: str, text: str, skill_at: Sequence[str] = ()) -> list[str]:
    """Where the replay's copy holds the skill ``text``, relative to the copy: where the night
    lays it out in the project (``skill_at``: its file, then its copies in other agents' skill
    folders), so each agent loads it once, as it will from the live files. When ``agent`` loads
    from none of them (no places known, as in a training run, or a night that did not know the
    agent was in use), also in the first skill folder it loads (the registry's), under the name
    of the skill's folder, else its frontmatter name."""
    places = list(dict.fromkeys(skill_at))
    own = registry.get(agent).skills if agent in registry.names() else ()
    if not places or not any(p.rsplit("/", 2)[0] in own for p in places if p.count("/") >= 2):
        name = places[0].rsplit("/", 2)[-2] if places and places[0].count("/") >= 2 else None
        places.append(f"{(own or ('.claude/skills',))[0]}/{name or skill_name(text)}/SKILL.md")
    return places


def place_files(
    copy: Path, files: Mapping[str, str], agent: str = "claude-code", skill_at: Sequence[str] = ()
) -> None:
    """The candidate files where the agents read them: each memory file at its path in the
    project (``CLAUDE.md``, ``AGENTS.md``, a placement's ``.claude/rules/skillopt-sleep.md`` or
    ``GEMINI.md``), SKILL.md where :func:`skill_places` says (for the replayed ``agent``)."""
    inside = copy.resolve()
    for name, text in files.items():
        target = (copy / name).resolve()
        if name != "SKILL.md" and target.is_relative_to(inside):
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    if files.get("SKILL.md", "").strip():
        for rel in skill_places(agent, files["SKILL.md"], skill_at):
            target = (copy / rel).resolve()
            if target.is_relative_to(inside):
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(files["SKILL.md"], encoding="utf-8")
    _drop_project_hooks(copy)


def _drop_project_hooks(copy: Path) -> None:
    for name in ("settings.json", "settings.local.json"):
        path = copy / ".claude" / name
        if not path.is_file():
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            path.unlink()
            continue
        if isinstance(data, dict):
            data.pop("hooks", None)
            data.pop("statusLine", None)
            path.write_text(json.dumps(data), encoding="utf-8")
