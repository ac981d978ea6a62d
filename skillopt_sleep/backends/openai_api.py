"""The ``openai`` backend: Chat Completions through the official async SDK.

It serves OpenAI itself and any OpenAI-compatible server (vLLM, Ollama, LM Studio, a company
gateway): set ``base_url`` (``--base-url http://localhost:11434/v1``) and, when the server wants a
key, ``api_key_env`` naming the variable that holds it. A server reached through ``base_url``
needs no key at all unless ``api_key_env`` is set. The public API gets ``max_completion_tokens``
(its reasoning models refuse ``max_tokens``); compatible servers get the ``max_tokens`` they all
understand. The SDK's own retries are off (see :mod:`~skillopt_sleep.backends.retry`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

import openai

from ..errors import AuthError, BackendError, TransientError
from ..settings import RoleSettings
from .api_health import api_check, known_models
from .base import Completion, Health, Request
from .http_errors import status_error
from .loop_client import LoopClient

DEFAULT_MODEL = "gpt-5-mini"
DEFAULT_KEY_ENV = "OPENAI_API_KEY"
PUBLIC_URL = "https://api.openai.com/v1"
NO_KEY = "not-needed"  # what a keyless local server is sent; the SDK insists on some key


class OpenAIBackend:
    """OpenAI Chat Completions (or a compatible server). Pass an ``openai.AsyncOpenAI`` client
    (used as is), or a function making one (one client per event loop); :meth:`from_settings`
    passes a function built from the role's settings."""

    name = "openai"

    def __init__(self, client: openai.AsyncOpenAI | Callable[[], openai.AsyncOpenAI], *,
                 model: str = DEFAULT_MODEL, key_env: str = DEFAULT_KEY_ENV,
                 temperature: float | None = None, timeout_s: float = 120.0,
                 compatible: bool | None = None) -> None:
        # A factory gives one client per event loop (see loop_client); a client is used as is.
        self.clients = LoopClient.of(client, openai.AsyncOpenAI, _close)
        self.client = self.clients.current
        self.model = model
        self.key_env = key_env
        self.temperature = temperature
        self.timeout_s = timeout_s
        self.base_url = str(self.client.base_url).rstrip("/")
        self.compatible = self.base_url != PUBLIC_URL if compatible is None else compatible

    @classmethod
    def from_settings(cls, role: RoleSettings, env: Mapping[str, str]) -> OpenAIBackend:
        key_env = role.api_key_env or DEFAULT_KEY_ENV
        key = env.get(key_env, "").strip()
        base_url = (role.base_url or env.get("OPENAI_BASE_URL") or PUBLIC_URL).rstrip("/")
        if not key and (role.api_key_env or base_url == PUBLIC_URL):
            raise AuthError(f"{key_env} is not set",
                            hint=f"export {key_env}=..., or --base-url for a local server")
        factory = partial(openai.AsyncOpenAI, api_key=key or NO_KEY, base_url=base_url,
                          timeout=role.timeout_s, max_retries=0)
        return cls(factory, model=role.model or DEFAULT_MODEL, key_env=key_env,
                   temperature=role.temperature, timeout_s=role.timeout_s)

    @classmethod
    def usable(cls, env: Mapping[str, str], which: Any = None) -> bool:
        """Usable when ``OPENAI_API_KEY`` is set (auto-detection looks at nothing else)."""
        return bool(env.get(DEFAULT_KEY_ENV, "").strip())

    async def complete(self, request: Request) -> Completion:
        messages: list[dict[str, str]] = []
        if request.system:
            messages.append({"role": "system", "content": request.system})
        messages += [{"role": m.role, "content": m.content} for m in request.messages]
        kwargs: dict[str, Any] = {"model": self.model, "messages": messages}
        kwargs["max_tokens" if self.compatible else "max_completion_tokens"] = request.max_tokens
        temperature = request.temperature if request.temperature is not None else self.temperature
        if temperature is not None:
            kwargs["temperature"] = temperature
        if request.seed is not None and self.compatible:
            kwargs["seed"] = request.seed  # local servers honour it; OpenAI's newer models refuse it
        try:
            reply = await (await self.clients.get()).chat.completions.create(**kwargs)
        except openai.OpenAIError as exc:
            raise await self._translate(exc) from exc
        except ValueError as exc:  # a 200 whose JSON body does not parse
            raise self._malformed(str(exc)) from exc
        return self._completion(reply)

    def _completion(self, reply: Any) -> Completion:
        choices = getattr(reply, "choices", None)
        if not isinstance(choices, list) or not choices:
            raise self._malformed("no choices")
        message = getattr(choices[0], "message", None)
        usage = getattr(reply, "usage", None)
        return Completion(
            text=getattr(message, "content", None) or "",
            input_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
            output_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
            model=getattr(reply, "model", None) or self.model,
        )

    def _malformed(self, why: str) -> TransientError:
        # A garbled body is a proxy or server hiccup more often than a model's doing: retry it.
        return TransientError(f"openai sent a malformed response from {self.base_url}: {why[:120]}")

    async def _translate(self, exc: openai.OpenAIError) -> BackendError:
        if isinstance(exc, openai.APITimeoutError):
            return TransientError(f"{self.base_url} did not answer within {self.timeout_s:g}s",
                                  hint="raise roles.<role>.timeout_s if this keeps happening")
        if isinstance(exc, openai.APIConnectionError):
            return TransientError(f"cannot reach {self.base_url}: {exc}",
                                  hint="check that the server is running, or fix base_url")
        if isinstance(exc, openai.APIStatusError):
            detail = _detail(exc.body) or str(exc)
            known = await known_models(self.list_models) if exc.status_code == 404 else None
            return status_error("openai", exc.status_code, detail, model=self.model,
                                key_env=self.key_env, base_url=self.base_url,
                                headers=exc.response.headers, known_models=known)
        if isinstance(exc, openai.APIResponseValidationError):
            return self._malformed(str(exc))
        return TransientError(f"openai failed: {exc}")

    async def list_models(self) -> list[str]:
        """The model ids the server lists; [] when it keeps no list. Raises for a rejected key or
        an unreachable server."""
        try:
            page = await (await self.clients.get()).models.list()
        except openai.APIStatusError as exc:
            if exc.status_code in (401, 403):
                raise await self._translate(exc) from exc
            return []
        except openai.APIConnectionError as exc:
            raise await self._translate(exc) from exc
        except (openai.OpenAIError, ValueError):
            return []
        return [m.id for m in getattr(page, "data", []) or []]

    async def check(self) -> Health:
        return await api_check(self)


def _detail(body: object) -> str:
    """The ``error.message`` of an OpenAI-style error body (the SDK passes ``error`` or the body)."""
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
        if isinstance(inner, str):
            return inner
        return json.dumps(body)[:300]
    return str(body or "")[:300]


async def _close(client: openai.AsyncOpenAI) -> None:
    await client.close()
