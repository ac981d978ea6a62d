"""A SkillOpt adapter's batch rollout, called once per batch.

The run asks for one rollout at a time (an item, a sample); a SkillOpt ``EnvAdapter`` rolls out a
batch: ``rollout(env_manager, skill_content, out_dir)`` over a list of items, one scored row per
item. The rollouts the run starts together (a phase's: a step's batch, a validation split, a
test report) under one skill are gathered into batches that hold each item once (K samples of a
step's items make K batches); each batch is one call of the adapter, and its rows go back to
their items by ``id`` (by position when the adapter returned as many rows and none of the ids).

Batches are rolled out one after another, as SkillOpt's own trainer calls them; inside a batch the
adapter's own threads make its model calls, which the run holds to its concurrency limit and
checks against its budget before each one (:class:`~..rollouts.replay.Replayer`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..backends.base import Backend

Row = dict[str, Any]


@dataclass
class Pending:
    """One rollout waiting for its batch: the seed item and the sample's seed."""

    record_id: str
    item: Mapping[str, Any]
    seed: int
    done: asyncio.Future[Row | None]


@dataclass
class Batch:
    """Rollouts under one skill, each item at most once."""

    key: Hashable
    skill: str
    backend: Backend
    max_tokens: int
    pending: list[Pending] = field(default_factory=list)

    @property
    def items(self) -> list[Mapping[str, Any]]:
        return [p.item for p in self.pending]

    @property
    def seed(self) -> int:
        """The batch's sample: its first rollout's (a paired draw under another skill has it too)."""
        return self.pending[0].seed


RollOut = Callable[[Batch], Awaitable[Sequence[Any]]]


class Batcher:
    """Gathers the rollouts started together into batches and hands each to ``roll_out``."""

    def __init__(self, roll_out: RollOut, as_row: Callable[[Any], Row]) -> None:
        self.roll_out, self.as_row = roll_out, as_row
        self.calls: list[int] = []  # the size of each batch handed over, in order
        self._open: list[Batch] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self._lock: asyncio.Lock | None = None

    async def submit(
        self,
        record_id: str,
        item: Mapping[str, Any],
        skill: str,
        backend: Backend,
        *,
        seed: int,
        max_tokens: int,
    ) -> Row | None:
        """The row the adapter returned for ``item`` (None: it returned none for it)."""
        loop = asyncio.get_running_loop()
        key = (skill, max_tokens, id(getattr(backend, "backend", backend)))
        batch = next(
            (
                b
                for b in self._open
                if b.key == key and all(p.record_id != record_id for p in b.pending)
            ),
            None,
        )
        if batch is None:
            batch = Batch(key, skill, backend, max_tokens)
            self._open.append(batch)
            task = loop.create_task(self._flush(batch))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        done: asyncio.Future[Row | None] = loop.create_future()
        batch.pending.append(Pending(record_id, item, seed, done))
        return await done

    async def _flush(self, batch: Batch) -> None:
        # The rollouts started with this one run their first step before this task's: one turn
        # of the loop and they have all joined.
        await asyncio.sleep(0)
        self._open.remove(batch)
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            self.calls.append(len(batch.pending))
            try:
                rows = self.matched(batch, await self.roll_out(batch))
            except BaseException as exc:
                for p in batch.pending:
                    if not p.done.done():
                        p.done.set_exception(exc)
                if not isinstance(exc, Exception):
                    raise
                return
        for p, row in zip(batch.pending, rows, strict=True):
            if not p.done.done():
                p.done.set_result(row)

    def matched(self, batch: Batch, given: Sequence[Any]) -> list[Row | None]:
        """Each pending rollout's row: by the item's ``id``, else by position."""
        rows = [self.as_row(r) for r in given or ()]
        by_id: dict[str, Row] = {}
        for row in rows:
            by_id.setdefault(str(row.get("id")), row)
        ids = [str(p.item.get("id", p.record_id)) for p in batch.pending]
        if len(rows) == len(ids) and not any(i in by_id for i in ids):
            return list(rows)  # the adapter renamed its episodes: the rows are in item order
        return [by_id.get(i) for i in ids]
