"""The sample project with its tasks logged in the test's own store (under SKILLOPT_SLEEP_HOME),
as the hook would have logged them: the start of every night test that runs the CLI on it."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from skillopt_sleep.clock import SystemClock
from skillopt_sleep.models import TaskRecord
from skillopt_sleep.night.demo import write_sample_project
from skillopt_sleep.paths import resolve_paths
from skillopt_sleep.store import Store


def sample_root(tmp_path: Path) -> Path:
    """The bundled sample project, written to ``tmp_path / "project"``."""
    root = tmp_path / "project"
    root.mkdir()
    write_sample_project(root)
    return root


def log_tasks(tasks: Sequence[TaskRecord]) -> None:
    """``tasks`` in the test's own store."""
    store = Store.open(resolve_paths(os.environ["SKILLOPT_SLEEP_HOME"]).db)
    store.upsert_tasks(list(tasks), SystemClock().now())
    store.close()


def anthropic_at(url: str) -> tuple[str, ...]:
    """The flags of a night whose model calls go to the loopback Anthropic server at ``url``."""
    return ("--backend", "anthropic", "--model", "claude-sonnet-4-6", "--base-url", url)
