"""The store's rows as the rest of the program reads them: a harvest cursor, a notice, a night."""

from __future__ import annotations

from dataclasses import dataclass

from ..models import NightSummary


@dataclass(frozen=True)
class Cursor:
    """How far a transcript file has been read. ``state`` is the harvester's own (JSON) state."""

    path: str
    source: str
    inode: int
    size: int
    mtime_ns: int
    offset: int
    state: str = "{}"


@dataclass(frozen=True)
class Notice:
    """A failure the user must see (a failed scheduled night, a hook error)."""

    id: int
    created_at: str
    kind: str
    message: str
    seen: bool


@dataclass(frozen=True)
class NightRow:
    """One night of the history."""

    id: str
    project: str
    started_at: str
    decision: str
    state: str
    proposal_dir: str | None
    summary: NightSummary
