"""Unified diffs of staged files, and their colouring for a terminal."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from pathlib import Path

GREEN, RED, CYAN, BOLD, RESET = "\x1b[32m", "\x1b[31m", "\x1b[36m", "\x1b[1m", "\x1b[0m"


def unified_diff(old: str, new: str, name: str) -> str:
    """A unified diff from the live ``old`` to the candidate ``new``; empty if unchanged.

    Line endings are part of the lines, so a CRLF file diffs as CRLF and applies back exactly;
    a last line without a newline is marked the way ``diff`` and ``patch`` expect.
    """
    lines = difflib.unified_diff(
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        fromfile=f"a/{name}",
        tofile=f"b/{name}",
    )
    return "".join(
        ln if ln.endswith("\n") else ln + "\n\\ No newline at end of file\n" for ln in lines
    )


def label(project: Path, path: Path) -> str:
    """How a diff names ``path``: relative to the project (``.claude/skills/x/SKILL.md``), so it
    applies with ``patch -p1`` from the project root; absolute when it lies outside."""
    try:
        return path.relative_to(project).as_posix()
    except ValueError:
        return path.as_posix()


def colorize(diff: str) -> str:
    """``diff`` with ANSI colours: additions green, removals red, hunks cyan, headers bold."""
    out = []
    for line in diff.splitlines(keepends=True):
        body, end = line.rstrip("\r\n"), line[len(line.rstrip("\r\n")) :]
        if line.startswith(("+++", "---")):
            colour = BOLD
        elif line.startswith("+"):
            colour = GREEN
        elif line.startswith("-"):
            colour = RED
        elif line.startswith("@@"):
            colour = CYAN
        else:
            out.append(line)
            continue
        out.append(f"{colour}{body}{RESET}{end}")
    return "".join(out)


def wants_colour(
    stream: object, env: Mapping[str, str] | None = None, choice: str = "auto"
) -> bool:
    """Colour on a terminal only, unless ``choice`` forces it; ``NO_COLOR`` and ``TERM=dumb``
    turn it off."""
    if choice != "auto":
        return choice == "always"
    if env is not None and (env.get("NO_COLOR") or env.get("TERM") == "dumb"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())
