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

Batches: the OpenAI Batch API (a JSONL input file, a batch, output and error files) behind the
:class:`~.batch_api.BatchApi` seam (:class:`OpenAIBatches`), at half price.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any, ClassVar

import openai
from openai.types.chat import ChatCompletion
from pydantic import ValidationError

from ..errors import AuthError, BackendError, BackendUnavailable, BadRequestError
from ..settings import RoleSettings
from .base import Completion, Request
from .batch_api import Outcome, not_run
from .keys import OPENAI_KEY_ENV
from .sdk_backend import SdkBackend, prefix_key

DEFAULT_MODEL = "gpt-5-mini"
DEFAULT_KEY_ENV = OPENAI_KEY_ENV
PUBLIC_URL = "https://api.openai.com/v1"
CHAT_ENDPOINT = "/v1/chat/completions"
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


class OpenAIBatches:
    """The OpenAI Batch API: a JSONL input file, a batch, output and error files."""

    provider = "openai"

    def __init__(self, backend: OpenAIBackend) -> None:
        self.backend = backend

    async def submit(self, items: Sequence[tuple[str, Request]]) -> str:
        b = self.backend
        lines = [
            json.dumps(
                {"custom_id": cid, "method": "POST", "url": CHAT_ENDPOINT, "body": b.params(r)}
            )
            for cid, r in items
        ]
        data = ("\n".join(lines) + "\n").encode()
        try:
            upload = await b.call(
                lambda c: c.files.create(
                    file=("batch.jsonl", data, "application/jsonl"), purpose="batch"
                )
            )
            batch = await b.call(
                lambda c: c.batches.create(
                    input_file_id=upload.id, endpoint=CHAT_ENDPOINT, completion_window="24h"
                )
            )
        except BackendError as exc:
            if exc.retryable or not b.compatible:
                raise
            raise BackendUnavailable(
                f"{b.base_url} did not take a batch: {exc.message}",
                hint="this server may have no batch API: set [night] batch = false",
            ) from exc
        return str(batch.id)

    async def poll(self, batch_id: str) -> dict[str, Outcome] | None:
        b = self.backend
        batch = await b.call(lambda c: c.batches.retrieve(batch_id))
        if batch.status in ("validating", "in_progress", "finalizing", "cancelling"):
            return None
        if batch.status == "failed":
            errors = getattr(getattr(batch, "errors", None), "data", None) or []
            why = (
                "; ".join(str(getattr(e, "message", e)) for e in errors)
                or "the batch failed validation"
            )
            raise BadRequestError(f"{b.name} refused the batch {batch_id}: {why}")
        out: dict[str, Outcome] = {}
        for file_id in (batch.output_file_id, batch.error_file_id):
            if file_id:
                content = await self._download(file_id)
                for line in content.text.splitlines():
                    if line.strip():
                        entry = json.loads(line)
                        out[str(entry.get("custom_id"))] = self._outcome(entry)
        return out

    async def _download(self, file_id: str) -> Any:
        return await self.backend.call(lambda c: c.files.content(file_id))

    def _outcome(self, entry: dict[str, Any]) -> Outcome:
        b = self.backend
        response = entry.get("response") or {}
        status = int(response.get("status_code") or 0)
        if status == 200:
            try:
                return b.parse(ChatCompletion.model_validate(response.get("body")), batched=True)
            except ValidationError as exc:
                return b.malformed(str(exc))
        if status:
            body = response.get("body") or {}
            message = (
                str((body.get("error") or {}).get("message", "")) if isinstance(body, dict) else ""
            )
            return b.status_error(status, message)
        code = str((entry.get("error") or {}).get("code", ""))
        return not_run(
            "expired"
            if "expired" in code
            else "was cancelled"
            if "cancel" in code
            else f"gave no answer ({code or 'unknown'})"
        )

    async def cancel(self, batch_id: str) -> None:
        await self.backend.call(lambda c: c.batches.cancel(batch_id))
