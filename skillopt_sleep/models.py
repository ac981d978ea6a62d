"""Pydantic models for what crosses a trust boundary: task records, checks, edits, proposals.

Everything here is validated when it is made (``extra="forbid"``), so a bad record or check is an
error at import time, never a silent 0 at night. Inside the pipeline, frozen dataclasses are used.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import datetime, timezone
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field, field_validator, model_validator

from .counting import Counts as Counts  # re-exported: the records below hold both
from .counting import Usage as Usage

SCHEMA_VERSION = 1  # of proposal.json
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
Source = Literal["claude-code", "codex", "manual", "sample", "import"]
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
EditTarget = Literal["skill", "memory", "CLAUDE.md", "AGENTS.md"]
EditOp = Literal["add", "replace", "remove"]
EditStatus = Literal["proposed", "applied", "rejected"]
Decision = Literal["accept", "reject", "no_evidence", "budget_exhausted", "outage"]
EditVerdict = Literal[
    "accepted",
    "harmful",
    "worse",
    "no_effect",
    "inconclusive",
    "conflict",
    "over_budget",
    "no_evidence",
]
ProposalState = Literal["staged", "adopted", "rejected", "rolled_back", "superseded"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


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


class Edit(_Strict):
    """A proposed change to a skill or memory file, as the optimizer proposes it.

    ``target`` "memory" means: this rule, once, into every memory file the project has
    (CLAUDE.md and AGENTS.md), inside the managed block.
    """

    target: EditTarget
    op: EditOp = "add"
    content: str = ""
    old: str | None = None
    rationale: str = ""
    status: EditStatus = "proposed"
    reason: str = ""
    cites: list[str] = Field(
        default_factory=list
    )  # ids of the tasks the optimizer says it addresses

    def key(self) -> str:
        """Identity used to recognise the same edit across nights."""
        norm = " ".join(self.content.lower().split())
        return hashlib.sha256(f"{self.target}|{self.op}|{norm}".encode()).hexdigest()[:16]


class ProposalFile(_Strict):
    """One live file a proposal would change."""

    name: str  # "SKILL.md", "CLAUDE.md", "AGENTS.md"
    live_path: str  # absolute path of the live file
    base_sha256: str | None  # hash of the live file when staged; None if it did not exist
    candidate: str  # path of the candidate, relative to the proposal dir
    diff: str  # path of the unified diff, relative to the proposal dir


class Example(_Strict):
    """One task an edit was made for, with an answer from before the edit and one from after."""

    task_id: str
    request: str
    before: str = ""
    before_passed: bool = False
    after: str = ""
    after_passed: bool = False


class EditEvidence(_Strict):
    """How one edit was judged tonight: where it was tested, on how many rollouts, and the verdict.

    *Efficacy* is measured where the edit should act (the tasks it cites and unseen tasks of the
    same kind), *harm* on every other task; all rollouts are fresh, drawn tonight.
    """

    edit: Edit
    round: int = 1
    verdict: EditVerdict
    reason: str = ""
    cited: list[str] = Field(default_factory=list)
    unseen: list[str] = Field(default_factory=list)
    harm_tasks: list[str] = Field(default_factory=list)
    efficacy: Counts = Field(default_factory=Counts)
    unseen_counts: Counts = Field(default_factory=Counts)
    harm: Counts = Field(default_factory=Counts)
    p_efficacy: float | None = None
    p_unseen: float | None = None
    p_harm: float | None = None
    alpha: float | None = None  # the level this edit's efficacy p-value was held to tonight
    e_value: float | None = None  # tonight's e-value for efficacy
    e_total: float | None = None  # the product over the nights this edit was tested
    looks: int = 0
    errored: int = 0
    example: Example | None = None  # a task it was made for, answered before and after


# Edit verdicts as the tally counts them: refused (conclusively, or in conflict with a better edit)
# and inconclusive (evidence kept for a later night); "accepted" counts as itself.
REFUSED_VERDICTS = ("harmful", "worse", "no_effect", "conflict")
INCONCLUSIVE_VERDICTS = ("inconclusive", "over_budget", "no_evidence")
# Fields of nights judged by the older whole-holdout gate: an older record still loads, without them.
RETIRED_SUMMARY_FIELDS = ("holdout_before", "holdout_after", "gain", "ci_low", "ci_high", "p_value")


class Tally(_Strict):
    """How tonight's edits fared, edit by edit: accepted, refused, inconclusive."""

    accepted: int = 0
    refused: int = 0
    inconclusive: int = 0

    def line(self) -> str:
        """``2 accepted, 1 refused, 0 inconclusive``."""
        return f"{self.accepted} accepted, {self.refused} refused, {self.inconclusive} inconclusive"


