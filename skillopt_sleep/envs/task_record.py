"""The task-record environment: one chat without tools, scored by the item's checks.

This is what a night replays (:class:`~skillopt_sleep.rollouts.replay.Replayer` runs every rollout
through it) and the default environment of a training run.
"""

from __future__ import annotations

from ..backends.base import Backend, Message, Request
from ..checks.judge import RubricJudge, judge
from ..errors import BackendError, MalformedOutput
from ..models import TaskRecord
from ..redact import redact
from .base import EnvResult

AGENT_PREAMBLE = (
    "You are a coding agent working in the user's project. Follow the instructions below, then do "
    "the task. Answer with what you would do or write, concisely.\n\n"
)


def prompt_of(item: TaskRecord) -> str:
    """What the user says: the context excerpt, then the request."""
    return f"{item.context}\n\n{item.intent}".strip() if item.context else item.intent


def item_failed(exc: BackendError) -> bool:
    """Whether ``exc`` is this item's own failure (scored as an error) rather than a systemic one."""
    return exc.retryable or isinstance(exc, MalformedOutput)


class TaskRecordEnv:
    """A chat under the instructions, judged by every check of the item (rubrics by ``rubric``).

    Its items are a coding agent's requests: a training run frames the skill it trains as a
    coding agent's instructions (``framing``), as a night's replay does."""

    name = "task-record"
    framing = AGENT_PREAMBLE + "# Skill (SKILL.md)\n"

    def __init__(self, rubric: RubricJudge | None = None) -> None:
        self.rubric = rubric

    async def rollout(
        self,
        item: TaskRecord,
        instructions: str,
        backend: Backend,
        *,
        seed: int,
        max_tokens: int = 1024,
    ) -> EnvResult:
        asked = (Message("user", prompt_of(item)),)
        request = Request(
            role="target",
            system=instructions,
            messages=asked,
            max_tokens=max_tokens,
            seed=seed,
            tag="replay",
        )
        try:
            done = await backend.complete(request)
            text = redact(done.text)  # before it is judged, cached or shown to anyone
            verdict = await judge(item, text, self.rubric)
        except BackendError as exc:
            if not item_failed(exc):
                raise
            return EnvResult.errored(exc.one_line(), asked)
        conversation = (*asked, Message("assistant", text))
        return EnvResult(
            1.0 if verdict.passed else 0.0, verdict.score, verdict.reasons, conversation
        )
