"""Judging one rollout: every rule check of DESIGN.md, and rubrics through the judge backend.

Reasons are written for the optimizer: they say what kind of thing went wrong, never the check's
source (a regex copied into a skill is gaming, not learning).
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from pydantic import BaseModel, Field, ValidationError

from ..action_models import ACTION_KINDS
from ..errors import MalformedOutput
from ..models import Check, TaskRecord
from .action_judge import Effects, action_check

# An async function that scores a rubric: (rubric, task, answer) -> (score, reason).
RubricJudge = Callable[[str, TaskRecord, str], Awaitable["tuple[float, str]"]]


@dataclass(frozen=True)
class Verdict:
    """The judged rollout: score in [0, 1], whether every check passed, and why."""

    score: float
    passed: bool
    reasons: tuple[str, ...]


def _norm(text: str, check: Check) -> tuple[str, str]:
    value = str(check.value)
    return (text, value) if check.case_sensitive else (text.lower(), value.lower())


def extract_json(text: str) -> str:
    fence = re.search(r"```(?:json)?\s*\n(.*?)```", text, re.DOTALL)
    return fence.group(1) if fence else text


def rule_check(check: Check, text: str) -> tuple[bool, str]:
    """A pure rule check: (passed, reason for the optimizer)."""
    kind = check.kind
    if kind == "max_chars":
        n = len(text)
        return n <= int(check.value or 0), f"answer too long ({n} characters)"
    if kind == "json_valid":
        try:
            json.loads(extract_json(text))
            return True, "valid JSON"
        except ValueError:
            return False, "answer is not valid JSON"
    hay, needle = _norm(text, check)
    if kind == "contains":
        return needle in hay, "answer lacks something the user asked for"
    if kind == "not_contains":
        return needle not in hay, "answer contains something the user rejected"
    if kind == "starts_with":
        return hay.lstrip().startswith(needle), "answer does not start the way the user wants"
    if kind == "equals":
        return hay.strip() == needle.strip(), "answer is not the exact expected answer"
    if kind == "heading":
        pattern = rf"^\s{{0,3}}#{{1,6}}\s+{re.escape(needle.strip())}\s*#*\s*$"
        return re.search(
            pattern, hay, re.MULTILINE
        ) is not None, "answer lacks the expected heading"
    if kind == "regex":
        flags = 0 if check.case_sensitive else re.IGNORECASE
        return re.search(
            str(check.value), text, flags | re.MULTILINE
        ) is not None, "answer does not have the expected form"
    raise ValueError(f"not a rule check: {kind}")


async def judge(
    task: TaskRecord, text: str, rubric: RubricJudge | None, effects: Effects | None = None
) -> Verdict:
    """Score ``text`` against every check of ``task`` (weighted mean of pass/fail or rubric scores).

    Action checks are scored on ``effects`` (what the attempt did); without them (a text replay)
    only the command checks apply, to the commands the answer says it would run. A rollout on
    which no check applies cannot be judged: ``MalformedOutput``, an error, never a 0.
    """
    total = weight = 0.0
    reasons: list[str] = []
    passed_all = True
    skipped = 0
    for check in task.checks:
        if check.kind in ACTION_KINDS:
            result = action_check(check, effects or Effects(from_text=True), text)
            if result is None:
                skipped += 1
                continue
            ok, reason = result
            score = 1.0 if ok else 0.0
        elif check.kind == "rubric":
            if rubric is None:
                raise MalformedOutput("a rubric check needs a judge backend")
            score, reason = await rubric(str(check.value), task, text)
            ok = score >= 0.5
        else:
            ok, reason = rule_check(check, text)
            score = 1.0 if ok else 0.0
        total += score * check.weight
        weight += check.weight
        passed_all = passed_all and ok
        if not ok:
            reasons.append(reason)
    if skipped and skipped == len(task.checks):
        raise MalformedOutput(
            "no check of this task applies to a text replay; it needs an agent replay"
        )
    return Verdict(total / weight if weight else 0.0, passed_all, tuple(dict.fromkeys(reasons)))


class RubricReply(BaseModel):
    """What the judge model must answer."""

    score: float = Field(ge=0, le=1)
    reason: str = ""


RUBRIC_SYSTEM = (
    "You grade one answer of a coding agent against a short rubric. Reply with JSON only: "
    '{"score": <number from 0 to 1>, "reason": "<one sentence>"}.'
)


def rubric_prompt(rubric: str, task: TaskRecord, answer: str) -> str:
    return f"Rubric: {rubric}\n\nTask: {task.intent}\n\nAnswer:\n{answer}\n"


def parse_rubric_reply(text: str) -> RubricReply:
    try:
        return RubricReply.model_validate_json(extract_json(text).strip())
    except ValidationError as exc:
        raise MalformedOutput(
            f"judge reply is not the expected JSON: {exc.errors()[0]['msg']}"
        ) from exc