class NightSummary(_Strict):
    """The stable machine-readable result of one night (``run --json`` prints exactly this)."""

    night_id: str
    project: str
    started_at: datetime
    finished_at: datetime | None = None
    decision: Decision
    reason: str = ""
    dry_run: bool = False
    n_train: int = 0
    n_holdout: int = 0
    errored_rollouts: int = 0
    edits: list[Edit] = Field(default_factory=list)
    rejected_edits: list[Edit] = Field(default_factory=list)
    evidence: list[EditEvidence] = Field(default_factory=list)
    saved_rollouts: int = 0  # rollouts that sequential tests did not need to draw
    # the edit gate's fresh rollouts by part (baseline, efficacy, unseen, harm, joint), and what the
    # early stops of each part's tests saved against their full course
    gate_rollouts: dict[str, int] = Field(default_factory=dict)
    gate_saved: dict[str, int] = Field(default_factory=dict)
    skipped: list[str] = Field(default_factory=list)
    proposal_dir: str | None = None
    calls: int = 0
    tokens: int = 0
    cost_usd: float = 0.0
    usage_by_role: dict[str, Usage] = Field(default_factory=dict)
    target: str = ""  # "backend:model" the replays ran on (what an adopted rule was validated on)
    notes: list[str] = Field(
        default_factory=list
    )  # what else the night did (re-tests of adopted rules)

    @model_validator(mode="before")
    @classmethod
    def _older_records(cls, data: Any) -> Any:
        """A stored night may carry the retired holdout gate's fields, and carries its tally: both are
        dropped on load (the tally is computed again from the evidence)."""
        if isinstance(data, dict):
            data = {
                k: v for k, v in data.items() if k not in RETIRED_SUMMARY_FIELDS and k != "tally"
            }
        return data

    @computed_field  # type: ignore[prop-decorator]
    @property
    def tally(self) -> Tally:
        """How tonight's edits fared, counted from their evidence."""
        verdicts = [str(e.verdict) for e in self.evidence]
        return Tally(
            accepted=verdicts.count("accepted"),
            refused=sum(v in REFUSED_VERDICTS for v in verdicts),
            inconclusive=sum(v in INCONCLUSIVE_VERDICTS for v in verdicts),
        )

    def to_json(self) -> str:
        return json.dumps(self.model_dump(mode="json"), indent=2, sort_keys=True)

    @property
    def usage(self) -> Usage:
        """The night's usage over every role."""
        return sum(self.usage_by_role.values(), Usage())

    def saving_note(self) -> str:
        """What prompt caching and batches saved tonight, in one line; "" when nothing."""
        u = self.usage
        if u.saved_usd <= 0 or u.list_cost_usd <= 0:
            return ""
        how = []
        if u.cache_read_tokens or u.cache_write_tokens:
            how.append(
                f"prompt caching ({u.cache_read_tokens:,} tokens read from the cache, "
                f"{u.cache_write_tokens:,} written)"
            )
        if u.batched_calls:
            how.append(f"batches ({u.batched_calls} calls at half price)")
        return (
            f"saved ${u.saved_usd:.4f} ({u.saved_usd / u.list_cost_usd:.0%} of ${u.list_cost_usd:.4f} "
            f"at the full price) with {' and '.join(how) or 'discounts'}"
        )


class Proposal(_Strict):
    """``proposal.json``: what a staged night would change, and how to check it is still safe."""

    schema_version: int = SCHEMA_VERSION
    night_id: str
    project: str
    created_at: datetime
    state: ProposalState = "staged"
    files: list[ProposalFile]
    summary: NightSummary
