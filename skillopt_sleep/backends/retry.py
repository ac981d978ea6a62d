"""Retries with exponential backoff and jitter, honouring Retry-After, under the budget.

Only errors a retry can fix are retried (``TransientError``: 429, 5xx, overloaded, timeouts,
garbled replies). A ``Retry-After`` from the server is waited out (plus a little jitter, so
concurrent calls do not return in lockstep) unless it asks for longer than
``max_retry_after``: a server that wants minutes is an outage tonight, and the call fails at once.
Every attempt is checked against the budget first, and counted in it.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

from ..errors import BackendError, BackendOutage
from .base import Backend, Completion, Request
from .breaker import CircuitBreaker
from .budget import Budget


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry one call."""

    max_retries: int = 4
    base_delay: float = 0.5
    max_delay: float = 30.0
    max_retry_after: float = 120.0

    def delay(self, attempt: int, retry_after: float | None, rng: random.Random) -> float | None:
        """Seconds to wait before retry number ``attempt + 1``; None: do not retry."""
        if attempt >= self.max_retries:
            return None
        if retry_after is not None:
            if retry_after > self.max_retry_after:
                return None
            return retry_after + rng.random() * min(self.base_delay, 0.1 * retry_after)
        backoff = min(self.max_delay, self.base_delay * (2.0**attempt))
        return backoff * (0.5 + rng.random() / 2)  # "equal jitter": never less than half


Sleep = Callable[[float], Awaitable[None]]
_NEVER = 2**31


async def call_with_retry(
    backend: Backend,
    request: Request,
    *,
    budget: Budget,
    policy: RetryPolicy,
    rng: random.Random,
    sleep: Sleep = asyncio.sleep,
    breaker: CircuitBreaker | None = None,
) -> Completion:
    """One call: budget checked before each attempt, transient errors retried, usage recorded.

    Raises ``BudgetExhausted`` (the attempt was not sent), ``BackendOutage`` once ``breaker``
    (shared by a night's calls) has tripped (not sent either), or the last ``BackendError`` once
    the retries are used up or for an error a retry cannot fix.
    """
    if breaker is None:  # a lone call: its retries alone decide
        breaker = CircuitBreaker(threshold=_NEVER, threshold_after_success=_NEVER)
    attempt = 0
    while True:
        breaker.check()
        hold = budget.reserve(
            *budget.estimate(backend.model, request, batched=getattr(backend, "batched", False))
        )
        try:
            async with breaker.attempt():
                try:
                    done = await backend.complete(request)
                except BackendError as exc:
                    breaker.failed(exc)
                    raise
                breaker.succeeded()
        except BackendError as exc:
            budget.settle(hold)
            if isinstance(exc, BackendOutage):
                raise  # refused before it was sent
            budget.record_failure(request.role)
            wait = policy.delay(attempt, exc.retry_after, rng) if exc.retryable else None
            if wait is None:
                raise
            await sleep(wait)
            attempt += 1
            continue
        except BaseException:
            budget.settle(hold)  # cancelled: nothing to account
            raise
        budget.settle(hold)
        model = done.model or backend.model
        cost = budget.record(request.role, model, done)
        return replace(done, cost_usd=cost, model=model)
