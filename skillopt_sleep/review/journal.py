"""The intent journals of adopt and rollback: one per project, so that an adoption or a rollback
of one project that cannot finish (a folder in the way, a full disk) never stops another.

``<backups_dir>/journals/<key>.json`` says "adopt night N" or "roll back night N" of one project
while that operation runs; one found on disk is an operation that did not finish, repaired by
:func:`backup.recover`. A journal written before journals were per project
(``<backups_dir>/journal.json``) is still read, and repaired the same way.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from ..errors import StoreError
from ..paths import Paths
from .fileops import FileOps, keep


class Journal(BaseModel):
    """A journal's content: an adopt or rollback of one project under way."""

    model_config = ConfigDict(extra="forbid")

    op: Literal["adopt", "rollback"]
    night_id: str
    project: str
    started_at: datetime


def journal_path(paths: Paths, project: str) -> Path:
    """Where the journal of ``project``'s adopt or rollback lives."""
    return paths.journal_file(project)


def _legacy(paths: Paths) -> Path:
    return paths.legacy_journal


def write_journal(ops: FileOps, paths: Paths, journal: Journal) -> None:
    keep(ops, journal_path(paths, journal.project), journal.model_dump_json(indent=2).encode())


def clear_journal(ops: FileOps, paths: Paths, project: str) -> None:
    """Remove ``project``'s journal (and an older shared one of the same project)."""
    ops.unlink(journal_path(paths, project))
    legacy = _read(_legacy(paths))
    if legacy is not None and legacy.project == project:
        ops.unlink(_legacy(paths))


def _read(path: Path) -> Journal | None:
    try:
        return Journal.model_validate_json(path.read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, ValidationError) as exc:
        raise StoreError(
            f"the adoption journal {path} is unreadable ({exc})",
            hint="check the files named in `skillopt-sleep status`, then delete the journal",
        ) from exc


def journals(paths: Paths, project: str | None = None) -> list[Journal]:
    """Every journal on disk (only ``project``'s when given): the operations not finished."""
    folder = paths.journals_dir
    files = sorted(folder.glob("*.json")) if folder.is_dir() else []
    found = [j for j in map(_read, [*files, _legacy(paths)]) if j is not None]
    return [j for j in found if project is None or j.project == project]
