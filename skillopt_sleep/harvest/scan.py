"""Where the agents keep their transcripts, and which of them a harvest should look at.

Project scoping is decided from paths before anything is parsed: Claude Code names each
project's directory after its cwd, so only that directory is listed. Codex files are listed
from every day directory (a resumed session grows in the directory of the day it started); a
file's project is in its first line, which the harvester peeks at once and remembers in the
file's cursor. Listing never raises: what cannot be listed is reported as a problem.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterator, Mapping
from datetime import datetime, timedelta, timezone
from pathlib import Path

from ..errors import UsageError
from .claude_code import sanitise_cwd

CLAUDE = "claude-code"
CODEX = "codex"
SOURCES = (CLAUDE, CODEX)


class Roots(Mapping[str, Path]):
    """Each agent's sessions root, by agent name; an agent with no root here is not read.

    ``Roots(claude, codex)`` (positional) is the spelling of the first two agents' callers.
    """

    def __init__(self, *first_two: Path, by_agent: Mapping[str, Path] | None = None) -> None:
        if len(first_two) > len(SOURCES):
            raise TypeError(f"Roots takes at most {len(SOURCES)} positional roots")
        self._roots = dict(zip(SOURCES, first_two, strict=False)) | dict(by_agent or {})

    def __getitem__(self, name: str) -> Path:
        return self._roots[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._roots)

    def __len__(self) -> int:
        return len(self._roots)

    def __repr__(self) -> str:
        return f"Roots({self._roots!r})"

    @property
    def claude(self) -> Path:
        return self._roots[CLAUDE]

    @property
    def codex(self) -> Path:
        return self._roots[CODEX]


def project_keys(project: Path) -> frozenset[str]:
    """The spellings a transcript may use for a project: as given and with links resolved."""
    return frozenset({str(project), str(project.resolve())})


EARLIEST = datetime(1990, 1, 1, tzinfo=timezone.utc)  # before any agent transcript
Problem = tuple[str, str]  # (path, why it was skipped)
_MAX_DEPTH = 8  # Codex nests YYYY/MM/DD; deeper than this is a loop or not a session store


def claude_files(
    root: Path, projects: frozenset[str] | None, problems: list[Problem]
) -> Iterator[str]:
    """Session files under ``<root>/projects``: only the scoped projects' directories.

    Subagent transcripts (``<session>/subagents/*.jsonl``) are not listed: they are not the
    user's conversation. What cannot be listed is added to ``problems``, never raised.
    """
    base = root / "projects"
    if projects is None:
        dirs = [Path(p) for p in _subdirs(str(base), problems)]
    else:
        dirs = sorted({base / sanitise_cwd(p) for p in projects})
    for d in dirs:
        yield from _walk(str(d), problems, depth=0, seen=None)


def codex_files(root: Path, problems: list[Problem]) -> Iterator[str]:
    """Rollouts under ``sessions/`` (``YYYY/MM/DD``) and ``archived_sessions/``, every day.

    Every day directory is listed, not just recent ones: ``codex resume`` appends to the file
    in the directory of the day the session *started*, so a session resumed weeks later is new
    data in an old directory. A file's mtime and cursor say what is new, not its directory.
    """
    seen: set[tuple[int, int]] = set()
    for sub in ("sessions", "archived_sessions"):
        yield from _walk(str(root / sub), problems, depth=_MAX_DEPTH, seen=seen)


def _walk(
    path: str, problems: list[Problem], *, depth: int, seen: set[tuple[int, int]] | None
) -> Iterator[str]:
    """The ``*.jsonl`` files in ``path`` and, ``depth`` levels down, its subdirectories.

    Directories are identified by device and inode, so a link back to one already listed (a
    loop) is noted once and not followed. Paths are strings: thousands of Path objects cost
    more than the stat calls of a harvest with nothing new.
    """
    if seen is not None and not _first_visit(path, seen, problems):
        return
    for entry in _entries(path, problems):
        try:
            is_dir = entry.is_dir()
        except OSError as exc:  # a link loop or a target we may not see
            is_dir = False
            if not entry.name.endswith(".jsonl"):
                problems.append((printable(entry.path), _why(exc)))
        if is_dir:
            if depth > 0:
                yield from _walk(entry.path, problems, depth=depth - 1, seen=seen)
        elif entry.name.endswith(".jsonl"):
            if _utf8(entry.path):
                yield entry.path  # a file that cannot be opened is reported by the harvester
            else:
                problems.append((printable(entry.path), "the file name is not UTF-8"))


def _first_visit(path: str, seen: set[tuple[int, int]], problems: list[Problem]) -> bool:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return False
    except OSError as exc:
        problems.append((printable(path), _why(exc)))
        return False
    key = (st.st_dev, st.st_ino)
    if key in seen:
        problems.append((printable(path), "a link back to a directory already listed (a loop)"))
        return False
    seen.add(key)
    return True


def _entries(path: str, problems: list[Problem]) -> list[os.DirEntry[str]]:
    """A directory's entries sorted by name ([] if it is not there; an unreadable directory is
    a problem). scandir, because a harvest with nothing new costs little more than listing."""
    try:
        with os.scandir(path) as it:
            return sorted(it, key=lambda e: e.name)
    except FileNotFoundError:
        return []
    except OSError as exc:
        problems.append((printable(path), _why(exc)))
        return []


def _subdirs(path: str, problems: list[Problem]) -> list[str]:
    out = []
    for entry in _entries(path, problems):
        try:
            if entry.is_dir():
                out.append(entry.path)
        except OSError as exc:
            problems.append((printable(entry.path), _why(exc)))
    return out


def _utf8(path: str) -> bool:
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:  # undecodable bytes in the name (surrogate-escaped by Python)
        return False
    return True


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def printable(path: str | Path) -> str:
    """A path as text that any terminal and UTF-8 store accept: undecodable bytes and control
    characters (a terminal escape in a file name) are written as escapes."""
    text = os.fspath(path)
    try:
        text = os.fsencode(text).decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a lone surrogate that is no escaped byte
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def _why(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


_DURATION = re.compile(r"^(\d+(?:\.\d+)?)\s*(m|min|h|d|w)$", re.IGNORECASE)
_UNITS = {"m": 60, "min": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def parse_since(value: str, now: datetime, local_zone: timezone | None = None) -> datetime:
    """``--since``: a date (midnight, local time), a date-time (local unless it has an offset),
    or a duration back from now (``90m``, ``2h``, ``3d``, ``1w``). Returns aware UTC, never
    earlier than :data:`EARLIEST` (a longer look back means "everything")."""
    text = value.strip()
    match = _DURATION.match(text)
    if match:
        return _back(now, float(match.group(1)) * _UNITS[match.group(2).lower()])
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(
            f"--since {value!r} is not a date, a date-time or a duration",
            hint="use e.g. 2026-11-01, 2026-11-01T09:00, 36h or 3d",
        ) from None
    try:
        if parsed.tzinfo is None:
            parsed = parsed.astimezone(local_zone) if local_zone else parsed.astimezone()
        parsed = parsed.astimezone(timezone.utc)
    except (OverflowError, OSError, ValueError):  # year 1 or 9999 moved out of range by a zone
        return EARLIEST if parsed.year < EARLIEST.year else now
    return max(parsed, EARLIEST)


def since_lookback(days: float, now: datetime) -> datetime:
    if not math.isfinite(days) or days <= 0:
        raise UsageError(
            f"--lookback {days:g} must be a positive number of days", hint="e.g. --lookback 7"
        )
    return _back(now, days * 86400)


def _back(now: datetime, seconds: float) -> datetime:
    """``now`` minus ``seconds``, no earlier than :data:`EARLIEST`."""
    if seconds >= (now - EARLIEST).total_seconds():
        return EARLIEST
    return now - timedelta(seconds=seconds)


def mtime(stat: os.stat_result) -> datetime:
    """A file's modification time as aware UTC (a time out of range reads as :data:`EARLIEST`)."""
    try:
        return datetime.fromtimestamp(stat.st_mtime, tz=timezone.utc)
    except (OverflowError, OSError, ValueError):
        return EARLIEST
