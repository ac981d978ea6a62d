"""Doctor checks for backends (filled in by the backends work)."""

from __future__ import annotations

from . import DoctorInput, Finding


def checks(inp: DoctorInput) -> list[Finding]:
    return []
