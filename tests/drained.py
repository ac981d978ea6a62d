"""Waiting for the spool's drainer: `log` writes the hook's payload to `spool/` and starts a
drainer in the background, which reads it under the harvest lock and exits. A test that looks at
the store, or reuses the home, first waits until that drainer is done."""

from __future__ import annotations

import time
from pathlib import Path

from skillopt_sleep.harvest.lock import file_lock


def drained(root: Path, wait_s: float = 60.0) -> bool:
    """True once no payload is left in a `spool/` under ``root`` and no harvest lock there is
    held; False if that has not happened within ``wait_s`` seconds."""
    deadline = time.monotonic() + wait_s
    while True:
        spooled = [p for p in root.rglob("spool/*.json") if p.is_file()]
        if not spooled and not any(_held(lock) for lock in root.rglob("harvest.lock")):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)


def _held(lock: Path) -> bool:
    with file_lock(lock) as got:
        return not got
