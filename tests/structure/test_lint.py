"""The code keeps the project's guardrails: ruff's chosen rules, its formatter, and strict mypy.

The rule set and the mypy settings live in pyproject.toml. These run as tests so the README's one
test command checks them too; their caches go to a temp dir, never into the checkout.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.xdist_group("lint")


def _tool(name: str) -> list[str]:
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed; `pip install -e '.[dev]'` brings it")
    return [found]


def _run(argv: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=REPO, capture_output=True, text=True, timeout=600)


def test_ruff_finds_nothing():
    done = _run([*_tool("ruff"), "check", "--no-cache", "--output-format", "concise", "."])
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_code_is_formatted():
    done = _run([*_tool("ruff"), "format", "--no-cache", "--check", "."])
    assert done.returncode == 0, done.stdout + done.stderr


def _mypy_cache() -> Path:
    """mypy's incremental cache, kept from one run to the next outside the checkout: cold, mypy
    reads all of pydantic, openai and anthropic again (most of a minute); warm, only the files whose
    content changed, and what depends on them. One per checkout, so two clones never share one; a
    fresh machine (CI) starts cold."""
    key = hashlib.sha256(str(REPO).encode("utf-8")).hexdigest()[:12]
    return Path(tempfile.gettempdir()) / f"skillopt-sleep-tests-mypy-{key}"


@pytest.mark.slow
def test_mypy_strict_finds_nothing():
    done = _run([*_tool("mypy"), "--cache-dir", str(_mypy_cache()), "skillopt_sleep", "bench"])
    assert done.returncode == 0, done.stdout + done.stderr
