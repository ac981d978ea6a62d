"""Retries with exponential backoff and jitter, honouring Retry-After, under the budget.

Only errors a retry can fix are retried (``TransientError``: 429, 5xx, overloaded, timeouts,
garbled replies). A ``Retry-After`` from the server is waited out (plus a little jitter, so
concurrent calls do not return in lockstep) unless it asks for longer than
``max_retry_after``: a server that wants minutes is an outage tonight, and the call fails at once.
Every attempt is checked against the budget first, and counted in it.

Retries serve a backend that stumbles. A backend that is down answers nothing however often it
is asked: without a breaker every rollout spends its retries on it (hundreds of calls, minutes)
and the night ends as if it had learned something. So a circuit breaker
(:class:`CircuitBreaker`) watches a night's model calls, and a dead backend ends the night in
seconds:

- until the first answer of the night, attempts go out **one at a time** (the first is the
  probe): a dead server costs a handful of calls, not a burst at full concurrency;
- the breaker **trips** after ``threshold`` failed attempts in a row with nothing answered yet,
  or ``threshold_after_success`` in a row later in the night (a server that died mid-way);
- once tripped, every call raises :class:`BackendOutage` before it is sent.

Only failures that mean "nobody answered" count: server errors, overload, timeouts, refused or
dropped connections (``TransientError``) and ``BackendUnavailable``. An answer of any kind,
even one that does not parse, proves the backend is up.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace

from ..errors import BackendError, BackendOutage, BackendUnavailable, TransientError
from .base import Backend, Completion, Request
from .budget import Budget


@dataclass
class CircuitBreaker:
    """Counts consecutive failed attempts across a night's calls; see the module docstring."""

    threshold: int = 5
    threshold_after_success: int = 24
    failures: int = 0  # in a row
    answered: int = 0
    tripped: BackendOutage | None = None
    # what the outage says of the calls' span and of what happens next: a night's, by default
    span: str = "tonight"
    then: str = "the waiting tasks are kept for the next night"
    _probe: asyncio.Lock | None = field(default=None, repr=False)

    def check(self) -> None:
        """Raise the outage if the breaker has tripped."""
        if self.tripped is not None:
            raise self.tripped

    @asynccontextmanager
    async def attempt(self) -> AsyncIterator[None]:
        """Around one attempt: refused once tripped; one at a time until something answered."""
        self.check()
        if self.answered:
            yield
            return
        if self._probe is None:
            self._probe = asyncio.Lock()
        async with self._probe:
            self.check()
            if not self.answered:
                yield
                return
        yield  # the probe was answered while this attempt waited: no need to go one at a time

    def succeeded(self) -> None:
        self.failures = 0
        self.answered += 1

    def failed(self, exc: BackendError) -> None:
        """Count a failed attempt; trip when the failures in a row reach the threshold."""
        if not isinstance(exc, (TransientError, BackendUnavailable)):
            self.succeeded()  # it answered, if only to refuse
            return
        self.failures += 1
        limit = self.threshold_after_success if self.answered else self.threshold
        if self.failures >= limit and self.tripped is None:
            none = " ".join(("none answered", self.span)).strip()
            tonight = none if not self.answered else f"after {self.answered} answers"
            self.tripped = BackendOutage(
                f"the model backend is down: {self.failures} attempts in a row failed, {tonight} "
                f"(last: {exc.one_line()})",
                hint="; ".join(
                    x for x in ("check the server, the network or base_url", self.then) if x
                ),
            )


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
