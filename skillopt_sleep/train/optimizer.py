"""Calls to the optimizer model: one request, one retry on an unusable reply, never a crash.

A reply that cannot be parsed twice, or a call that failed after its retries, is *no proposal*
(recorded in ``skipped``); only systemic failures (auth, bad request, outage, budget) raise.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from ..backends.base import Backend, Message, Request
from ..errors import BackendError, MalformedOutput
from ..night.reflect import RETRY_NOTE
from ..night.replay import Calls
from ..redact import redact

T = TypeVar("T")


@dataclass
class Optimizer:
    """The optimizer backend, called through the run's budget and retries."""

    backend: Backend
    calls: Calls
    max_tokens: int = 2048
    skipped: list[str] = field(default_factory=list)
    log: list[dict[str, str]] = field(default_factory=list)  # this unit's prompts and replies

    async def ask(
        self, system: str, prompt: str, parse: Callable[[str], T], *, seed: int, tag: str
    ) -> T | None:
        """``parse`` of the reply to ``prompt``; None when no usable reply came."""
        for attempt in (prompt, prompt + RETRY_NOTE):
            request = Request(
                "optimizer",
                system,
                (Message("user", attempt),),
                max_tokens=self.max_tokens,
                seed=seed,
                tag=tag,
            )
            try:
                reply = await self.calls(self.backend, request)
                parsed = parse(reply.text)
            except MalformedOutput as exc:
                self.skipped.append(f"{tag}: optimizer reply unusable: {exc.one_line()}")
                continue
            except BackendError as exc:
                if not exc.retryable:
                    raise
                self.skipped.append(f"{tag}: optimizer failed: {exc.one_line()}")
                return None
            self.log.append(
                {
                    "tag": tag,
                    "system": system,
                    "prompt": redact(attempt),
                    "reply": redact(reply.text),
                }
            )
            return parsed
        return None
