"""Reading JSONL transcripts line by line from a byte offset, and the parser base class.

A bad line (too long, invalid UTF-8, not JSON, not an object, fields of the wrong type) is
skipped and counted by reason; it never stops the read. A last line without its newline is
left for the next read: the agent may still be writing it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

from ..markers import REPLAY_MARKER
from .session import ParseState, SessionChunk, Turn, parse_time

_loads: Callable[[bytes], Any]
try:  # orjson parses transcripts about 2-3x faster; the standard library is the fallback
    import orjson

    _loads = orjson.loads
except ImportError:  # pragma: no cover - exercised where orjson is not installed
    _loads = json.loads

MAX_LINE_BYTES = 4 * 1024 * 1024  # longer lines (a pasted image, a huge tool dump) are skipped
_READ_BUFFER = 1024 * 1024


class BadRecord(ValueError):
    """A JSON object that does not have the shape its ``type`` promises."""


def iter_lines(
    fh: BinaryIO, start: int, max_line: int = MAX_LINE_BYTES
) -> Iterator[tuple[int, int, bytes | None]]:
    """``(offset, end, line)`` for each complete line from ``start``; ``line`` is None when it is
    too long. ``end`` is the offset just after the line's newline.

    Reading stops before a final line that has no newline yet. Memory stays bounded by
    ``max_line``: an over-long line is skipped in pieces, never held whole.
    """
    fh.seek(start)
    offset = start
    while True:
        line = fh.readline(max_line + 1)
        if not line:
            return
        if line.endswith(b"\n"):
            yield offset, offset + len(line), line
            offset += len(line)
            continue
        if len(line) <= max_line:
            return  # an unfinished last line
        skipped = len(line)
        while True:
            piece = fh.readline(_READ_BUFFER)
            skipped += len(piece)
            if not piece:
                return  # an unfinished over-long last line: decide when it is complete
            if piece.endswith(b"\n"):
                break
        yield offset, offset + skipped, None
        offset += skipped


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def as_str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def require_dict(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise BadRecord(f"{what} is not an object")
    return value


class LineParser:
    """Base of the transcript parsers: decoding and skip accounting; subclasses read records.

    Pure: lines in (``feed``), a :class:`SessionChunk` out (``finish``). No file access here.
    """

    source = ""
    ignored_types: frozenset[str] = frozenset()

    def __init__(self, state: ParseState | None = None) -> None:
        self.state = state or ParseState()
        self.chunk = SessionChunk(source=self.source, state=self.state)
        self.turn: Turn | None = None

    def feed(self, offset: int, raw: bytes | None) -> None:
        """Read one line (``None``: a line too long to read)."""
        self.chunk.lines += 1
        if raw is None:
            self.skip("line-too-long")
            return
        if not raw.strip():
            return
        try:
            obj = _loads(raw)
        except ValueError:
            self.skip(_why_not_json(raw))
            return
        if not isinstance(obj, dict):
            self.skip("not-an-object")
            return
        kind = obj.get("type")
        if not isinstance(kind, str):
            self.skip("bad-fields")
            return
        try:
            self.record(kind, obj, offset)
        except (BadRecord, KeyError, TypeError, AttributeError, IndexError):
            self.skip("bad-fields")

    def record(self, kind: str, obj: dict[str, Any], offset: int) -> None:
        raise NotImplementedError

    def skip(self, reason: str) -> None:
        self.chunk.skipped[reason] += 1

    def start_turn(self, offset: int, prompt: str, timestamp: Any) -> Turn:
        if prompt.lstrip().startswith(REPLAY_MARKER):
            self.state.replay = True
        index = self.state.turns_before + len(self.chunk.turns)
        turn = Turn(index=index, offset=offset, prompt=prompt, timestamp=parse_time(timestamp))
        turn.ended_at = turn.timestamp
        self.chunk.turns.append(turn)
        self.turn = turn
        return turn

    def finish(self) -> SessionChunk:
        return self.chunk


def _why_not_json(raw: bytes) -> str:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return "invalid-utf8"
    return "invalid-json"


def read_chunk(
    parser: LineParser, path: Path, start: int, max_line: int = MAX_LINE_BYTES
) -> tuple[SessionChunk, int]:
    """Feed ``path`` from ``start`` into ``parser``; returns the chunk and where reading stopped."""
    end = start
    with open(path, "rb", buffering=_READ_BUFFER) as fh:
        for offset, end, line in iter_lines(fh, start, max_line):
            parser.feed(offset, line)
    return parser.finish(), end
