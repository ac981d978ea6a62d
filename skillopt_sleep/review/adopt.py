"""Adopt a staged proposal into the live files, and roll an adoption back, byte for byte.

Each candidate was built from the text the night read when it started (``base/<name>``, hashed
in ``ProposalFile.base_sha256``). A live file changed since then only outside the managed block
gets the candidate's block carried onto its current text, and adoption says so; one changed
inside the block, or deleted, is refused before anything is written (:mod:`rebase`). A save the
user makes while adoption runs is never replaced: every live write is a compare-and-swap
(:mod:`swap`) and a refused one puts back what was written. The project lock
(:func:`~skillopt_sleep.lock.project_lock`) orders adopt, rollback and a night's reading and
staging of one project. It copies every live file into
``<backups_dir>/<night_id>/`` with a ``backup.json`` manifest, writes the intent journal, then
replaces each file atomically; if one write fails, the files already written are put back. A
crash anywhere, or a failed undo, is repaired by the next command (:func:`backup.recover`).
Rollback restores the backed-up bytes (and mode), and removes a file that did not exist before.
A symbolic link stays a link: its target is what changes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..clock import Clock
from ..errors import LockedError, ProposalError, StoreError
from ..lock import project_lock
from ..models import ProposalFile
from ..paths import Paths
from ..settings import FilesSettings
from ..store import NightRow, Store
from . import ledger
from .backup import (
    NEW_FILE_MODE,
    BackedUpFile,
    BackupManifest,
    adoption_lock,
    back_up,
    backup_dir,
    file_sha256,
    load_manifest,
    read_live,
    real_path,
    recover,
    recover_locked,
    restore,
    restore_if,
    unfinished,
)
from .edit_choice import load_decisions, numbered, save_decisions
from .fileops import FileOps, keep
from .journal import Journal, clear_journal, write_journal
from .pages import refresh_page
from .proposals import Staged, load_staged
from .rebase import drift, sha
from .recompose import Subset
from .swap import swap

__all__ = [
    "FileChange",
    "Outcome",
    "adopt",
    "auto_adopt",
    "backup_dir",
    "live_sha256",
    "load_manifest",
    "recover",
    "rollback",
]


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
    notes: list[str] = field(default_factory=list)  # one line each: a change kept, a save left


def live_sha256(path: Path) -> str | None:
    """Hash of a live file (through links), None if it does not exist."""
    return file_sha256(path)


def _current(store: Store, paths: Paths, row: NightRow, clock: Clock, ops: FileOps) -> NightRow:
    """``row`` as it is after any interrupted adoption was repaired (the lock is held)."""
    if recover_locked(store, paths, clock, ops, row.project) is None:
        return row
    fresh = store.night(row.id)
    return fresh if fresh is not None else row


def locks_dir(paths: Paths) -> Path:
    """Where the project locks live (next to the night lock)."""
    return paths.lock_file.parent


def adopt(
    store: Store,
    paths: Paths,
    row: NightRow,
    clock: Clock,
    *,
    ops: FileOps | None = None,
    subset: Subset | None = None,
) -> Outcome:
    """Write a staged night's candidates into the live files (see the module docstring); with
    ``subset``, only the files of some of its edits (:mod:`.recompose`), under the same guards.

    ``ops`` performs every file operation (a seam for tests of crashes and full disks).
    """
    with project_lock(locks_dir(paths), row.project), adoption_lock(paths):
        outcome = _adopt(store, paths, row, clock, ops or FileOps(), subset)
        ledger.record_adoption(store, row, clock.now(), subset)
        if (note := refresh_page(store, row.id, subset=subset)) is not None:
            outcome.notes.append(note)
        return outcome


@dataclass(frozen=True)
class _Plan:
    """One live file's write: what it held when read, and what adoption puts there."""

    file: ProposalFile
    before: bytes | None
    data: bytes


