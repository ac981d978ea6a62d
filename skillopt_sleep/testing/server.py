"""A loopback HTTP model server that speaks the Anthropic and OpenAI wire formats.

``with ModelServer() as srv:`` starts it on 127.0.0.1 (a free port) in a background thread;
``srv.url`` is its base URL. Model calls are answered from a queue of scripted replies
(``srv.enqueue``), then by ``srv.responder``; every request is recorded in ``srv.requests``.
"""

from __future__ import annotations

import itertools
import json
import random
import threading
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:  # typing_extensions is not installed alongside every Python 3.10
    from typing_extensions import Self

from . import anthropic_wire, gemini_wire, openai_wire, responses_wire
from .batch_wire import BatchDesk
from .cache_wire import NO_CACHE, CacheUse, PromptCache
from .handler import Handler, Server
from .recorded import DROPPED, RecordedRequest
from .replies import (
    Api,
    CustomToolCall,
    Delay,
    Disconnect,
    Error,
    Malformed,
    ModelCall,
    Reply,
    Responder,
    Text,
    ToolCall,
    example_for_schema,
)
from .wire import Answer, json_answer, sse, stream_answer

ROUTES: dict[str, tuple[Api, Callable[..., ModelCall]]] = {
    "/v1/messages": ("anthropic", anthropic_wire.parse),
    "/v1/chat/completions": ("chat", openai_wire.parse),
    "/v1/responses": ("responses", responses_wire.parse),
}
RETRYABLE = frozenset({408, 409, 429}) | frozenset(range(500, 600))
RENDER = {
    "anthropic": anthropic_wire.render,
    "chat": openai_wire.render,
    "responses": responses_wire.render,
    "gemini": gemini_wire.render,
}


class Closable(Protocol):
    """What :meth:`ModelServer.own` closes: an SDK client, an HTTP client."""

    def close(self) -> None: ...


C = TypeVar("C", bound=Closable)


def default_responder(call: ModelCall) -> Reply:
    """Schema-shaped JSON when a schema is asked for, else a short text (quoting a tool result)."""
    if call.json_schema is not None:
        return Text(json.dumps(example_for_schema(call.json_schema)))
    if call.last_tool_result is not None:
        return Text("Done. Tool output: " + call.last_tool_result.strip())
    return Text("ok")


def is_title_request(call: ModelCall) -> bool:
    """Claude Code's side request for a session title: tools-less, JSON-schema output."""
    return (
        call.api == "anthropic"
        and not call.tools
        and call.json_schema is not None
        and call.headers.get("user-agent", "").startswith("claude-cli")
    )


