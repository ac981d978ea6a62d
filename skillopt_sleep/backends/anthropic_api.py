"""The ``anthropic`` backend: the Messages API through the official async SDK.

Settings (``[roles.<role>]``): ``model`` (default :data:`DEFAULT_MODEL`), ``base_url`` (else
``ANTHROPIC_BASE_URL``, else the public API), ``api_key_env`` (default ``ANTHROPIC_API_KEY``),
``timeout_s``, ``max_tokens``, ``temperature``. The SDK's own retries are off: retries happen in
:mod:`~skillopt_sleep.backends.retry`, where the budget is checked before every attempt.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import anthropic

from ..errors import AuthError
from ..settings import RoleSettings
from .base import Completion, Request
from .sdk_backend import SdkBackend

DEFAULT_MODEL = "claude-sonnet-4-5"
DEFAULT_KEY_ENV = "ANTHROPIC_API_KEY"
PUBLIC_URL = "https://api.anthropic.com"


class AnthropicBackend(SdkBackend):
    """Anthropic Messages API. Pass an ``anthropic.AsyncAnthropic`` (used as is), or a function
    making one; :meth:`from_settings` passes a function built from the role's settings."""

    name = "anthropic"
    sdk = anthropic
    sdk_error = anthropic.AnthropicError
    client_type = anthropic.AsyncAnthropic
    default_model = DEFAULT_MODEL
    default_key_env = DEFAULT_KEY_ENV
    list_args: ClassVar[dict[str, Any]] = {"limit": 100}

    def __init__(self, client: Any, *, model: str = DEFAULT_MODEL, key_env: str = DEFAULT_KEY_ENV,
                 temperature: float | None = None, timeout_s: float = 120.0) -> None:
        super().__init__(client, model=model, key_env=key_env, temperature=temperature,
                         timeout_s=timeout_s)

    @classmethod
    def from_settings(cls, role: RoleSettings, env: Mapping[str, str]) -> AnthropicBackend:
        key_env = role.api_key_env or DEFAULT_KEY_ENV
        key = env.get(key_env, "").strip()
        if not key:
            raise AuthError(f"{key_env} is not set",
                            hint=f"export {key_env}=... or choose another backend with --backend")
        base_url = role.base_url or env.get("ANTHROPIC_BASE_URL") or PUBLIC_URL
        return cls._from_role(role, key=key, base_url=base_url)

    async def complete(self, request: Request) -> Completion:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "max_tokens": request.max_tokens,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
        }
        if request.system:
            kwargs["system"] = request.system
        if (temperature := self._temperature(request)) is not None:
            kwargs["temperature"] = temperature
        reply = await self._call(lambda client: client.messages.create(**kwargs))
        blocks = getattr(reply, "content", None)
        if not isinstance(blocks, list):
            raise self._malformed("no content blocks")
        text = "".join(getattr(b, "text", "") or "" for b in blocks if getattr(b, "type", "") == "text")
        usage = getattr(reply, "usage", None)
        return Completion(
            text=text,
            input_tokens=int(getattr(usage, "input_tokens", 0) or 0),
            output_tokens=int(getattr(usage, "output_tokens", 0) or 0),
            model=getattr(reply, "model", None) or self.model,
        )
