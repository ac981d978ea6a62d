"""Backups of live files, and the intent journal that makes adopt and rollback crash-consistent.

Before an adoption writes anything live, every file it will change is copied into
``<backups_dir>/<night_id>/files/`` and described in ``backup.json`` (the state *before*). Then
an intent journal (:mod:`.journal`, one per project) says "adopt night N" or "roll back night N";
it is fsynced before the first live rename and removed, durably, after the night's new state
is recorded. A journal found on disk is an operation that did not finish (a kill, a power cut,
a full disk during an undo). Every command that reads or changes nights first calls
:func:`recover`, which puts every file of that night back to its state before the adoption:
an interrupted adoption is undone (the night stays staged), an interrupted rollback is
finished. Either way the project ends exactly as it was before the adoption, byte for byte.

A live path that is a symbolic link (``CLAUDE.md -> AGENTS.md``) is never replaced: its target
is written, so the link stays a link; ``real_path`` is that target.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from ..clock import Clock
from ..errors import LockedError, ProposalError, StoreError
from ..lock import try_lock
from ..paths import Paths
from ..store import Store
from .fileops import FileOps, keep, temp_path
from .journal import Journal, clear_journal, journals
from .swap import put_back, swap

NEW_FILE_MODE = 0o644


class BackedUpFile(BaseModel):
    """One live file as it was before an adoption."""

    model_config = ConfigDict(extra="forbid")

    name: str
    live_path: str
    real_path: str | None = None  # the file written: the link's target when live_path is a link
    existed: bool
    mode: int | None = None
    sha256: str | None = None  # of the bytes before adoption
    adopted_sha256: str  # of the bytes adoption wrote
    created_dirs: list[str] = []  # directories adoption had to create, outermost first

    @property
    def target(self) -> Path:
        return Path(self.real_path or self.live_path)


class BackupManifest(BaseModel):
    """``backup.json``: what ``rollback`` and recovery need to put a night's files back."""

    model_config = ConfigDict(extra="forbid")

    night_id: str
    project: str
    adopted_at: datetime
    files: list[BackedUpFile]


def backup_dir(paths: Paths, night_id: str) -> Path:
    return paths.backups_dir / night_id


def real_path(live: Path) -> Path:
    """The file a write of ``live`` must replace: ``live`` itself, or the end of its links."""
    return Path(live).resolve() if Path(live).is_symlink() else Path(live)


def read_live(live: Path) -> bytes | None:
    """A live file's bytes (through links), None if it does not exist."""
    try:
        return real_path(live).read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise ProposalError(
            f"cannot read {live}: {exc.strerror}", hint="check its permissions"
        ) from exc


def back_up(
    ops: FileOps, backups: Path, name: str, live: Path, candidate: bytes, data: bytes | None
) -> BackedUpFile:
    """Keep ``data``, the bytes adoption read from one live file, in ``backups`` and describe it."""
    target = real_path(live)
    created = []
    parent = target.parent
    while not parent.exists():
        created.append(str(parent))
        parent = parent.parent
    if data is not None:
        keep(ops, backups / "files" / name, data)
    return BackedUpFile(
        name=name,
        live_path=str(live),
        real_path=str(target),
        existed=data is not None,
        mode=target.stat().st_mode & 0o7777 if data is not None else None,
        sha256=hashlib.sha256(data).hexdigest() if data is not None else None,
        adopted_sha256=hashlib.sha256(candidate).hexdigest(),
        created_dirs=list(reversed(created)),
    )


def load_manifest(paths: Paths, night_id: str) -> BackupManifest:
    path = backup_dir(paths, night_id) / "backup.json"
    try:
        return BackupManifest.model_validate_json(path.read_bytes())
    except OSError as exc:
        raise ProposalError(
            f"no backup of night {night_id} ({path})", hint="it cannot be rolled back"
        ) from exc
    except ValidationError as exc:
        raise ProposalError(
            f"the backup manifest {path} is damaged: {exc.errors()[0]['msg']}"
        ) from exc


