"""The ``anthropic`` backend: the Messages API through the official async SDK.

Settings (``[roles.<role>]``): ``model`` (default :data:`DEFAULT_MODEL`), ``base_url`` (else
``ANTHROPIC_BASE_URL``, else the public API), ``api_key_env`` (default ``ANTHROPIC_API_KEY``),
``timeout_s``, ``max_tokens``, ``prompt_cache``. The Messages API of the SDK this backend is
built on takes no sampling temperature, so a ``temperature`` setting or a request's temperature
(the judge asks for 0) is not sent: it would fail every call. The SDK's own retries are off:
retries happen in :mod:`~skillopt_sleep.backends.retry`, where the budget is checked before every
attempt.

Prompt caching: the system prompt (the replay instructions, skill and memory, the same for every
rollout and task of a phase) ends with a ``cache_control`` breakpoint, so every call after the
first reads it at a tenth of the input price. A prompt under the model's minimum cacheable length
is simply not cached; the marker costs nothing then.

Batches: Anthropic Message Batches (``/v1/messages/batches``) behind the
:class:`~.batch_api.BatchApi` seam (:class:`AnthropicBatches`), at half price.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any, ClassVar

import anthropic

from ..errors import AuthError
from ..settings import RoleSettings
from .base import Completion, Request
from .batch_api import Outcome, not_run
from .keys import ANTHROPIC_KEY_ENV
from .sdk_backend import SdkBackend

DEFAULT_MODEL = "claude-sonnet-4-6"
DEFAULT_KEY_ENV = ANTHROPIC_KEY_ENV
PUBLIC_URL = "https://api.anthropic.com"
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


class AnthropicBackend(SdkBackend):
    """Anthropic Messages API. Pass an ``anthropic.AsyncAnthropic`` (used as is), or a function
    making one; :meth:`from_settings` passes a function built from the role's settings."""

    name: ClassVar[str] = "anthropic"
    sdk: ClassVar[ModuleType] = anthropic
    sdk_error = anthropic.AnthropicError
    client_type = anthropic.AsyncAnthropic
    default_model = DEFAULT_MODEL
    default_key_env = DEFAULT_KEY_ENV
    list_args: ClassVar[dict[str, Any]] = {"limit": 100}

    def __init__(
        self,
        client: Any,
        *,
        model: str = DEFAULT_MODEL,
        key_env: str = DEFAULT_KEY_ENV,
        temperature: float | None = None,
        timeout_s: float = 120.0,
        prompt_cache: bool = True,
    ) -> None:
        super().__init__(
            client,
            model=model,
            key_env=key_env,
            temperature=temperature,
            timeout_s=timeout_s,
            prompt_cache=prompt_cache,
        )

    @classmethod
    def from_settings(cls, role: RoleSettings, env: Mapping[str, str]) -> AnthropicBackend:
        key_env = role.api_key_env or DEFAULT_KEY_ENV
        key = env.get(key_env, "").strip()
        if not key:
            raise AuthError(
                f"{key_env} is not set",
                hint=f"export {key_env}=... or choose another backend with --backend",
            )
        base_url = role.base_url or env.get("ANTHROPIC_BASE_URL") or PUBLIC_URL
        return cls._from_role(role, key=key, base_url=base_url)

    def batch_api(self) -> AnthropicBatches:
        """This backend's Message Batches API (see :mod:`.batching`)."""
        return AnthropicBatches(self)

    def params(self, request: Request, *, cache_ttl: str | None = None) -> dict[str, Any]:
        """The Messages API body of ``request`` (also one item of a message batch, whose cache
        entry should outlive the five minutes by default: ``cache_ttl="1h"``)."""
        kwargs: dict[str, Any] = {
            "model": self.model,
            "max_tokens": request.max_tokens,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
        }
        if request.system:
            block: dict[str, Any] = {"type": "text", "text": request.system}
            if self.prompt_cache:
                block["cache_control"] = {
                    "type": "ephemeral",
                    **({"ttl": cache_ttl} if cache_ttl else {}),
                }
            kwargs["system"] = [block]
        return kwargs

    def parse(self, reply: Any, *, batched: bool = False) -> Completion:
        """A completion from a Messages API reply (an SDK ``Message``)."""
        blocks = getattr(reply, "content", None)
        if not isinstance(blocks, list):
            raise self.malformed("no content blocks")
        text = "".join(
            getattr(b, "text", "") or "" for b in blocks if getattr(b, "type", "") == "text"
        )
        usage = getattr(reply, "usage", None)
        written = int(getattr(usage, "cache_creation_input_tokens", 0) or 0)
        read = int(getattr(usage, "cache_read_input_tokens", 0) or 0)
        long_written = int(
            getattr(getattr(usage, "cache_creation", None), "ephemeral_1h_input_tokens", 0) or 0
        )
        return Completion(
            text=text,
            input_tokens=int(getattr(usage, "input_tokens", 0) or 0) + written + read,
            output_tokens=int(getattr(usage, "output_tokens", 0) or 0),
            model=getattr(reply, "model", None) or self.model,
            cache_write_tokens=written,
            cache_read_tokens=read,
            cache_write_1h_tokens=long_written,
            batched=batched,
        )

    async def complete(self, request: Request) -> Completion:
        kwargs = self.params(request)
        reply = await self._warm_first(
            request, lambda: self.call(lambda client: client.messages.create(**kwargs))
        )
        return self.parse(reply)


class AnthropicBatches:
    """Anthropic Message Batches (``/v1/messages/batches``)."""

    provider = "anthropic"

    def __init__(self, backend: AnthropicBackend) -> None:
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
