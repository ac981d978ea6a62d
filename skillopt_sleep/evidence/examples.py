"""An example for the morning report: a task an edit was made for, answered before and after it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..models import Example, TaskRecord
from ..rollouts.replay import Rollout

MAX_ANSWER = 600  # characters of an answer shown


def _cut(text: str) -> str:
    return text if len(text) <= MAX_ANSWER else text[: MAX_ANSWER - 1] + "…"


def _pick(rollouts: Sequence[Rollout], passed: bool) -> Rollout | None:
    scored = [r for r in rollouts if r.score is not None]
    return next((r for r in scored if r.passed == passed), scored[0] if scored else None)


def example_of(
    tasks: Sequence[TaskRecord],
    before: Mapping[str, Sequence[Rollout]],
    after: Mapping[str, Sequence[Rollout]],
) -> Example | None:
    """The first task whose answers show the change best: a failed answer before and a passing
    one after, else any scored pair; None when no task has a scored answer on both sides."""
    best: Example | None = None
    for task in tasks:
        b, a = _pick(before.get(task.id, ()), False), _pick(after.get(task.id, ()), True)
        if b is None or a is None:
            continue
        found = Example(
            task_id=task.id,
            request=_cut(task.intent),
            before=_cut(b.shown()),
            before_passed=b.passed,
            after=_cut(a.shown()),
            after_passed=a.passed,
        )
        if not b.passed and a.passed:
            return found
        best = best or found
    return best
