"""Replay: K rollouts per task under given instructions, concurrent under a limit, cached.

The cache key is (task, its checks, the system text — skill and memory —, sample, backend, model),
so a night whose skill and tasks did not change pays nothing, and a rerun of an interrupted night
resumes from what was already replayed. A rollout whose call failed is an *error* (score None):
excluded from scoring and counted, never a 0. A budget stop leaves the rest *skipped*.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import hashlib
import json
import random
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..backends.base import Backend, Completion, Message, Request
from ..backends.budget import Budget
from ..backends.retry import CircuitBreaker, RetryPolicy, call_with_retry
from ..checks.judge import RubricJudge
from ..clock import Clock
from ..envs.base import CalledBackend, Environment, EnvResult, Instructions
from ..envs.task_record import TaskRecordEnv
from ..errors import BackendError, BudgetExhausted, MalformedOutput
from ..models import Action, TaskRecord
from ..redact import redact
from ..store import Store
from .instructions import REPLAY_SYSTEM as REPLAY_SYSTEM  # the names the loops import
from .instructions import system_text as system_text

if TYPE_CHECKING:
    from .agent_dispatch import AgentReplays

MAX_ACTIONS_SHOWN = 12


@dataclass(frozen=True)
class Rollout:
    """One replay of one task: its answer, what it did (an acting environment's commands and
    file changes; none for a chat) and its verdict, or the error that prevented it."""

    task_id: str
    sample: int
    text: str
    score: float | None
    passed: bool = False
    reasons: tuple[str, ...] = ()
    error: str | None = None
    cached: bool = False
    actions: tuple[Action, ...] = ()
    # the exchange as sent and answered, and the environment's own fields: a training run's
    # record and its analysts read them; the night's cache and artifacts keep neither
    conversation: tuple[Message, ...] = field(default=(), compare=False)
    extras: Mapping[str, Any] = field(default_factory=dict, compare=False)

    def cached_form(self) -> dict[str, object]:
        """What the replay cache keeps of this rollout."""
        return {
            "text": self.text,
            "score": self.score,
            "passed": self.passed,
            "reasons": list(self.reasons),
            "actions": [a.model_dump(mode="json") for a in self.actions],
        }

    def as_json(self, conversation: bool = False) -> dict[str, object]:
        """Every field of the rollout, as JSON (what the night's artifacts record); with
        ``conversation``, also the exchange and the environment's extras, secrets redacted."""
        out = {k: v for k, v in self.__dict__.items() if k not in ("conversation", "extras")}
        out.update(self.cached_form())
        if conversation:
            out["conversation"] = [
                {"role": m.role, "content": redact(m.content)} for m in self.conversation
            ]
            out["extras"] = _redacted(dict(self.extras))
        return out

    @classmethod
    def from_cache(cls, task_id: str, sample: int, hit: dict[str, Any]) -> Rollout:
        return cls(
            task_id,
            sample,
            str(hit["text"]),
            hit["score"],
            bool(hit["passed"]),
            tuple(hit["reasons"]),
            cached=True,
            actions=tuple(Action.model_validate(a) for a in hit.get("actions") or ()),
        )

    def shown(self) -> str:
        """The answer and, for an acting rollout, what it did: as the optimizer and the morning
        report see the attempt."""
        if not self.actions:
            return self.text
        did = [_did(a) for a in self.actions[:MAX_ACTIONS_SHOWN]]
        more = len(self.actions) - len(did)
        did += [f"{more} more"] if more > 0 else []
        return f"{self.text}\n[what it did: {'; '.join(did)}]"

    @classmethod
    def of(cls, task_id: str, sample: int, result: EnvResult) -> Rollout:
        """The rollout an environment's scored attempt makes."""
        return cls(
            task_id,
            sample,
            result.answer,
            result.soft,
            result.hard == 1.0,
            result.fail_reason,
            actions=tuple(a for a in result.actions if isinstance(a, Action)),
            conversation=result.conversation,
            extras=result.extras,
        )


def _redacted(value: Any) -> Any:
    """A JSON value with every secret in its strings replaced by a placeholder."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, Mapping):
        return {str(k): _redacted(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_redacted(v) for v in value]
    return value


def _did(action: Action) -> str:
    if action.kind != "command":
        return f"{action.kind} {action.path}"
    status = "" if action.exit_code is None else f" (exit {action.exit_code})"
    return f"ran `{action.command[:200]}`{status}"


@dataclass
class Calls:
    """How model calls are made tonight: budget checked and retries applied to every call, one
    circuit breaker over all of them (a backend that answers nothing stops the night:
    ``BackendOutage``), and secrets redacted both ways: none leaves in a request (the user's own
    CLAUDE.md may hold one), none comes back in an answer to be cached, judged, logged or shown
    to the optimizer."""

    budget: Budget
    retry: RetryPolicy
    rng: random.Random
    sleep: Callable[[float], object] = asyncio.sleep
    breaker: CircuitBreaker = field(default_factory=CircuitBreaker)

    async def __call__(
        self, backend: Backend, request: Request, *, raw_reply: bool = False
    ) -> Completion:
        """The answer, redacted; ``raw_reply`` leaves it as is for a caller that must judge what
        it carries (the guards refuse a rule holding a secret) and redacts whatever it keeps."""
        done = await call_with_retry(
            backend,
            redacted_request(request),
            budget=self.budget,
            policy=self.retry,
            rng=self.rng,
            sleep=self.sleep,  # type: ignore[arg-type]
            breaker=self.breaker,
        )
        return done if raw_reply else dataclasses.replace(done, text=redact(done.text))


def redacted_request(request: Request) -> Request:
    """``request`` with every secret in its system text and messages replaced by a placeholder."""
    messages = tuple(Message(m.role, redact(m.content)) for m in request.messages)
    return dataclasses.replace(request, system=_redact_cached(request.system), messages=messages)


@functools.lru_cache(maxsize=32)
def _redact_cached(text: str) -> str:
    return redact(text)  # a night sends the same skill and memory text in every replay


@dataclass
class ReplayStats:
    calls: int = 0
    cached: int = 0
    errored: int = 0
    skipped: int = 0
    errors: list[str] = field(default_factory=list)


SystemText = Callable[[dict[str, str], TaskRecord], Instructions]


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def cache_key(
    task: TaskRecord, system: str, sample: int, backend: Backend, env_tag: str = ""
) -> str:
    """The replay cache's key of one rollout; ``env_tag`` sets an acting environment's rollouts
    apart (``""``: a chat)."""
    checks = json.dumps([c.model_dump(mode="json") for c in task.checks], sort_keys=True)
    parts = [
        task.id,
        _sha(task.intent + "\x00" + task.context),
        _sha(checks),
        _sha(system),
        str(sample),
        backend.name,
        backend.model,
    ]
    key = _sha("\x1f".join(parts))
    return _sha(key + "\x1f" + env_tag) if env_tag else key


def sample_seed(task_id: str, sample: int) -> int:
    return int(_sha(f"{task_id}:{sample}")[:12], 16)


class Replayer:
    """Replays tasks through the target backend, each rollout one rollout of an environment: the
    task's agent where ``agents`` chooses one for it (:class:`~.agent_dispatch.AgentReplays`),
    else ``env`` (by default the task-record environment: a chat judged by the task's checks).
    ``system`` makes a rollout's system text from the files under test (by default the night's:
    :func:`system_text`)."""

    def __init__(
        self,
        target: Backend,
        calls: Calls,
        *,
        k: int,
        concurrency: int,
        rubric: RubricJudge | None,
        store: Store | None,
        clock: Clock,
        max_tokens: int = 1024,
        progress: Callable[[int], None] | None = None,
        env: Environment | None = None,
        agents: AgentReplays | None = None,
        system: SystemText | None = None,
    ) -> None:
        self.target, self.calls, self.k = target, calls, k
        self.system = system or system_text  # a training run's may be the skill alone
        self.env = env if env is not None else TaskRecordEnv(rubric)
        self.agents = agents  # chooses the agent environment for tasks it replays (None: none)
        self.rubric, self.store, self.clock = rubric, store, clock
        self.max_tokens = max_tokens
        # A batching backend gathers a phase's requests into one batch: hand them all over.
        self._sem = asyncio.Semaphore(
            1 << 30 if getattr(target, "collects_requests", False) else concurrency
        )
        self._progress = progress or (lambda n: None)
        self._budget_hit: BudgetExhausted | None = None
        self._fatal: BackendError | None = None  # stops queued rollouts after auth/bad requests
        self.stats = ReplayStats()

    @property
    def budget_hit(self) -> BudgetExhausted | None:
        return self._budget_hit

    def env_for(self, task: TaskRecord) -> Environment:
        """The environment that replays ``task``."""
        chosen = self.agents.env_for(task, self.rubric) if self.agents is not None else None
        return chosen if chosen is not None else self.env

    async def replay(
        self, tasks: Sequence[TaskRecord], files: dict[str, str]
    ) -> dict[str, list[Rollout]]:
        """K rollouts for every task under ``files``. Fatal backend errors propagate at once."""
        jobs = [self._one(t, self.system(files, t), s) for t in tasks for s in range(self.k)]
        return await self._gather(tasks, jobs)

    async def draw(
        self,
        wants: Sequence[tuple[TaskRecord, int, int]],
        files: dict[str, str],
        nonce: str,
        *,
        keep: bool = False,
    ) -> dict[str, list[Rollout]]:
        """Fresh rollouts under ``files``: for each ``(task, first, count)``, samples ``first`` to
        ``first + count - 1`` of the stream named ``nonce``. Never served from the cache: a decision
        always sees rollouts drawn for it. With ``keep``, each is also kept in the cache as that
        sample of a replay under ``files``, so a later replay under them (after they are adopted)
        draws only what is missing."""
        jobs = [
            self._one(t, self.system(files, t), s, nonce=nonce, keep=keep)
            for t, first, count in wants
            for s in range(first, first + count)
        ]
        return await self._gather([t for t, _, _ in wants], jobs)

    async def _gather(
        self, tasks: Sequence[TaskRecord], jobs: Sequence[Awaitable[Rollout | None]]
    ) -> dict[str, list[Rollout]]:
        results = await asyncio.gather(*jobs, return_exceptions=True)
        out: dict[str, list[Rollout]] = {t.id: [] for t in tasks}
        if self._fatal is not None:
            raise self._fatal
        for res in results:
            if isinstance(res, BaseException):
                raise res
            if res is not None:
                out[res.task_id].append(res)
        return out

    async def _one(
        self,
        task: TaskRecord,
        system: str,
        sample: int,
        nonce: str | None = None,
        keep: bool = False,
    ) -> Rollout | None:
        """One rollout of ``task``: from the cache (when not drawn for a decision), else through
        its environment (kept in the cache unless drawn for a decision, or with ``keep``); None
        when skipped (budget) or stopped (a fatal error)."""
        env = self.env_for(task)
        tag = env.cache_tag(task) if hasattr(env, "cache_tag") else ""
        key = cache_key(task, system, sample, self.target, tag)
        hit = self.store.cache_get(key) if nonce is None and self.store is not None else None
        if hit is not None:
            self.stats.cached += 1
            self._progress(1)
            return Rollout.from_cache(task.id, sample, hit)
        # An environment that rolls out a batch in one call (a SkillOpt adapter) holds no slot
        # per rollout (its batch would be cut to the limit): the limit holds its model calls.
        batched = getattr(env, "rolls_out_batches", False)
        async with contextlib.nullcontext() if batched else self._sem:
            if self._fatal is not None:
                return None
            try:
                if self._budget_hit is not None:
                    raise self._budget_hit
                rollout = await self._run(env, task, system, sample, nonce)
            except BudgetExhausted as exc:
                self._budget_hit = exc
                self.stats.skipped += 1
                self._progress(1)
                return None
            except BackendError as exc:
                if not exc.retryable and not isinstance(exc, MalformedOutput):
                    self._fatal = exc
                    raise
                self.stats.errored += 1
                self.stats.errors.append(exc.one_line())
                self._progress(1)
                return Rollout(task.id, sample, "", None, error=exc.one_line())
        if nonce is None or keep:
            self._cache(key, rollout)
        self._progress(1)
        return rollout

    def _cache(self, key: str, rollout: Rollout) -> None:
        if self.store is not None:
            self.store.cache_put(key, rollout.task_id, rollout.cached_form(), self.clock.now())

    async def _held(self, backend: Backend, request: Request) -> Completion:
        """A model call of a batching environment's rollout, under the concurrency limit."""
        async with self._sem:
            return await self.calls(backend, request)

    async def _run(
        self, env: Environment, task: TaskRecord, system: str, sample: int, nonce: str | None
    ) -> Rollout:
        stream = task.id if nonce is None else f"{task.id}:{nonce}"
        result = await env.rollout(
            task,
            system,
            CalledBackend(
                self.target,
                self._held if getattr(env, "rolls_out_batches", False) else self.calls,
                self.calls.budget,
            ),
            seed=sample_seed(stream, sample),
            max_tokens=self.max_tokens,
        )
        if result.error is not None:
            raise MalformedOutput(result.error)  # scored as an error above, as any failed rollout
        self.stats.calls += 1
        return Rollout.of(task.id, sample, result)
