"""The two providers' batch APIs, as the loopback server speaks them.

* Anthropic Message Batches: ``POST /v1/messages/batches``, ``GET .../{id}``,
  ``GET .../{id}/results`` (JSONL), ``POST .../{id}/cancel``.
* OpenAI: ``POST /v1/files`` (multipart upload of a JSONL input file), ``POST /v1/batches``,
  ``GET /v1/batches/{id}``, ``POST /v1/batches/{id}/cancel``, ``GET /v1/files/{id}/content``.

A batch stays in progress for ``ModelServer.batch_polls`` retrieves (and while
``ModelServer.hold_batches`` is set); then its requests are answered one after another through
the server's usual script and prompt cache, each recorded like any model call (with ``batch``
set). ``ModelServer.batch_expire_after`` answers only that many requests of a batch before it
expires; a cancelled batch answers none of the rest.
"""

from __future__ import annotations

import email.parser
import email.policy
import json
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from .recorded import RecordedRequest, ServerView
from .replies import Api, Error
from .wire import Answer, json_answer

ANTHROPIC_PREFIX = "/v1/messages/batches"
OPENAI_PATHS = ("/v1/files", "/v1/batches")


@dataclass
class Batch:
    """One submitted batch: its requests, and each answered one's result."""

    id: str
    provider: str  # "anthropic" | "openai"
    items: list[tuple[str, dict[str, Any]]]  # (custom_id, request body)
    endpoint: str = "/v1/messages"
    input_file_id: str = ""
    created: float = field(default_factory=time.time)
    polls: int = 0
    state: str = "in_progress"  # in_progress | canceling | ended
    outcome: str = ""  # ended: "completed" | "expired" | "cancelled"
    results: dict[str, tuple[int, Any]] = field(default_factory=dict)  # custom_id -> (status, body)
    output_file_id: str | None = None
    error_file_id: str | None = None


def _result(answer: Answer) -> tuple[int, Any]:
    """(status, JSON body) of one answered request; a dropped or garbled answer is a 500."""
    try:
        body = json.loads(answer.body)
    except ValueError:
        body = None
    if answer.status == 200 and isinstance(body, dict):
        return 200, body
    if answer.status >= 400 and body is not None:
        return answer.status, body
    return 500, {
        "type": "error",
        "error": {"type": "api_error", "message": "Internal server error"},
    }


def _iso(ts: float | None) -> str | None:
    return (
        None
        if ts is None
        else datetime.fromtimestamp(ts, timezone.utc).isoformat().replace("+00:00", "Z")
    )


