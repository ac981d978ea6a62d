"""A Backend that sends the requests made together as one provider batch (half price).

The night issues all of a phase's requests at once (the replays of every task K times, then
their rubric checks), each through the retry layer, which checks the budget and holds the call's
share of it *before* handing the request over. :class:`BatchingBackend` gathers the requests that
arrive together (until ``gather_s`` passes without a new one), submits them as one batch, records
the batch id in the store *before* polling, polls every ``poll_s`` seconds, and resolves each
caller with its own outcome. So the pipeline is unchanged, the budget refuses what a batch could
not afford before it is submitted, and partial failures stay per request.

* Resume: a rerun (after a crash or ``kill -9``) whose requests match a recorded, unfinished
  batch polls and fetches that batch instead of submitting (and paying for) them again.
* Expiry and cancellation: a request the provider did not run comes back as a ``TransientError``,
  which the retry layer sends again in a new batch.
* Ctrl-C (or every caller giving up): the batch is cancelled at the provider.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import BackendError, TransientError
from ..store import Store
from .base import Completion, Health, Request
from .batch_api import BatchApi, Outcome

KEEP_S = 29 * 86400  # how long a provider keeps a batch's results
MAX_POLL_FAILURES = 10


@dataclass
class _Item:
    request: Request
    future: asyncio.Future[Completion]


def custom_ids(model: str, requests: Sequence[Request]) -> list[str]:
    """A stable id per request: a hash of everything that shapes its answer, numbered among
    identical requests (so a rerun of the same phase maps onto the same ids)."""
    seen: dict[str, int] = {}
    out = []
    for r in requests:
        shape = [
            model,
            r.role,
            r.system,
            [[m.role, m.content] for m in r.messages],
            r.max_tokens,
            r.temperature,
            r.seed,
            r.tag,
        ]
        digest = hashlib.sha256(json.dumps(shape).encode()).hexdigest()[:40]
        n = seen.get(digest, 0)
        seen[digest] = n + 1
        out.append(f"{digest}-{n}")
    return out


class BatchJournal:
    """Batch ids and their request ids, kept in the store from submission until fetched."""

    PREFIX = "batch:"

    def __init__(self, store: Store, clock: Callable[[], float] = time.time) -> None:
        self.store, self.clock = store, clock

    def _key(self, scope: str, batch_id: str) -> str:
        return f"{self.PREFIX}{scope}:{batch_id}"

    def record(self, scope: str, batch_id: str, ids: Sequence[str]) -> None:
        entry = {"ids": list(ids), "state": "open", "created": self.clock()}
        self.store.set_meta(self._key(scope, batch_id), json.dumps(entry))

    def open_batches(self, scope: str) -> dict[str, set[str]]:
        """Unfinished batches of ``scope`` whose results the provider still keeps."""
        out = {}
        for key, raw in self.store.meta_items(f"{self.PREFIX}{scope}:").items():
            entry = json.loads(raw)
            if entry["state"] == "open" and self.clock() - entry["created"] < KEEP_S:
                out[key.rsplit(":", 1)[1]] = set(entry["ids"])
        return out

    def close(self, scope: str, batch_id: str, state: str) -> None:
        key = self._key(scope, batch_id)
        raw = self.store.get_meta(key)
        if raw is not None:
            self.store.set_meta(key, json.dumps(dict(json.loads(raw), state=state)))


@dataclass
class BatchLog:
    """What a batching backend did, for the night's notes, tests and benchmarks."""

    submitted: list[str] = field(default_factory=list)
    resumed: list[str] = field(default_factory=list)
    cancelled: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


