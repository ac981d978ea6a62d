"""The ``check`` of the HTTP API backends: a free authenticated call, else a one-token request."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol

from ..errors import BackendError
from .base import Completion, Health, Message, Request
from .http_errors import status_error


class ApiBackend(Protocol):
    name: str
    model: str
    base_url: str
    key_env: str

    async def complete(self, request: Request) -> Completion: ...

    async def list_models(self) -> list[str]: ...


PING = Request("judge", "", (Message("user", "Reply OK."),), max_tokens=1, tag="probe")


async def api_check(backend: ApiBackend) -> Health:
    """List the models (free and authenticated). Where the server keeps no list (a gateway that
    proxies only completions), send a one-token request instead. Never raises."""
    extra = {"base_url": backend.base_url, "key_env": backend.key_env}
    try:
        known = await backend.list_models()
        if known and backend.model not in known:
            raise status_error(backend.name, 404, "model", model=backend.model,
                               key_env=backend.key_env, base_url=backend.base_url,
                               known_models=known)
        if not known:
            await backend.complete(PING)
    except BackendError as exc:
        return Health(False, exc.message, fix=exc.hint or "", extra=extra)
    return Health(True, f"{backend.base_url} answered; model {backend.model} is there", extra=extra)


async def known_models(list_models: Callable[[], Awaitable[list[str]]]) -> list[str] | None:
    """The server's model ids for "did you mean", or None when it will not say."""
    try:
        return await list_models() or None
    except BackendError:
        return None
