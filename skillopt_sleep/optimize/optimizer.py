"""Calls to the optimizer model in a training run, through the night's one ask path
(:func:`~skillopt_sleep.optimize.proposer.ask_optimizer`): one request, one retry on an unusable
reply, never a crash. At most ``concurrency`` calls are in flight at once (a step's analysts and
merges are asked together). A reply that cannot be parsed twice, or a call that failed after its
retries, is *no proposal* (recorded in ``skipped``); only systemic failures raise. The reply is
parsed before redaction, so the guards refuse a rule that carries a secret.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from ..backends.base import Backend, Message, Request
from ..rollouts.replay import Calls
from .proposer import ask_optimizer

T = TypeVar("T")


@dataclass
class Optimizer:
    """The optimizer backend, called through the run's budget and retries."""

    backend: Backend
    calls: Calls
    max_tokens: int = 2048
    concurrency: int = 1
    skipped: list[str] = field(default_factory=list)
    log: list[dict[str, str]] = field(default_factory=list)  # this unit's prompts and replies
    _limit: asyncio.Semaphore | None = field(default=None, repr=False)

    async def ask(
        self, system: str, prompt: str, parse: Callable[[str], T], *, seed: int, tag: str
    ) -> T | None:
        """``parse`` of the reply to ``prompt`` (as it came: redact what is kept); None when no
        usable reply came."""
        request = Request(
            "optimizer",
            system,
            (Message("user", prompt),),
            max_tokens=self.max_tokens,
            seed=seed,
            tag=tag,
        )
        if self._limit is None:
            self._limit = asyncio.Semaphore(self.concurrency)
        async with self._limit:
            asked = await ask_optimizer(
                self.backend, self.calls, request, parse, self.skipped, f"{tag}: "
            )
        if asked is None:
            return None
        self.log.append(
            {"tag": tag, "system": system, "prompt": asked.prompt, "reply": asked.reply}
        )
        return asked.value
