"""The same request seen again: what makes two records one task, and how a later sighting (or a
re-read of the same turn) updates the task already stored. Pure: no IO, no clock."""

from __future__ import annotations

import hashlib
from typing import Any

from ..models import TaskRecord, TurnNote
from .feedback import combine_outcomes
from .mine import FEEDBACK_CHARS
from .session import cut


def intent_key(record: TaskRecord) -> str:
    """What makes two records the same task: the project and the request, normalised."""
    norm = " ".join(record.intent.lower().split()).rstrip(".!?").strip()
    return hashlib.sha256(f"{record.project}\x00{norm}".encode()).hexdigest()[:24]


def _union(a: list[str], b: list[str]) -> list[str]:
    return a + [x for x in b if x not in a]


def _union_turns(a: list[TurnNote], b: list[TurnNote]) -> list[TurnNote]:
    seen = {(t.kind, t.text) for t in a}
    return a + [t for t in b if (t.kind, t.text) not in seen]


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
        "turns": new.turns if new.id == existing.id else _union_turns(existing.turns, new.turns),
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
