"""The bundled demo: a sample project (SKILL.md, a hand-written CLAUDE.md) and its tasks."""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ..clock import Clock
from ..errors import StoreError
from ..models import TaskRecord


@dataclass(frozen=True)
class Demo:
    """The demo's sample project, the home that keeps its store and proposal, and its tasks."""

    project: Path
    home: Path
    tasks: list[TaskRecord]


def sample_tasks(project: Path) -> list[TaskRecord]:
    """The sample TaskRecords, re-homed to ``project``."""
    raw = json.loads(
        resources.files("skillopt_sleep.sample").joinpath("tasks.json").read_text("utf-8")
    )
    return [TaskRecord.model_validate({**item, "project": str(project)}) for item in raw]


SKILL_PATH = Path(".claude/skills/beta-app/SKILL.md")


def write_sample_project(project: Path) -> None:
    """The sample project's files: a hand-written ``CLAUDE.md`` and a skill."""
    sample = resources.files("skillopt_sleep.sample")
    (project / SKILL_PATH).parent.mkdir(parents=True, exist_ok=True)
    (project / "CLAUDE.md").write_bytes(sample.joinpath("CLAUDE.md").read_bytes())
    (project / SKILL_PATH).write_bytes(sample.joinpath("SKILL.md").read_bytes())


def prepare_demo(root: Path, clock: Clock) -> Demo:
    """The sample project under ``root`` (``project/``) with its own home (``home/``)."""
    project, home = root / "project", root / "home"
    if project.exists():
        raise StoreError(
            f"{project} already exists", hint="pass an empty --dir or omit it for a temp dir"
        )
    try:
        write_sample_project(project)
        home.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"cannot create the demo under {root}: {exc.strerror}") from exc
    return Demo(project, home, sample_tasks(project))


def next_steps(demo: Demo, command: str) -> list[str]:
    """The commands that review and adopt the demo's proposal, as they run when pasted: the demo
    keeps its own home, so each carries ``SKILLOPT_SLEEP_HOME`` (paths quoted for the shell)."""
    home = f"SKILLOPT_SLEEP_HOME={shlex.quote(str(demo.home))}"
    project = shlex.quote(str(demo.project))
    return [f"{home} {command} {verb} --project {project}" for verb in ("review", "adopt")]
