"""An advisory lock file, so one process at a time moves the harvest cursors.

The OS releases the lock when its holder dies, so a crashed harvest never blocks the next one.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..paths import refused

if os.name == "nt":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined]
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)  # type: ignore[attr-defined]

else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


@contextmanager
def file_lock(path: Path, *, wait_s: float = 0.0, poll_s: float = 0.05) -> Iterator[bool]:
    """Hold ``path`` locked inside the block; yields False if it could not be had in ``wait_s``."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:  # a read-only disk or an agent's sandbox: the CLI names which
        raise refused(f"cannot open the lock file {path}: {exc.strerror}", path.parent) from exc
    try:
        deadline = time.monotonic() + wait_s
        got = _try_lock(fd)
        while not got and time.monotonic() < deadline:
            time.sleep(poll_s)
            got = _try_lock(fd)
        try:
            yield got
        finally:
            if got:
                _unlock(fd)
    finally:
        os.close(fd)
