"""The files a night may change in a project: one SKILL.md and the memory files.

Names used throughout the night: ``SKILL.md``, ``CLAUDE.md``, ``AGENTS.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..errors import StoreError
from ..settings import FilesSettings

DEFAULT_SKILL = Path(".claude/skills/project-conventions/SKILL.md")
NEW_SKILL = (
    "---\n"
    "name: project-conventions\n"
    "description: Conventions of this project, learned from its sessions by skillopt-sleep.\n"
    "---\n\n"
    "# Project conventions\n"
)


@dataclass(frozen=True)
class Workspace:
    """Live paths and texts of the files under training. Missing files read as their seed text."""

    project: Path
    paths: dict[str, Path]
    texts: dict[str, str]
    existed: dict[str, bool]
    skipped: list[str] = field(default_factory=list)  # files left out tonight, and why

    def memory_names(self) -> list[str]:
        return [n for n in self.texts if n != "SKILL.md"]


def find_skill(project: Path, configured: str | None) -> Path:
    """The project's skill file: configured, else its single existing skill, else a new one."""
    if configured:
        path = Path(configured)
        return path if path.is_absolute() else project / path
    found = sorted(
        p
        for root in (".claude/skills", ".agents/skills", ".codex/skills")
        for p in (project / root).glob("*/SKILL.md")
    )
    return found[0] if len(found) == 1 else project / DEFAULT_SKILL


def _one_name_per_file(project: Path, names: list[str]) -> list[str]:
    """``names`` with one name kept for each file: when ``CLAUDE.md`` is a link to ``AGENTS.md``
    the night trains AGENTS.md (the file, not the link), so a rule is written and shown once."""
    kept: dict[object, str] = {}
    for name in names:
        path = project / name
        try:
            info = path.stat()
            same: object = (info.st_dev, info.st_ino)  # a symbolic or a hard link: one file
        except OSError:
            same = path.resolve()
        if same not in kept or ((project / kept[same]).is_symlink() and not path.is_symlink()):
            kept[same] = name
    return [n for n in names if n in kept.values()]


def load_workspace(project: Path, files: FilesSettings) -> Workspace:
    """Read the skill and memory files. Memory files that exist are trained (two names of one
    file once); if none exist, ``CLAUDE.md`` is (its managed block is created on first adoption)."""
    paths = {"SKILL.md": find_skill(project, files.skill)}
    memory = [name for name in files.memory if (project / name).exists()] or files.memory[:1]
    for name in _one_name_per_file(project, memory):
        paths[name] = project / name
    texts: dict[str, str] = {}
    existed: dict[str, bool] = {}
    skipped: list[str] = []
    for name, path in list(paths.items()):
        try:
            texts[name] = path.read_bytes().decode("utf-8")
            existed[name] = True
        except FileNotFoundError:
            texts[name] = NEW_SKILL if name == "SKILL.md" else ""
            existed[name] = False
        except UnicodeDecodeError as exc:
            # Not ours to rewrite: an edit would re-encode the user's text. Left out of the
            # night (neither replayed nor edited), and the night goes on with the other files.
            del paths[name]
            skipped.append(
                f"{path} is not UTF-8 (byte {exc.start}): left out of tonight's training; "
                "save it as UTF-8 to include it"
            )
        except OSError as exc:
            raise StoreError(
                f"cannot read {path}: {exc.strerror or exc}", hint="check the file's permissions"
            ) from exc
    return Workspace(project, paths, texts, existed, skipped)
