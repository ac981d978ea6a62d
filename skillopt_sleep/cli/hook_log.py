"""The hook's failures that only its log could take: shown by `status` as notices, once.

The session-end hook never fails its agent: an error becomes a notice in the store. Where the
store cannot take it (a full disk, a store it may not write), one line appended to ``hook.log``
(an existing file, whose last block often still has room) can: ``<UTC time> hook failed:
<message>``. `status` shows the lines newer than the newest it showed before, remembered in the
store (``hook.failures_shown``) once the store may be written.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..store import Notice, Store

HOOK_LOG = "hook.log"
FAILED = "hook failed: "
SHOWN_KEY = "hook.failures_shown"
TAIL_BYTES = 1 << 20  # the log grows by a line a session: its last MB holds any recent failure


def failure_line(now: datetime, message: str) -> str:
    return f"{now.isoformat()} {FAILED}{' '.join(message.split())}"


def unshown_failures(log_dir: Path, store: Store) -> list[Notice]:
    """The failures in ``log_dir``'s hook.log newer than the last shown, oldest first."""
    from ..store import Notice

    shown = _when(store.get_meta(SHOWN_KEY) or "")
    found = []
    for line in _tail(log_dir / HOOK_LOG).splitlines():
        stamp, _, rest = line.partition(" ")
        when = _when(stamp)
        if when is None or not rest.startswith(FAILED) or (shown is not None and when <= shown):
            continue
        found.append(Notice(-1, stamp, "hook", rest.removeprefix(FAILED).strip(), False))
    return found


def mark_shown(store: Store, shown: list[Notice]) -> None:
    """Remember the newest failure shown (raises StoreError where the store may not be written:
    then they are shown again)."""
    from_log = [n.created_at for n in shown if n.kind == "hook" and n.id < 0]
    if from_log:
        store.set_meta(SHOWN_KEY, max(from_log, key=lambda s: _when(s) or datetime.min))


def _tail(path: Path) -> str:
    try:
        with open(path, "rb") as fh:
            size = fh.seek(0, 2)
            fh.seek(max(size - TAIL_BYTES, 0))
            return fh.read().decode("utf-8", errors="replace")
    except OSError:
        return ""


def _when(stamp: str) -> datetime | None:
    try:
        when = datetime.fromisoformat(stamp)
    except ValueError:
        return None
    return when if when.tzinfo is not None else None
