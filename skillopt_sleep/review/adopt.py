"""Adopt a staged proposal into the live files, and roll an adoption back, byte for byte.

Adoption refuses, before writing anything, when a live file changed since the night was staged
(its hash differs from ``ProposalFile.base_sha256``). It first copies every live file into
``<backups_dir>/<night_id>/`` with a ``backup.json`` manifest, then replaces each file
atomically; if one write fails, the files already written are put back. Rollback restores the
backed-up bytes (and mode), and removes a file that did not exist before the adoption.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from ..clock import Clock
from ..errors import ProposalError, StoreError
from ..models import ProposalFile
from ..paths import Paths
from ..store import NightRow, Store, sha256_file
from ..store.files import atomic_write_bytes
from .proposals import Staged, load_staged

NEW_FILE_MODE = 0o644
Writer = Callable[..., None]


class BackedUpFile(BaseModel):
    """One live file as it was before an adoption."""

    model_config = ConfigDict(extra="forbid")

    name: str
    live_path: str
    existed: bool
    mode: int | None = None
    sha256: str | None = None  # of the bytes before adoption
    adopted_sha256: str  # of the bytes adoption wrote
    created_dirs: list[str] = []  # directories adoption had to create, deepest last


class BackupManifest(BaseModel):
    """``backup.json``: what ``rollback`` needs to put a night's files back."""

    model_config = ConfigDict(extra="forbid")

    night_id: str
    project: str
    adopted_at: datetime
    files: list[BackedUpFile]


@dataclass(frozen=True)
class FileChange:
    """What adopt or rollback did to one live file: "updated", "created" or "removed"."""

    name: str
    live_path: str
    action: str


@dataclass(frozen=True)
class Outcome:
    """The result of adopt or rollback."""

    night_id: str
    project: str
    state: str
    files: list[FileChange]
    backup_dir: str


def backup_dir(paths: Paths, night_id: str) -> Path:
    return paths.backups_dir / night_id


def adopt(
    store: Store, paths: Paths, row: NightRow, clock: Clock, *, write: Writer = atomic_write_bytes
) -> Outcome:
    """Write a staged night's candidates into the live files (see the module docstring).

    ``write`` is the atomic file writer (a seam for tests of a failing disk).
    """
    if row.state != "staged":
        raise ProposalError(f"cannot adopt night {row.id}: it is {row.state}")
    staged = load_staged(row)
    candidates = _checked_candidates(staged)
    backups = backup_dir(paths, row.id)
    manifest = BackupManifest(night_id=row.id, project=row.project, adopted_at=clock.now(), files=[
        _back_up(backups, f.name, Path(f.live_path), data) for f, data in candidates
    ])
    atomic_write_bytes(backups / "backup.json", manifest.model_dump_json(indent=2).encode("utf-8"))
    written: list[BackedUpFile] = []
    try:
        for entry, (_, data) in zip(manifest.files, candidates):
            _create_dirs(entry)
            write(Path(entry.live_path), data, mode=None if entry.existed else NEW_FILE_MODE)
            written.append(entry)
    except StoreError:
        for entry in reversed(written):
            _restore(backups, entry)
        raise
    store.set_night_state(row.id, "adopted")
    changes = [FileChange(e.name, e.live_path, "updated" if e.existed else "created") for e in manifest.files]
    return Outcome(row.id, row.project, "adopted", changes, str(backups))


def _checked_candidates(staged: Staged) -> list[tuple[ProposalFile, bytes]]:
    """Every candidate's bytes, after checking no live file changed since staging."""
    out = []
    for f in staged.proposal.files:
        current = live_sha256(Path(f.live_path))
        if current != f.base_sha256:
            change = "was created" if f.base_sha256 is None else (
                "was deleted" if current is None else "changed")
            raise ProposalError(
                f"{f.live_path} {change} since night {staged.night_id} was staged; nothing was written",
                hint="run the night again to stage a fresh proposal, or `skillopt-sleep reject` this one",
            )
        out.append((f, staged.read(f.candidate)))
    return out


def live_sha256(path: Path) -> str | None:
    """Hash of a live file, None if it does not exist; unreadable is an error, not "absent"."""
    try:
        return sha256_file(path)
    except NotADirectoryError:
        return None
    except OSError as exc:
        raise ProposalError(f"cannot read {path}: {exc.strerror}", hint="check its permissions") from exc


