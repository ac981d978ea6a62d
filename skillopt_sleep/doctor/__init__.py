"""``doctor``: each module here contributes checks; the CLI runs them all and prints the fixes."""

from __future__ import annotations

import importlib
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ..paths import Paths
from ..settings import Settings

# Modules with ``checks(inp: DoctorInput) -> list[Finding]``.
CHECK_MODULES = ("store", "backends", "plugins", "agent_plugins", "schedule")


@dataclass(frozen=True)
class DoctorInput:
    env: Mapping[str, str]
    paths: Paths
    settings: Settings
    project: Path
    which: Callable[[str], str | None] = shutil.which


@dataclass(frozen=True)
class Finding:
    """One check's result. ``fix`` is the one thing to do when it is not ok."""

    name: str
    status: Literal["ok", "warn", "fail", "skip"]
    detail: str
    fix: str = ""
    data: dict[str, str] = field(default_factory=dict)


def run_checks(inp: DoctorInput) -> list[Finding]:
    findings: list[Finding] = []
    for name in CHECK_MODULES:
        module = importlib.import_module(f"{__name__}.{name}")
        findings.extend(module.checks(inp))
    return findings
