"""A backend seen through a run's call policy (budget, retries, breaker, redaction)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from ..backends.base import Backend, Completion, Health, Request
from ..backends.budget import Budget

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