class BatchingBackend:
    """Wraps an SDK backend: ``complete`` waits for its request's answer from a batch.

    ``collects_requests`` tells the replayer to hand over a phase's requests all at once;
    ``batched`` makes the budget hold each call's share at the batch price.
    """

    batched = True
    collects_requests = True

    def __init__(
        self,
        inner: Any,
        api: BatchApi,
        *,
        journal: BatchJournal | None = None,
        poll_s: float = 30.0,
        gather_s: float = 0.05,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        self.inner, self.api, self.journal = inner, api, journal
        self.name, self.model = inner.name, inner.model
        self.poll_s, self.gather_s, self.sleep = poll_s, gather_s, sleep
        self.scope = f"{api.provider}:{getattr(inner, 'base_url', '')}"
        self.log = BatchLog()
        self._pending: list[_Item] = []
        self._collector: asyncio.Task[None] | None = None
        self._rounds: set[asyncio.Task[None]] = set()

    async def check(self) -> Health:
        return await self.inner.check()  # type: ignore[no-any-return]

    async def complete(self, request: Request) -> Completion:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Completion] = loop.create_future()
        self._pending.append(_Item(request, future))
        if self._collector is None or self._collector.done():
            self._collector = loop.create_task(self._collect())
        return await future

    async def _collect(self) -> None:
        """Wait until no new request arrives for ``gather_s``, then start a batch round."""
        seen = -1
        while len(self._pending) != seen:
            seen = len(self._pending)
            await asyncio.sleep(self.gather_s)
        items, self._pending = self._pending, []
        task = asyncio.get_running_loop().create_task(self._round(items))
        self._rounds.add(task)
        task.add_done_callback(self._rounds.discard)

    async def _round(self, items: list[_Item]) -> None:
        ids = custom_ids(self.model, [i.request for i in items])
        live = dict(zip(ids, items, strict=True))
        groups: list[tuple[str, list[str]]] = []
        claimed: set[str] = set()
        if self.journal is not None:
            for batch_id, known in self.journal.open_batches(self.scope).items():
                mine = [cid for cid in ids if cid in known and cid not in claimed]
                if mine:
                    claimed.update(mine)
                    groups.append((batch_id, mine))
                    self.log.resumed.append(batch_id)
        fresh = [cid for cid in ids if cid not in claimed]
        if fresh:
            try:
                batch_id = await self.api.submit([(cid, live[cid].request) for cid in fresh])
            except BackendError as exc:
                self._resolve(dict.fromkeys(fresh, exc), live)
            else:
                if self.journal is not None:
                    self.journal.record(self.scope, batch_id, fresh)
                self.log.submitted.append(batch_id)
                groups.append((batch_id, fresh))
        await asyncio.gather(
            *(self._follow(batch_id, {c: live[c] for c in mine}) for batch_id, mine in groups)
        )

    async def _follow(self, batch_id: str, items: dict[str, _Item]) -> None:
        """Poll one batch until it ends, then resolve its callers; cancel it if they all left."""
        failures = 0
        try:
            while True:
                if all(i.future.done() for i in items.values()):
                    await self._cancel(batch_id)
                    return
                try:
                    results = await self.api.poll(batch_id)
                except BackendError as exc:
                    failures += 1
                    if not exc.retryable or failures >= MAX_POLL_FAILURES:
                        self._resolve(dict.fromkeys(items, exc), items)
                        return
                    results = None
                if results is not None:
                    break
                await self.sleep(self.poll_s)
        except asyncio.CancelledError:
            await self._cancel(batch_id)  # interrupted: stop paying for answers nobody will read
            raise
        missing = TransientError(f"the batch {batch_id} returned no answer for this request")
        self._resolve({cid: results.get(cid, missing) for cid in items}, items)
        if self.journal is not None:
            self.journal.close(self.scope, batch_id, "done")

    def _resolve(self, outcomes: dict[str, Outcome], items: dict[str, _Item]) -> None:
        for cid, outcome in outcomes.items():
            future = items[cid].future
            if future.done():
                continue
            if isinstance(outcome, BaseException):
                future.set_exception(outcome)
            else:
                future.set_result(outcome)

    async def _cancel(self, batch_id: str) -> None:
        self.log.cancelled.append(batch_id)
        if self.journal is not None:
            self.journal.close(self.scope, batch_id, "cancelled")
        try:
            await self.api.cancel(batch_id)
        except BackendError as exc:
            self.log.problems.append(f"could not cancel batch {batch_id}: {exc.one_line()}")


def batching(backend: Any, store: Store | None, *, poll_s: float) -> Any:
    """``backend`` wrapped to use its provider's batch API, or ``backend`` itself when its
    provider has none (the agent CLIs, the simulated backend)."""
    make_api = getattr(backend, "batch_api", None)
    if make_api is None:
        return backend
    journal = BatchJournal(store) if store is not None else None
    return BatchingBackend(backend, make_api(), journal=journal, poll_s=poll_s)
