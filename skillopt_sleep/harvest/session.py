"""What a transcript parser produces: turns of a session, and the state carried between reads.

A *turn* is one human prompt and everything the agent did until the next one. Parsers keep
short raw excerpts only (bounded per turn), so memory does not grow with the transcript;
redaction happens when turns become TaskRecords (:mod:`.mine`).
"""

from __future__ import annotations

import json
from collections import Counter, deque
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Literal

if (
    TYPE_CHECKING
):  # a type only: the parsers, which `log` imports through the registry, need no model
    from ..models import ActionKind

StepKind = Literal["text", "tool", "output", "error", "file"]

# A timestamp outside these years is damage, not a session: the file's mtime dates the turn
# instead (and date arithmetic on it downstream cannot overflow).
_EARLIEST = datetime(1990, 1, 1, tzinfo=timezone.utc)
_LATEST = datetime(2999, 1, 1, tzinfo=timezone.utc)

STEP_CHARS = 800  # one step's excerpt
PROMPT_CHARS = 8000  # a prompt longer than this is cut (pasted logs, not the request)
HEAD_STEPS = 24  # the first steps of a turn are kept, and
TAIL_STEPS = 24  # the last ones (the final answer); the middle of a very long turn is dropped


def cut(text: str, limit: int, *, tail: bool = False) -> str:
    """``text`` cut to about ``limit`` characters without splitting a word or token in two.

    Never splitting a token matters for redaction: half a key no longer looks like a key.
    """
    if len(text) <= limit:
        return text
    if tail:
        piece = text[-limit:]
        space = next((i for i, ch in enumerate(piece[:512]) if ch.isspace()), None)
        piece = piece[space + 1 :] if space is not None else piece
        return "…" + piece
    piece = text[:limit]
    if not text[limit].isspace():
        space = max(piece.rfind(" ", limit - 512), piece.rfind("\n", limit - 512))
        piece = piece[:space] if space > 0 else piece
    return piece.rstrip() + "…"


def parse_time(value: object) -> datetime | None:
    """An ISO-8601 timestamp (``...Z`` or with an offset) as aware UTC; None if absent or bad.

    A timestamp without an offset is taken as UTC: both CLIs write UTC, and guessing the local
    zone is what drops sessions east of UTC.
    """
    if not isinstance(value, str) or not value or len(value) > 64:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=timezone.utc)
        parsed = parsed.astimezone(timezone.utc)  # year 1 or 9999 with an offset overflows here
    except (ValueError, OverflowError):
        return None
    return parsed if _EARLIEST <= parsed <= _LATEST else None


@dataclass
class Step:
    """One thing the agent did, in order: said something, ran a tool, hit an error, wrote a file."""

    kind: StepKind
    text: str


@dataclass
class RawAction:
    """One action before it is mined (paths as the transcript wrote them); see :mod:`.actions`."""

    kind: ActionKind
    command: str = ""
    path: str = ""
    exit_code: int | None = None
    failed: bool = False
    content: str = ""
    tool: str = ""


@dataclass
class Turn:
    """One human prompt and the agent's work on it."""

    index: int  # the prompt's ordinal in the session (0-based), stable across reads
    offset: int  # byte offset of the line holding the prompt
    prompt: str
    timestamp: datetime | None = None
    ended_at: datetime | None = None
    context: str = ""  # what the prompt expanded to: a slash-command body, an injected skill
    head: list[Step] = field(default_factory=list)
    tail: deque[Step] = field(default_factory=lambda: deque(maxlen=TAIL_STEPS))
    dropped_steps: int = 0
    tools: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    skills: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    model: str = ""  # the model that answered (as the agent's transcript names it)
    actions: list[RawAction] = field(default_factory=list)  # in order (see .actions)
    after_gap: bool = False  # a damaged record came before it: the request it answers may be lost

    def add_step(self, kind: StepKind, text: str, *, tail_cut: bool = False) -> None:
        text = text.strip()
        if not text:
            return
        step = Step(kind, cut(text, STEP_CHARS, tail=tail_cut))
        if len(self.head) < HEAD_STEPS:
            self.head.append(step)
            return
        if len(self.tail) == self.tail.maxlen:
            self.dropped_steps += 1
        self.tail.append(step)

    @property
    def steps(self) -> list[Step]:
        return [*self.head, *self.tail]

    @property
    def has_work(self) -> bool:
        """The agent did or said something (a turn without any work teaches nothing)."""
        return bool(self.head)

    def unwrite(self, path: str) -> None:
        """Drop the last ``file`` step of ``path``: the write it shows failed (nothing written)."""
        for steps in (self.tail, self.head):
            for step in reversed(steps):
                if step.kind == "file" and step.text.startswith(path + ":"):
                    steps.remove(step)
                    return

    def add_error(self, text: str) -> None:
        """Remember an error (at most 20 a turn, each cut short)."""
        if len(self.errors) < 20:
            self.errors.append(cut(" ".join(text.split()), 300))

    def note(self, bucket: list[str], value: str) -> None:
        """Add ``value`` to an ordered set (tools, files, skills, tags) of at most 20."""
        if value and value not in bucket and len(bucket) < 20:
            bucket.append(value)


@dataclass
class ParseState:
    """What a parser must know to continue a file from a byte offset (kept in the cursor)."""

    session_id: str = ""
    project: str = ""
    turns_before: int = 0  # prompts that come before the offset
    replay: bool = False  # a session skillopt-sleep ran (a replay, a control session): never mined
    item_events: bool = False  # codex: prompts come as item_completed items (0.169+)
    model: str = ""  # the model the session last named (codex: turn_context)
    commit: str = ""  # the git commit the session started from (codex: session_meta.git)
    branch: str = ""  # the git branch the session was on (claude: gitBranch)
    # a damaged record was read and no turn after it yet (or only turns that could not be
    # attributed): the next turn may answer a request that was lost (see .mine.group_turns)
    gap: bool = False

    def to_json(self) -> str:
        return json.dumps(self.__dict__, sort_keys=True)

    @classmethod
    def from_json(cls, raw: str) -> ParseState:
        try:
            data = json.loads(raw or "{}")
        except json.JSONDecodeError:
            return cls()
        if not isinstance(data, dict):
            return cls()
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        try:
            return cls(**known)
        except TypeError:
            return cls()


@dataclass
class SessionChunk:
    """What one read of a transcript produced."""

    source: str
    state: ParseState  # the state after the read (session id, project, replay flag)
    turns: list[Turn] = field(default_factory=list)
    lines: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    partial: bool = False  # the read stopped at its byte or time limit; the rest comes next time
    cut_turn: bool = False  # it stopped just after the prompt of the last turn (read it again)
