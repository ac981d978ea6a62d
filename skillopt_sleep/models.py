"""Pydantic models for what crosses a trust boundary: task records, checks, edits, proposals.

Everything here is validated when it is made (``extra="forbid"``), so a bad record or check is an
error at import time, never a silent 0 at night. Inside the pipeline, frozen dataclasses are used.
"""

from __future__ import annotations

import hashlib
import re
from datetime import datetime, timezone
from typing import Annotated, Literal

from pydantic import Field, StringConstraints, field_validator, model_validator

from .counting import Counts, Usage
from .proposal_models import (
    INCONCLUSIVE_VERDICTS,
    REFUSED_VERDICTS,
    RETIRED_SUMMARY_FIELDS,
    SCHEMA_VERSION,
    Decision,
    Edit,
    EditEvidence,
    EditOp,
    EditStatus,
    EditTarget,
    EditVerdict,
    Example,
    NightSummary,
    Proposal,
    ProposalFile,
    ProposalState,
    Tally,
    Unconfirmed,
    WaitingEdit,
    unconfirmed_words,
)
from .strict import Strict as _Strict

# Of a TaskRecord. 2: ``turns``; a version-1 record reads as one without turns. 3: ``actions``;
# an older record reads as one without actions.
TASK_SCHEMA_VERSION = 3

# Checks of what the attempt did rather than what it said (see :mod:`.action_models`).
ACTION_CHECK_KINDS = (
    "ran",
    "never_ran",
    "changed",
    "untouched",
    "never_read",
    "file_contains",
    "file_not_contains",
    "passes_after",
)
# Where a task came from: a coding agent's registered name (``harvest.agents``: claude-code, codex,
# copilot, opencode, pi, gemini, qwen, or one registered from outside the package) or a way in by hand
# (manual, sample, import). Open, so that a new agent is one module: the name's shape is checked here,
# the agent itself where its sessions are read.
Source = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9-]{0,31}$")]
Outcome = Literal["success", "failure", "mixed", "unknown"]
CheckKind = Literal[
    "contains",
    "not_contains",
    "regex",
    "starts_with",
    "max_chars",
    "json_valid",
    "heading",
    "equals",
    "rubric",
    "ran",
    "never_ran",
    "changed",
    "untouched",
    "never_read",
    "file_contains",
    "file_not_contains",
    "passes_after",
]
TurnKind = Literal["new_request", "correction", "praise", "follow_up"]


def utc(value: datetime) -> datetime:
    """Return ``value`` as an aware UTC datetime; naive values are refused, not guessed."""
    if value.tzinfo is None or value.tzinfo.utcoffset(value) is None:
        raise ValueError("timestamp must be timezone-aware (UTC)")
    return value.astimezone(timezone.utc)


class Check(_Strict):
    """One way to score a replay. Rule kinds are pure; ``rubric`` asks the judge backend."""

    kind: CheckKind
    value: str | int | None = None
    case_sensitive: bool = True
    weight: float = Field(default=1.0, gt=0, le=100)
    path: str | None = None  # the file (glob) of ``file_contains`` / ``file_not_contains``
    # What the user showed instead (a command, a path, a text) that a mined check was held
    # against and passes: a check that failed on the user's own example was narrowed or dropped.
    held_against: str | None = Field(default=None, max_length=300, exclude_if=lambda v: v is None)

    @model_validator(mode="after")
    def _valid_for_kind(self) -> Check:
        kind, value = self.kind, self.value
        if kind in ACTION_CHECK_KINDS:
            from .action_models import validate_action_check

            validate_action_check(kind, value, self.path)
            return self
        if self.path is not None:
            raise ValueError(f"{kind} takes no path; only file_contains and file_not_contains do")
        if kind == "json_valid":
            if value is not None:
                raise ValueError("json_valid takes no value")
            return self
        if kind == "max_chars":
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ValueError("max_chars needs a positive integer value")
            return self
        if not isinstance(value, str) or not value.strip():
            raise ValueError(f"{kind} needs a non-empty text value")
        if kind == "regex":
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"invalid regex {value!r}: {exc}") from exc
        return self

    def describe(self) -> str:
        """A short human description of the check (shown to people, never to the optimizer)."""
        if self.kind == "json_valid":
            return "json_valid"
        if self.path is not None:
            return f"{self.kind} {self.path!r} {self.value!r}"
        return f"{self.kind} {self.value!r}"


ActionKind = Literal["command", "read", "write", "edit", "delete"]


