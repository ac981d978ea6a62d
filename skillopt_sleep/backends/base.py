"""The Backend protocol: a request in, a completion out, only ``BackendError`` kinds raised.

Two optional abilities, checked before and after a night: a backend that can tell whether it is
logged in says so before the first replay (:func:`check_logins`). A CLI backend that is not
logged in would otherwise fail every replay (or hang until its timeout) and the night would end
hours later blaming a timeout; its ``login`` check takes about a second and raises
:class:`~skillopt_sleep.errors.AuthError` naming the fix. A backend holding something on disk (a
private home) releases it when closed (:func:`close_all`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

Role = Literal["target", "optimizer", "judge"]
ROLES: tuple[Role, ...] = ("target", "optimizer", "judge")


@dataclass(frozen=True)
class Message:
    role: Literal["user", "assistant"]
    content: str


@dataclass(frozen=True)
class Request:
    """One model call. ``seed`` makes a rollout reproducible where the backend supports it
    (the simulated backend always; real providers ignore it). ``tag`` says what the call is for
    (``replay``, ``reflect``, ``judge``, ...), for logs and scripted fakes."""

    role: Role
    system: str
    messages: tuple[Message, ...]
    max_tokens: int = 1024
    temperature: float | None = None
    seed: int | None = None
    tag: str = ""

    @property
    def prompt(self) -> str:
        """The last user message (what most fakes look at)."""
        users = [m.content for m in self.messages if m.role == "user"]
        return users[-1] if users else ""


@dataclass(frozen=True)
class Completion:
    """A model's answer. ``cost_usd`` None means: price it from the price table.

    ``input_tokens`` counts the whole prompt; ``cache_write_tokens`` / ``cache_read_tokens`` are
    the parts of it the provider wrote to / read from its prompt cache (priced differently), and
    ``cache_write_1h_tokens`` the written ones kept for an hour; ``batched`` says it came through a
    batch API (half price at both providers).
    """

    text: str
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    model: str = ""
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_1h_tokens: int = 0
    batched: bool = False


@dataclass(frozen=True)
class Health:
    """Result of a cheap authenticated probe, for ``doctor`` and the scheduled job."""

    ok: bool
    detail: str
    fix: str = ""
    version: str = ""
    extra: dict[str, str] = field(default_factory=dict)


@runtime_checkable
class Backend(Protocol):
    """A model provider.

    Contract:
    - ``complete`` sends one request and returns one completion. It raises only
      :class:`~skillopt_sleep.errors.BackendError` subclasses: ``TransientError`` for what a retry
      may fix (429, 5xx, overload, timeout; ``retry_after`` set when the server said so),
      ``AuthError``/``BadRequestError``/``BackendUnavailable`` for what it will not. It does not
      retry by itself: :mod:`~skillopt_sleep.backends.retry` does that, under the budget.
    - ``check`` is a cheap probe (binary present, key set, one tiny authenticated call) that
      never raises: it returns a :class:`Health` naming the fix.
    - ``name`` is the registry name, ``model`` the model it will call.
    """

    name: str
    model: str

    async def complete(self, request: Request) -> Completion: ...

    async def check(self) -> Health: ...


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
