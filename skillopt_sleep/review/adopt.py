"""Adopt a staged proposal into the live files, and roll an adoption back, byte for byte.

Adoption refuses, before writing anything, when a live file changed since the night was staged
(its hash differs from ``ProposalFile.base_sha256``). It copies every live file into
``<backups_dir>/<night_id>/`` with a ``backup.json`` manifest, writes the intent journal, then
replaces each file atomically; if one write fails, the files already written are put back. A
crash anywhere, or a failed undo, is repaired by the next command (:func:`backup.recover`).
Rollback restores the backed-up bytes (and mode), and removes a file that did not exist before.
A symbolic link stays a link: its target is what changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..clock import Clock
from ..errors import LockedError, ProposalError, StoreError
from ..models import ProposalFile
from ..paths import Paths
from ..store import NightRow, Store
from .backup import (
    NEW_FILE_MODE,
    BackedUpFile,
    BackupManifest,
    Journal,
    adoption_lock,
    back_up,
    backup_dir,
    clear_journal,
    file_sha256,
    keep,
    load_manifest,
    real_path,
    recover,
    recover_locked,
    restore,
    write_journal,
)
from . import ledger
from .fileops import FileOps
from .proposals import Staged, load_staged

__all__ = ["FileChange", "Outcome", "adopt", "auto_adopt", "backup_dir", "live_sha256", "load_manifest",
           "recover", "rollback"]


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


def live_sha256(path: Path) -> str | None:
    """Hash of a live file (through links), None if it does not exist."""
    return file_sha256(path)


def _current(store: Store, paths: Paths, row: NightRow, clock: Clock, ops: FileOps) -> NightRow:
    """``row`` as it is after any interrupted adoption was repaired (the lock is held)."""
    if recover_locked(store, paths, clock, ops) is None:
        return row
    fresh = store.night(row.id)
    return fresh if fresh is not None else row


def adopt(store: Store, paths: Paths, row: NightRow, clock: Clock, *, ops: FileOps | None = None) -> Outcome:
    """Write a staged night's candidates into the live files (see the module docstring).

    ``ops`` performs every file operation (a seam for tests of crashes and full disks).
    """
    with adoption_lock(paths):
        outcome = _adopt(store, paths, row, clock, ops or FileOps())
        ledger.record_adoption(store, row, clock.now())
        return outcome


def _adopt(store: Store, paths: Paths, row: NightRow, clock: Clock, ops: FileOps) -> Outcome:
    row = _current(store, paths, row, clock, ops)
    if row.state != "staged":
        raise ProposalError(f"cannot adopt night {row.id}: it is {row.state}")
    candidates = _checked_candidates(load_staged(row))
    backups = backup_dir(paths, row.id)
    manifest = BackupManifest(night_id=row.id, project=row.project, adopted_at=clock.now(), files=[
        back_up(ops, backups, f.name, Path(f.live_path), data) for f, data in candidates
    ])
    keep(ops, backups / "backup.json", manifest.model_dump_json(indent=2).encode("utf-8"))
    write_journal(ops, paths, Journal(op="adopt", night_id=row.id, project=row.project,
                                      started_at=clock.now()))
    written: list[BackedUpFile] = []
    try:
        for entry, (_, data) in zip(manifest.files, candidates):
            written.append(entry)
            for d in entry.created_dirs:
                ops.mkdir(Path(d))
            ops.write(entry.target, data, entry.mode if entry.existed else NEW_FILE_MODE)
    except StoreError as exc:
        _undo(ops, paths, backups, written, exc.message)
        raise
    except KeyboardInterrupt:  # Ctrl-C: put everything back now rather than at the next command
        _undo(ops, paths, backups, written, "interrupted")
        raise
    store.set_night_state(row.id, "adopted")
    clear_journal(ops, paths)
    changes = [FileChange(e.name, e.live_path, "updated" if e.existed else "created") for e in manifest.files]
    return Outcome(row.id, row.project, "adopted", changes, str(backups))


def _undo(ops: FileOps, paths: Paths, backups: Path, written: list[BackedUpFile], cause: str) -> None:
    """Put back what a failed adoption wrote; if that fails too, the journal stays for later."""
    try:
        for entry in reversed(written):
            restore(ops, backups, entry)
        clear_journal(ops, paths)
    except StoreError as again:
        raise StoreError(
            f"{cause}; putting the files back failed too ({again.message})",
            hint="free some space: the next skillopt-sleep command puts every file back as it was",
        ) from again


def _checked_candidates(staged: Staged) -> list[tuple[ProposalFile, bytes]]:
    """Every candidate's bytes, after checking no live file changed since staging.

    Two names for one file (``CLAUDE.md`` a link to ``AGENTS.md``) are written once; their
    candidates must agree.
    """
    out: list[tuple[ProposalFile, bytes]] = []
    seen: dict[Path, bytes] = {}
    for f in staged.proposal.files:
        current = live_sha256(Path(f.live_path))
        if current != f.base_sha256:
            change = "was created" if f.base_sha256 is None else (
                "was deleted" if current is None else "changed")
            raise ProposalError(
                f"{f.live_path} {change} since night {staged.night_id} was staged; nothing was written",
                hint="run the night again to stage a fresh proposal, or `skillopt-sleep reject` this one",
            )
        data = staged.read(f.candidate)
        target = real_path(Path(f.live_path))
        if target in seen:
            if seen[target] != data:
                raise ProposalError(
                    f"{f.live_path} is the same file as another file of night {staged.night_id}, "
                    "with a different candidate; nothing was written",
                    hint="run the night again to stage a fresh proposal",
                )
            continue
        seen[target] = data
        out.append((f, data))
    return out


def rollback(store: Store, paths: Paths, row: NightRow, clock: Clock, *, force: bool = False,
             ops: FileOps | None = None) -> Outcome:
    """Put the live files back exactly as they were before ``row``'s adoption.

    Refuses when a later adoption of the same project is still in place (roll that back first),
    or when a file changed after the adoption (the user's later edits would be lost) unless
    ``force``, which first keeps the current bytes next to the backup.
    """
    with adoption_lock(paths):
        outcome = _rollback(store, paths, row, clock, force, ops or FileOps())
        ledger.record_rollback(store, row, clock.now())
        return outcome


def _rollback(store: Store, paths: Paths, row: NightRow, clock: Clock, force: bool, ops: FileOps) -> Outcome:
    row = _current(store, paths, row, clock, ops)
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
        current = live_sha256(entry.target)
        if current != entry.adopted_sha256:
            if not force:
                raise ProposalError(
                    f"{entry.live_path} changed since night {row.id} was adopted; nothing was restored",
                    hint="rerun with --force to restore anyway (the current file is kept in the backup)",
                )
            if current is not None:
                keep(ops, backups / "replaced" / entry.name, entry.target.read_bytes())
    write_journal(ops, paths, Journal(op="rollback", night_id=row.id, project=row.project,
                                      started_at=clock.now()))
    try:
        changes = [FileChange(e.name, e.live_path, restore(ops, backups, e)) for e in manifest.files]
    except StoreError as exc:
        raise StoreError(f"{exc.message}; the rollback is half done",
                         hint="free some space: the next skillopt-sleep command finishes it") from exc
    store.set_night_state(row.id, "rolled_back")
    clear_journal(ops, paths)
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
    except (ProposalError, StoreError, LockedError) as exc:
        store.add_notice("auto-adopt", f"night {night_id} was not auto-adopted: {exc.one_line()}",
                         clock.now())
        return None
    names = ", ".join(c.name for c in outcome.files)
    store.add_notice("auto-adopt", f"night {night_id} was auto-adopted ({names}); undo with "
                     f"`skillopt-sleep rollback {night_id}`", clock.now())
    return outcome
