"""Unified diffs of staged files."""

from __future__ import annotations

import difflib


def unified_diff(old: str, new: str, name: str) -> str:
    """A unified diff from the live ``old`` to the candidate ``new``; empty if unchanged."""
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True),
        fromfile=f"a/{name}", tofile=f"b/{name}",
    )
    return "".join(ln if ln.endswith("\n") else ln + "\n\\ No newline at end of file\n" for ln in lines)