def _back_up(backups: Path, name: str, live: Path, candidate: bytes) -> BackedUpFile:
    created = []
    parent = live.parent
    while not parent.exists():
        created.append(str(parent))
        parent = parent.parent
    try:
        data = live.read_bytes()
    except FileNotFoundError:
        data = None
    except OSError as exc:
        raise ProposalError(f"cannot read {live}: {exc.strerror}", hint="check its permissions") from exc
    if data is not None:
        atomic_write_bytes(backups / "files" / name, data)
    return BackedUpFile(
        name=name, live_path=str(live), existed=data is not None,
        mode=live.stat().st_mode & 0o7777 if data is not None else None,
        sha256=hashlib.sha256(data).hexdigest() if data is not None else None,
        adopted_sha256=hashlib.sha256(candidate).hexdigest(),
        created_dirs=list(reversed(created)),
    )


def _create_dirs(entry: BackedUpFile) -> None:
    for d in entry.created_dirs:
        try:
            Path(d).mkdir(exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create {d}: {exc.strerror}", hint="check the permissions") from exc


def _restore(backups: Path, entry: BackedUpFile) -> str:
    """Put one file back as it was before adoption; returns what was done."""
    live = Path(entry.live_path)
    if entry.existed:
        try:
            data = (backups / "files" / entry.name).read_bytes()
        except OSError as exc:
            raise ProposalError(f"the backup of {live} is missing ({backups})") from exc
        atomic_write_bytes(live, data, mode=entry.mode)
        return "updated"
    try:
        live.unlink()
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise StoreError(f"cannot remove {live}: {exc.strerror}") from exc
    for d in reversed(entry.created_dirs):
        try:
            os.rmdir(d)  # only if empty: anything the user put there stays
        except OSError:
            break
    return "removed"


def load_manifest(paths: Paths, night_id: str) -> BackupManifest:
    path = backup_dir(paths, night_id) / "backup.json"
    try:
        return BackupManifest.model_validate_json(path.read_bytes())
    except OSError as exc:
        raise ProposalError(f"no backup of night {night_id} ({path})", hint="it cannot be rolled back") from exc
    except ValidationError as exc:
        raise ProposalError(f"the backup manifest {path} is damaged: {exc.errors()[0]['msg']}") from exc


def rollback(store: Store, paths: Paths, row: NightRow, *, force: bool = False) -> Outcome:
    """Put the live files back exactly as they were before ``row``'s adoption.

    Refuses when a later adoption of the same project is still in place (roll that back first),
    or when a file changed after the adoption (the user's later edits would be lost) unless
    ``force``, which first keeps the current bytes next to the backup.
    """
    if row.state != "adopted":
        raise ProposalError(f"cannot roll back night {row.id}: it is {row.state}, not adopted")
    later = [n for n in store.nights(project=row.project, limit=100_000)
             if n.state == "adopted" and (n.started_at, n.id) > (row.started_at, row.id)]
    if later:
        raise ProposalError(
            f"night {later[-1].id} was adopted after night {row.id}",
            hint=f"roll it back first: `skillopt-sleep rollback {later[-1].id}`",
        )
    manifest = load_manifest(paths, row.id)
    backups = backup_dir(paths, row.id)
    for entry in manifest.files:
        current = live_sha256(Path(entry.live_path))
        if current != entry.adopted_sha256:
            if not force:
                raise ProposalError(
                    f"{entry.live_path} changed since night {row.id} was adopted; nothing was restored",
                    hint="rerun with --force to restore anyway (the current file is kept in the backup)",
                )
            if current is not None:
                atomic_write_bytes(backups / "replaced" / entry.name, Path(entry.live_path).read_bytes())
    changes = [FileChange(e.name, e.live_path, _restore(backups, e)) for e in manifest.files]
    store.set_night_state(row.id, "rolled_back")
    return Outcome(row.id, row.project, "rolled_back", changes, str(backups))


def auto_adopt(store: Store, paths: Paths, night_id: str, clock: Clock) -> Outcome | None:
    """Adopt a night the pipeline just staged (``night.auto_adopt``); leave a notice either way.

    A refusal (a live file changed meanwhile) leaves the proposal staged for the morning.
    """
    row = store.night(night_id)
    if row is None or row.state != "staged":
        return None
    try:
        outcome = adopt(store, paths, row, clock)
    except ProposalError as exc:
        store.add_notice("auto-adopt", f"night {night_id} was not auto-adopted: {exc.one_line()}",
                         clock.now())
        return None
    names = ", ".join(c.name for c in outcome.files)
    store.add_notice("auto-adopt", f"night {night_id} was auto-adopted ({names}); undo with "
                     f"`skillopt-sleep rollback {night_id}`", clock.now())
    return outcome
