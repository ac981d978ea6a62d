"""What the model server records of a request, and the view of the server its HTTP side and batch desk use.

A leaf module: :mod:`.handler` and :mod:`.batch_wire` talk to the server through :class:`ServerView`,
so neither imports :mod:`.server`, which builds them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from .replies import Api, Error, ModelCall, Reply
from .wire import Answer

DROPPED = -1  # RecordedRequest.status of a connection closed without an answer


@dataclass
class RecordedRequest:
    """One request as the server saw it, and how it was answered.

    ``status`` is 0 while the answer is still pending, -1 for a ``Disconnect``. ``fault`` is true for an injected
    ``fail_rate`` error; ``side`` for Claude Code's session-title request (answered
    automatically, outside the script); ``batch`` the id of the batch a request came in.
    """

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    api: Api | None = None
    call: ModelCall | None = None
    reply: Reply | None = None
    status: int = 0
    fault: bool = False
    side: bool = False
    batch: str | None = None
    started: float = field(default_factory=time.monotonic)
    finished: float | None = None


class BatchRoutes(Protocol):
    """The batch endpoints of the server, as its HTTP side sees them."""

    def handles(self, path: str) -> bool: ...
    def post(self, path: str, raw: bytes, headers: Mapping[str, str]) -> Answer: ...
    def get(self, path: str) -> Answer: ...


class ServerView(Protocol):
    """What the HTTP side and the batch desk need of the model server: routing, answering, recording."""

    batch_polls: int
    hold_batches: bool
    batch_expire_after: int | None

    @property
    def batches(self) -> BatchRoutes: ...
    @property
    def url(self) -> str: ...
    def route(self, path: str) -> tuple[Api, Callable[..., ModelCall]] | None: ...
    def answer(self, rec: RecordedRequest) -> Answer: ...
    def record(self, rec: RecordedRequest) -> None: ...
    def error_answer(self, api: Api | None, err: Error) -> Answer: ...
    def models_answer(self, headers: Mapping[str, str]) -> Answer: ...
    def new_id(self, prefix: str) -> str: ...
