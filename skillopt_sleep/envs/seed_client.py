"""The seeds' model client, backed by a :class:`~..backends.base.Backend`.

An environment written for skillrl or SkillOpt calls its model synchronously,
``client.chat(system=..., user=...) -> (text, usage)``, from a worker thread. :class:`BackendClient`
is that client over one of our backends: each call is sent to the event loop the run lives on
(so it goes through the run's budget, retries, breaker and redaction) and the worker thread waits
for the answer. Outside a running loop (a user calling it by hand) it runs the call itself.

A systemic failure (budget spent, a refused key, an outage) is remembered in :attr:`fatal` even
when the environment's own code catches it, so the run still stops on it.
"""

from __future__ import annotations

import asyncio
import threading
from abc import ABC, abstractmethod
from typing import Any

from ..backends.base import Backend, Message, Request, Role
from ..errors import BackendError
from .task_record import item_failed


class BaseLLMClient(ABC):
    """The seeds' client contract: one completion for a system and a user prompt."""

    model: str = ""

    @abstractmethod
    def chat(
        self,
        *,
        system: str,
        user: str,
        max_completion_tokens: int = 4096,
        temperature: float | None = None,
        stage: str = "",
        retries: int = 3,
        **kwargs: Any,
    ) -> tuple[str, dict[str, int]]:
        """``(text, usage)``; usage holds ``prompt_tokens``, ``completion_tokens``,
        ``total_tokens``."""


class BackendClient(BaseLLMClient):
    """A seed client whose calls are ``backend.complete`` in the role ``role``.

    ``loop`` is the loop the backend's calls must run on (the run's); None: each call runs its own.
    ``seed`` names the sample (the n-th call of one rollout gets ``seed + n``); ``per_prompt``
    counts the calls per user prompt instead (the n-th call with that prompt gets ``seed + n``):
    a batch rolled out by the environment's own threads, in whatever order they call, draws the
    same sample for an item every time. ``retries`` of the seeds is ignored: the run's retry
    policy applies to every call.
    """

    def __init__(
        self,
        backend: Backend,
        *,
        role: Role = "target",
        loop: asyncio.AbstractEventLoop | None = None,
        seed: int | None = None,
        max_tokens: int | None = None,
        per_prompt: bool = False,
    ) -> None:
        self.backend, self.role, self.loop = backend, role, loop
        self.per_prompt = per_prompt
        self._asked: dict[str, int] = {}
        self.model = backend.model
        self.seed, self.max_tokens = seed, max_tokens
        self.fatal: BackendError | None = None
        self.calls = 0
        self._lock = threading.Lock()

    def chat(
        self,
        *,
        system: str,
        user: str,
        max_completion_tokens: int = 4096,
        temperature: float | None = None,
        stage: str = "",
        retries: int = 3,
        **kwargs: Any,
    ) -> tuple[str, dict[str, int]]:
        with self._lock:
            n, self.calls = self.calls, self.calls + 1
            if self.per_prompt:
                n = self._asked.get(user, 0)
                self._asked[user] = n + 1
        cap = self.max_tokens or max_completion_tokens
        request = Request(
            self.role,
            system,
            (Message("user", user),),
            max_tokens=min(cap, max_completion_tokens),
            temperature=temperature,
            seed=None if self.seed is None else self.seed + n,
            tag=stage or ("replay" if self.role == "target" else "reflect"),
        )
        try:
            done = self._run(request)
        except BackendError as exc:
            if not item_failed(exc) and self.fatal is None:
                self.fatal = exc
            raise
        usage = {
            "prompt_tokens": done.input_tokens,
            "completion_tokens": done.output_tokens,
            "total_tokens": done.input_tokens + done.output_tokens,
        }
        return done.text, usage

    def _run(self, request: Request) -> Any:
        if self.loop is None:
            return asyncio.run(self.backend.complete(request))
        future = asyncio.run_coroutine_threadsafe(self.backend.complete(request), self.loop)
        return future.result()
