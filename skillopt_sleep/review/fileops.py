"""The file operations of adopt and rollback, one primitive each, durable, behind one seam.

Every change adopt or rollback makes to the disk is one call here: write a temporary file next
to its target (written and fsynced), rename it over the target, overwrite a hard-linked file in
place, remove a file, make or remove a directory; each one fsyncs the directory it changed, so
what is done survives a power cut. Tests
pass a subclass that crashes or fills the disk at any chosen call. An ``OSError`` becomes a
one-line :class:`StoreError`.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import StoreError
from ..store.files import write_error

TEMP_SUFFIX = ".skillopt-sleep.tmp"
ASIDE_SUFFIX = ".skillopt-sleep.aside"


def _hard_links(path: Path) -> int:
    try:
        return os.stat(path).st_nlink
    except OSError:
        return 0


def temp_path(path: Path) -> Path:
    """The temporary file a write of ``path`` goes through: known in advance, so a crash's
    leftover is found and removed by the next command."""
    return path.with_name(f".{path.name}{TEMP_SUFFIX}")


def aside_path(path: Path) -> Path:
    """Where a compare-and-swap moves a live file while it checks what it holds (known in
    advance, so a crash's leftover is put back by the next command)."""
    return path.with_name(f".{path.name}{ASIDE_SUFFIX}")


class FileOps:
    """Durable file primitives (POSIX semantics; on Windows the directory fsync is skipped)."""

    def write_temp(self, path: Path, data: bytes, mode: int | None) -> Path:
        """Write ``data`` to ``path``'s temporary file, fsynced; returns the temporary path.

        ``mode`` None keeps the mode of the file it will replace (0o644 for a new one).
        """
        tmp = temp_path(path)
        try:
            if mode is None:
                mode = path.stat().st_mode & 0o7777 if path.exists() else 0o644
            flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0)
            fd = os.open(tmp, flags, 0o600)
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(tmp, mode)
        except OSError as exc:
            self._discard(tmp)
            raise write_error(exc, path) from exc
        return tmp

    def replace(self, tmp: Path, path: Path) -> None:
        """Rename ``tmp`` over ``path`` (atomic), then make the rename durable."""
        try:
            os.replace(tmp, path)
        except OSError as exc:
            raise write_error(exc, path) from exc
        self.sync_dir(path.parent)

    def set_aside(self, path: Path) -> bool:
        """Rename ``path`` to its :func:`aside_path` (atomic); False when ``path`` does not exist.

        From this moment a save of ``path`` by anyone else creates a new file; what was saved
        until now is in the aside file, to be checked before anything replaces it."""
        try:
            os.replace(path, aside_path(path))
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise write_error(exc, path) from exc
        self.sync_dir(path.parent)
        return True

    def place(self, src: Path, path: Path) -> bool:
        """Move ``src`` to ``path`` only if ``path`` does not exist (no clobber); False if it does.

        A hard link then an unlink, so a file saved at ``path`` meanwhile is never replaced."""
        try:
            os.link(src, path)
        except FileExistsError:
            return False
        except OSError as exc:
            if path.exists() or not src.exists():
                raise write_error(exc, path) from exc
            os.replace(src, path)  # a file system without hard links: the rename is the best left
            self.sync_dir(path.parent)
            return True
        try:
            os.unlink(src)
        except OSError as exc:
            raise StoreError(
                f"cannot remove {src}: {exc.strerror}", hint="check the permissions"
            ) from exc
        self.sync_dir(path.parent)
        return True

    def unlink(self, path: Path) -> None:
        """Remove ``path`` if it exists."""
        try:
            path.unlink()
        except FileNotFoundError:
            return
        except OSError as exc:
            raise StoreError(
                f"cannot remove {path}: {exc.strerror}", hint="check the permissions"
            ) from exc
        self.sync_dir(path.parent)

    def mkdir(self, path: Path) -> None:
        try:
            path.mkdir(exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"cannot create {path}: {exc.strerror}", hint="check the permissions"
            ) from exc
        self.sync_dir(path.parent)

    def rmdir(self, path: Path) -> bool:
        """Remove ``path`` if it is an empty directory; False if anything is in it."""
        try:
            path.rmdir()
        except FileNotFoundError:
            return True
        except OSError:
            return False
        self.sync_dir(path.parent)
        return True

    def sync_dir(self, path: Path) -> None:
        if os.name == "nt":
            return
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            return
        try:
            os.fsync(fd)
        except OSError:
            pass  # some file systems cannot fsync a directory; the rename is still atomic
        finally:
            os.close(fd)

    def overwrite(self, path: Path, data: bytes, mode: int | None) -> None:
        """Write ``data`` into the existing file ``path`` itself (same inode), fsynced."""
        try:
            with open(path, "r+b") as fh:
                fh.write(data)
                fh.truncate()
                fh.flush()
                os.fsync(fh.fileno())
            if mode is not None:
                os.chmod(path, mode)
        except OSError as exc:
            raise write_error(exc, path) from exc

    def write(self, path: Path, data: bytes, mode: int | None = None) -> None:
        """Durable write: a temporary file renamed over ``path`` (atomic); but a file with
        several hard links is overwritten in place, so that every name keeps seeing it (a crash
        mid-way is repaired from the backup by the journal's recovery)."""
        if _hard_links(path) > 1:
            self.overwrite(path, data, mode)
        else:
            self.replace(self.write_temp(path, data, mode), path)

    @staticmethod
    def _discard(tmp: Path) -> None:
        try:
            tmp.unlink()
        except OSError:
            pass


def keep(ops: FileOps, path: Path, data: bytes) -> None:
    """Write a file of the backup (or the journal), creating its directory if needed."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(
            f"cannot create {path.parent}: {exc.strerror}", hint="check the permissions"
        ) from exc
    ops.write(path, data)
