"""The bundled demo: a sample project (SKILL.md, a hand-written CLAUDE.md) and its tasks."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ..clock import Clock
from ..errors import StoreError
from ..models import TaskRecord


@dataclass(frozen=True)
class Demo:
    project: Path
    home: Path
    tasks: list[TaskRecord]


def sample_tasks(project: Path) -> list[TaskRecord]:
    """The sample TaskRecords, re-homed to ``project``."""
    raw = json.loads(resources.files("skillopt_sleep.sample").joinpath("tasks.json").read_text("utf-8"))
    return [TaskRecord.model_validate({**item, "project": str(project)}) for item in raw]


def prepare_demo(root: Path, clock: Clock) -> Demo:
    """Copy the sample project under ``root`` (``project/``) with its own home (``home/``)."""
    project, home = root / "project", root / "home"
    if project.exists():
        raise StoreError(f"{project} already exists", hint="pass an empty --dir or omit it for a temp dir")
    source = resources.files("skillopt_sleep.sample").joinpath("project")
    try:
        with resources.as_file(source) as src:
            shutil.copytree(src, project)
        home.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"cannot create the demo under {root}: {exc.strerror}") from exc
    return Demo(project, home, sample_tasks(project))
