"""Reflection: turn scored rollouts into proposed edits.

Contrastive on tasks whose K rollouts disagree (a good and a bad attempt side by side), failure
reflection on tasks that always fail (with the user's own correction). The optimizer sees intents,
attempts, feedback and judge *reasons*; never a check's source. Earlier rejected edits are shown as
already tried.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, Field, ValidationError

from ..errors import MalformedOutput
from ..models import Edit, EditOp, EditTarget, TaskRecord
from .judge import extract_json
from .replay import Rollout

OPTIMIZER_SYSTEM = (
    "You improve a coding agent's instructions. You see tasks the agent did several times, good "
    "and bad attempts, the user's own corrections and why attempts were judged bad. Propose a few "
    "short, general rules that would make the good behaviour reliable. Each rule is one line, says "
    "what to do, and is not specific to one task. Target 'skill' for how to work, 'memory' for facts "
    "and conventions of the project. Reply with JSON only: "
    '{"edits": [{"target": "skill"|"memory", "op": "add", "content": "<rule>", "rationale": "<why>"}]}'
)
MAX_EXCERPT = 1200


@dataclass(frozen=True)
class Case:
    """One task shown to the optimizer."""

    kind: str  # "contrast" or "failure"
    task: TaskRecord
    good: Rollout | None
    bad: Rollout


class _ProposedEdit(BaseModel):
    target: EditTarget
    op: EditOp = "add"
    content: str = Field(min_length=1, max_length=2000)
    old: str | None = None
    rationale: str = ""


class _Reply(BaseModel):
    edits: list[_ProposedEdit] = Field(max_length=20)


def pick_cases(tasks: Sequence[TaskRecord], rollouts: dict[str, list[Rollout]], limit: int) -> list[Case]:
    """Tasks whose scores spread most (contrast), then tasks that always fail (failure)."""
    contrast: list[tuple[float, Case]] = []
    failure: list[tuple[float, Case]] = []
    for task in tasks:
        scored = [r for r in rollouts.get(task.id, []) if r.score is not None]
        if not scored:
            continue
        best = max(scored, key=lambda r: r.score or 0.0)
        worst = min(scored, key=lambda r: r.score or 0.0)
        spread = (best.score or 0.0) - (worst.score or 0.0)
        if spread > 0:
            contrast.append((spread, Case("contrast", task, best, worst)))
        elif (best.score or 0.0) < 0.5:
            failure.append((1.0 if task.feedback else 0.5, Case("failure", task, None, worst)))
    contrast.sort(key=lambda x: (-x[0], x[1].task.id))
    failure.sort(key=lambda x: (-x[0], x[1].task.id))
    cases = [c for _, c in contrast[:limit]]
    return cases + [c for _, c in failure[: max(0, limit - len(cases))]]


def _excerpt(text: str) -> str:
    return text if len(text) <= MAX_EXCERPT else text[:MAX_EXCERPT] + "\n[...]"


def reflection_prompt(cases: Sequence[Case], current_rules: Sequence[str], tried: Sequence[Edit]) -> str:
    parts = ["## CURRENT RULES"]
    parts += [f"- {r}" for r in current_rules] or ["(none yet)"]
    parts += ["", "## ALREADY TRIED (did not help; do not propose again)"]
    parts += [f"- {e.content}" for e in tried] or ["(nothing)"]
    parts += ["", "## CASES"]
    for i, case in enumerate(cases, 1):
        t = case.task
        parts += ["", f"### Case {i} ({case.kind})", f"Task: {t.intent}"]
        if t.feedback:
            parts.append(f"User's feedback: {t.feedback}")
        if case.good is not None:
            parts += [f"Good attempt (score {case.good.score:.2f}):", _excerpt(case.good.text)]
        parts += [f"Bad attempt (score {case.bad.score:.2f}):", _excerpt(case.bad.text)]
        if case.bad.reasons:
            parts.append("Why the bad attempt was judged bad: " + "; ".join(case.bad.reasons))
    parts += ["", "Propose the rules now, as JSON."]
    return "\n".join(parts)


def parse_edits(text: str) -> list[Edit]:
    """The optimizer's reply as edits; ``MalformedOutput`` if it is not the JSON asked for."""
    try:
        reply = _Reply.model_validate_json(extract_json(text).strip())
    except ValidationError as exc:
        err = exc.errors()[0]
        raise MalformedOutput(f"optimizer reply is not the expected JSON: {err['msg']}") from exc
    return [Edit(**e.model_dump()) for e in reply.edits]


RETRY_NOTE = (
    "\n\nYour previous reply could not be parsed. Reply with the JSON object only, exactly in the "
    "shape asked for, nothing else."
)
