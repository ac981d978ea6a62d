"""Replay: K rollouts per task under given instructions, concurrent under a limit, cached.

The cache key is (task, its checks, the system text — skill and memory —, sample, backend, model),
so a night whose skill and tasks did not change pays nothing, and a rerun of an interrupted night
resumes from what was already replayed. A rollout whose call failed is an *error* (score None):
excluded from scoring and counted, never a 0. A budget stop leaves the rest *skipped*.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import hashlib
import json
import random
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..backends.base import Backend, Completion, Message, Request
from ..backends.breaker import CircuitBreaker
from ..backends.budget import Budget
from ..backends.retry import RetryPolicy, call_with_retry
from ..clock import Clock
from ..envs.base import Environment
from ..envs.called import CalledBackend
from ..envs.task_record import TaskRecordEnv
from ..errors import BackendError, BudgetExhausted, MalformedOutput
from ..models import TaskRecord
from ..redact import redact
from ..store import Store
from .judge import RubricJudge, judge

if TYPE_CHECKING:
    from .agent_dispatch import AgentReplays

REPLAY_SYSTEM = (
    "You are a coding agent working in the user's project. Follow the instructions below, then do "
    "the task. Answer with what you would do or write, concisely.\n\n"
)


@dataclass(frozen=True)
class Rollout:
    """One replay of one task: its answer and verdict, or the error that prevented it."""

    task_id: str
    sample: int
    text: str
    score: float | None
    passed: bool = False
    reasons: tuple[str, ...] = ()
    error: str | None = None
    cached: bool = False


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


def system_text(files: dict[str, str], task: TaskRecord) -> str:
    """The instructions a replay runs under: the skill, and the memory files the task's agent reads."""
    wanted = {"claude-code": ["CLAUDE.md"], "codex": ["AGENTS.md"]}.get(task.source)
    parts = [REPLAY_SYSTEM, "# Skill (SKILL.md)\n", files.get("SKILL.md", "")]
    for name, text in files.items():
        if name != "SKILL.md" and (
            wanted is None or name in wanted or not any(w in files for w in wanted)
        ):
            parts += [f"\n\n# Project memory ({name})\n", text]
    return "".join(parts)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def cache_key(task: TaskRecord, system: str, sample: int, backend: Backend) -> str:
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
    return _sha("\x1f".join(parts))


def sample_seed(task_id: str, sample: int) -> int:
    return int(_sha(f"{task_id}:{sample}")[:12], 16)


class Replayer:
    """Replays tasks through the target backend, each rollout one rollout of ``env`` (by default
    the task-record environment: a chat judged by the task's checks)."""

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
    ) -> None:
        self.target, self.calls, self.k = target, calls, k
        self.env = env if env is not None else TaskRecordEnv(rubric)
        self.agents = agents  # replays tasks with action checks by the real agent (None: text only)
        self.rubric, self.store, self.clock = rubric, store, clock
        self.max_tokens = max_tokens
        # A batching backend gathers a phase's requests into one batch: hand them all over.
        self._sem = asyncio.Semaphore(
            1 << 30 if getattr(target, "collects_requests", False) else concurrency
        )
        self._progress = progress or (lambda n: None)
        self._budget_hit: BudgetExhausted | None = None
        self._fatal: BackendError | None = (
            None  # stops queued rollouts after auth/bad-request errors
        )
        self.stats = ReplayStats()

    @property
    def budget_hit(self) -> BudgetExhausted | None:
        return self._budget_hit

    async def replay(
        self, tasks: Sequence[TaskRecord], files: dict[str, str]
    ) -> dict[str, list[Rollout]]:
        """K rollouts for every task under ``files``. Fatal backend errors propagate at once."""
        return await self._gather(
            tasks,
            [
                self._one(t, system_text(files, t), s, files=files)
                for t in tasks
                for s in range(self.k)
            ],
        )

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
            self._one(t, system_text(files, t), s, nonce=nonce, files=files, keep=keep)
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
        files: dict[str, str] | None = None,
        keep: bool = False,
    ) -> Rollout | None:
        key = cache_key(task, system, sample, self.target)
        if self.agents is not None and (tag := self.agents.cache_tag(task)):
            key = _sha(key + "\x1f" + tag)
        if (
            nonce is None
            and self.store is not None
            and (hit := self.store.cache_get(key)) is not None
        ):
            self.stats.cached += 1
            self._progress(1)
            return Rollout(
                task.id,
                sample,
                hit["text"],
                hit["score"],
                hit["passed"],
                tuple(hit["reasons"]),
                cached=True,
            )
        async with self._sem:
            if self._fatal is not None:
                return None
            if self._budget_hit is not None:
                self.stats.skipped += 1
                self._progress(1)
                return None
            try:
                rollout = await self._run(task, system, sample, nonce, files)
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
            result = {
                "text": rollout.text,
                "score": rollout.score,
                "passed": rollout.passed,
                "reasons": list(rollout.reasons),
            }
            self.store.cache_put(key, rollout.task_id, result, self.clock.now())

    async def _run(
        self,
        task: TaskRecord,
        system: str,
        sample: int,
        nonce: str | None = None,
        files: dict[str, str] | None = None,
    ) -> Rollout:
        if (
            self.agents is not None
            and files is not None
            and self.agents.setup_for(task) is not None
        ):
            text, verdict = await self.agents.run(
                task,
                files,
                sample,
                self.calls.budget,
                lambda out, effects: judge(task, redact(out), self.rubric, effects),
            )
            self.stats.calls += 1
            return Rollout(
                task.id, sample, redact(text), verdict.score, verdict.passed, verdict.reasons
            )
        stream = task.id if nonce is None else f"{task.id}:{nonce}"
        result = await self.env.rollout(
            task,
            system,
            CalledBackend(self.target, self.calls),
            seed=sample_seed(stream, sample),
            max_tokens=self.max_tokens,
        )
        if result.error is not None:
            raise MalformedOutput(result.error)  # scored as an error below, as any failed rollout
        self.stats.calls += 1
        return Rollout(
            task.id, sample, result.answer, result.soft, result.hard == 1.0, result.fail_reason
        )
