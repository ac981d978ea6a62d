"""The batch API seam: one small protocol both providers' batch endpoints follow, and what they return.

Both charge half price and answer within 24 hours (usually minutes). A request's answer comes
back as the same :class:`Completion` a synchronous call gives (``batched`` set), or as the
``BackendError`` its status maps to: a request that expired or was cancelled before it ran is a
``TransientError``, so the retry layer sends it again, in a new batch. The providers' classes live
with their backends (:mod:`.anthropic_api`, :mod:`.openai_api`); :mod:`.batching` knows only this.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ..errors import BackendError, TransientError
from .base import Completion, Request

Outcome = Completion | BackendError


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


def not_run(why: str) -> TransientError:
    """A request its batch ended without running: sent again, in a new batch."""
    return TransientError(f"the batch {why} before this request ran", hint="it is sent again")