def _adopt(
    store: Store, paths: Paths, row: NightRow, clock: Clock, ops: FileOps, subset: Subset | None
) -> Outcome:
    row = _current(store, paths, row, clock, ops)
    if row.state != "staged":
        raise ProposalError(f"cannot adopt night {row.id}: it is {row.state}")
    plans, notes = _plans(load_staged(row), subset)
    backups = backup_dir(paths, row.id)
    manifest = BackupManifest(
        night_id=row.id,
        project=row.project,
        adopted_at=clock.now(),
        files=[
            back_up(ops, backups, p.file.name, Path(p.file.live_path), p.data, p.before)
            for p in plans
        ],
    )
    keep(ops, backups / "backup.json", manifest.model_dump_json(indent=2).encode("utf-8"))
    journal = Journal(op="adopt", night_id=row.id, project=row.project, started_at=clock.now())
    write_journal(ops, paths, journal)
    written: list[BackedUpFile] = []
    try:
        refused = _write_all(ops, backups, manifest.files, plans, written)
    except StoreError as exc:
        _undo(ops, paths, backups, written, journal, exc)
        raise
    except KeyboardInterrupt:  # Ctrl-C: put everything back now rather than at the next command
        _undo(ops, paths, backups, written, journal, StoreError("interrupted"))
        raise
    if refused is not None:
        for entry in reversed(written):  # each a compare-and-swap too: a save there stays
            restore_if(ops, backups, entry, entry.adopted_sha256)
        clear_journal(ops, paths, row.project)
        raise ProposalError(
            f"{refused}; your save is kept and nothing of night {row.id} was adopted",
            hint="run `skillopt-sleep adopt` again",
        )
    store.set_night_state(row.id, "adopted")
    decisions = load_decisions(store, row.id)  # saved before the journal goes: see recover()
    decisions.adopted = subset.numbers if subset else [n for n, _ in numbered(row)]
    decisions.reworded = subset.reworded if subset else {}
    save_decisions(store, decisions)
    clear_journal(ops, paths, row.project)
    changes = [
        FileChange(e.name, e.live_path, "updated" if e.existed else "created")
        for e in manifest.files
    ]
    return Outcome(row.id, row.project, "adopted", changes, str(backups), notes)


def _write_all(
    ops: FileOps,
    backups: Path,
    entries: list[BackedUpFile],
    plans: list[_Plan],
    written: list[BackedUpFile],
) -> str | None:
    """Write every plan (each a compare-and-swap); stops at the first file the user saved
    meanwhile and says which. ``written`` collects the files to put back on failure."""
    for entry, plan in zip(entries, plans, strict=True):
        written.append(entry)
        for d in entry.created_dirs:
            ops.mkdir(Path(d))
        why = swap(
            ops,
            entry.target,
            plan.data,
            entry.mode if entry.existed else NEW_FILE_MODE,
            entry.sha256,
            backups / "replaced",
        )
        if why is not None:
            written.pop()
            return f"{entry.live_path} {why}"
    return None


def _undo(
    ops: FileOps,
    paths: Paths,
    backups: Path,
    written: list[BackedUpFile],
    journal: Journal,
    cause: StoreError,
) -> None:
    """Put back what a failed adoption wrote; if that fails too, the journal stays for later."""
    try:
        for entry in reversed(written):
            restore(ops, backups, entry)
        clear_journal(ops, paths, journal.project)
    except StoreError as again:
        error = unfinished(journal, again)
        raise StoreError(
            f"{cause.message}; putting the files back failed too: {error.message}", hint=error.hint
        ) from again


def _plans(staged: Staged, subset: Subset | None) -> tuple[list[_Plan], list[str]]:
    """What to write to each live file, against what it holds now; refused (nothing written)
    when a file changed where the night's rules go. A file ``subset`` leaves as it was is left.

    Two names for one file (``CLAUDE.md`` a link to ``AGENTS.md``) are written once; their
    candidates must agree.
    """
    out: list[_Plan] = []
    notes: list[str] = []
    seen: dict[Path, bytes] = {}
    for f in staged.proposal.files:
        if subset is not None and f.name not in subset.candidates:
            continue
        candidate = subset.candidates[f.name] if subset else staged.read(f.candidate)
        before = read_live(Path(f.live_path))
        state = drift(staged.base(f.name), f.base_sha256, candidate, before)
        if state.state == "refused":
            raise ProposalError(
                f"{f.live_path} {state.why} since night {staged.night_id} read it; nothing was written",
                hint="run the night again to stage a fresh proposal, or `skillopt-sleep reject` this one",
            )
        if state.state == "rebased":
            notes.append(
                f"{f.live_path} changed outside the skillopt-sleep block since night "
                f"{staged.night_id} read it: your change is kept and the rules were added to it"
            )
        data = state.data or b""
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
        out.append(_Plan(f, before, data))
    return out, notes


