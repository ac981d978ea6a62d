"""The night lock: two nights never overlap.

The lock is an OS file lock (``flock`` on POSIX, ``msvcrt.locking`` on Windows) on
``paths.lock_file``. The kernel drops it when the holder dies, however it dies, so a stale lock
from a dead process is recovered by construction; the file's text only says who holds it, for
the error message.

A holder may share the lock with its direct children (``share_with_children=True``): the
scheduled job holds the lock for the whole night and starts ``skillopt-sleep run`` for each
project, whose own ``night_lock`` then sees its parent holds it and goes ahead.

    with night_lock(paths.lock_file, clock=ctx.clock):
        ...  # one night

What records a pid instead of holding an OS lock (a running night's heartbeat, the schedule's
built-in loop, a backend's private home left behind) asks :func:`pid_alive` whether its owner
still runs.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from .clock import Clock, SystemClock
from .errors import LockedError
from .paths import refused

_WINDOWS_LOCK_OFFSET = 1 << 20  # lock a byte past the text, so readers can still read who holds it


def pid_alive(pid: int) -> bool:
    """True while process ``pid`` exists (also when it belongs to another user)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


@dataclass(frozen=True)
class LockHolder:
    """Who holds the night lock, as written in the lock file."""

    pid: int
    started_at: str
    host: str
    share_with_children: bool = False


@contextmanager
def night_lock(
    path: Path, *, clock: Clock | None = None, share_with_children: bool = False
) -> Iterator[LockHolder]:
    """Hold the night lock for the ``with`` block; ``LockedError`` if another night holds it."""
    path = Path(path)
    me = LockHolder(
        os.getpid(),
        (clock or SystemClock()).now().isoformat(),
        socket.gethostname(),
        share_with_children,
    )
    fh = _open(path)
    try:
        if not _try_lock(fh):
            holder = read_holder(path)
            if holder is not None and holder.share_with_children and holder.pid == os.getppid():
                yield holder  # our parent holds it for us
                return
            raise _locked(path, holder)
        _write_holder(fh, me)
        try:
            yield me
        finally:
            _clear_holder(fh)
            _unlock(fh)
    finally:
        fh.close()


@contextmanager
def try_lock(path: Path) -> Iterator[bool]:
    """The OS lock on ``path`` for the ``with`` block if it is free: yields True when taken,
    False when another process holds it (nothing is waited for)."""
    fh = _open(Path(path))
    try:
        taken = _try_lock(fh)
        try:
            yield taken
        finally:
            if taken:
                _unlock(fh)
    finally:
        fh.close()


_held: dict[str, int] = {}  # project lock files this process holds -> nesting depth
_held_guard = threading.Lock()


def project_lock_file(locks_dir: Path, project: str | Path) -> Path:
    """The lock file of one project: ``<locks_dir>/project-<hash of its path>.lock``."""
    digest = hashlib.sha256(str(project).encode("utf-8")).hexdigest()[:16]
    return Path(locks_dir) / f"project-{digest}.lock"


@contextmanager
def project_lock(
    locks_dir: Path, project: str | Path, *, wait_s: float = 30.0, poll_s: float = 0.05
) -> Iterator[None]:
    """Order what changes or reads one project's live files: ``adopt``, ``rollback``, and a
    night reading them at its start and staging at its end. Held for moments, so a second
    taker waits up to ``wait_s`` seconds, then gets :class:`LockedError`. Re-entrant within a
    process (a night that stages then auto-adopts takes it twice)."""
    path = project_lock_file(locks_dir, project)
    key = str(path)
    with _held_guard:
        if key in _held:
            _held[key] += 1
            nested = True
        else:
            nested = False
    if nested:
        try:
            yield
        finally:
            with _held_guard:
                _held[key] -= 1
        return
    fh = _open(path)
    try:
        deadline = time.monotonic() + wait_s
        while not _try_lock(fh):
            if time.monotonic() >= deadline:
                raise LockedError(
                    f"another adopt, rollback or night is changing the files of {project}",
                    hint="wait for it to finish, then run the command again",
                )
            time.sleep(poll_s)
        with _held_guard:
            _held[key] = 1
        try:
            yield
        finally:
            with _held_guard:
                del _held[key]
            _unlock(fh)
    finally:
        fh.close()


def read_holder(path: Path) -> LockHolder | None:
    """The holder written in the lock file, or None when it is empty or unreadable."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8") or "null")
        return LockHolder(
            int(data["pid"]),
            str(data["started_at"]),
            str(data.get("host", "")),
            bool(data.get("share_with_children", False)),
        )
    except (OSError, ValueError, TypeError, KeyError):
        return None


def _locked(path: Path, holder: LockHolder | None) -> LockedError:
    who = f"pid {holder.pid} since {holder.started_at}" if holder else "another process"
    return LockedError(
        f"another night is running ({who})",
        hint=f"wait for it to finish; the lock {path} is released when that process ends",
    )


def _open(path: Path) -> IO[str]:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # "a+" creates the file without truncating what the current holder wrote.
        return open(path, "a+", encoding="utf-8")
    except OSError as exc:  # a read-only disk or an agent's sandbox: the CLI names which
        raise refused(f"cannot open the lock file {path}: {exc.strerror}", path.parent) from exc


def _write_holder(fh: IO[str], me: LockHolder) -> None:
    fh.seek(0)
    fh.truncate()
    fh.write(json.dumps(me.__dict__, sort_keys=True))
    fh.flush()


def _clear_holder(fh: IO[str]) -> None:
    try:
        fh.seek(0)
        fh.truncate()
        fh.flush()
    except OSError:
        pass  # the OS lock is what matters; a stale text is harmless once it is released


if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _try_lock(fh: IO[str]) -> bool:
        fh.seek(_WINDOWS_LOCK_OFFSET)
        try:
            msvcrt.locking(fh.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(fh: IO[str]) -> None:
        fh.seek(_WINDOWS_LOCK_OFFSET)
        msvcrt.locking(fh.fileno(), msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(fh: IO[str]) -> bool:
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _unlock(fh: IO[str]) -> None:
        fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
