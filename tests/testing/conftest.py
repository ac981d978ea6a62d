"""Fixtures for the loopback model server tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from skillopt_sleep.testing import ModelServer
from skillopt_sleep.testing.agents import which_claude, which_codex


@pytest.fixture
def srv() -> Iterator[ModelServer]:
    """A running model server, stopped after the test."""
    with ModelServer() as server:
        yield server


def _installed(path: str | None, package: str) -> str:
    if path is None:
        pytest.skip(f"{package.rsplit('/', 1)[-1]} is not installed (npm i -g {package})")
    return path


@pytest.fixture
def claude_bin() -> str:
    """The real ``claude`` binary; the test is skipped when it is not installed."""
    return _installed(which_claude(), "@anthropic-ai/claude-code")


@pytest.fixture
def codex_bin() -> str:
    """The real ``codex`` binary; the test is skipped when it is not installed."""
    return _installed(which_codex(), "@openai/codex")


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    """(sandbox home for the agent, empty working directory)."""
    home, work = tmp_path / "agent-home", tmp_path / "work"
    work.mkdir()
    return home, work