class ModelServer:
    """A scripted model server on 127.0.0.1 for the real SDKs and the real agent CLIs.

    ``replies`` are answered first, one per model call, in order; then ``responder(call)``.
    ``fail_rate`` (0..1, seeded by ``seed``) turns model calls into transient errors,
    alternating 429 (``Retry-After: 0``) and 529 (Anthropic) / 500 (OpenAI). ``delay`` seconds
    are waited before every model answer. ``models`` are listed by ``GET /v1/models``;
    ``title`` answers Claude Code's session-title request; ``port=0`` picks a free port.
    ``cache`` is the prompt cache usage is reported from (see :mod:`.cache_wire`). Batches (see
    :mod:`.batch_wire`) stay in progress for ``batch_polls`` retrieves and while ``hold_batches``;
    ``batch_expire_after`` answers that many requests of a batch, then expires the rest.
    """

    def __init__(
        self,
        replies: Iterable[Reply] = (),
        *,
        responder: Responder | None = None,
        fail_rate: float = 0.0,
        seed: int = 0,
        delay: float = 0.0,
        models: Iterable[str] = ("claude-test", "gpt-test"),
        title: str = "Scripted session",
        port: int = 0,
        cache: PromptCache | None = None,
    ) -> None:
        if not 0.0 <= fail_rate <= 1.0:
            raise ValueError(f"fail_rate must be within 0..1, got {fail_rate}")
        self.responder: Responder = responder or default_responder
        self.fail_rate = fail_rate
        self.delay = delay
        self.models = tuple(models)
        self.title = title
        self.cache = cache or PromptCache()
        self.batches = BatchDesk(self)
        self.batch_polls = 0
        self.hold_batches = False
        self.batch_expire_after: int | None = None
        self._port = port
        self._rng = random.Random(seed)
        self._queue: deque[Reply] = deque(replies)
        self._lock = threading.Lock()
        self._requests: list[RecordedRequest] = []
        self._ids = itertools.count(1)
        self._faults = 0
        self._inflight = 0
        self.peak_concurrency = 0
        self.responder_errors: list[BaseException] = []
        self.stopping = threading.Event()
        self._httpd: Server | None = None
        self._thread: threading.Thread | None = None
        self._owned: list[Closable] = []

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> Self:
        """Bind a free port on 127.0.0.1 and serve in a daemon thread."""
        httpd = Server(("127.0.0.1", self._port), Handler)
        httpd.model_server = self
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="model-server",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, wake pending delays and close the socket."""
        self.stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = self._thread = None
        while self._owned:
            self._owned.pop().close()

    def own(self, client: C) -> C:
        """``client`` (an SDK client talking to this server), closed when the server stops: its
        pooled connections would otherwise stay open until the garbage collector meets them."""
        self._owned.append(client)
        return client

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("ModelServer is not started: use `with ModelServer() as srv:`")
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """Base URL without ``/v1`` (what Claude Code and the anthropic SDK take)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def v1(self) -> str:
        """Base URL with ``/v1`` (what the openai SDK and codex take)."""
        return self.url + "/v1"

    # -- script ----------------------------------------------------------------------------

    def enqueue(self, *replies: Reply) -> None:
        """Add replies to the queue, consumed one per model call."""
        with self._lock:
            self._queue.extend(replies)

    def clear(self) -> None:
        """Forget queued replies and recorded requests (the responder and faults stay)."""
        with self._lock:
            self._queue.clear()
            self._requests.clear()

    @property
    def pending(self) -> int:
        """How many queued replies are still unused."""
        with self._lock:
            return len(self._queue)

    # -- records ---------------------------------------------------------------------------

    @property
    def requests(self) -> list[RecordedRequest]:
        """A snapshot of every request received, oldest first."""
        with self._lock:
            return list(self._requests)

    def model_requests(
        self, api: Api | None = None, *, side: bool = False
    ) -> list[RecordedRequest]:
        """Model calls only (optionally one API); Claude's title requests only with ``side``."""
        return [
            r
            for r in self.requests
            if r.call is not None and (api is None or r.api == api) and (side or not r.side)
        ]

    def model_calls(self, api: Api | None = None) -> list[ModelCall]:
        """The parsed view of each scripted model call, oldest first."""
        return [r.call for r in self.model_requests(api) if r.call is not None]

    @property
    def faults(self) -> list[RecordedRequest]:
        """The model calls answered with an injected ``fail_rate`` error."""
        return [r for r in self.requests if r.fault]

    def record(self, rec: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(rec)

    def new_id(self, prefix: str) -> str:
        """A unique, deterministic id with a provider-style prefix."""
        return f"{prefix}{next(self._ids):024d}"

    # -- answering -------------------------------------------------------------------------

    def route(self, path: str) -> tuple[Api, Callable[..., ModelCall]] | None:
        bare = path.split("?", 1)[0].rstrip("/")
        if bare in ROUTES:
            return ROUTES[bare]
        return ("gemini", gemini_wire.parse) if gemini_wire.handles(bare) else None

    def answer(self, rec: RecordedRequest) -> Answer:
        """Choose and render the answer to a recorded model call (may sleep)."""
        assert rec.call is not None
        with self._lock:
            self._inflight += 1
            self.peak_concurrency = max(self.peak_concurrency, self._inflight)
        try:
            reply = self._choose(rec)
            rec.reply = reply
            reply = self._wait(reply)
            if self.delay:
                self.stopping.wait(self.delay)
            return self.render(rec.call, reply, cache=True)
        finally:
            with self._lock:
                self._inflight -= 1

    def _choose(self, rec: RecordedRequest) -> Reply:
        call = rec.call
        assert call is not None
        if is_title_request(call):
            rec.side = True
            schema = dict(call.json_schema or {})
            value = example_for_schema(schema)
            if isinstance(value, dict) and "title" in value:
                value["title"] = self.title
            return Text(json.dumps(value))
        with self._lock:
            if self.fail_rate and self._rng.random() < self.fail_rate:
                rec.fault = True
                self._faults += 1
                if self._faults % 2:
                    return Error(429, headers={"retry-after": "0"})
                return Error(529 if call.api == "anthropic" else 500)
            queued = self._queue.popleft() if self._queue else None
        if queued is not None:
            return queued
        try:
            return self.responder(call)
        except Exception as exc:
            self.responder_errors.append(exc)
            return Error(500, message=f"responder raised {type(exc).__name__}: {exc}")

    def _wait(self, reply: Reply) -> Reply:
        while isinstance(reply, Delay):
            self.stopping.wait(reply.seconds)
            reply = reply.then
        return reply

    def render(self, call: ModelCall, reply: Reply, *, cache: bool = False) -> Answer:
        """The HTTP answer for a (non-Delay) reply in the call's wire format; with ``cache``, its
        usage reports the prompt cache (a successful call's prefixes are then cached)."""
        if isinstance(reply, Error):
            return self.error_answer(call.api, reply)
        if isinstance(reply, Disconnect):
            return Answer(status=DROPPED, drop=True)
        if isinstance(reply, Malformed):
            if call.stream:
                first = "message_start" if call.api == "anthropic" else None
                return stream_answer([sse(reply.body, first)])
            return Answer(body=reply.body.encode())
        if isinstance(reply, (Text, ToolCall, CustomToolCall)):
            use: CacheUse = self.cache.lookup(call.api, call.body) if cache else NO_CACHE
            answer = RENDER[call.api](call, reply, self.new_id, use)
            self.cache.commit(use)
            return answer
        raise TypeError(f"not a reply: {reply!r}")

    def error_answer(self, api: Api | None, err: Error) -> Answer:
        """An error in the provider's real JSON shape (or ``err.body`` verbatim)."""
        wire: Any = {"anthropic": anthropic_wire, "gemini": gemini_wire}.get(api or "", openai_wire)
        headers = {k.lower(): v for k, v in err.headers.items()}
        headers.setdefault(
            "request-id" if api == "anthropic" else "x-request-id", self.new_id("req_")
        )
        if err.status not in RETRYABLE:
            # Without it Claude Code retries even a 401 for minutes; the SDKs honour it too.
            headers.setdefault("x-should-retry", "false")
        if err.body is None:
            message = err.message or wire.default_error_message(err.status)
            return json_answer(wire.error_body(err.status, message), err.status, headers)
        if isinstance(err.body, (bytes, str)):
            raw = err.body.encode() if isinstance(err.body, str) else err.body
            return Answer(status=err.status, body=raw, headers=headers)
        return json_answer(err.body, err.status, headers)

    def models_answer(self, headers: Mapping[str, str]) -> Answer:
        """``GET /v1/models`` in the Anthropic or OpenAI shape (by the request's headers)."""
        if "anthropic-version" in headers or "x-api-key" in headers:
            data = [
                {"type": "model", "id": m, "display_name": m, "created_at": "2025-01-01T00:00:00Z"}
                for m in self.models
            ]
            return json_answer(
                {
                    "data": data,
                    "has_more": False,
                    "first_id": data[0]["id"] if data else None,
                    "last_id": data[-1]["id"] if data else None,
                }
            )
        return json_answer(
            {
                "object": "list",
                "data": [
                    {"id": m, "object": "model", "created": 1735689600, "owned_by": "loopback"}
                    for m in self.models
                ],
            }
        )