def rollback(
    store: Store,
    paths: Paths,
    row: NightRow,
    clock: Clock,
    *,
    force: bool = False,
    ops: FileOps | None = None,
    files: FilesSettings | None = None,
) -> Outcome:
    """Put the live files back exactly as they were before ``row``'s adoption.

    Refuses when a later adoption of the same project is still in place (roll that back first),
    or when a file changed after the adoption (the user's later edits would be lost) unless
    ``force``, which first keeps the current bytes next to the backup. ``files`` (the project's
    settings) recompose the edits a partial adoption wrote, for the night's page.
    """
    with project_lock(locks_dir(paths), row.project), adoption_lock(paths):
        outcome = _rollback(store, paths, row, clock, force, ops or FileOps())
        ledger.record_rollback(store, row, clock.now())
        if (note := refresh_page(store, row.id, files)) is not None:
            outcome.notes.append(note)
        return outcome


def _rollback(
    store: Store, paths: Paths, row: NightRow, clock: Clock, force: bool, ops: FileOps
) -> Outcome:
    row = _current(store, paths, row, clock, ops)
    if row.state != "adopted":
        raise ProposalError(f"cannot roll back night {row.id}: it is {row.state}, not adopted")
    later = [
        n
        for n in store.nights(project=row.project, limit=100_000)
        if n.state == "adopted" and (n.started_at, n.id) > (row.started_at, row.id)
    ]
    if later:
        raise ProposalError(
            f"night {later[-1].id} was adopted after night {row.id}",
            hint=f"roll it back first: `skillopt-sleep rollback {later[-1].id}`",
        )
    manifest = load_manifest(paths, row.id)
    backups = backup_dir(paths, row.id)
    live: list[bytes | None] = []
    for entry in manifest.files:
        current = read_live(entry.target)
        if sha(current) != entry.adopted_sha256:
            if not force:
                raise ProposalError(
                    f"{entry.live_path} changed since night {row.id} was adopted; nothing was restored",
                    hint="rerun with --force to restore anyway (the current file is kept in the backup)",
                )
            if current is not None:
                keep(ops, backups / "replaced" / entry.name, current)
        live.append(current)
    journal = Journal(op="rollback", night_id=row.id, project=row.project, started_at=clock.now())
    write_journal(ops, paths, journal)
    try:
        saved = _restore_all(ops, backups, manifest.files, live)
    except StoreError as exc:
        raise unfinished(journal, exc) from exc
    if saved is not None:
        clear_journal(ops, paths, row.project)
        raise ProposalError(
            f"{saved} while night {row.id} was being rolled back: your save is kept "
            "and nothing was restored",
            hint="run `skillopt-sleep rollback` again",
        )
    store.set_night_state(row.id, "rolled_back")
    clear_journal(ops, paths, row.project)
    changes = [
        FileChange(e.name, e.live_path, "updated" if e.existed else "removed")
        for e in manifest.files
    ]
    return Outcome(row.id, row.project, "rolled_back", changes, str(backups))


def _restore_all(
    ops: FileOps, backups: Path, entries: list[BackedUpFile], live: list[bytes | None]
) -> str | None:
    """Restore every file, each a compare-and-swap against the bytes ``live`` read before.

    At the first file the user saved meanwhile, the files already restored get their ``live``
    bytes back (again a compare-and-swap, so a save there stays too) and that file is named."""
    done: list[tuple[BackedUpFile, bytes | None]] = []
    for entry, before in zip(entries, live, strict=True):
        why = restore_if(ops, backups, entry, sha(before))
        if why is not None:
            for prev, prev_before in reversed(done):
                mode = prev.mode if prev.existed else NEW_FILE_MODE
                swap(ops, prev.target, prev_before, mode, prev.sha256, backups / "replaced")
            return f"{entry.live_path} {why}"
        done.append((entry, before))
    return None


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
        store.add_notice(
            "auto-adopt", f"night {night_id} was not auto-adopted: {exc.one_line()}", clock.now()
        )
        return None
    names = ", ".join(c.name for c in outcome.files)
    kept = "".join(f"; {note}" for note in outcome.notes)
    store.add_notice(
        "auto-adopt",
        f"night {night_id} was auto-adopted ({names}){kept}; undo with "
        f"`skillopt-sleep rollback {night_id}`",
        clock.now(),
    )
    return outcome
