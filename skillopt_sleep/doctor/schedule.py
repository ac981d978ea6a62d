"""Doctor checks for schedule (filled in by the schedule work)."""

from __future__ import annotations

from . import DoctorInput, Finding


def checks(inp: DoctorInput) -> list[Finding]:
    return []
