"""Compare-and-swap of one live file: replace it only while it still holds the bytes checked.

Adopt and rollback decide from what a live file held when they read it; the user may save it a
moment later, before the write. A plain rename would then drop that save. Here the live file is
first renamed aside (atomic: from then on a save creates a new file), the aside file is checked,
and the new bytes are moved in only where no file appeared meanwhile (a hard link, no clobber).
Whatever the user saved is either left in place or put back; when two saves race for one name,
the older is kept under ``keep_dir`` and the newer stays live. Nothing the user wrote is lost.

A file with several hard links is overwritten in place (every name must keep seeing it); there
the check runs right before the write, the best a shared inode allows.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from .fileops import FileOps, aside_path

SAVED = "was saved meanwhile"
CREATED = "was created meanwhile"
DELETED = "was deleted meanwhile"


def _sha(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return None


def _links(path: Path) -> int:
    try:
        return os.stat(path).st_nlink
    except OSError:
        return 0


def swap(
    ops: FileOps,
    target: Path,
    data: bytes | None,
    mode: int | None,
    expected: str | None,
    keep_dir: Path,
) -> str | None:
    """Write ``data`` to ``target`` (remove it when ``data`` is None) if ``target`` still holds
    the bytes hashed ``expected`` (None: it must not exist). None when done; else why not (the
    user's file is left as they saved it)."""
    if expected is None:
        if data is None:
            return None if not target.exists() else CREATED
        new = ops.write_temp(target, data, mode)
        if ops.place(new, target):
            return None
        ops.unlink(new)
        return CREATED
    if _links(target) > 1:
        if _sha(target) != expected:
            return SAVED
        if data is None:
            ops.unlink(target)
        else:
            ops.overwrite(target, data, mode)
        return None
    tmp: Path | None = ops.write_temp(target, data, mode) if data is not None else None
    if not ops.set_aside(target):
        if tmp is not None:
            ops.unlink(tmp)
        return DELETED
    aside = aside_path(target)
    if _sha(aside) != expected:
        if tmp is not None:
            ops.unlink(tmp)
        put_back(ops, target, keep_dir)
        return SAVED
    if tmp is not None and not ops.place(tmp, target):  # a save landed between the two renames
        ops.unlink(tmp)
        ops.unlink(aside)  # it held ``expected``: the bytes this swap was allowed to replace
        return SAVED
    if _sha(aside) != expected:  # written through a handle opened before the rename
        if data is not None and _sha(target) == hashlib.sha256(data).hexdigest():
            ops.unlink(target)
        put_back(ops, target, keep_dir)
        return SAVED
    ops.unlink(aside)
    return None


def put_back(
    ops: FileOps, target: Path, keep_dir: Path, known: tuple[str | None, ...] = ()
) -> None:
    """Return ``target``'s aside file (a swap cut short, or refused) to its place.

    If a file was saved at ``target`` meanwhile, that newer save stays and the aside bytes are
    kept in ``keep_dir`` unless they are one of the ``known`` hashes (bytes a backup holds).
    """
    aside = aside_path(target)
    if not aside.exists():
        return
    if ops.place(aside, target):
        return
    if _sha(aside) not in known:
        keep_dir.mkdir(parents=True, exist_ok=True)
        ops.write(keep_dir / target.name, aside.read_bytes())
    ops.unlink(aside)
