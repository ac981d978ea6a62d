"""Reading JSONL transcripts line by line from a byte offset, and the parser base class.

A bad line (too long, invalid UTF-8, not JSON, not an object, fields of the wrong type) is
skipped and counted by reason; it never stops the read. One before the session's first turn may
have held its request: the turn after it is marked (``Turn.after_gap``). A last line without its
newline is left for the next read: the agent may still be writing it.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from ..markers import REPLAY_MARKER
from .session import PROMPT_CHARS, ParseState, SessionChunk, Turn, cut, parse_time

_loads: Callable[[bytes], Any]
try:  # orjson parses transcripts about 2-3x faster; the standard library is the fallback
    import orjson

    _loads = orjson.loads
except ImportError:  # pragma: no cover - exercised where orjson is not installed
    _loads = json.loads

MAX_LINE_BYTES = 4 * 1024 * 1024  # longer lines (a pasted image, a huge tool dump) are skipped
MAX_FILE_BYTES = 256 * 1024 * 1024  # read per file per harvest; the cursor continues next time
MAX_FILE_SECONDS = 60.0  # the same, in time: one huge file never holds up every other one
_READ_BUFFER = 1024 * 1024
# Prompts are kept this long while parsing (mining cuts them to PROMPT_CHARS): nothing after a
# parser looks at more, so no later pass can cost more than this per prompt.
KEPT_PROMPT_CHARS = 2 * PROMPT_CHARS
# A \\uD800-\\uDFFF escape: the line may hold a lone surrogate, which no UTF-8 store can take.
_SURROGATE_ESCAPE = re.compile(rb"\\[uU][dD][89a-fA-F]")


class BadRecord(ValueError):
    """A JSON object that does not have the shape its ``type`` promises."""


@dataclass(frozen=True)
class ReadLimits:
    """How much of one file a single read may take: bytes and seconds (the rest waits)."""

    max_line: int = MAX_LINE_BYTES
    max_bytes: int = MAX_FILE_BYTES
    max_seconds: float = MAX_FILE_SECONDS

    @property
    def hard_bytes(self) -> int:
        """Past the limit, a read waits this long for the next turn to start."""
        return self.max_bytes + max(self.max_bytes, 4 * self.max_line)

    @property
    def grace_seconds(self) -> float:
        """The same, in seconds."""
        return max(self.max_seconds, 10.0)


def iter_lines(
    fh: BinaryIO, start: int, max_line: int = MAX_LINE_BYTES
) -> Iterator[tuple[int, int, bytes | None]]:
    """``(offset, end, line)`` for each complete line from ``start``; ``line`` is None when it is
    too long. ``end`` is the offset just after the line's newline.

    A line ends at LF, CRLF or a lone CR. Reading stops before a final line that has no end
    yet. Memory stays bounded by
    ``max_line``: an over-long line is skipped in pieces, never held whole.
    """
    fh.seek(start)
    offset = start
    while True:
        line = fh.readline(max_line + 1)
        if not line:
            return
        if b"\r" in line:  # CR-only (old Mac) or CRLF endings: a raw CR never occurs inside JSON
            complete = len(line) if line.endswith(b"\n") else line.rfind(b"\r") + 1
            for piece in line[:complete].splitlines(keepends=True):
                yield offset, offset + len(piece), piece
                offset += len(piece)
            if complete < len(line):
                fh.seek(offset)  # the rest of this read is the start of a line not yet complete
            continue
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


def text_field(value: Any, what: str) -> str:
    """A text field that may be absent (``""``), never of another type (:class:`BadRecord`):
    where a prompt's text is read, a wrong type is damage, not an empty prompt to drop."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise BadRecord(f"{what} is not text")
    return value


