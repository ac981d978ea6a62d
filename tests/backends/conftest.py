"""Fixtures for backend tests: the bundled sample project, for whole nights over the wire."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from skillopt_sleep.backends.retry import RetryPolicy
from skillopt_sleep.night.demo import sample_tasks, write_sample_project


@pytest.fixture
def sample_project(tmp_path: Path):
    """(project dir, its sample tasks)."""
    project = tmp_path / "project"
    project.mkdir()
    write_sample_project(project)
    return project, sample_tasks(project)


@pytest.fixture
def fast_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every retry waits a fiftieth of its backoff: a whole night's retries keep their order and
    their jitter (the same draws of the same rng), not their minutes of sleep. The delays
    themselves are tested in test_retry_budget.py."""
    delay = RetryPolicy.delay

    def quick(
        self: RetryPolicy, attempt: int, retry_after: float | None, rng: random.Random
    ) -> float | None:
        wait = delay(self, attempt, retry_after, rng)
        return None if wait is None else wait / 50

    monkeypatch.setattr(RetryPolicy, "delay", quick)
