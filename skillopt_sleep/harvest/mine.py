"""Turns of a session become TaskRecords: the request, what the agent did, what the user said.

A task is a turn whose prompt is a request; the prompts after it that correct or praise it are
its ``feedback`` (they are not tasks of their own). Every text field is redacted here, before
anything leaves this module. Pure: no IO, no clock.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..models import Check, TaskRecord
from ..redact import redact
from .feedback import (
    FeedbackKind,
    candidate_checks,
    classify,
    combine_outcomes,
    outcome_of,
    validated,
)
from .session import PROMPT_CHARS, SessionChunk, Turn, cut

ATTEMPT_CHARS = 4000
CONTEXT_CHARS = 2000
FEEDBACK_CHARS = 2000
_REDACT_SLACK = 512  # redact a little more than is kept, so no secret is cut in half first


@dataclass
class TaskGroup:
    """A task turn and the feedback turns that follow it."""

    task: Turn
    feedback: list[tuple[Turn, FeedbackKind]] = field(default_factory=list)

    @property
    def kinds(self) -> list[FeedbackKind]:
        return [kind for _, kind in self.feedback]


def group_turns(turns: list[Turn]) -> list[TaskGroup]:
    """Split turns into tasks and their feedback. A turn without any agent work that is not
    feedback (``/clear``, an interrupted prompt) is dropped: there is nothing to learn from it."""
    groups: list[TaskGroup] = []
    for turn in turns:
        kind = classify(turn.prompt) if groups else "none"
        if kind != "none":
            groups[-1].feedback.append((turn, kind))
        elif turn.has_work:
            groups.append(TaskGroup(turn))
    return groups


def safe(text: str, limit: int, *, tail: bool = False) -> str:
    """``text`` redacted and cut to ``limit`` characters."""
    window = cut(text, limit + _REDACT_SLACK, tail=tail)
    return cut(redact(window), limit, tail=tail)


def relative(path: str, project: str) -> str:
    """A file path relative to the project when it lies inside it."""
    base = project.rstrip("/\\")
    if path.startswith((base + "/", base + "\\")):
        return path[len(base) + 1 :]
    return path


def render_attempt(turn: Turn, project: str) -> str:
    """What the agent did, in order: its words, tool calls, outputs, errors, files written."""
    lines: list[str] = []
    for i, step in enumerate(turn.steps):
        if i == len(turn.head) and turn.dropped_steps:
            lines.append(f"[... {turn.dropped_steps} steps omitted ...]")
        text = step.text.replace(project.rstrip("/") + "/", "") if project else step.text
        prefix = {"text": "", "tool": "> ", "output": "  ", "error": "[error] ", "file": "[wrote] "}
        lines.append(prefix[step.kind] + text)
    files = _files(turn, project)
    if files:
        lines.append("Files changed: " + ", ".join(files))
    return "\n".join(lines)


def _files(turn: Turn, project: str) -> list[str]:
    out: list[str] = []
    for path in turn.files:
        rel = relative(path, project)
        if rel not in out:
            out.append(rel)
    return out


def mine_checks(group: TaskGroup, attempt: str) -> list[Check]:
    """Checks stated by the corrections of a task, validated against the corrected attempt."""
    found: list[Check] = []
    for turn, kind in group.feedback:
        if kind in ("correction", "mixed"):
            for check in candidate_checks(turn.prompt):
                check = (
                    check.model_copy(update={"value": redact(str(check.value))})
                    if isinstance(check.value, str)
                    else check
                )
                if all((c.kind, c.value) != (check.kind, check.value) for c in found):
                    found.append(check)
    return validated(found, attempt)


def group_record(group: TaskGroup, chunk: SessionChunk, fallback_time: datetime) -> TaskRecord:
    """One TaskRecord from a task and its feedback. All text is redacted."""
    task, project = group.task, chunk.state.project
    attempt = safe(render_attempt(task, project), ATTEMPT_CHARS)
    feedback = "\n".join(safe(turn.prompt, FEEDBACK_CHARS) for turn, _ in group.feedback)
    tags = list(task.tags)
    if any(k in ("correction", "mixed") for k in group.kinds):
        tags.append("corrected")
    if task.errors:
        tags.append("tool-error")
    return TaskRecord(
        source=chunk.source,  # type: ignore[arg-type]
        project=project,
        session_id=chunk.state.session_id,
        turn=task.index,
        created_at=task.timestamp or fallback_time,
        intent=safe(task.prompt, PROMPT_CHARS) or "(empty prompt)",
        context=safe(task.context, CONTEXT_CHARS),
        attempt=attempt,
        outcome=outcome_of(group.kinds),
        feedback=feedback,
        checks=mine_checks(group, attempt),
        skills_used=list(task.skills),
        tools_used=list(task.tools),
        tags=tags,
    )


def mine_chunk(chunk: SessionChunk, fallback_time: datetime) -> list[TaskRecord]:
    """TaskRecords of one read of a session; none for replays or sessions without a project.

    ``fallback_time`` dates turns whose records carry no timestamp (the file's mtime).
    """
    state = chunk.state
    if state.replay or not state.session_id or not _absolute(state.project):
        return []
    return [group_record(g, chunk, fallback_time) for g in group_turns(chunk.turns)]


def _absolute(path: str) -> bool:
    return path.startswith("/") or re.match(r"^[A-Za-z]:[\\/]", path) is not None


# -- the same request seen again ---------------------------------------------------------------


def intent_key(record: TaskRecord) -> str:
    """What makes two records the same task: the project and the request, normalised."""
    norm = " ".join(record.intent.lower().split()).rstrip(".!?").strip()
    return hashlib.sha256(f"{record.project}\x00{norm}".encode()).hexdigest()[:24]


def _union(a: list, b: list) -> list:
    return a + [x for x in b if x not in a]


def _join_feedback(a: str, b: str) -> str:
    parts = [p for p in a.split("\n") if p]
    for line in b.split("\n"):
        if line and line not in parts:
            parts.append(line)
    return cut("\n".join(parts), 2 * FEEDBACK_CHARS)


def merge_records(existing: TaskRecord, new: TaskRecord, *, seen_before: bool) -> TaskRecord:
    """``existing`` updated with ``new``: a re-read of a turn already stored (``seen_before``)
    adds what is new in it; another sighting of the same request adds one occurrence."""
    if new.id == existing.id and intent_key(new) != intent_key(existing):
        return new  # the transcript was rewritten: this turn is now another request
    checks = existing.checks + [
        c
        for c in new.checks
        if all((c.kind, c.value) != (e.kind, e.value) for e in existing.checks)
    ]
    update: dict[str, Any] = {
        "feedback": _join_feedback(existing.feedback, new.feedback),
        "outcome": combine_outcomes(existing.outcome, new.outcome),
        "checks": checks,
        "skills_used": _union(existing.skills_used, new.skills_used),
        "tools_used": _union(existing.tools_used, new.tools_used),
        "tags": _union(existing.tags, new.tags),
    }
    if new.id == existing.id:  # the first sighting, read again with more of the turn
        update.update(
            attempt=new.attempt or existing.attempt, context=new.context or existing.context
        )
    last = max(d for d in (existing.last_seen_at, existing.created_at, new.created_at) if d)
    if not seen_before:
        update["occurrences"] = existing.occurrences + 1
        update["last_seen_at"] = last
        update["created_at"] = min(existing.created_at, new.created_at)
    elif existing.occurrences > 1:
        update["last_seen_at"] = last
    return TaskRecord.model_validate({**existing.model_dump(), **update})
