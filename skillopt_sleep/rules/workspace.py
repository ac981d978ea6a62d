"""The files a night may change in a project: one SKILL.md and the memory files.

Names used throughout the night: ``SKILL.md``, ``CLAUDE.md``, ``AGENTS.md``, and the files a
placement (:mod:`.placement`) adds for the agents in use (``.claude/rules/skillopt-sleep.md``,
``GEMINI.md``), each by its path relative to the project.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ConfigError, StoreError
from ..settings import FilesSettings
from ..store import Store
from .placement import Placement, place, placed_texts
from .readers import GEMINI_DEFAULT, READERS
from .skill_places import SkillPlace, folder_of, place_skill, skill_folders

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
    # where the night's memory edits go, the live texts when a placement changed them, and it
    placement: Placement = field(default_factory=Placement)
    live: dict[str, str] = field(default_factory=dict)
    # where the skill lives and which agents in use load it (None: only Claude Code in use),
    # and its copies in other agents' skill folders: their text when the night started (None:
    # missing), each written with the skill's text
    skill: SkillPlace | None = None
    skill_copies: dict[str, str | None] = field(default_factory=dict)

    def live_text(self, name: str) -> str:
        """The file's text on disk (``texts`` holds it laid out by the placement)."""
        return self.live.get(name, self.texts.get(name, ""))

    def skill_at(self) -> tuple[str, ...]:
        """Where the skill is written in the project, relative to it: its own file, then its
        copies in other agents' skill folders (none for a skill file outside the project)."""
        path = self.paths.get("SKILL.md")
        if path is None:
            return ()
        try:
            home = path.relative_to(self.project).as_posix()
        except ValueError:
            return ()
        return (home, *self.skill_copies)


def find_skill(project: Path, configured: str | None, agents: Iterable[str] = ()) -> Path:
    """The project's skill file: configured, else its single existing skill, else a new one: in
    ``.claude/skills`` when only Claude Code is in use (or none known), else in the skill folder
    that most of the ``agents`` in use load (:mod:`.skill_places`)."""
    if configured:
        path = Path(configured)
        return path if path.is_absolute() else project / path
    in_use = [a for a in agents if a in READERS]
    roots = [".claude/skills", ".agents/skills", ".codex/skills"]
    roots += [folder for agent in in_use for folder in skill_folders(agent)]
    found = sorted(p for root in dict.fromkeys(roots) for p in (project / root).glob("*/SKILL.md"))
    if len(found) == 1:
        return found[0]
    if not set(in_use) - {"claude-code"}:
        return project / DEFAULT_SKILL
    if found and len({(p.parent.name, _text(p)) for p in found}) == 1:
        return found[0]  # one skill, copied into several agents' folders by an earlier night
    folders = place_skill(in_use, most=1).folders
    return (
        project
        / (folders[0] if folders else ".claude/skills")
        / DEFAULT_SKILL.parent.name
        / DEFAULT_SKILL.name
    )


def _text(path: Path) -> str | None:
    """A skill file's text; None when it is missing or cannot be read."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _skill_place(project: Path, path: Path, agents: list[str]) -> SkillPlace | None:
    """Where the skill at ``path`` is written and which agents in use load it (None when only
    Claude Code is in use): its own folder, and the other agents' folders it needs (not those
    where another skill of its name lives: that file is the user's)."""
    if not set(agents) - {"claude-code"}:
        return None
    try:
        home = folder_of(path.relative_to(project).as_posix())
    except ValueError:
        home = None
    if home is None:  # a skill file laid out as no agent loads one
        return SkillPlace((), (), tuple(a for a in READERS if a in agents))
    mine = _text(path)
    avoid = []
    for folder in {f for a in agents if a in READERS for f in skill_folders(a)} - {home}:
        other = project / folder / path.parent.name / path.name
        if other.is_symlink() or (other.exists() and _text(other) != mine):
            avoid.append(folder)
    return place_skill(agents, home, avoid=avoid)


def _unloaded(place: SkillPlace, paths: list[str]) -> str:
    names = ", ".join(READERS[a].title for a in place.unreached)
    one = len(place.unreached) == 1
    return (
        f"{names} {'loads' if one else 'load'} no skill from {' or '.join(paths)}: tonight's "
        f"skill edits do not reach {'it' if one else 'them'}"
    )


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


