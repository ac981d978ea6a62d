"""The SessionEnd hook logger: take the hook's JSON, never slow or break the agent.

``log`` only validates the payload and drops it in a spool directory (one small file, written
atomically), then a detached drainer reads the transcripts. The drainer holds the harvest lock,
so many sessions ending at once queue up instead of racing: a payload stays in the spool until
its tasks are stored, and a drainer that finds the lock taken leaves its payload to the holder,
which looks at the spool again after releasing the lock.
"""

from __future__ import annotations

import json
import os
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from ..errors import InputError
from ..store.files import atomic_write_text
from .lock import file_lock
from .run import Harvester, SourceStats
from .scan import CLAUDE

MAX_PAYLOAD_BYTES = 1024 * 1024
_MAX_ROUNDS = 1000  # a drainer stops after this many spool passes, whatever keeps arriving


class HookPayload(BaseModel):
    """The fields of a Claude Code hook payload the logger needs (others are ignored)."""

    model_config = ConfigDict(extra="ignore")

    session_id: str
    transcript_path: str
    cwd: str = ""
    hook_event_name: str = ""
    reason: str = ""


def parse_payload(raw: str, home: str | None = None) -> HookPayload:
    """Validate the hook JSON; ``~`` in the transcript path is the user's home."""
    if not raw.strip():
        raise InputError("the hook gave no JSON on stdin", hint="run `log` only as a Claude Code hook")
    try:
        payload = HookPayload.model_validate_json(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "payload"
        raise InputError(f"the hook JSON is invalid ({where}: {err['msg']})",
                         hint="is `log` configured on a Claude Code hook event?") from None
    path = payload.transcript_path
    if path.startswith("~/") and home:
        payload = payload.model_copy(update={"transcript_path": str(Path(home) / path[2:])})
    return payload


@dataclass
class Spool:
    """Payloads waiting to be read: ``<dir>/*.json``; ones that failed move to ``failed/``."""

    root: Path

    def put(self, payload: HookPayload) -> Path:
        name = f"{time.time_ns():020d}-{os.getpid()}-{secrets.token_hex(4)}.json"
        path = self.root / name
        atomic_write_text(path, payload.model_dump_json())
        return path

    def entries(self) -> list[Path]:
        try:
            return sorted(self.root.glob("*.json"))
        except OSError:
            return []

    def load(self, path: Path) -> HookPayload:
        return HookPayload.model_validate(json.loads(path.read_text(encoding="utf-8")))

    def done(self, path: Path) -> None:
        path.unlink(missing_ok=True)

    def failed(self, path: Path) -> None:
        target = self.root / "failed" / path.name
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(path, target)


@dataclass
class DrainResult:
    """What a drain did: payloads read, their stats, and the errors met (one line each)."""

    payloads: int = 0
    stats: SourceStats = field(default_factory=SourceStats)
    errors: list[str] = field(default_factory=list)
    locked_out: bool = False


def drain(spool: Spool, harvester: Harvester, lock_path: Path, *, wait_s: float = 0.0) -> DrainResult:
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
    try:
        payload = spool.load(entry)
    except (OSError, ValueError) as exc:
        result.errors.append(f"unreadable hook payload {entry.name}: {exc}")
        _move_failed(spool, entry)
        return
    path = Path(payload.transcript_path)
    result.payloads += 1
    if path.is_file():
        before = len(result.stats.errors)
        harvester.harvest_file(CLAUDE, path, result.stats)
        harvester.flush()  # stored before the payload leaves the spool: nothing is lost
        if len(result.stats.errors) > before:
            result.errors.extend(result.stats.errors[before:])
            _move_failed(spool, entry)
            return
    spool.done(entry)


def _move_failed(spool: Spool, entry: Path) -> None:
    try:
        spool.failed(entry)
    except OSError:
        entry.unlink(missing_ok=True)
