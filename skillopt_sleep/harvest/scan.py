"""Where the agents keep their transcripts, and which of them a harvest should look at.

Project scoping is decided from paths before anything is parsed: Claude Code names each
project's directory after its cwd, so only that directory is listed; Codex files are dated by
directory, so old days are never listed. (A Codex file's project is in its first line; the
harvester peeks at it once and remembers it in the file's cursor.)
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

from ..errors import UsageError
from .claude_code import sanitise_cwd

CLAUDE = "claude-code"
CODEX = "codex"
SOURCES = (CLAUDE, CODEX)
_DAY_SLACK = timedelta(days=2)  # Codex dates its directories in local time: allow any zone


@dataclass(frozen=True)
class Roots:
    """The agents' home directories."""

    claude: Path
    codex: Path


def agent_roots(
    env: Mapping[str, str], claude_config_dir: str | None = None, codex_home: str | None = None
) -> Roots:
    """Settings first, then ``CLAUDE_CONFIG_DIR`` / ``CODEX_HOME``, else ``~/.claude``, ``~/.codex``."""
    home = Path(env.get("HOME") or env.get("USERPROFILE") or Path.home())
    claude = claude_config_dir or env.get("CLAUDE_CONFIG_DIR") or str(home / ".claude")
    codex = codex_home or env.get("CODEX_HOME") or str(home / ".codex")
    return Roots(Path(claude).expanduser(), Path(codex).expanduser())


def project_keys(project: Path) -> frozenset[str]:
    """The spellings a transcript may use for a project: as given and with links resolved."""
    return frozenset({str(project), str(project.resolve())})


def claude_files(root: Path, projects: frozenset[str] | None) -> Iterator[str]:
    """Session files under ``<root>/projects``: only the scoped projects' directories.

    Subagent transcripts (``<session>/subagents/*.jsonl``) are not listed: they are not the
    user's conversation.
    """
    base = root / "projects"
    if projects is None:
        dirs = _subdirs(base)
    else:
        dirs = sorted({base / sanitise_cwd(p) for p in projects})
    for d in dirs:
        yield from _jsonl(d)


def codex_files(root: Path, since: datetime) -> Iterator[str]:
    """Rollouts under ``sessions/YYYY/MM/DD`` from ``since`` on (by day), and archived ones."""
    first_day = (since - _DAY_SLACK).date()
    for year in _subdirs(root / "sessions"):
        for month in _subdirs(year):
            for day in _subdirs(month):
                try:
                    dated = datetime(int(year.name), int(month.name), int(day.name)).date()
                except ValueError:
                    dated = None  # not a date directory: list it rather than lose it
                if dated is None or dated >= first_day:
                    yield from _jsonl(day)
    yield from _jsonl(root / "archived_sessions", recursive=True)


def _entries(path: Path) -> list[os.DirEntry[str]]:
    """A directory's entries sorted by name ([] if it is not there); scandir, because a harvest
    with nothing new costs little more than listing the directories."""
    try:
        with os.scandir(path) as it:
            return sorted(it, key=lambda e: e.name)
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return []


def _subdirs(path: Path) -> list[Path]:
    return [Path(e.path) for e in _entries(path) if e.is_dir()]


def _jsonl(path: Path, recursive: bool = False) -> Iterator[str]:
    """The ``*.jsonl`` files in ``path`` (as strings: thousands of Path objects cost more than
    the stat calls of a harvest with nothing new)."""
    for entry in _entries(path):
        if entry.is_file() and entry.name.endswith(".jsonl"):
            yield entry.path
        elif recursive and entry.is_dir():
            yield from _jsonl(Path(entry.path), recursive=True)


_DURATION = re.compile(r"^(\d+(?:\.\d+)?)\s*(m|min|h|d|w)$", re.IGNORECASE)
_UNITS = {"m": 60, "min": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def parse_since(value: str, now: datetime, local_zone: timezone | None = None) -> datetime:
    """``--since``: a date (midnight, local time), a date-time (local unless it has an offset),
    or a duration back from now (``90m``, ``2h``, ``3d``, ``1w``). Returns aware UTC."""
    text = value.strip()
    match = _DURATION.match(text)
    if match:
        return now - timedelta(seconds=float(match.group(1)) * _UNITS[match.group(2).lower()])
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(
            f"--since {value!r} is not a date, a date-time or a duration",
            hint="use e.g. 2026-11-01, 2026-11-01T09:00, 36h or 3d",
        ) from None
    if parsed.tzinfo is None:
        parsed = parsed.astimezone(local_zone) if local_zone else parsed.astimezone()
    return parsed.astimezone(timezone.utc)


def since_lookback(days: float, now: datetime) -> datetime:
    if days <= 0:
        raise UsageError(
            f"--lookback {days:g} must be a positive number of days", hint="e.g. --lookback 7"
        )
    return now - timedelta(days=days)


def mtime(stat: os.stat_result) -> datetime:
    return datetime.fromtimestamp(stat.st_mtime, tz=timezone.utc)