def agents_in_use(files: FilesSettings, sources: Iterable[str]) -> list[str]:
    """The agents that read the project's files: ``[files] agents`` when set, else the sources
    of its logged tasks; :class:`ConfigError` for a name that is no agent."""
    unknown = [a for a in files.agents if a not in READERS]
    if unknown:
        raise ConfigError(
            f"[files] agents: unknown agent {unknown[0]!r}",
            hint=f"choose from {', '.join(READERS)}",
        )
    return list(files.agents) or [s for s in dict.fromkeys(sources) if s in READERS]


def project_sources(store: Store | None, project: Path) -> list[str]:
    """The agents the project's logged tasks came from, each once (none without a store): the
    sources of every sighting of a task, not only of the one that logged it first."""
    return [] if store is None else store.sources(str(project))


def gemini_files(project: Path, home: Path | None = None) -> tuple[str, ...]:
    """The files Gemini CLI reads: ``context.fileName`` of the project's ``.gemini/settings.json``,
    else of the user's, else ``GEMINI.md``. A settings file that cannot be read counts as unset."""
    for root in (project, home if home is not None else Path.home()):
        try:
            data = json.loads((root / ".gemini" / "settings.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        context = data.get("context") if isinstance(data, dict) else None
        names = context.get("fileName") if isinstance(context, dict) else None
        if isinstance(names, str):
            names = [names]
        if isinstance(names, list) and names and all(isinstance(n, str) and n for n in names):
            return tuple(names)
    return GEMINI_DEFAULT


def _placement(project: Path, memory: list[str], agents: Iterable[str]) -> Placement:
    read = (n for a in agents if a in READERS for n in (*READERS[a].files, *READERS[a].fallback))
    names = {"CLAUDE.md", "AGENTS.md", "GEMINI.md", "QWEN.md", *memory, *read}
    found = gemini_files(project) if "gemini" in agents else GEMINI_DEFAULT
    existing = [n for n in (*names, *found) if (project / n).exists()]
    linked = [n for n in existing if n != "AGENTS.md" and _same_file(project, n, "AGENTS.md")]
    return place(agents, existing, gemini_files=found, linked=linked)


def _same_file(project: Path, a: str, b: str) -> bool:
    try:
        return (project / a).samefile(project / b)
    except OSError:
        return False


def _unreached(agent: str) -> str:
    row = READERS[agent]
    files = ", ".join((*row.files, *row.fallback)) or "no instruction file"
    return (
        f"{row.title} reads only {files} and follows no @path import there: tonight's rules "
        "do not reach it; register it with the files whose imports it follows"
    )


def load_workspace(project: Path, files: FilesSettings, agents: Iterable[str] = ()) -> Workspace:
    """Read the skill and memory files. With only Claude Code in use (or none known), memory
    files that exist are trained (two names of one file once); if none exist, ``CLAUDE.md`` is
    (its managed block is created on first adoption). With other agents in use, the files of
    their placement are, laid out by it (:mod:`.placement`)."""
    in_use = agents_in_use(files, agents)
    paths = {"SKILL.md": find_skill(project, files.skill, in_use)}
    skill = _skill_place(project, paths["SKILL.md"], in_use)
    name = paths["SKILL.md"].parent.name
    copies = {rel: _text(project / rel) for rel in (skill.paths(name)[1:] if skill else [])}
    memory = [name for name in files.memory if (project / name).exists()] or files.memory[:1]
    placement = _placement(project, memory, in_use)
    if placement.rules_in is not None:
        memory = placement.names()
    for name in _one_name_per_file(project, memory):
        paths[name] = project / name
    texts: dict[str, str] = {}
    existed: dict[str, bool] = {}
    skipped = [_unreached(a) for a in placement.unreached]
    if skill is not None and skill.unreached:
        skipped.append(_unloaded(skill, [_relative(project, paths["SKILL.md"]), *copies]))
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
    if placement.rules_in is None:
        return Workspace(project, paths, texts, existed, skipped, placement, skill=skill)
    placed = placed_texts(texts, placement)
    return Workspace(project, paths, placed, existed, skipped, placement, texts, skill, copies)


def _relative(project: Path, path: Path) -> str:
    try:
        return path.relative_to(project).as_posix()
    except ValueError:
        return str(path)