def file_sha256(path: Path) -> str | None:
    """Hash of a file's bytes (through links), None if it does not exist."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise ProposalError(
            f"cannot read {path}: {exc.strerror}", hint="check its permissions"
        ) from exc


def restore_if(
    ops: FileOps, backups: Path, entry: BackedUpFile, expected: str | None
) -> str | None:
    """Put one file back as it was before adoption if it still holds the bytes hashed
    ``expected`` (a compare-and-swap, :func:`swap.swap`); None when done, else why not."""
    data = None
    if entry.existed:
        try:
            data = (backups / "files" / entry.name).read_bytes()
        except OSError as exc:
            raise ProposalError(f"the backup of {entry.live_path} is missing ({backups})") from exc
        make_parents(ops, entry.target)
    why = swap(ops, entry.target, data, entry.mode, expected, backups / "replaced")
    if why is None and not entry.existed:
        for d in reversed(entry.created_dirs):
            if not ops.rmdir(Path(d)):
                break
    return why


def make_parents(ops: FileOps, target: Path) -> None:
    """Create the folders ``target`` had that were removed since (outermost first), so a file
    can be put back where it was."""
    missing = []
    parent = target.parent
    while not parent.exists() and parent != parent.parent:
        missing.append(parent)
        parent = parent.parent
    for folder in reversed(missing):
        ops.mkdir(folder)


def settle(ops: FileOps, backups: Path, entry: BackedUpFile) -> None:
    """Clear what a crash mid-write left next to one file: its temporary and its aside file."""
    ops.unlink(temp_path(entry.target))
    put_back(ops, entry.target, backups / "replaced", known=(entry.sha256, entry.adopted_sha256))


def restore(ops: FileOps, backups: Path, entry: BackedUpFile) -> str:
    """Put one file back as it was before adoption (idempotent); returns what was done."""
    target = entry.target
    settle(ops, backups, entry)  # a write a crash cut short
    if entry.existed:
        if file_sha256(target) != entry.sha256 or _mode(target) != entry.mode:
            try:
                data = (backups / "files" / entry.name).read_bytes()
            except OSError as exc:
                raise ProposalError(
                    f"the backup of {entry.live_path} is missing ({backups})"
                ) from exc
            make_parents(ops, target)
            ops.write(target, data, entry.mode)
        return "updated"
    ops.unlink(target)
    for d in reversed(entry.created_dirs):
        if not ops.rmdir(Path(d)):  # only if empty: anything the user put there stays
            break
    return "removed"


def _mode(path: Path) -> int | None:
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        return None


@contextmanager
def adoption_lock(paths: Paths) -> Iterator[None]:
    """Held by an adopt or rollback under way: another process's recovery leaves it alone."""
    with try_lock(paths.backups_dir / "adopt.lock") as taken:
        if not taken:
            raise LockedError(
                "another adopt or rollback is under way",
                hint="wait a moment and run the command again",
            )
        yield


def recover(
    store: Store,
    paths: Paths,
    clock: Clock,
    ops: FileOps | None = None,
    *,
    project: str | None = None,
) -> str | None:
    """Undo an interrupted adoption or finish an interrupted rollback (only ``project``'s when
    given, else every project's); what was done, or None.

    The live files end as they were before the adoption; a file changed since (it is neither
    the before nor the adopted bytes) is first kept in the backup under ``replaced/``. The
    message is also left as a notice for ``status``. One that cannot finish (a full disk, a file
    where a folder was) keeps its journal for the next command and raises :class:`StoreError`
    naming the night, the project and what to do, once every other project was repaired. An
    adopt or rollback that another live process is running is not interrupted: it is left alone.
    """
    if not journals(paths, project):
        return None
    with try_lock(paths.backups_dir / "adopt.lock") as taken:
        return recover_locked(store, paths, clock, ops or FileOps(), project) if taken else None


def recover_locked(
    store: Store, paths: Paths, clock: Clock, ops: FileOps, project: str | None = None
) -> str | None:
    """:func:`recover`, for a caller that holds :func:`adoption_lock`."""
    done: list[str] = []
    failed: list[StoreError] = []
    for journal in journals(paths, project):
        try:
            done.append(_repair(store, paths, clock, ops, journal))
        except StoreError as exc:
            failed.append(unfinished(journal, exc))
    if failed:
        raise failed[0]
    return "; ".join(done) or None


def unfinished(journal: Journal, exc: StoreError) -> StoreError:
    """The error of an adoption or rollback that cannot finish yet: which, where, why, and what
    to do (free some space only when the disk is full)."""
    what = "adoption" if journal.op == "adopt" else "rollback"
    fix = exc.hint or "fix that"
    return StoreError(
        f"the {what} of night {journal.night_id} in {journal.project} is unfinished: {exc.message}",
        hint=f"{fix}; the next skillopt-sleep command then finishes it",
    )


def _repair(store: Store, paths: Paths, clock: Clock, ops: FileOps, journal: Journal) -> str:
    """Put every file of ``journal``'s night back as before its adoption; what was done."""
    backups = backup_dir(paths, journal.night_id)
    try:
        manifest = load_manifest(paths, journal.night_id)
    except ProposalError:
        manifest = None  # the crash came before the backup was complete: nothing live was written
    for entry in manifest.files if manifest else []:
        settle(ops, backups, entry)
        current = file_sha256(entry.target)
        if current not in (entry.sha256, entry.adopted_sha256) and current is not None:
            keep(ops, backups / "replaced" / entry.name, entry.target.read_bytes())
        restore(ops, backups, entry)
    row = store.night(journal.night_id)
    if journal.op == "adopt":
        if row is not None and row.state == "adopted":
            store.set_night_state(row.id, "staged")
        message = (
            f"an interrupted adoption of night {journal.night_id} was undone: the files are as "
            f"before it; adopt it again with `skillopt-sleep adopt {journal.night_id}`"
        )
    else:
        if row is not None and row.state == "adopted":
            store.set_night_state(row.id, "rolled_back")
        message = f"an interrupted rollback of night {journal.night_id} was finished"
    clear_journal(ops, paths, journal.project)
    store.add_notice("recovery", message, clock.now())
    return message
