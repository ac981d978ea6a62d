"""The OpenAI Batch API (a JSONL input file, a batch, output and error files) behind the
:class:`~.batch_api.BatchApi` seam."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Protocol

from openai.types.chat import ChatCompletion
from pydantic import ValidationError

from ..errors import BackendError, BackendUnavailable, BadRequestError
from .base import Completion, Request
from .batch_api import Outcome, SdkCalls, not_run

CHAT_ENDPOINT = "/v1/chat/completions"


class ChatBackend(SdkCalls, Protocol):
    """The OpenAI backend as its batches see it: a request's body, a completion, and whether the
    server is an OpenAI-compatible one (which may have no batch API)."""

    @property
    def compatible(self) -> bool: ...

    def params(self, request: Request) -> dict[str, Any]: ...

    def parse(self, reply: Any, *, batched: bool = False) -> Completion: ...


class OpenAIBatches:
    """The OpenAI Batch API: a JSONL input file, a batch, output and error files."""

    provider = "openai"

    def __init__(self, backend: ChatBackend) -> None:
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
