"""The SessionEnd hook logger's first half: validate the hook's JSON and spool it.

``log`` only validates the payload and drops it in a spool directory (one small file, written
atomically), then a detached drainer (:mod:`.drain`) reads the transcripts. This module stays
light to import: the hook's latency is the agent's.
"""

from __future__ import annotations

import json
import os
import secrets
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from pydantic import BaseModel, ConfigDict, ValidationError

from ..errors import InputError, StoreError

MAX_PAYLOAD_BYTES = 1024 * 1024
READ_TIMEOUT_S = 5.0  # Claude Code writes the payload at once; a writer that never closes is not


def read_stdin(
    stream: TextIO, limit: int = MAX_PAYLOAD_BYTES, timeout: float = READ_TIMEOUT_S
) -> str:
    """The hook's JSON from ``stream``, bounded in size and time.

    Reading stops at end of input, as soon as what was read is one complete JSON value (the
    writer may keep its end open), after ``limit + 1`` bytes, or after ``timeout`` seconds:
    the hook must return even when its input never ends.
    """
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):  # an in-memory stream: it cannot block
        return stream.read(limit + 1)
    chunks: list[bytes] = []
    finished = threading.Event()

    def pump() -> None:
        size = 0
        try:
            while size <= limit:
                data = os.read(fd, 65536)
                if not data:
                    break
                chunks.append(data)
                size += len(data)
                if data.rstrip().endswith((b"}", b"]")) and _complete_json(b"".join(chunks)):
                    break
        except OSError:
            pass
        finally:
            finished.set()

    threading.Thread(target=pump, name="hook-stdin", daemon=True).start()
    finished.wait(timeout)
    return b"".join(list(chunks)).decode("utf-8", "replace")


def _complete_json(data: bytes) -> bool:
    try:
        json.loads(data)
    except (ValueError, RecursionError):
        return False
    return True


class HookPayload(BaseModel):
    """The fields of a Claude Code hook payload the logger needs (others are ignored), and
    the agent whose session it is (a payload spooled before agents were named is Claude's)."""

    model_config = ConfigDict(extra="ignore")

    agent: str = "claude-code"
    session_id: str
    transcript_path: str
    cwd: str = ""
    hook_event_name: str = ""
    reason: str = ""


def parse_payload(raw: str, home: str | None = None) -> HookPayload:
    """Validate the hook JSON; ``~`` in the transcript path is the user's home."""
    if not raw.strip():
        raise InputError(
            "the hook gave no JSON on stdin", hint="run `log` only as a Claude Code hook"
        )
    try:
        payload = HookPayload.model_validate_json(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "payload"
        raise InputError(
            f"the hook JSON is invalid ({where}: {err['msg']})",
            hint="is `log` configured on a Claude Code hook event?",
        ) from None
    path = payload.transcript_path
    if path.startswith("~/") and home:
        payload = payload.model_copy(update={"transcript_path": str(Path(home) / path[2:])})
    return payload


@dataclass
class Spool:
    """Payloads waiting to be read: ``<dir>/*.json``; ones that failed move to ``failed/``."""

    root: Path

    def put(self, payload: HookPayload) -> Path:
        """Spool ``payload``: written aside, then renamed in, so a reader never sees half of it.

        Not fsynced: the agent has just written its transcript, and an fsync would wait for that
        to reach the disk (ext4 flushes it with ours). A crash can lose a payload only, never the
        transcript's tasks: the next ``harvest`` of the project reads the transcript from its cursor.
        """
        name = f"{time.time_ns():020d}-{os.getpid()}-{secrets.token_hex(4)}"
        self.root.mkdir(parents=True, exist_ok=True)
        tmp, path = self.root / f".{name}.tmp", self.root / f"{name}.json"
        try:
            tmp.write_text(payload.model_dump_json(), encoding="utf-8")
            os.replace(tmp, path)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise StoreError(
                f"cannot spool the hook payload in {self.root}: {exc.strerror or exc}",
                hint="check the disk and the permissions of the state directory",
            ) from exc
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
