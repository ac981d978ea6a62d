"""Shared helpers of the training tests: the sample task sets written to files."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillopt_sleep.sample.train_sets import (
    SKILL,
    null_items,
    planted_items,
    with_splits,
    write_jsonl,
)
from skillopt_sleep.settings import BudgetSettings

UNLIMITED = BudgetSettings(max_calls=None, max_tokens=None, max_cost_usd=None)


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    return write_jsonl(tmp_path / "planted.jsonl", with_splits(planted_items(8), (3, 2, 3), 0))


@pytest.fixture
def null_set(tmp_path: Path) -> Path:
    return write_jsonl(tmp_path / "null.jsonl", with_splits(null_items(24), (1, 1, 1), 0))


@pytest.fixture
def skill(tmp_path: Path) -> Path:
    path = tmp_path / "SKILL.md"
    path.write_text(SKILL, encoding="utf-8")
    return path
