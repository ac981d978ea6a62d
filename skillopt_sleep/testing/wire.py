"""What the wire modules hand back to the HTTP layer: a JSON body or a list of SSE events."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

IdMaker = Callable[[str], str]


@dataclass(frozen=True)
class Answer:
    """One HTTP answer: ``events`` (SSE frames, already encoded) or a ``body``; ``drop`` closes
    the connection without answering."""

    status: int = 200
    body: bytes = b""
    events: tuple[bytes, ...] | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    content_type: str = "application/json"
    drop: bool = False


def json_answer(
    payload: Any, status: int = 200, headers: Mapping[str, str] | None = None
) -> Answer:
    """A JSON answer."""
    return Answer(status=status, body=json.dumps(payload).encode(), headers=dict(headers or {}))


def sse(data: Mapping[str, Any] | str, event: str | None = None) -> bytes:
    """One server-sent event frame."""
    text = data if isinstance(data, str) else json.dumps(data)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {text}\n\n".encode()


def stream_answer(frames: list[bytes]) -> Answer:
    """An SSE answer."""
    return Answer(events=tuple(frames), content_type="text/event-stream")


def chunks(text: str, size: int = 24) -> list[str]:
    """Split a text into delta-sized pieces (at least one, possibly empty)."""
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def content_text(content: Any) -> str:
    """Text of a content value that is a string or a list of typed parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(content_text(p) for p in content if content_text(p))
    if isinstance(content, Mapping):
        for key in ("text", "content", "output", "input_text", "refusal"):
            if key in content and not isinstance(content[key], (dict,)):
                return content_text(content[key])
    return ""