class BatchDesk:
    """Batches and uploaded files of one :class:`ModelServer`."""

    def __init__(self, server: ServerView) -> None:
        self.server = server
        self.batches: dict[str, Batch] = {}
        self.files: dict[str, bytes] = {}
        self._lock = threading.RLock()  # one batch is never processed twice by concurrent polls

    # -- routing -----------------------------------------------------------------------------

    @staticmethod
    def handles(path: str) -> bool:
        return path.startswith(ANTHROPIC_PREFIX) or path.startswith(OPENAI_PATHS)

    def post(self, path: str, raw: bytes, headers: Mapping[str, str]) -> Answer:
        with self._lock:
            try:
                return self._post(path, raw, headers)
            except (ValueError, KeyError, TypeError) as exc:
                return self._bad(
                    "anthropic" if path.startswith(ANTHROPIC_PREFIX) else "chat",
                    f"malformed batch request: {exc}",
                )

    def get(self, path: str) -> Answer:
        with self._lock:
            return self._get(path)

    def _post(self, path: str, raw: bytes, headers: Mapping[str, str]) -> Answer:
        parts = path.strip("/").split("/")
        if path == ANTHROPIC_PREFIX:
            return self._anthropic_create(raw)
        if path == "/v1/files":
            return self._upload(raw, headers.get("content-type", ""))
        if path == "/v1/batches":
            return self._openai_create(raw)
        if len(parts) >= 4 and parts[-1] == "cancel":
            return self._cancel(parts[-2])
        return self._missing(path)

    def _get(self, path: str) -> Answer:
        parts = path.strip("/").split("/")
        if path.startswith(ANTHROPIC_PREFIX) and len(parts) == 4:
            return self._view(parts[3])
        if path.startswith(ANTHROPIC_PREFIX) and len(parts) == 5 and parts[4] == "results":
            return self._anthropic_results(parts[3])
        if path.startswith("/v1/batches/") and len(parts) == 3:
            return self._view(parts[2])
        if path.startswith("/v1/files/") and len(parts) == 4 and parts[3] == "content":
            if parts[2] not in self.files:
                return self._missing(path)
            return Answer(body=self.files[parts[2]], content_type="application/octet-stream")
        return self._missing(path)

    def _missing(self, what: str) -> Answer:
        api: Api = "anthropic" if what.startswith(ANTHROPIC_PREFIX) else "chat"
        return self.server.error_answer(api, Error(404, message=f"no such batch or file: {what}"))

    def _bad(self, api: Api, message: str) -> Answer:
        return self.server.error_answer(api, Error(400, message=message))

    # -- create ------------------------------------------------------------------------------

    def _anthropic_create(self, raw: bytes) -> Answer:
        body = json.loads(raw or b"null")
        if (
            not isinstance(body, dict)
            or not isinstance(body.get("requests"), list)
            or not body["requests"]
        ):
            return self._bad("anthropic", "requests: a non-empty list is required")
        items = [(str(r["custom_id"]), dict(r["params"])) for r in body["requests"]]
        if len({cid for cid, _ in items}) != len(items):
            return self._bad("anthropic", "custom_id values must be unique within a batch")
        batch = Batch(self.server.new_id("msgbatch_"), "anthropic", items)
        self.batches[batch.id] = batch
        return json_answer(self._anthropic_view(batch))

    def _upload(self, raw: bytes, content_type: str) -> Answer:
        message = email.parser.BytesParser(policy=email.policy.default).parsebytes(
            b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + raw
        )
        fields: dict[str, bytes] = {}
        filename = "input.jsonl"
        for part in message.iter_parts():
            name = part.get_param("name", header="content-disposition")
            payload = part.get_payload(decode=True)
            fields[str(name)] = payload if isinstance(payload, bytes) else b""
            filename = part.get_filename() or filename
        if "file" not in fields:
            return self._bad("chat", "file: a multipart file field is required")
        file_id = self.server.new_id("file-")
        self.files[file_id] = fields["file"]
        return json_answer(
            {
                "id": file_id,
                "object": "file",
                "bytes": len(fields["file"]),
                "created_at": int(time.time()),
                "filename": filename,
                "purpose": fields.get("purpose", b"batch").decode(),
                "status": "processed",
            }
        )

    def _openai_create(self, raw: bytes) -> Answer:
        body = json.loads(raw or b"null")
        if not isinstance(body, dict) or body.get("input_file_id") not in self.files:
            return self._bad("chat", "input_file_id: no such uploaded file")
        items: list[tuple[str, dict[str, Any]]] = []
        for line in self.files[body["input_file_id"]].decode().splitlines():
            if line.strip():
                entry = json.loads(line)
                items.append((str(entry["custom_id"]), dict(entry["body"])))
        batch = Batch(
            self.server.new_id("batch_"),
            "openai",
            items,
            endpoint=str(body.get("endpoint")),
            input_file_id=body["input_file_id"],
        )
        self.batches[batch.id] = batch
        return json_answer(self._openai_view(batch))

    # -- progress ----------------------------------------------------------------------------

    def _view(self, batch_id: str) -> Answer:
        batch = self.batches.get(batch_id)
        if batch is None:
            return self._missing(batch_id)
        batch.polls += 1
        srv = self.server
        if batch.state != "ended" and batch.polls > srv.batch_polls and not srv.hold_batches:
            self._process(batch)
        view = (
            self._anthropic_view(batch)
            if batch.provider == "anthropic"
            else self._openai_view(batch)
        )
        return json_answer(view)

    def _cancel(self, batch_id: str) -> Answer:
        batch = self.batches.get(batch_id)
        if batch is None:
            return self._missing(batch_id)
        if batch.state == "in_progress":
            batch.state = "canceling"
        view = (
            self._anthropic_view(batch)
            if batch.provider == "anthropic"
            else self._openai_view(batch)
        )
        return json_answer(view)

    def _process(self, batch: Batch) -> None:
        """Answer the batch's requests in order (none after a cancel, some before an expiry)."""
        srv = self.server
        limit = len(batch.items) if batch.state == "in_progress" else 0
        if srv.batch_expire_after is not None:
            limit = min(limit, srv.batch_expire_after)
        path = "/v1/messages" if batch.provider == "anthropic" else batch.endpoint
        route = srv.route(path)
        assert route is not None
        for custom_id, body in batch.items[:limit]:
            rec = RecordedRequest("BATCH", path, {}, body, api=route[0], batch=batch.id)
            rec.call = route[1](path, dict(body, stream=False), {})
            srv.record(rec)
            answer = srv.answer(rec)
            rec.status, rec.finished = answer.status, time.monotonic()
            batch.results[custom_id] = _result(answer)
        cut_short = limit < len(batch.items)
        batch.outcome = (
            "cancelled" if batch.state == "canceling" else "expired" if cut_short else "completed"
        )
        batch.state = "ended"
        if batch.provider == "openai":
            self._openai_files(batch)

    # -- Anthropic ---------------------------------------------------------------------------

    def _anthropic_counts(self, batch: Batch) -> dict[str, int]:
        ok = sum(1 for status, _ in batch.results.values() if status == 200)
        rest = len(batch.items) - len(batch.results)
        ended = batch.state == "ended"
        return {
            "processing": 0 if ended else len(batch.items),
            "succeeded": ok,
            "errored": len(batch.results) - ok,
            "canceled": rest if ended and batch.outcome == "cancelled" else 0,
            "expired": rest if ended and batch.outcome == "expired" else 0,
        }

    def _anthropic_view(self, batch: Batch) -> dict[str, Any]:
        ended = batch.state == "ended"
        url = f"{self.server.url}{ANTHROPIC_PREFIX}/{batch.id}/results" if ended else None
        return {
            "id": batch.id,
            "type": "message_batch",
            "processing_status": batch.state,
            "request_counts": self._anthropic_counts(batch),
            "created_at": _iso(batch.created),
            "expires_at": _iso(batch.created + 86400),
            "ended_at": _iso(time.time()) if ended else None,
            "cancel_initiated_at": None,
            "archived_at": None,
            "results_url": url,
        }

    def _anthropic_results(self, batch_id: str) -> Answer:
        batch = self.batches.get(batch_id)
        if batch is None or batch.state != "ended":
            return self._bad("anthropic", f"batch {batch_id} has not ended")
        lines = []
        for custom_id, _ in batch.items:
            if custom_id in batch.results:
                status, body = batch.results[custom_id]
                result = (
                    {"type": "succeeded", "message": body}
                    if status == 200
                    else {"type": "errored", "error": body}
                )
            else:
                result = {"type": "canceled" if batch.outcome == "cancelled" else "expired"}
            lines.append(json.dumps({"custom_id": custom_id, "result": result}))
        return Answer(body=("\n".join(lines) + "\n").encode(), content_type="application/binary")

    # -- OpenAI ------------------------------------------------------------------------------

    def _openai_files(self, batch: Batch) -> None:
        out: list[dict[str, Any]] = []
        err: list[dict[str, Any]] = []
        for custom_id, _ in batch.items:
            line: dict[str, Any] = {"id": self.server.new_id("batch_req_"), "custom_id": custom_id}
            if custom_id in batch.results:
                status, body = batch.results[custom_id]
                line.update(
                    response={
                        "status_code": status,
                        "request_id": self.server.new_id("req_"),
                        "body": body,
                    },
                    error=None,
                )
                (out if status == 200 else err).append(line)
            else:
                code = "batch_cancelled" if batch.outcome == "cancelled" else "batch_expired"
                line.update(
                    response=None, error={"code": code, "message": f"request not run: {code}"}
                )
                err.append(line)
        for lines, attr in ((out, "output_file_id"), (err, "error_file_id")):
            if lines:
                file_id = self.server.new_id("file-")
                self.files[file_id] = "".join(json.dumps(x) + "\n" for x in lines).encode()
                setattr(batch, attr, file_id)

    def _openai_view(self, batch: Batch) -> dict[str, Any]:
        status = {"in_progress": "in_progress", "canceling": "cancelling"}.get(
            batch.state, batch.outcome
        )
        ok = sum(1 for s, _ in batch.results.values() if s == 200)
        return {
            "id": batch.id,
            "object": "batch",
            "endpoint": batch.endpoint,
            "errors": None,
            "input_file_id": batch.input_file_id,
            "completion_window": "24h",
            "status": status,
            "output_file_id": batch.output_file_id,
            "error_file_id": batch.error_file_id,
            "created_at": int(batch.created),
            "expires_at": int(batch.created) + 86400,
            "request_counts": {
                "total": len(batch.items),
                "completed": ok,
                "failed": len(batch.results) - ok,
            },
            "metadata": None,
        }
