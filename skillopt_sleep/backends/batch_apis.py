"""The two providers' batch APIs behind one small protocol: submit, poll, cancel.

Both charge half price and answer within 24 hours (usually minutes). A request's answer comes
back as the same :class:`Completion` a synchronous call gives (``batched`` set), or as the
``BackendError`` its status maps to: a request that expired or was cancelled before it ran is a
``TransientError``, so the retry layer sends it again, in a new batch.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from openai.types.chat import ChatCompletion
from pydantic import ValidationError

from ..errors import BackendError, BackendUnavailable, BadRequestError, TransientError
from .base import Completion, Request
from .http_errors import status_error

if TYPE_CHECKING:
    from .anthropic_api import AnthropicBackend
    from .openai_api import OpenAIBackend

Outcome = Completion | BackendError
ANTHROPIC_STATUS = {
    "invalid_request_error": 400, "authentication_error": 401, "permission_error": 403,
    "not_found_error": 404, "request_too_large": 413, "rate_limit_error": 429,
    "api_error": 500, "overloaded_error": 529,
}
CHAT_ENDPOINT = "/v1/chat/completions"
# A batch may run for longer than the default five-minute cache lifetime: its requests keep the
# shared prefix for an hour (written at 2x input instead of 1.25x, read at 0.1x all the same).
ANTHROPIC_BATCH_CACHE_TTL = "1h"


class BatchApi(Protocol):
    """One provider's batch endpoints.

    - ``submit`` creates one batch of ``(custom_id, request)`` items and returns its id.
    - ``poll`` returns None while the batch runs; once it has ended, every item's outcome by
      custom_id (items without a result are missing; the caller treats them as transient).
    - ``cancel`` asks the provider to stop the batch (what already ran is still charged).
    All raise only ``BackendError`` kinds.
    """

    provider: str

    async def submit(self, items: Sequence[tuple[str, Request]]) -> str: ...

    async def poll(self, batch_id: str) -> dict[str, Outcome] | None: ...

    async def cancel(self, batch_id: str) -> None: ...


def _not_run(why: str) -> TransientError:
    return TransientError(f"the batch {why} before this request ran", hint="it is sent again")


class AnthropicBatches:
    """Anthropic Message Batches (``/v1/messages/batches``)."""

    provider = "anthropic"

    def __init__(self, backend: AnthropicBackend) -> None:
        self.backend = backend

    async def submit(self, items: Sequence[tuple[str, Request]]) -> str:
        requests = [{"custom_id": cid, "params": self.backend.params(r, cache_ttl=ANTHROPIC_BATCH_CACHE_TTL)}
                    for cid, r in items]
        batch = await self.backend._call(lambda c: c.messages.batches.create(requests=requests))
        return str(batch.id)

    async def poll(self, batch_id: str) -> dict[str, Outcome] | None:
        b = self.backend
        batch = await b._call(lambda c: c.messages.batches.retrieve(batch_id))
        if batch.processing_status != "ended":
            return None

        async def read(client: Any) -> list[Any]:
            return [entry async for entry in await client.messages.batches.results(batch_id)]

        out: dict[str, Outcome] = {}
        for entry in await b._call(read):
            result = entry.result
            if result.type == "succeeded":
                out[entry.custom_id] = b.parse(result.message, batched=True)
            elif result.type == "errored":
                inner = getattr(result.error, "error", None)
                kind, message = getattr(inner, "type", "api_error"), getattr(inner, "message", "")
                out[entry.custom_id] = self._error(ANTHROPIC_STATUS.get(kind, 500), message)
            else:
                out[entry.custom_id] = _not_run("expired" if result.type == "expired" else "was cancelled")
        return out

    def _error(self, status: int, message: str) -> BackendError:
        b = self.backend
        return status_error(b.name, status, message, model=b.model, key_env=b.key_env, base_url=b.base_url)

    async def cancel(self, batch_id: str) -> None:
        await self.backend._call(lambda c: c.messages.batches.cancel(batch_id))


class OpenAIBatches:
    """The OpenAI Batch API: a JSONL input file, a batch, output and error files."""

    provider = "openai"

    def __init__(self, backend: OpenAIBackend) -> None:
        self.backend = backend

    async def submit(self, items: Sequence[tuple[str, Request]]) -> str:
        b = self.backend
        lines = [json.dumps({"custom_id": cid, "method": "POST", "url": CHAT_ENDPOINT, "body": b.params(r)})
                 for cid, r in items]
        data = ("\n".join(lines) + "\n").encode()
        try:
            upload = await b._call(lambda c: c.files.create(file=("batch.jsonl", data, "application/jsonl"),
                                                            purpose="batch"))
            batch = await b._call(lambda c: c.batches.create(input_file_id=upload.id, endpoint=CHAT_ENDPOINT,
                                                             completion_window="24h"))
        except BackendError as exc:
            if exc.retryable or not b.compatible:
                raise
            raise BackendUnavailable(f"{b.base_url} did not take a batch: {exc.message}",
                                     hint="this server may have no batch API: set [night] batch = false") from exc
        return str(batch.id)

    async def poll(self, batch_id: str) -> dict[str, Outcome] | None:
        b = self.backend
        batch = await b._call(lambda c: c.batches.retrieve(batch_id))
        if batch.status in ("validating", "in_progress", "finalizing", "cancelling"):
            return None
        if batch.status == "failed":
            errors = getattr(getattr(batch, "errors", None), "data", None) or []
            why = "; ".join(str(getattr(e, "message", e)) for e in errors) or "the batch failed validation"
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
        return await self.backend._call(lambda c: c.files.content(file_id))

    def _outcome(self, entry: dict[str, Any]) -> Outcome:
        b = self.backend
        response = entry.get("response") or {}
        status = int(response.get("status_code") or 0)
        if status == 200:
            try:
                return b.parse(ChatCompletion.model_validate(response.get("body")), batched=True)
            except ValidationError as exc:
                return b._malformed(str(exc))
        if status:
            body = response.get("body") or {}
            message = str((body.get("error") or {}).get("message", "")) if isinstance(body, dict) else ""
            return status_error(b.name, status, message, model=b.model, key_env=b.key_env, base_url=b.base_url)
        code = str((entry.get("error") or {}).get("code", ""))
        return _not_run("expired" if "expired" in code else "was cancelled" if "cancel" in code
                        else f"gave no answer ({code or 'unknown'})")

    async def cancel(self, batch_id: str) -> None:
        await self.backend._call(lambda c: c.batches.cancel(batch_id))
