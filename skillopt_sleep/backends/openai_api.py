"""The ``openai`` backend: Chat Completions through the official async SDK.

It serves OpenAI itself and any OpenAI-compatible server (vLLM, Ollama, LM Studio, a company
gateway): set ``base_url`` (``--base-url http://localhost:11434/v1``) and, when the server wants a
key, ``api_key_env`` naming the variable that holds it. A server reached through ``base_url``
needs no key at all unless ``api_key_env`` is set. The public API gets ``max_completion_tokens``
(its reasoning models refuse ``max_tokens``); compatible servers get the ``max_tokens`` they all
understand, and the sample ``seed``. The SDK's own retries are off (see
:mod:`~skillopt_sleep.backends.retry`).

Prompt caching is automatic at OpenAI for the longest prompt prefix seen before; the system
prompt (instructions, skill, memory) comes first so every rollout and task of a phase shares it,
and the public API also gets a ``prompt_cache_key`` naming that prefix, which keeps the calls on
the servers that hold it.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType
from typing import Any, ClassVar

import openai

from ..errors import AuthError
from ..settings import RoleSettings
from .base import Completion, Request
from .openai_batches import OpenAIBatches
from .sdk_backend import SdkBackend, prefix_key

DEFAULT_MODEL = "gpt-5-mini"
DEFAULT_KEY_ENV = "OPENAI_API_KEY"
PUBLIC_URL = "https://api.openai.com/v1"
NO_KEY = "not-needed"  # what a keyless local server is sent; the SDK insists on some key


class OpenAIBackend(SdkBackend):
    """OpenAI Chat Completions (or a compatible server). Pass an ``openai.AsyncOpenAI`` (used as
    is), or a function making one; :meth:`from_settings` passes a function built from the role's
    settings."""

    name: ClassVar[str] = "openai"
    sdk: ClassVar[ModuleType] = openai
    sdk_error = openai.OpenAIError
    client_type = openai.AsyncOpenAI
    default_model = DEFAULT_MODEL
    default_key_env = DEFAULT_KEY_ENV

    def __init__(
        self,
        client: Any,
        *,
        model: str = DEFAULT_MODEL,
        key_env: str = DEFAULT_KEY_ENV,
        temperature: float | None = None,
        timeout_s: float = 120.0,
        compatible: bool | None = None,
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
        self.compatible = self.base_url != PUBLIC_URL if compatible is None else compatible

    @classmethod
    def from_settings(cls, role: RoleSettings, env: Mapping[str, str]) -> OpenAIBackend:
        key_env = role.api_key_env or DEFAULT_KEY_ENV
        key = env.get(key_env, "").strip()
        base_url = (role.base_url or env.get("OPENAI_BASE_URL") or PUBLIC_URL).rstrip("/")
        if not key and (role.api_key_env or base_url == PUBLIC_URL):
            raise AuthError(
                f"{key_env} is not set",
                hint=f"export {key_env}=..., or --base-url for a local server",
            )
        return cls._from_role(role, key=key or NO_KEY, base_url=base_url)

    def batch_api(self) -> OpenAIBatches:
        """This backend's Batch API (see :mod:`.batching`)."""
        return OpenAIBatches(self)

    def params(self, request: Request) -> dict[str, Any]:
        """The Chat Completions body of ``request`` (also one line of a batch's input file)."""
        messages = [{"role": "system", "content": request.system}] if request.system else []
        messages += [{"role": m.role, "content": m.content} for m in request.messages]
        kwargs: dict[str, Any] = {"model": self.model, "messages": messages}
        kwargs["max_tokens" if self.compatible else "max_completion_tokens"] = request.max_tokens
        if (temperature := self._temperature(request)) is not None:
            kwargs["temperature"] = temperature
        if request.seed is not None and self.compatible:
            kwargs["seed"] = (
                request.seed
            )  # local servers honour it; OpenAI's newer models refuse it
        if self.prompt_cache and request.system and not self.compatible:
            kwargs["prompt_cache_key"] = "skillopt-" + prefix_key(request.system)
        return kwargs

    def parse(self, reply: Any, *, batched: bool = False) -> Completion:
        """A completion from a Chat Completions reply (an SDK ``ChatCompletion``)."""
        choices = getattr(reply, "choices", None)
        if not isinstance(choices, list) or not choices:
            raise self.malformed("no choices")
        usage = getattr(reply, "usage", None)
        details = getattr(usage, "prompt_tokens_details", None)
        return Completion(
            text=getattr(getattr(choices[0], "message", None), "content", None) or "",
            input_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
            output_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
            model=getattr(reply, "model", None) or self.model,
            cache_read_tokens=int(getattr(details, "cached_tokens", 0) or 0),
            batched=batched,
        )

    async def complete(self, request: Request) -> Completion:
        kwargs = self.params(request)
        reply = await self._warm_first(
            request, lambda: self.call(lambda client: client.chat.completions.create(**kwargs))
        )
        return self.parse(reply)
