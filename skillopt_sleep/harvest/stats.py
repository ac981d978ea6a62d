"""What one harvest did for one source: counts, bad lines by file, files skipped and why."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .scan import Problem, printable


@dataclass
class SourceStats:
    """What one harvest did for one source (printed by ``harvest --json``)."""

    files_scanned: int = 0
    files_read: int = 0
    files_unchanged: int = 0
    files_too_old: int = 0
    files_other_projects: int = 0
    files_skipped: int = 0
    files_partly_read: int = 0
    bytes_read: int = 0
    lines_read: int = 0
    sessions: int = 0
    replay_sessions: int = 0
    tasks_new: int = 0
    tasks_updated: int = 0
    lines_skipped: Counter[str] = field(default_factory=Counter)
    bad_lines: dict[str, dict[str, int]] = field(default_factory=dict)  # path -> reason -> n
    errors: list[str] = field(default_factory=list)  # "path: why", one per file skipped

    def to_json(self) -> dict[str, Any]:
        data = dict(self.__dict__)
        data["lines_skipped"] = dict(sorted(self.lines_skipped.items()))
        return data

    def skip_file(self, path: str | Path, why: str) -> None:
        """Count a file (or directory) skipped whole, with its path and the reason."""
        self.files_skipped += 1
        self.errors.append(f"{printable(path)}: {printable(why)}")

    def note_problems(self, problems: list[Problem]) -> None:
        for path, why in problems:
            self.skip_file(path, why)
        problems.clear()
