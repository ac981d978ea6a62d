"""Retries with exponential backoff and jitter, honouring Retry-After, under the budget."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from ..errors import BackendError
from .base import Backend, Completion, Request
from .budget import Budget


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 4
    base_delay: float = 0.5
    max_delay: float = 30.0

    def delay(self, attempt: int, retry_after: float | None, rng: random.Random) -> float:
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_delay)
        backoff = min(self.max_delay, self.base_delay * (2**attempt))
        return backoff * (0.5 + rng.random() / 2)  # "equal jitter"


Sleep = Callable[[float], Awaitable[None]]


async def call_with_retry(
    backend: Backend,
    request: Request,
    *,
    budget: Budget,
    policy: RetryPolicy,
    rng: random.Random,
    sleep: Sleep = asyncio.sleep,
) -> Completion:
    """One call: budget checked before each attempt, transient errors retried, usage recorded.

    Raises ``BudgetExhausted`` (nothing spent), or the last ``BackendError`` once retries are used
    up or for an error a retry cannot fix.
    """
    attempt = 0
    while True:
        budget.check(expected_tokens=request.max_tokens)
        try:
            done = await backend.complete(request)
        except BackendError as exc:
            if not exc.retryable or attempt >= policy.max_retries:
                raise
            await sleep(policy.delay(attempt, exc.retry_after, rng))
            attempt += 1
            continue
        cost = budget.record(request.role, done.model or backend.model, done.input_tokens,
                             done.output_tokens, done.cost_usd)
        return Completion(done.text, done.input_tokens, done.output_tokens, cost, done.model or backend.model)
