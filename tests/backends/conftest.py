"""Fixtures for backend tests: the bundled sample project, for whole nights over the wire."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillopt_sleep.night.demo import sample_tasks, write_sample_project


@pytest.fixture
def sample_project(tmp_path: Path):
    """(project dir, its sample tasks)."""
    project = tmp_path / "project"
    project.mkdir()
    write_sample_project(project)
    return project, sample_tasks(project)
