"""A backend seen through a run's call policy (budget, retries, breaker, redaction)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from ..backends.base import Backend, Completion, Health, Request

Call = Callable[[Backend, Request], Awaitable[Completion]]


@dataclass
class CalledBackend:
    """``backend`` whose every ``complete`` goes through ``call`` (what environments are handed)."""

    backend: Backend
    call: Call

    @property
    def name(self) -> str:
        return self.backend.name

    @property
    def model(self) -> str:
        return self.backend.model

    async def complete(self, request: Request) -> Completion:
        return await self.call(self.backend, request)

    async def check(self) -> Health:
        return await self.backend.check()