class Action(_Strict):
    """One thing the attempt did: a command it ran (with its exit status when known), or a file
    it read, wrote, edited or deleted (by a tool, or by a shell command the transcript shows).

    Paths inside the project are relative to it; ``content`` is an excerpt of what was written
    (a Write's text, an Edit's new text, a patch's added lines), redacted.
    """

    kind: ActionKind
    command: str = ""
    path: str = ""
    exit_code: int | None = None
    failed: bool = False  # the tool reported an error (a denied call, a non-zero exit)
    content: str = ""
    tool: str = ""

    @model_validator(mode="after")
    def _has_subject(self) -> Action:
        if self.kind == "command" and not self.command.strip():
            raise ValueError("a command action needs the command")
        if self.kind != "command" and not self.path.strip():
            raise ValueError(f"a {self.kind} action needs a path")
        return self


class TurnNote(_Strict):
    """A user turn attached to a task: a correction, praise or follow-up, verbatim (redacted).

    ``unsure``: neither the rules nor the judge model could tell what the turn is; it is kept
    and shown, but it neither sets the outcome nor yields checks.
    """

    kind: TurnKind
    text: str
    reason: str = ""
    unsure: bool = False
    by: Literal["rules", "model"] = "rules"
    at: datetime | None = None

    @field_validator("at")
    @classmethod
    def _aware_utc(cls, value: datetime | None) -> datetime | None:
        return None if value is None else utc(value)


class TaskRecord(_Strict):
    """One task the agent was given, what it did and what the user said about it."""

    schema_version: int = TASK_SCHEMA_VERSION
    id: str = ""
    source: Source
    project: str
    session_id: str
    turn: int = 0
    created_at: datetime
    intent: str = Field(min_length=1)
    context: str = ""
    attempt: str = ""
    outcome: Outcome = "unknown"
    feedback: str = ""
    checks: list[Check] = Field(default_factory=list)
    turns: list[TurnNote] = Field(default_factory=list)
    actions: list[Action] = Field(default_factory=list)  # what the attempt did, in order
    skills_used: list[str] = Field(default_factory=list)
    tools_used: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    occurrences: int = Field(default=1, ge=1)
    last_seen_at: datetime | None = None
    model: str = ""  # the model that answered in the session, as the agent names it ("" unknown)
    commit: str = ""  # the git commit the session started from ("" unknown): agent replays use it

    @field_validator("created_at", "last_seen_at")
    @classmethod
    def _aware_utc(cls, value: datetime | None) -> datetime | None:
        return None if value is None else utc(value)

    @field_validator("project")
    @classmethod
    def _absolute(cls, value: str) -> str:
        if not (value.startswith("/") or re.match(r"^[A-Za-z]:[\\/]", value)):
            raise ValueError(f"project must be an absolute path, got {value!r}")
        return value

    @field_validator("schema_version")
    @classmethod
    def _known_schema(cls, value: int) -> int:
        if value > TASK_SCHEMA_VERSION:
            raise ValueError(
                f"schema_version {value} is newer than this skillopt-sleep ({TASK_SCHEMA_VERSION});"
                " upgrade"
            )
        return value

    @model_validator(mode="after")
    def _stable_id(self) -> TaskRecord:
        if not self.id:
            self.id = task_id(self.source, self.session_id, self.turn)
        return self


def task_id(source: str, session_id: str, turn: int) -> str:
    """Stable id of a task: a hash of where it came from, so re-harvesting never duplicates."""
    digest = hashlib.sha256(f"{source}\x00{session_id}\x00{turn}".encode()).hexdigest()
    return f"t_{digest[:16]}"


__all__ = [
    "ACTION_CHECK_KINDS",
    "INCONCLUSIVE_VERDICTS",
    "REFUSED_VERDICTS",
    "RETIRED_SUMMARY_FIELDS",
    "SCHEMA_VERSION",
    "TASK_SCHEMA_VERSION",
    "Action",
    "ActionKind",
    "Check",
    "CheckKind",
    "Counts",
    "Decision",
    "Edit",
    "EditEvidence",
    "EditOp",
    "EditStatus",
    "EditTarget",
    "EditVerdict",
    "Example",
    "NightSummary",
    "Outcome",
    "Proposal",
    "ProposalFile",
    "ProposalState",
    "Source",
    "Tally",
    "TaskRecord",
    "TurnKind",
    "TurnNote",
    "Unconfirmed",
    "Usage",
    "WaitingEdit",
    "task_id",
    "unconfirmed_words",
    "utc",
]
