"""A backend seen through a run's call policy (budget, retries, breaker, redaction)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from ..backends.base import Backend, Completion, Health, Request

Call = Callable[[Backend, Request], Awaitable[Completion]]


class CalledBackend:
    """``backend`` whose every ``complete`` goes through ``call`` (what environments are handed)."""

    def __init__(self, backend: Backend, call: Call) -> None:
        self.backend, self.call = backend, call
        self.name: str = backend.name
        self.model: str = backend.model

    async def complete(self, request: Request) -> Completion:
        return await self.call(self.backend, request)

    async def check(self) -> Health:
        return await self.backend.check()
