"""The SessionEnd hook logger's first half: validate the hook's JSON and spool it.

``log`` only validates the payload and drops it in a spool directory (one small file, written
atomically), then a detached drainer (:mod:`.drain`) reads the transcripts. This module stays
light to import: the hook's latency is the agent's.
"""

from __future__ import annotations

import json
import os
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from ..errors import InputError
from ..store.files import atomic_write_text

MAX_PAYLOAD_BYTES = 1024 * 1024


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
