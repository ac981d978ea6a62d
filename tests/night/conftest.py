"""Fixtures for night tests: the bundled sample project in a temp dir."""

from __future__ import annotations

import shutil
from importlib import resources
from pathlib import Path

import pytest

from skillopt_sleep.night.demo import sample_tasks


@pytest.fixture
def sample_project(tmp_path: Path):
    """(project dir, its sample tasks)."""
    project = tmp_path / "project"
    with resources.as_file(resources.files("skillopt_sleep.sample").joinpath("project")) as src:
        shutil.copytree(src, project)
    return project, sample_tasks(project)
