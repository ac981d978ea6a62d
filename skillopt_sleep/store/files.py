"""Atomic, durable file writes. A full disk or a read-only dir becomes a one-line StoreError."""

from __future__ import annotations

import errno
import hashlib
import os
import tempfile
from pathlib import Path

from ..errors import StoreError
from ..paths import refused


def write_error(exc: OSError, path: Path) -> StoreError:
    """The one-line error for a failed write of ``path``."""
    if exc.errno == errno.ENOSPC:
        return StoreError(f"disk full while writing {path}", hint="free some space and run again")
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        # a read-only disk or an agent's sandbox: the CLI names which
        return refused(f"cannot write {path}: {exc.strerror or 'permission denied'}", path.parent)
    return StoreError(f"cannot write {path}: {exc.strerror or exc}")


def atomic_write_bytes(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """Write ``data`` to ``path`` so that readers see the old or the new file, never a mix."""
    path = Path(path)
    tmp_name: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp_name, mode)
        elif path.exists():
            os.chmod(tmp_name, path.stat().st_mode & 0o7777)
        os.replace(tmp_name, path)
        tmp_name = None
    except OSError as exc:
        raise write_error(exc, path) from exc
    finally:
        if tmp_name is not None:
            try:
                os.unlink(tmp_name)
            except OSError:
                pass


def atomic_write_text(path: Path, text: str, *, mode: int | None = None) -> None:
    """Text variant of :func:`atomic_write_bytes` (UTF-8, newlines kept as given)."""
    atomic_write_bytes(path, text.encode("utf-8"), mode=mode)


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sha256_file(path: Path) -> str | None:
    """Hash of a file's bytes, or None if it does not exist."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except FileNotFoundError:
        return None
