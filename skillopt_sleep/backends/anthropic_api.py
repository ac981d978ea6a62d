"""The ``anthropic`` backend: the Messages API through the official async SDK.

Settings (``[roles.<role>]``): ``model`` (default :data:`DEFAULT_MODEL`), ``base_url`` (else
``ANTHROPIC_BASE_URL``, else the public API), ``api_key_env`` (default ``ANTHROPIC_API_KEY``),
``timeout_s``, ``max_tokens``, ``temperature``. The SDK's own retries are off: retries happen in
:mod:`~skillopt_sleep.backends.retry`, where the budget is checked before every attempt.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

import anthropic

from ..errors import AuthError, BackendError, TransientError
from ..settings import RoleSettings
from .api_health import api_check, known_models
from .base import Completion, Health, Request
from .http_errors import status_error
from .loop_client import LoopClient

DEFAULT_MODEL = "claude-sonnet-4-5"
DEFAULT_KEY_ENV = "ANTHROPIC_API_KEY"
PUBLIC_URL = "https://api.anthropic.com"


class AnthropicBackend:
    """Anthropic Messages API. Pass an ``anthropic.AsyncAnthropic`` client (used as is), or a
    function making one (one client per event loop); :meth:`from_settings` passes a function
    built from the role's settings."""

    name = "anthropic"

    def __init__(self, client: anthropic.AsyncAnthropic | Callable[[], anthropic.AsyncAnthropic],
                 *, model: str = DEFAULT_MODEL, key_env: str = DEFAULT_KEY_ENV,
                 temperature: float | None = None, timeout_s: float = 120.0) -> None:
        # A factory gives one client per event loop (see loop_client); a client is used as is.
        self.clients = LoopClient.of(client, anthropic.AsyncAnthropic, _close)
        self.client = self.clients.current
        self.model = model
        self.key_env = key_env
        self.temperature = temperature
        self.timeout_s = timeout_s
        self.base_url = str(self.client.base_url).rstrip("/")

    @classmethod
    def from_settings(cls, role: RoleSettings, env: Mapping[str, str]) -> AnthropicBackend:
        key_env = role.api_key_env or DEFAULT_KEY_ENV
        key = env.get(key_env, "").strip()
        if not key:
            raise AuthError(f"{key_env} is not set",
                            hint=f"export {key_env}=... or choose another backend with --backend")
        base_url = role.base_url or env.get("ANTHROPIC_BASE_URL") or PUBLIC_URL
        factory = partial(anthropic.AsyncAnthropic, api_key=key, base_url=base_url,
                          timeout=role.timeout_s, max_retries=0)
        return cls(factory, model=role.model or DEFAULT_MODEL, key_env=key_env,
                   temperature=role.temperature, timeout_s=role.timeout_s)

    @classmethod
    def usable(cls, env: Mapping[str, str], which: Any = None) -> bool:
        """Usable when ``ANTHROPIC_API_KEY`` is set (auto-detection looks at nothing else)."""
        return bool(env.get(DEFAULT_KEY_ENV, "").strip())

    async def complete(self, request: Request) -> Completion:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "max_tokens": request.max_tokens,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
        }
        if request.system:
            kwargs["system"] = request.system
        temperature = request.temperature if request.temperature is not None else self.temperature
        if temperature is not None:
            kwargs["temperature"] = temperature
        try:
            reply = await (await self.clients.get()).messages.create(**kwargs)
        except anthropic.AnthropicError as exc:
            raise await self._translate(exc) from exc
        except ValueError as exc:  # a 200 whose JSON body does not parse
            raise self._malformed(str(exc)) from exc
        return self._completion(reply)

    def _completion(self, reply: Any) -> Completion:
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

    def _malformed(self, why: str) -> TransientError:
        # A garbled body is a proxy or server hiccup more often than a model's doing: retry it.
        return TransientError(f"anthropic sent a malformed response from {self.base_url}: {why[:120]}")

    async def _translate(self, exc: anthropic.AnthropicError) -> BackendError:
        if isinstance(exc, anthropic.APITimeoutError):
            return TransientError(f"anthropic did not answer within {self.timeout_s:g}s",
                                  hint="raise roles.<role>.timeout_s if this keeps happening")
        if isinstance(exc, anthropic.APIConnectionError):
            return TransientError(f"cannot reach {self.base_url}: {exc}",
                                  hint="check the network or base_url")
        if isinstance(exc, anthropic.APIStatusError):
            detail = exc.api_message or _body_text(exc.body) or str(exc)
            known = await known_models(self.list_models) if exc.status_code == 404 else None
            return status_error("anthropic", exc.status_code, detail, model=self.model,
                                key_env=self.key_env, base_url=self.base_url,
                                headers=exc.response.headers, known_models=known)
        if isinstance(exc, anthropic.APIResponseValidationError):
            return self._malformed(str(exc))
        return TransientError(f"anthropic failed: {exc}")

    async def list_models(self) -> list[str]:
        """The model ids the server lists; [] when it keeps no list. Raises for a rejected key or
        an unreachable server."""
        try:
            page = await (await self.clients.get()).models.list(limit=100)
        except anthropic.APIStatusError as exc:
            if exc.status_code in (401, 403):
                raise await self._translate(exc) from exc
            return []
        except anthropic.APIConnectionError as exc:
            raise await self._translate(exc) from exc
        except (anthropic.AnthropicError, ValueError):
            return []
        return [m.id for m in getattr(page, "data", []) or []]

    async def check(self) -> Health:
        return await api_check(self)


def _body_text(body: object) -> str:
    if isinstance(body, (dict, list)):
        return json.dumps(body)[:300]
    return str(body or "")[:300]


async def _close(client: anthropic.AsyncAnthropic) -> None:
    await client.close()
