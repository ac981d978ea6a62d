"""Before a night's first replay: every backend that can tell whether it is logged in says so.

A CLI backend that is not logged in would otherwise fail every replay (or hang until its
timeout) and the night would end hours later blaming a timeout. Its ``login`` check takes about
a second and raises :class:`~skillopt_sleep.errors.AuthError` naming the fix.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Protocol, runtime_checkable


@runtime_checkable
class LoginCheck(Protocol):
    """A backend that can check its login without a model call."""

    async def login(self) -> None: ...


@runtime_checkable
class Closable(Protocol):
    """A backend holding something on disk until it is closed (a private home)."""

    def close(self) -> None: ...


def check_logins(backends: Iterable[object]) -> None:
    """Check each distinct backend's login in turn; the first failure is raised."""
    seen: set[int] = set()
    for backend in backends:
        if id(backend) in seen:
            continue
        seen.add(id(backend))
        if isinstance(backend, LoginCheck):
            asyncio.run(backend.login())


def close_all(backends: Iterable[object]) -> None:
    """Release what each backend keeps on disk (idempotent)."""
    for backend in {id(b): b for b in backends}.values():
        if isinstance(backend, Closable):
            backend.close()
