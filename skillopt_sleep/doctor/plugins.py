"""Doctor checks for plugins (filled in by the plugins work)."""

from __future__ import annotations

from . import DoctorInput, Finding


def checks(inp: DoctorInput) -> list[Finding]:
    return []