def prompt_blocks(value: Any, what: str) -> list[Any]:
    """The blocks of a user message (a list of objects whose ``text``, when there is one, is
    text); else :class:`BadRecord`: a prompt whose text cannot be read is damage, never a
    message without text to pass over."""
    if not isinstance(value, list):
        raise BadRecord(f"{what} is not a list")
    for block in value:
        if not isinstance(block, dict):
            raise BadRecord(f"{what} holds a block that is not an object")
        text_field(block.get("text"), f"{what}[].text")
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
            self.damaged("line-too-long")
            return
        if not raw.strip():
            return
        try:
            obj = decode_line(raw)
        except RecursionError:
            self.damaged("too-deep")
            return
        except ValueError:
            self.damaged(_why_not_json(raw))
            return
        if not isinstance(obj, dict):
            self.damaged("not-an-object")
            return
        kind = self.kind_of(obj)
        if not isinstance(kind, str):
            self.damaged("bad-fields")
            return
        try:
            self.record(kind, obj, offset)
        except RecursionError:
            self.damaged("too-deep")
        except (ValueError, KeyError, TypeError, AttributeError, IndexError, OverflowError):
            self.damaged("bad-fields")

    def kind_of(self, obj: dict[str, Any]) -> Any:
        """The record's kind: its ``type`` (a format with untyped records names them here)."""
        return obj.get("type")

    def record(self, kind: str, obj: dict[str, Any], offset: int) -> None:
        raise NotImplementedError

    def skip(self, reason: str) -> None:
        self.chunk.skipped[reason] += 1

    def damaged(self, reason: str) -> None:
        """Skip a line that could not be read. Before the session's first turn it may have
        held the session's request: the next turn may answer a request no read will see
        (``ParseState.gap``, ``Turn.after_gap``). After a turn, a damaged line is far more
        often the agent's (a tool's output, a message cut short) and is only counted."""
        self.skip(reason)
        if self.state.turns_before + len(self.chunk.turns) == 0:
            self.state.gap = True

    def start_turn(self, offset: int, prompt: str, timestamp: Any) -> Turn:
        if prompt.lstrip().startswith(REPLAY_MARKER):
            self.state.replay = True
        index = self.state.turns_before + len(self.chunk.turns)
        prompt = cut(prompt, KEPT_PROMPT_CHARS)  # a pasted log: the request is at its start
        turn = Turn(
            index=index,
            offset=offset,
            prompt=prompt,
            timestamp=parse_time(timestamp),
            model=self.state.model,
        )
        turn.ended_at = turn.timestamp
        turn.after_gap, self.state.gap = self.state.gap, False
        self.chunk.turns.append(turn)
        self.turn = turn
        return turn

    def finish(self) -> SessionChunk:
        return self.chunk


def decode_line(raw: bytes) -> Any:
    """One JSON line as Python objects. Lone UTF-16 surrogates (``"\\ud83d"`` without its pair,
    left by a writer that cut a string mid-emoji) become U+FFFD, so the rest of the line is kept.

    Raises ValueError (not JSON) or RecursionError (nested too deep to decode).
    """
    try:
        value = _loads(raw)
    except ValueError:
        if not _SURROGATE_ESCAPE.search(raw):
            raise
        value = json.loads(raw)  # orjson refuses lone surrogates; the standard parser takes them
    else:
        if not _SURROGATE_ESCAPE.search(raw):
            return value
    return without_surrogates(value)


def without_surrogates(value: Any) -> Any:
    """``value`` with every string (and key) made encodable as UTF-8 (a lone surrogate becomes
    U+FFFD); iterative, as the value may be nested as deep as the parser allows."""
    root = [value]
    stack: list[tuple[Any, Any]] = [(root, 0)]
    while stack:
        parent, key = stack.pop()
        item = parent[key]
        if isinstance(item, str):
            parent[key] = _fix_text(item)
        elif isinstance(item, list):
            stack.extend((item, i) for i in range(len(item)))
        elif isinstance(item, dict):
            fixed = {_fix_text(k): v for k, v in item.items()}
            item.clear()
            item.update(fixed)
            stack.extend((item, k) for k in item)
    return root[0]


def _fix_text(text: str) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def _why_not_json(raw: bytes) -> str:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return "invalid-utf8"
    return "invalid-json"


def read_chunk(
    parser: LineParser,
    path: Path,
    start: int,
    max_line: int = MAX_LINE_BYTES,
    *,
    limits: ReadLimits | None = None,
) -> tuple[SessionChunk, int]:
    """Feed ``path`` from ``start`` into ``parser``; returns the chunk and where reading stopped.

    Once ``limits`` bytes or seconds are spent, reading stops (``chunk.partial``) where the
    next turn begins, so every turn read is whole (``chunk.cut_turn``: the turn whose prompt
    was read last; the next read starts there). A single turn longer than the limits allow
    (:meth:`ReadLimits.hard_bytes`, :meth:`ReadLimits.grace_seconds`) is cut where it stands.
    """
    limits = limits or ReadLimits(max_line=max_line)
    chunk = parser.chunk
    end = start
    clock = time.monotonic
    deadline = clock() + limits.max_seconds
    over = False
    with open(path, "rb", buffering=_READ_BUFFER) as fh:
        for offset, end, line in iter_lines(fh, start, limits.max_line):
            turns = len(chunk.turns)
            parser.feed(offset, line)
            over = over or end - start >= limits.max_bytes or clock() > deadline
            if not over:
                continue
            if turns and len(chunk.turns) > turns:
                chunk.partial, chunk.cut_turn = True, True
                break
            if end - start >= limits.hard_bytes or clock() > deadline + limits.grace_seconds:
                chunk.partial = True
                break
    return parser.finish(), end
