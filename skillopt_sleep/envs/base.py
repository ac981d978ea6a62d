"""The environment seam: one rollout of one item under a skill, scored.

An environment is what a training run and a night replay items *through*: it turns an item, the
instructions under test and a backend into one scored attempt. Shipped: :mod:`.task_record`
(a chat scored by the item's checks, what a night replays), :mod:`.qa` (a question scored by
exact match and token F1) and :mod:`.agent` (the real agent acting in a sandboxed copy of the
project, scored on what it did). A user's own is named ``module:Class``
(:func:`..registry.load_env`). The backend an environment is handed is a
:class:`CalledBackend`: the run's backend seen through its call policy (budget, retries,
breaker, redaction).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ..backends.base import Backend, Completion, Health, Message, Request
from ..backends.budget import Budget
from ..models import TaskRecord


class Instructions(str):
    """The instructions a rollout runs under: the text a chat sends as its system prompt, and the
    files it was made of (``SKILL.md``, ``CLAUDE.md``, ``AGENTS.md``), which an acting
    environment writes where its agent reads them. A plain ``str`` is its own only file, the
    skill (:func:`files_of`). ``skill_at`` names where the project's skill lives, relative to it
    (its folder and its copies in other agents' folders; empty when unknown)."""

    files: Mapping[str, str]
    skill_at: tuple[str, ...]

    def __new__(
        cls, text: str, files: Mapping[str, str], skill_at: tuple[str, ...] = ()
    ) -> Instructions:
        made = super().__new__(cls, text)
        made.files = dict(files)
        made.skill_at = tuple(skill_at)
        return made


def files_of(instructions: str) -> Mapping[str, str]:
    """The instruction files behind ``instructions`` (a bare text is the skill)."""
    if isinstance(instructions, Instructions):
        return instructions.files
    return {"SKILL.md": instructions}


def skill_at_of(instructions: str) -> tuple[str, ...]:
    """Where the skill behind ``instructions`` lives in its project (empty when unknown)."""
    return instructions.skill_at if isinstance(instructions, Instructions) else ()


@dataclass(frozen=True)
class EnvResult:
    """One scored attempt.

    ``hard`` is 1.0 when the attempt passed and 0.0 when it did not; ``soft`` a score in [0, 1]
    (partial credit); both are None when the attempt *errored* (``error`` says why), which is no
    evidence, never a 0. ``fail_reason`` says, for the optimizer, what went wrong (never a check's
    source). ``conversation`` is the exchange as sent and answered; ``actions`` what the attempt
    did, for environments that act (empty for a chat); ``extras`` the environment's own fields of
    the attempt (a seed's ``RolloutResult.extras``), JSON values kept in the run's record.
    """

    hard: float | None
    soft: float | None
    fail_reason: tuple[str, ...] = ()
    conversation: tuple[Message, ...] = ()
    error: str | None = None
    actions: tuple[Any, ...] = ()
    extras: Mapping[str, Any] = field(default_factory=dict, compare=False)

    @property
    def answer(self) -> str:
        """The last assistant turn of the conversation ("" when there is none)."""
        said = [m.content for m in self.conversation if m.role == "assistant"]
        return said[-1] if said else ""

    @classmethod
    def errored(cls, reason: str, conversation: tuple[Message, ...] = ()) -> EnvResult:
        return cls(None, None, (), conversation, error=reason)


@runtime_checkable
class Environment(Protocol):
    """Rolls out one item under given instructions through a backend.

    Contract:

    - ``rollout(item, instructions, backend, seed=..., max_tokens=...)`` makes one attempt at
      ``item`` with ``instructions`` (the skill text, or a night's system text) as the system
      prompt, through ``backend``, and scores it. ``seed`` names the sample: the same seed under
      two instructions is a paired draw where the backend honours seeds.
    - **Failure policy.** One bad item never stops a run and never counts as a 0: a model call
      that failed after its retries (``TransientError``), an answer that cannot be parsed
      (``MalformedOutput``) or an item the environment cannot score comes back as
      ``EnvResult.errored(reason)`` -- excluded from every score and counted. Only *systemic*
      failures raise: ``BudgetExhausted`` (stop cleanly), ``AuthError``, ``BadRequestError``,
      ``BackendUnavailable`` and ``BackendOutage`` (nothing else can succeed either).
    - ``backend`` is already wrapped with the run's budget, retries, circuit breaker and
      redaction: an environment calls ``backend.complete`` and nothing else that spends, except
      an environment whose work is not a model call (an agent run): it reserves and records its
      cost in ``backend.budget`` (when there is one) under its own role.
    - ``instructions`` may be an :class:`Instructions` (the files behind the text).
    - A run's ``extras`` (``--extras``) reach an environment that takes them: a constructor with
      an ``extras`` keyword (a ``module:Class`` is made with it), else ``configure(extras)``,
      called once before its items are asked for (:func:`.extras.configure`).
    - ``name`` names the environment in run records; an optional ``cache_tag(item)`` (a string)
      sets its rollouts apart in a replay cache from a chat's of the same item and instructions.
    """

    name: str

    async def rollout(
        self,
        item: TaskRecord,
        instructions: str,
        backend: Backend,
        *,
        seed: int,
        max_tokens: int = 1024,
    ) -> EnvResult: ...


Call = Callable[[Backend, Request], Awaitable[Completion]]


class CalledBackend:
    """``backend`` whose every ``complete`` goes through ``call`` (what environments are handed);
    ``budget`` is the run's, for an environment that spends outside a model call (an agent run)."""

    def __init__(self, backend: Backend, call: Call, budget: Budget | None = None) -> None:
        self.backend, self.call, self.budget = backend, call, budget
        self.name: str = backend.name
        self.model: str = backend.model

    async def complete(self, request: Request) -> Completion:
        return await self.call(self.backend, request)

    async def check(self) -> Health:
        return await self.backend.check()
