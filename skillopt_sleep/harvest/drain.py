"""The SessionEnd hook logger's second half: read spooled sessions into the store.

The drainer holds the harvest lock, so many sessions ending at once queue up instead of racing:
a payload stays in the spool until its tasks are stored, and a drainer that finds the lock taken
leaves its payload to the holder, which looks at the spool again after releasing the lock.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .hook import Spool
from .lock import file_lock
from .run import Harvester, SourceStats

_MAX_ROUNDS = 1000  # a drainer stops after this many spool passes, whatever keeps arriving


@dataclass
class DrainResult:
    """What a drain did: payloads read, their stats, and the errors met (one line each)."""

    payloads: int = 0
    stats: SourceStats = field(default_factory=SourceStats)
    errors: list[str] = field(default_factory=list)
    locked_out: bool = False


def drain(
    spool: Spool, harvester: Harvester, lock_path: Path, *, wait_s: float = 0.0
) -> DrainResult:
    """Read every spooled session into the store, under the harvest lock."""
    result = DrainResult()
    for _ in range(_MAX_ROUNDS):
        with file_lock(lock_path, wait_s=wait_s) as got:
            if not got:
                result.locked_out = True
                return result
            for entry in spool.entries():
                _drain_one(spool, entry, harvester, result)
            harvester.flush()
        # Released: a payload spooled while we held the lock may have a drainer that gave up.
        if not spool.entries():
            return result
    return result


def _drain_one(spool: Spool, entry: Path, harvester: Harvester, result: DrainResult) -> None:
    """Read one spooled session. A payload that cannot be read, or whose transcript cannot,
    moves to ``failed/`` (kept for a look, never retried forever) and the drain goes on."""
    try:
        payload = spool.load(entry)
    except (OSError, ValueError, RecursionError) as exc:
        reason = "nested too deep" if isinstance(exc, RecursionError) else _first_line(exc)
        result.errors.append(f"unreadable hook payload {spool.root / entry.name}: {reason}")
        _move_failed(spool, entry)
        return
    path = Path(payload.transcript_path)
    result.payloads += 1
    if not path.is_file():  # said once, as a notice `status` shows; nothing to retry
        result.errors.append(
            f"the transcript of session {payload.session_id} is missing ({path}): "
            "nothing was logged from it"
        )
    else:
        before = len(result.stats.errors)
        harvester.harvest_file(payload.agent, path, result.stats)
        harvester.flush()  # stored before the payload leaves the spool: nothing is lost
        if len(result.stats.errors) > before:
            result.errors.extend(result.stats.errors[before:])
            _move_failed(spool, entry)
            return
    spool.done(entry)


def _first_line(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:200]


def _move_failed(spool: Spool, entry: Path) -> None:
    try:
        spool.failed(entry)
    except OSError:
        entry.unlink(missing_ok=True)
