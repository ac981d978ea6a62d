"""A scripted backend for tests: answers are enqueued, calls are kept in ``history``."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping

from ..errors import BackendError
from ..settings import RoleSettings
from .base import Completion, Health, Request

Reply = str | Completion | BackendError | Callable[[Request], "str | Completion"]


class ScriptedBackend:
    """Answers from a queue (or a ``responder`` function when the queue is empty).

    An enqueued ``BackendError`` is raised instead of answered, to script outages.
    """

    name = "scripted"

    def __init__(
        self,
        replies: list[Reply] | None = None,
        *,
        model: str = "scripted",
        responder: Callable[[Request], str | Completion] | None = None,
    ) -> None:
        self.model = model
        self._queue: deque[Reply] = deque(replies or [])
        self._responder = responder
        self.history: list[Request] = []

    @classmethod
    def from_settings(cls, role: RoleSettings, env: Mapping[str, str]) -> ScriptedBackend:
        return cls(model=role.model or "scripted", responder=lambda r: "ok")

    def enqueue(self, *replies: Reply) -> None:
        self._queue.extend(replies)

    async def complete(self, request: Request) -> Completion:
        self.history.append(request)
        reply: Reply | None = self._queue.popleft() if self._queue else self._responder
        if reply is None:
            raise AssertionError("ScriptedBackend: no reply enqueued for " + request.tag)
        if isinstance(reply, BackendError):
            raise reply
        if callable(reply) and not isinstance(reply, (str, Completion)):
            reply = reply(request)
        if isinstance(reply, Completion):
            return reply
        return Completion(
            text=reply,
            input_tokens=len(request.prompt) // 4 + 1,
            output_tokens=len(reply) // 4 + 1,
            cost_usd=0.0,
            model=self.model,
        )

    async def check(self) -> Health:
        return Health(True, "scripted backend")
