"""A circuit breaker for a night's model calls: a dead backend ends the night in seconds.

Retries serve a backend that stumbles. A backend that is down answers nothing however often it
is asked: without a breaker every rollout spends its retries on it (hundreds of calls, minutes)
and the night ends as if it had learned something. So:

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
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from ..errors import BackendError, BackendOutage, BackendUnavailable, TransientError


@dataclass
class CircuitBreaker:
    """Counts consecutive failed attempts across a night's calls; see the module docstring."""

    threshold: int = 5
    threshold_after_success: int = 24
    failures: int = 0  # in a row
    answered: int = 0
    tripped: BackendOutage | None = None
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
            tonight = (
                "none answered tonight" if not self.answered else f"after {self.answered} answers"
            )
            self.tripped = BackendOutage(
                f"the model backend is down: {self.failures} attempts in a row failed, {tonight} "
                f"(last: {exc.one_line()})",
                hint="check the server, the network or base_url; the waiting tasks are kept for the next night",
            )
