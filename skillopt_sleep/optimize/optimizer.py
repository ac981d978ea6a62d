"""The optimizer's one ask path, and the client every analyst asks through.

:func:`ask_optimizer` makes one request, asks once more on an unusable reply, and never crashes on
a reply: a reply that cannot be parsed twice, or a call that failed after its retries, is *no
answer* (noted); only systemic failures (auth, bad request, outage, budget) raise. The reply is
parsed as it came, before any redaction, so that the guards see a secret in a proposed rule and
refuse it; what is kept (the prompt and reply for the record) is redacted.

:class:`Optimizer` is that path with the run's budget and retries: at most ``concurrency`` calls in
flight at once (a training step's analysts and merges are asked together). The night's analyst
(:class:`~.proposer.OptimizerProposer`) and training's (:mod:`.analysts`) both ask through it.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from ..backends.base import Backend, Message, Request
from ..errors import BackendError, MalformedOutput
from ..redact import redact
from ..rollouts.replay import Calls
from .reflect import RETRY_NOTE

T = TypeVar("T")


@dataclass(frozen=True)
class Asked(Generic[T]):
    """A usable answer: the parsed reply, and the prompt and reply that gave it (both redacted)."""

    value: T
    prompt: str
    reply: str


async def ask_optimizer(
    optimizer: Backend,
    calls: Calls,
    request: Request,
    parse: Callable[[str], T],
    notes: list[str],
    label: str = "",
) -> Asked[T] | None:
    """``parse`` of the optimizer's reply to ``request`` (its one user message asked once more,
    with a note, when the first reply is unusable); None, with a line in ``notes``, when no usable
    reply came. ``label`` starts each note."""
    prompt = request.messages[0].content
    for attempt in (prompt, prompt + RETRY_NOTE):
        asked = dataclasses.replace(request, messages=(Message("user", attempt),))
        try:
            reply = await calls(optimizer, asked, raw_reply=True)  # the guards see any secret
            value = parse(reply.text)
        except MalformedOutput as exc:
            notes.append(f"{label}optimizer reply unusable: {exc.one_line()}")
            continue
        except BackendError as exc:
            if not exc.retryable:
                raise
            notes.append(f"{label}optimizer failed: {exc.one_line()}")
            return None
        return Asked(value, redact(attempt), redact(reply.text))
    return None


@dataclass
class Optimizer:
    """The optimizer backend, called through the run's budget and retries; what could not be
    asked is noted in ``skipped``."""

    backend: Backend
    calls: Calls
    max_tokens: int = 2048
    concurrency: int = 1
    skipped: list[str] = field(default_factory=list)
    log: list[dict[str, str]] = field(default_factory=list)  # this unit's prompts and replies
    _limit: asyncio.Semaphore | None = field(default=None, repr=False)

    async def asked(
        self,
        system: str,
        prompt: str,
        parse: Callable[[str], T],
        *,
        seed: int,
        tag: str,
        label: str | None = None,
    ) -> Asked[T] | None:
        """``parse`` of the reply to ``prompt`` (as it came: redact what is kept) with the prompt
        and reply that gave it; None when no usable reply came (noted, after ``label``: the tag by
        default)."""
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
        noted = f"{tag}: " if label is None else label
        async with self._limit:
            asked = await ask_optimizer(
                self.backend, self.calls, request, parse, self.skipped, noted
            )
        if asked is not None:
            self.log.append(
                {"tag": tag, "system": system, "prompt": asked.prompt, "reply": asked.reply}
            )
        return asked

    async def ask(
        self, system: str, prompt: str, parse: Callable[[str], T], *, seed: int, tag: str
    ) -> T | None:
        """``parse`` of the reply to ``prompt``; None when no usable reply came."""
        asked = await self.asked(system, prompt, parse, seed=seed, tag=tag)
        return None if asked is None else asked.value
