"""Anthropic Message Batches (``/v1/messages/batches``) behind the :class:`~.batch_api.BatchApi` seam."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from .base import Completion, Request
from .batch_api import Outcome, SdkCalls, not_run

ANTHROPIC_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "overloaded_error": 529,
}
# A batch may run for longer than the default five-minute cache lifetime: its requests keep the
# shared prefix for an hour (written at 2x input instead of 1.25x, read at 0.1x all the same).
ANTHROPIC_BATCH_CACHE_TTL = "1h"


class MessagesBackend(SdkCalls, Protocol):
    """The Anthropic backend as its batches see it: a request's body, and a message's completion."""

    def params(self, request: Request, *, cache_ttl: str | None = None) -> dict[str, Any]: ...

    def parse(self, reply: Any, *, batched: bool = False) -> Completion: ...


class AnthropicBatches:
    """Anthropic Message Batches (``/v1/messages/batches``)."""

    provider = "anthropic"

    def __init__(self, backend: MessagesBackend) -> None:
        self.backend = backend

    async def submit(self, items: Sequence[tuple[str, Request]]) -> str:
        requests = [
            {
                "custom_id": cid,
                "params": self.backend.params(r, cache_ttl=ANTHROPIC_BATCH_CACHE_TTL),
            }
            for cid, r in items
        ]
        batch = await self.backend.call(lambda c: c.messages.batches.create(requests=requests))
        return str(batch.id)

    async def poll(self, batch_id: str) -> dict[str, Outcome] | None:
        b = self.backend
        batch = await b.call(lambda c: c.messages.batches.retrieve(batch_id))
        if batch.processing_status != "ended":
            return None

        async def read(client: Any) -> list[Any]:
            return [entry async for entry in await client.messages.batches.results(batch_id)]

        out: dict[str, Outcome] = {}
        for entry in await b.call(read):
            result = entry.result
            if result.type == "succeeded":
                out[entry.custom_id] = b.parse(result.message, batched=True)
            elif result.type == "errored":
                inner = getattr(result.error, "error", None)
                kind, message = getattr(inner, "type", "api_error"), getattr(inner, "message", "")
                out[entry.custom_id] = b.status_error(ANTHROPIC_STATUS.get(kind, 500), message)
            else:
                out[entry.custom_id] = not_run(
                    "expired" if result.type == "expired" else "was cancelled"
                )
        return out

    async def cancel(self, batch_id: str) -> None:
        await self.backend.call(lambda c: c.messages.batches.cancel(batch_id))
