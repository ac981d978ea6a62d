"""Fixtures for night tests: the bundled sample project in a temp dir."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillopt_sleep.night.demo import sample_tasks, write_sample_project


@pytest.fixture
def sample_project(tmp_path: Path):
    """(project dir, its sample tasks)."""
    project = tmp_path / "project"
    write_sample_project(project)
    return project, sample_tasks(project)
