"""The epoch boundary: the slow update and the meta skill.

*Slow update*: a sample of training items is replayed under the skill the epoch started with and
under the current one; each item is sorted into improved, regressed, still failing or still
passing, and the optimizer, shown the regressed, still-failing and improved ones, proposes
guidance as ordinary edits, which go through the same gate as a step's.

*Meta skill*: the optimizer's own notes about optimizing this skill (what helped, what did not,
what to try), rewritten at each boundary and shown in every later reflection.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field, ValidationError

from ..checks.judge import extract_json
from ..errors import MalformedOutput
from ..models import Edit, TaskRecord
from ..optimize.reflect import Case
from ..redact import redact
from ..rollouts.replay import Rollout
from .config import StepRecord

GROUPS = ("improved", "regressed", "still failing", "still passing")
MAX_NOTES = 4000


def _rate(rs: Sequence[Rollout]) -> float | None:
    scored = [r for r in rs if r.score is not None]
    return sum(r.passed for r in scored) / len(scored) if scored else None


def _pick(rs: Sequence[Rollout], passed: bool) -> Rollout | None:
    scored = [r for r in rs if r.score is not None]
    hits = [r for r in scored if r.passed == passed]
    if hits:
        return hits[0]
    return scored[0] if scored else None


def compare(
    items: Sequence[TaskRecord], before: dict[str, list[Rollout]], after: dict[str, list[Rollout]]
) -> dict[str, list[tuple[TaskRecord, Case | None]]]:
    """Each item sorted by its pass rate before (the epoch's start) and after (now), with the case
    the optimizer is shown for it (None for still passing)."""
    out: dict[str, list[tuple[TaskRecord, Case | None]]] = {g: [] for g in GROUPS}
    for item in items:
        b, a = _rate(before.get(item.id, [])), _rate(after.get(item.id, []))
        if b is None or a is None:
            continue
        now, then = after[item.id], before[item.id]
        if a > b:
            out["improved"].append(
                (item, Case("improved", item, _pick(now, True), _pick(then, False)))
            )
        elif a < b:
            out["regressed"].append(
                (item, Case("regressed", item, _pick(then, True), _pick(now, False)))
            )
        elif a < 0.5:
            out["still failing"].append(
                (item, Case("still failing", item, None, _pick(now, False)))
            )
        else:
            out["still passing"].append((item, None))
    return out


def comparison_head(groups: dict[str, list[tuple[TaskRecord, Case | None]]]) -> str:
    counts = ", ".join(f"{len(groups[g])} {g}" for g in GROUPS)
    return f"## EPOCH COMPARISON\nThe epoch's start against now, on the same items: {counts}.\n\n"


class _Notes(BaseModel):
    notes: str = Field(min_length=1, max_length=MAX_NOTES)


def parse_notes(text: str) -> str:
    """The notes of a meta-skill reply, any secret in them redacted (they are kept and shown)."""
    try:
        return redact(_Notes.model_validate_json(extract_json(text).strip()).notes.strip())
    except ValidationError as exc:
        raise MalformedOutput(
            f"notes reply is not the expected JSON: {exc.errors()[0]['msg']}"
        ) from exc


def meta_prompt(
    accepted: Sequence[Edit], refused: Sequence[Edit], history: Sequence[StepRecord], notes: str
) -> str:
    parts = ["## ACCEPTED RULES"]
    parts += [f"- {e.content}" for e in accepted] or ["(none yet)"]
    parts += ["", "## REFUSED RULES"]
    parts += [f"- {e.content} ({e.reason})" for e in refused] or ["(none)"]
    parts += ["", "## VALIDATION BY STEP"]
    parts += [
        f"- {h.kind} {h.step}: {h.val if h.val is None else round(h.val, 3)}, {len(h.accepted)} accepted"
        for h in history
    ] or ["(no step yet)"]
    parts += [
        "",
        "## NOTES SO FAR",
        notes.strip() or "(none)",
        "",
        "Write the new notes now, as JSON.",
    ]
    return "\n".join(parts)
